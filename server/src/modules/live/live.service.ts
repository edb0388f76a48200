import type {
  JoinChallenge,
  JoinedSession,
  JoinSessionInput,
  LiveAdvanceInput,
  LiveAnswerInput,
  LiveAnswerReceipt,
  LiveUpvoteInput,
  ParticipantProgress,
  Poll,
  Question,
  Slide,
} from '@pollkit/contracts';
import type { z } from 'zod';
import type { Config } from '../../config.js';
import { ApiError } from '../../core/api-error.js';
import type { Clock } from '../../core/clock.js';
import type { EventFeed } from '../../core/event-stream.js';
import { hashSecret, newSecret } from '../../core/secrets.js';
import { newId } from '../../db/ids.js';
import type { AnswerValue, ParticipantRow, SessionRow } from '../../db/schema.js';
import type { RateLimitStore } from '../../infra/rate-limit.js';
import { responseValue, voteValue } from '../answers/answer-rules.js';
import { type AnswersDeps, recordAnswer } from '../answers/answers.service.js';
import { answeredSlides, participantScore } from '../answers/index.js';
import { namePolicy } from '../moderation/index.js';
import { outcomeOfAnswer } from '../polls/branching-rules.js';
import { getPoll } from '../polls/polls.service.js';
import { upvoteQuestion } from '../questions/questions.service.js';
import { isPastClosing, snapshotOf } from '../sessions/index.js';
import type { JoinChallenges } from './join-challenge.js';
import type { LiveCaller } from './live-caller.js';
import type { LiveHub } from './live-hub.js';
import { currentSlide, liveState, quizPoints } from './live-views.js';
import { moveOn, placeOf, progressOf, storedOutcome } from './self-paced.js';
import { hasJoinCode } from './session-cache.js';
import { reachedAt, scoresShown, slideOf, walkState } from './walk-state.js';

export interface LiveDeps extends AnswersDeps {
  liveHub: LiveHub;
  rateLimits: RateLimitStore;
  config: Pick<Config, 'LIVE_QA_QUESTIONS_PER_PARTICIPANT_PER_MINUTE' | 'LIVE_QA_QUESTIONS_PER_IP_PER_MINUTE'>;
  /** Times quiz answers against the slide's start, which session control stamps by the same clock. */
  clock: Clock;
  /** Issues and checks the join challenge of sessions with `joinChallenge: "pow"` (join-challenge.ts). */
  joinChallenges: JoinChallenges;
}

/** Participant tokens: `ptk_` + 32 random bytes; stored as SHA-256 like every other secret. */
const TOKEN_PREFIX = 'ptk_';

/**
 * Resolves what a participant route's caller sent: the session its PIN names (none when no open
 * session has it: unknown and ended PINs look alike) and the participant its token names.
 */
export async function resolveLiveCaller(
  hub: LiveHub,
  pin: string,
  token: string | undefined,
): Promise<Omit<LiveCaller, 'address'> | undefined> {
  const session = await hub.sessionByCode(pin);
  return session && callerOf(hub, session, token);
}

/**
 * The caller when its token names a participant of the session this PIN names — found from the
 * token (participant, then its session), never by looking the PIN up, so a token holder spends no
 * PIN budget and learns nothing about other PINs. An ended session counts only for an event stream
 * reconnecting within ten minutes of the end. Undefined otherwise: the caller is then anonymous.
 */
export async function resolveTokenHolder(
  hub: LiveHub,
  pin: string,
  token: string,
  isStream: boolean,
): Promise<Omit<LiveCaller, 'address'> | undefined> {
  if (!token.startsWith(TOKEN_PREFIX)) return undefined;
  const participant = await hub.participantByTokenHash(hashSecret(token));
  if (!participant) return undefined;
  const session = await hub.freshSession(participant.session_id);
  if (!session || !hasJoinCode(session, pin)) return undefined;
  if (session.status === 'ended' && !(isStream && hub.endedLately(session))) return undefined;
  return { session, participant, tokenRejected: false, token };
}

/**
 * An event stream may also reconnect to a session that ended lately: it is sent what it missed,
 * the end summary last, and closed — rather than a 404 that would leave it without the summary.
 */
export async function resolveEndedLiveCaller(
  hub: LiveHub,
  pin: string,
  token: string | undefined,
): Promise<Omit<LiveCaller, 'address'> | undefined> {
  const session = await hub.recentlyEndedSession(pin);
  return session && callerOf(hub, session, token);
}

async function callerOf(
  hub: LiveHub,
  session: SessionRow,
  token: string | undefined,
): Promise<Omit<LiveCaller, 'address'>> {
  if (token === undefined) return { session, participant: undefined, tokenRejected: false, token };
  const participant = token.startsWith(TOKEN_PREFIX) ? await hub.participantByTokenHash(hashSecret(token)) : undefined;
  if (participant?.session_id !== session.id) return { session, participant: undefined, tokenRejected: true, token };
  return { session, participant, tokenRejected: false, token };
}

function toParticipant(row: ParticipantRow, score: number) {
  return { id: row.id, name: row.name, score, joinedAt: row.created_at.toISOString() };
}

/**
 * `POST /live/{pin}/join`. A token that names a participant of this session resumes it (name,
 * answers and score kept); otherwise a new participant joins. An unknown token is not an error
 * here (it may be from an earlier session on the same PIN): the caller simply joins anew.
 */
export async function joinSession(
  deps: LiveDeps,
  caller: LiveCaller,
  input: z.output<typeof JoinSessionInput>,
): Promise<JoinedSession> {
  const { session } = caller;
  // Past its closing time a session takes nobody new, as if ended (the closer ends it within moments).
  if (isPastClosing(session, deps.clock.now()) && !caller.participant) {
    throw ApiError.notFound('Session');
  }
  // A newcomer to a session with the join challenge shows its solution first, before anything is
  // read or written; a participant resuming with its token is not asked again.
  if (session.join_challenge === 'pow' && !caller.participant) {
    await deps.joinChallenges.redeem(session.id, input.challenge);
  }
  const poll = await getPoll(deps, session.workspace_id, session.poll_id);
  if (session.pace === 'audience') return joinWalk(deps, caller, poll, input);
  const snapshot = { action: 'start' as const, ...snapshotOf(session) };
  const slide = currentSlide(poll, snapshot);

  if (caller.participant && caller.token) {
    const participant = caller.participant;
    // The slide on screen keeps its points to itself until the host shows its results: a score
    // that moved after an answer would say whether the answer was right.
    const hidden = slide && !session.results_visible && session.status !== 'ended' ? slide.id : undefined;
    const [score, answered] = await Promise.all([
      participantScore(deps.db, session.id, participant.id, hidden),
      answeredSlides(deps.db, session.id, participant.id),
    ]);
    return {
      participant: toParticipant(participant, score),
      participantToken: caller.token,
      resumed: true,
      state: liveState(session.id, poll, snapshot, slide !== undefined && answered.has(slide.id)),
    };
  }

  const { row, token } = await addParticipant(deps, session, poll, input);
  return {
    participant: toParticipant(row, 0),
    participantToken: token,
    resumed: false,
    state: liveState(session.id, poll, snapshot, false),
  };
}

/**
 * `GET /live/{pin}/challenge`: a new join challenge for the session the PIN names, whether or not it
 * asks for one (only a session with `joinChallenge: "pow"` checks it). Nothing is stored.
 */
export function issueJoinChallenge(deps: LiveDeps, caller: LiveCaller): Promise<JoinChallenge> {
  return deps.joinChallenges.issue(caller.session.id);
}

/**
 * A new participant, if the session has a seat: answers its row and its token (shown this once). A
 * name the poll's text filter flags is refused under `block` and `review` (a name has no review
 * queue), before a seat is taken; under `mask` it is kept as written and shown masked.
 */
async function addParticipant(
  deps: LiveDeps,
  session: SessionRow,
  poll: Poll,
  input: z.output<typeof JoinSessionInput>,
): Promise<{ row: ParticipantRow; token: string }> {
  if (input.name !== undefined) {
    (await namePolicy(deps, session.workspace_id, poll)).check(input.name, 'name', 'name');
  }
  const token = newSecret(TOKEN_PREFIX);
  const row = await deps.liveHub.seatParticipant({
    id: newId('participant'),
    session_id: session.id,
    token_hash: hashSecret(token),
    name: input.name ?? null,
    // The customer's own id for this person, as the join link gave it: unverified (docs/privacy.md).
    respondent_id: input.respondentId ?? null,
  });
  if (!row) throw await noSeat(deps, session);
  deps.events.publish({
    type: 'participant.joined',
    workspaceId: session.workspace_id,
    sessionId: session.id,
    participantId: row.id,
  });
  return { row, token };
}

/**
 * Joining a self-paced session: a newcomer stands on the first slide; a returning participant
 * where they left off (read from the database, so on any process). Their score shows only once the
 * session shows scores (`showScores`).
 */
async function joinWalk(
  deps: LiveDeps,
  caller: LiveCaller,
  poll: Poll,
  input: z.output<typeof JoinSessionInput>,
): Promise<JoinedSession> {
  const { session } = caller;
  if (caller.participant && caller.token) {
    const row = await placeOf(deps, session, poll, caller.participant);
    const shown = scoresShown(session, row);
    const score = shown ? await participantScore(deps.db, session.id, row.id) : 0;
    const slide = slideOf(session, poll, row);
    const answered = slide ? (await answeredSlides(deps.db, session.id, row.id)).has(slide.id) : false;
    return {
      participant: toParticipant(row, score),
      participantToken: caller.token,
      resumed: true,
      state: walkState(session, poll, row, answered),
    };
  }
  const { row, token } = await addParticipant(deps, session, poll, input);
  return {
    participant: toParticipant(row, 0),
    participantToken: token,
    resumed: false,
    state: walkState(session, poll, row, false),
  };
}

/** Why a join found no seat: joins locked, the session full, or it ended meanwhile. */
async function noSeat(deps: LiveDeps, cached: SessionRow): Promise<ApiError> {
  const session = (await deps.liveHub.freshSession(cached.id, { reload: true })) ?? cached;
  if (session.status === 'ended') return ApiError.notFound('Session');
  if (session.joins_locked) {
    return new ApiError('joins_locked', 'The presenter has locked joins: this session takes no new participants');
  }
  return new ApiError('session_full', `This session takes at most ${session.max_participants} participants`, {
    maxParticipants: session.max_participants,
  });
}

/** The participant a route needs: 401 without a token, or with one that names nobody here. */
function requireParticipant(caller: LiveCaller): ParticipantRow {
  if (caller.participant) return caller.participant;
  if (caller.tokenRejected) {
    throw new ApiError('invalid_participant_token', 'The X-Participant-Token names no participant of this session');
  }
  throw new ApiError('missing_authorization', 'Send the participant token from the join as X-Participant-Token');
}

/**
 * `POST /live/{pin}/answers`: the current slide only, while it is unlocked (and, on a quiz, within
 * its time limit, timed by the server from the moment the slide went live). Stored through the
 * same writer as API votes and responses, with the session and the quiz points, so results, CSV
 * export and the leaderboard all read it.
 */
export async function answerLive(
  deps: LiveDeps,
  caller: LiveCaller,
  input: z.output<typeof LiveAnswerInput>,
): Promise<LiveAnswerReceipt> {
  const participant = requireParticipant(caller);
  const receivedAt = deps.clock.now();
  const session = await activeSession(deps, caller, receivedAt);
  const poll = await getPoll(deps, session.workspace_id, session.poll_id);
  let place: ParticipantRow | undefined;
  let slide: Slide | undefined;
  let startedAt: number;
  if (session.pace === 'audience') {
    place = await placeOf(deps, session, poll, participant);
    slide = slideOf(session, poll, place);
    startedAt = reachedAt(session, place).getTime();
  } else {
    slide = poll.content.questions[session.current_slide_index];
    startedAt = session.slide_started_at?.getTime() ?? receivedAt;
  }
  if (!slide || slide.id !== input.slideId) {
    throw new ApiError('slide_not_active', `Slide '${input.slideId}' is not the current slide`, {
      currentSlideId: slide?.id ?? null,
    });
  }
  if (session.locked) throw new ApiError('slide_locked', 'The presenter locked this slide');
  const elapsedMs = receivedAt - startedAt;
  if (slide.kind === 'quiz' && elapsedMs > slide.timeLimitSec * 1000) {
    throw new ApiError('time_up', `The ${slide.timeLimitSec}-second time limit of this question has passed`, {
      timeLimitSec: slide.timeLimitSec,
    });
  }

  if (slide.kind === 'qa') {
    // A question is text every screen shows: a participant asks a few a minute, not a flood.
    const limit = deps.config.LIVE_QA_QUESTIONS_PER_PARTICIPANT_PER_MINUTE;
    const hit = await deps.rateLimits.hit(`qa:${participant.id}`);
    if (hit.count > limit) {
      throw new ApiError('rate_limited', `At most ${limit} questions a minute; ask again shortly`, {
        limit,
        resetAt: new Date(hit.resetAt).toISOString(),
      });
    }
    // And all the participants behind one address together: else joining anew (LIVE_JOINS_PER_IP_PER_MINUTE)
    // would buy an address a participant's questions each, a flood in an unmoderated room.
    const perAddress = deps.config.LIVE_QA_QUESTIONS_PER_IP_PER_MINUTE;
    const fromAddress = await deps.rateLimits.hit(`qa-ip:${caller.address}`);
    if (fromAddress.count > perAddress) {
      throw new ApiError('rate_limited', `At most ${perAddress} questions a minute from one address; try shortly`, {
        limit: perAddress,
        resetAt: new Date(fromAddress.resetAt).toISOString(),
      });
    }
  }
  const kind = slide.kind === 'multiple_choice' ? 'vote' : 'response';
  let value: AnswerValue | undefined;
  const receipt = await recordAnswer(
    deps,
    session.workspace_id,
    { id: poll.id, slideId: slide.id, voterId: participant.id },
    kind,
    (judged) => {
      value =
        judged.kind === 'multiple_choice' ? voteValue(judged, input.optionIds ?? []) : responseValue(judged, input);
      return value;
    },
    {
      sessionId: session.id,
      points: (judged, value) => (judged.kind === 'quiz' ? quizPoints(judged, value.optionIds ?? [], elapsedMs) : null),
    },
  );
  let progress: ParticipantProgress | null = null;
  if (place) {
    // A Q&A slide takes several questions: the participant moves on from it with `advance`.
    const after =
      slide.kind === 'qa'
        ? place
        : (await moveOn(deps, session, poll, place, outcomeOfAnswer(slide, value), false)).row;
    progress = await progressOf(deps, session, poll, after);
  }
  return {
    id: receipt.id,
    sessionId: session.id,
    slideId: receipt.slideId,
    participantId: participant.id,
    createdAt: receipt.createdAt,
    progress,
  };
}

/**
 * The session, when it takes answers: active, and (with a closing time) not past it — the closer
 * ends it within moments (sessions/session-closer.ts), but no answer counts after the time.
 */
async function activeSession(deps: LiveDeps, caller: LiveCaller, now: number): Promise<SessionRow> {
  const session = (await deps.liveHub.freshSession(caller.session.id)) ?? caller.session;
  const closed = isPastClosing(session, now);
  if (session.status !== 'active' || closed) {
    const status = closed ? 'ended' : session.status;
    throw new ApiError('session_not_active', `The session is ${status}; it takes no answers`, { status });
  }
  return session;
}

/**
 * `POST /live/{pin}/advance`: a self-paced participant moves past their slide — a content slide, a
 * Q&A slide they asked on (or not), or any slide they skip — by the skip logic, a skip counting as
 * not answered. `slideId` must be their slide, so a repeated request cannot skip two.
 */
export async function advanceLive(
  deps: LiveDeps,
  caller: LiveCaller,
  input: z.output<typeof LiveAdvanceInput>,
): Promise<ParticipantProgress> {
  const participant = requireParticipant(caller);
  if (caller.session.pace !== 'audience') {
    throw new ApiError(
      'invalid_session_state',
      'This session is presenter-paced: the presenter moves everybody on; `advance` is for self-paced sessions',
      { pace: caller.session.pace },
    );
  }
  const session = await activeSession(deps, caller, deps.clock.now());
  const poll = await getPoll(deps, session.workspace_id, session.poll_id);
  const place = await placeOf(deps, session, poll, participant);
  const slide = slideOf(session, poll, place);
  if (!slide || slide.id !== input.slideId) {
    throw new ApiError('slide_not_active', `Slide '${input.slideId}' is not your current slide`, {
      currentSlideId: slide?.id ?? null,
    });
  }
  const { outcome, answered } = await storedOutcome(deps, session, place, slide);
  const step = await moveOn(deps, session, poll, place, outcome, slide.kind !== 'content' && !answered);
  if (!step.moved) {
    // A racing request for the same step moved the participant first: this one did nothing.
    throw new ApiError('slide_not_active', `Slide '${input.slideId}' is not your current slide`, {
      currentSlideId: slideOf(session, poll, step.row)?.id ?? null,
    });
  }
  return progressOf(deps, session, poll, step.row);
}

/** `POST /live/{pin}/questions/{questionId}/upvotes`: a question of the Q&A slide on screen. */
export async function upvoteLive(
  deps: LiveDeps,
  caller: LiveCaller,
  input: z.output<typeof LiveUpvoteInput>,
): Promise<Question> {
  const participant = requireParticipant(caller);
  const session = await activeSession(deps, caller, deps.clock.now());
  const poll = await getPoll(deps, session.workspace_id, session.poll_id);
  const slide =
    session.pace === 'audience'
      ? slideOf(session, poll, await placeOf(deps, session, poll, participant))
      : poll.content.questions[session.current_slide_index];
  const question = await upvoteQuestion(
    deps,
    session.workspace_id,
    { id: poll.id, questionId: input.questionId, voterId: participant.id },
    { currentSlideId: slide?.id ?? '', sessionId: session.id },
  );
  deps.events.publish({
    type: 'question.upvoted',
    workspaceId: session.workspace_id,
    pollId: poll.id,
    questionId: question.id,
    voterId: participant.id,
    sessionId: session.id,
  });
  return question;
}

/** `GET /live/{pin}/events`: a bad token is refused; no token is an anonymous viewer. */
export function liveEvents(deps: LiveDeps, caller: LiveCaller, lastEventId: string | undefined): EventFeed | undefined {
  if (caller.tokenRejected) {
    throw new ApiError('invalid_participant_token', 'The X-Participant-Token names no participant of this session');
  }
  return deps.liveHub.participantFeed(caller.session, caller.participant, lastEventId, caller.address);
}
