import { randomInt } from 'node:crypto';
import type {
  CreatedSession,
  CreateSessionInput,
  LeaderboardEntry,
  ListSessionQuestionsInput,
  ListSessionResponsesInput,
  ListSessionsInput,
  ModerateSessionQuestionInput,
  ModerateSessionResponseInput,
  Poll,
  PollResponse,
  Question,
  QuestionList,
  RemovedParticipant,
  RemoveParticipantInput,
  ResponseList,
  RotatedHostToken,
  Session,
  SessionControlInput,
  SessionDeck,
  SessionList,
  UpdateSessionInput,
} from '@pollkit/contracts';
import { renderSVG } from 'uqr';
import type { z } from 'zod';
import type { Config } from '../../config.js';
import { ApiError, invalidField } from '../../core/api-error.js';
import type { Clock } from '../../core/clock.js';
import type { EventFeed } from '../../core/event-stream.js';
import { keysetPage } from '../../core/paging.js';
import { hashSecret, newSecret } from '../../core/secrets.js';
import { newId } from '../../db/ids.js';
import type { ParticipantRow, SessionRow } from '../../db/schema.js';
import { naming } from '../../db/theme-reference.js';
import { type HeldScopes, holdsScope, scopeList } from '../credentials/credential-scopes.js';
import type { DomainEvents } from '../events/domain-events.js';
import { flaggerOf, type ModerationDeps } from '../moderation/index.js';
import { getPoll, type PollsDeps } from '../polls/polls.service.js';
import {
  listQuestions,
  listSessionResponses as listRoomResponses,
  moderateQuestion,
  moderateResponse,
} from '../questions/questions.service.js';
import { outboxEvent, recordWebhookEvent } from '../webhooks/index.js';
import { decideControl } from './session-control.js';
import { isPastClosing, joinCodeOf, toSession, withoutAnswerKey } from './session-view.js';
import * as sessions from './sessions.repository.js';
import { leaderboardOf } from './standings.js';

/**
 * What sessions asks of the live side of this process: modules/live/live-hub.ts implements it, and
 * the composition root (deps.ts) hands it in. Live reads sessions, so sessions knows it only by this.
 */
interface LiveSide {
  /** Keeps a session row just written, for the answer path and the streams of this process. */
  remember(row: SessionRow): void;
  /**
   * The presenter's event stream, carrying what `scopes` (the caller's) may read; undefined when the
   * client has seen all of an ended session.
   */
  presenterFeed(row: SessionRow, scopes: HeldScopes, lastEventId?: string): EventFeed | undefined;
  /** Every process forgets the removed participant's token and closes its streams. */
  participantRemoved(row: ParticipantRow): Promise<void>;
}

export interface SessionsDeps extends PollsDeps, ModerationDeps {
  events: DomainEvents;
  liveHub: LiveSide;
  /** The audience's join URL for a join code, a PIN or a link id (config `LIVE_JOIN_URL`). */
  joinUrl: (code: string) => string;
  config: Pick<Config, 'LIVE_MAX_PARTICIPANTS_DEFAULT' | 'LIVE_MAX_PARTICIPANTS_CEILING'>;
  /** Stamps the moment a slide goes live, which quiz answers are timed against (live.service.ts). */
  clock: Clock;
}

const notFound = () => ApiError.notFound('Session');

/** Six random digits. With the PIN-miss limit per IP address, one address needs about a month to guess a given one. */
function newPin(): string {
  return String(randomInt(0, 1_000_000)).padStart(6, '0');
}

/** A PIN taken by another open session: the partial unique index says so. */
function isPinTaken(error: unknown): boolean {
  return (error as { code?: unknown }).code === '23505';
}

const PIN_ATTEMPTS = 20;
const HOST_TOKEN_PREFIX = 'pht_';
/** A self-paced session's link id: 256 random bits, so a link open for weeks is never guessed. */
const LINK_ID_PREFIX = 'lnk_';

/** A session's participant cap, within the server's ceiling (LIVE_MAX_PARTICIPANTS_CEILING). */
function checkedCap(deps: Pick<SessionsDeps, 'config'>, cap: number): number {
  const ceiling = deps.config.LIVE_MAX_PARTICIPANTS_CEILING;
  if (cap > ceiling) {
    throw invalidField('maxParticipants', `A session takes at most ${ceiling} participants on this server`);
  }
  return cap;
}

async function present(deps: SessionsDeps, row: SessionRow, slideCount?: number): Promise<Session> {
  const counts = await sessions.countSessionParticipants(deps.db, row.id);
  const count = slideCount ?? (await getPoll(deps, row.workspace_id, row.poll_id)).content.questions.length;
  return toSession(row, { slideCount: count, counts, joinUrl: deps.joinUrl(joinCodeOf(row)) });
}

/**
 * The scopes a new host token carries: those of the credential that asked for it (`null`, every
 * scope, for a credential holding every scope), so the token reads no more than its creator could.
 */
function hostTokenScopes(creator: HeldScopes): string | null {
  return creator === 'all' ? null : JSON.stringify(scopeList(creator));
}

/** A closing time must be ahead of now (by the deps clock, which also decides when it has come). */
function checkedClosesAt(deps: Pick<SessionsDeps, 'clock'>, closesAt: string): Date {
  const at = new Date(closesAt);
  if (at.getTime() <= deps.clock.now()) throw invalidField('closesAt', 'Must be in the future');
  return at;
}

/**
 * `POST /sessions`: a pending session of a published poll, with a PIN no open session has (a
 * random PIN is retried on the rare collision) and a host token shown this once, carrying the
 * scopes of the credential that created it (`creatorScopes`).
 */
export async function createSession(
  deps: SessionsDeps,
  workspaceId: string,
  creatorScopes: HeldScopes,
  input: z.output<typeof CreateSessionInput>,
): Promise<CreatedSession> {
  const poll = await getPoll(deps, workspaceId, input.pollId);
  if (poll.status === 'draft') {
    throw new ApiError('poll_not_published', 'Publish the poll before presenting it in a session');
  }
  if (poll.status === 'closed') throw new ApiError('poll_closed', 'The poll is closed; reopen it to present it');
  const maxParticipants = checkedCap(deps, input.maxParticipants ?? deps.config.LIVE_MAX_PARTICIPANTS_DEFAULT);
  const closesAt = input.closesAt === undefined ? null : checkedClosesAt(deps, input.closesAt);
  const selfPaced = input.pace === 'audience';
  const hostToken = newSecret(HOST_TOKEN_PREFIX);
  for (let attempt = 1; ; attempt++) {
    try {
      const { row, session } = await naming(input.themeId, () =>
        deps.db.transaction().execute(async (trx) => {
          const row = await sessions.insertSession(trx, {
            id: newId('session'),
            workspace_id: workspaceId,
            poll_id: poll.id,
            pin: input.pin ? newPin() : null,
            host_token_hash: hashSecret(hostToken),
            host_token_scopes: hostTokenScopes(creatorScopes),
            max_participants: maxParticipants,
            pace: input.pace,
            link_id: selfPaced ? newSecret(LINK_ID_PREFIX) : null,
            show_scores: selfPaced ? (input.showScores ?? 'at_end') : null,
            closes_at: closesAt,
            language: input.language ?? null,
            theme_id: input.themeId ?? null,
            join_challenge: input.joinChallenge ?? null,
          });
          const session = toSession(row, {
            slideCount: poll.content.questions.length,
            counts: { joined: 0, completed: 0 },
            joinUrl: deps.joinUrl(joinCodeOf(row)),
          });
          await recordWebhookEvent(trx, workspaceId, outboxEvent('session.created', session, row.created_at));
          return { row, session };
        }),
      );
      deps.liveHub.remember(row);
      deps.events.publish({ type: 'session.created', workspaceId, session });
      return { ...session, hostToken };
    } catch (error) {
      if (!isPinTaken(error) || attempt >= PIN_ATTEMPTS) throw error;
    }
  }
}

export async function getSession(deps: SessionsDeps, workspaceId: string, id: string): Promise<Session> {
  const row = await sessions.findSession(deps.db, workspaceId, id);
  if (!row) throw notFound();
  return present(deps, row);
}

export async function listSessions(
  deps: SessionsDeps,
  workspaceId: string,
  input: z.output<typeof ListSessionsInput>,
): Promise<SessionList> {
  const page = await keysetPage(
    input,
    'ses',
    ({ beforeId, limit }) =>
      sessions.listSessions(deps.db, workspaceId, { limit, beforeId, pollId: input.pollId, status: input.status }),
    (row) => row,
  );
  const counts = await sessions.countParticipants(
    deps.db,
    page.data.map((row) => row.id),
  );
  const slideCounts = new Map<string, number>();
  for (const row of page.data) {
    if (!slideCounts.has(row.poll_id)) {
      const poll = await getPoll(deps, workspaceId, row.poll_id);
      slideCounts.set(row.poll_id, poll.content.questions.length);
    }
  }
  return {
    data: page.data.map((row) =>
      toSession(row, {
        slideCount: slideCounts.get(row.poll_id) ?? 0,
        counts: counts.get(row.id) ?? { joined: 0, completed: 0 },
        joinUrl: deps.joinUrl(joinCodeOf(row)),
      }),
    ),
    nextCursor: page.nextCursor,
  };
}

/**
 * `POST /sessions/{id}/control`: the action is decided and recorded under the session's row lock
 * (session-control.ts), then announced; every process's streams send it (modules/live/live-hub.ts).
 */
export async function controlSession(
  deps: SessionsDeps,
  workspaceId: string,
  input: z.output<typeof SessionControlInput>,
): Promise<Session> {
  const { session, slideCount } = await applyControl(deps, workspaceId, input);
  return present(deps, session, slideCount);
}

/**
 * A control action, decided under the session's row lock and recorded with its history event and
 * webhook in one transaction, then announced to every process. `guard` may refuse it on the locked
 * row (the closer checks there that the session is still due).
 */
async function applyControl(
  deps: SessionsDeps,
  workspaceId: string,
  input: z.output<typeof SessionControlInput>,
  guard?: (current: SessionRow) => void,
): Promise<{ session: SessionRow; slideCount: number }> {
  const existing = await sessions.findSession(deps.db, workspaceId, input.id);
  if (!existing) throw notFound();
  const poll = await getPoll(deps, workspaceId, existing.poll_id);
  const slideCount = poll.content.questions.length;
  const applied = await sessions.applySessionChange(
    deps.db,
    workspaceId,
    input.id,
    (current) => {
      guard?.(current);
      const { changes, snapshot } = decideControl(
        current,
        slideCount,
        input.action,
        input.slideIndex,
        new Date(deps.clock.now()),
      );
      return { changes, event: { type: input.action, data: JSON.stringify(snapshot) } };
    },
    async (trx, before, after) => {
      const type = sessionEventType(before, after);
      if (!type) return;
      const session = await present({ ...deps, db: trx }, after, slideCount);
      // `session.ended` carries the outcome, read in the transaction that ends the session: no
      // answer lands after it (the session refuses them once ended).
      const event =
        type === 'session.ended'
          ? outboxEvent(type, { ...session, leaderboard: await writtenLeaderboard(deps, trx, poll, after) })
          : outboxEvent(type, session);
      await recordWebhookEvent(trx, workspaceId, event);
    },
  );
  if (!applied) throw notFound();
  deps.liveHub.remember(applied.session);
  deps.events.publish({
    type: 'session.changed',
    workspaceId,
    sessionId: applied.session.id,
    seq: applied.event.seq,
    action: input.action,
  });
  return { session: applied.session, slideCount };
}

/** Thrown on the locked row when a session the closer listed is no longer due (ended, or given a new time). */
class NoLongerDue extends Error {}

/**
 * Ends every session whose `closesAt` has come (SessionCloser calls it on every process): each `end`
 * is decided under the session's row lock, so whichever process gets there first ends it and the
 * others find it ended — once, with its history event, stream `ended` events and `session.ended`
 * webhook, as an `end` from the host. Answers how many it ended.
 */
export async function closeDueSessions(deps: SessionsDeps, batch = 50): Promise<number> {
  const now = new Date(deps.clock.now());
  const due = await sessions.listSessionsDue(deps.db, now, batch);
  let ended = 0;
  for (const { id, workspace_id: workspaceId } of due) {
    try {
      await applyControl(deps, workspaceId, { id, action: 'end' }, (current) => {
        if (current.status === 'ended' || !isPastClosing(current, now.getTime())) throw new NoLongerDue();
      });
      ended += 1;
    } catch (error) {
      if (!(error instanceof NoLongerDue) && !(error instanceof ApiError && error.code === 'not_found')) throw error;
    }
  }
  return ended;
}

/**
 * The webhook event of a control action, from what it changed: `session.started`, `session.ended`,
 * or `session.slide_changed` when another slide is on screen. Results, locks: none.
 */
function sessionEventType(
  before: SessionRow,
  after: SessionRow,
): 'session.started' | 'session.ended' | 'session.slide_changed' | undefined {
  if (before.status !== after.status) {
    if (after.status === 'active') return 'session.started';
    if (after.status === 'ended') return 'session.ended';
  }
  if (after.status === 'active' && before.current_slide_index !== after.current_slide_index) {
    return 'session.slide_changed';
  }
  return undefined;
}

/** `GET /sessions/{id}/qr.svg`: the join URL as a QR code (uqr: medium error correction, a quiet border). */
export async function sessionQrCode(deps: SessionsDeps, workspaceId: string, id: string): Promise<string> {
  const row = await sessions.findSession(deps.db, workspaceId, id);
  if (!row) throw notFound();
  return renderSVG(deps.joinUrl(joinCodeOf(row)), { ecc: 'M', border: 2 });
}

/**
 * `GET /sessions/{id}/events`: the presenter's stream, carrying what the caller's `scopes` (a
 * credential's, or those a host token carries) may read: modules/live/live-views.ts `presenterView`.
 */
export async function sessionEvents(
  deps: SessionsDeps,
  workspaceId: string,
  scopes: HeldScopes,
  id: string,
  lastEventId: string | undefined,
): Promise<EventFeed | undefined> {
  const row = await sessions.findSession(deps.db, workspaceId, id);
  if (!row) throw notFound();
  return deps.liveHub.presenterFeed(row, scopes, lastEventId);
}

async function findPollOfSession(deps: SessionsDeps, workspaceId: string, id: string): Promise<string> {
  const row = await sessions.findSession(deps.db, workspaceId, id);
  if (!row) throw notFound();
  return row.poll_id;
}

/**
 * `GET /sessions/{id}/deck`: the poll's slides as they are now, for a presenter device that holds
 * only the host token (the poll's own routes need a workspace credential). The answer key is the
 * poll's: a reader without `polls:read` (a host token created without it; a workspace credential
 * needs it for the route) gets the quiz slides without `correctOptionIds`.
 */
export async function sessionDeck(
  deps: SessionsDeps,
  workspaceId: string,
  scopes: HeldScopes,
  id: string,
): Promise<SessionDeck> {
  const poll = await getPoll(deps, workspaceId, await findPollOfSession(deps, workspaceId, id));
  const slides = holdsScope(scopes, 'polls:read')
    ? poll.content.questions
    : poll.content.questions.map(withoutAnswerKey);
  return {
    sessionId: id,
    pollId: poll.id,
    title: poll.title,
    slides,
    answersVisible: holdsScope(scopes, 'responses:read'),
  };
}

/**
 * `GET /sessions/{id}/questions`: the Q&A questions asked in this session (the presenter's moderation
 * queue). Another session's questions, and those asked through the API, are not this room's.
 */
export async function listSessionQuestions(
  deps: SessionsDeps,
  workspaceId: string,
  input: z.output<typeof ListSessionQuestionsInput>,
): Promise<QuestionList> {
  const pollId = await findPollOfSession(deps, workspaceId, input.id);
  return listQuestions(deps, workspaceId, { ...input, id: pollId }, input.id);
}

/** `PATCH /sessions/{id}/questions/{questionId}`: moderation from the presenter's screen, of this room's questions only. */
export async function moderateSessionQuestion(
  deps: SessionsDeps,
  workspaceId: string,
  input: z.output<typeof ModerateSessionQuestionInput>,
): Promise<Question> {
  const pollId = await findPollOfSession(deps, workspaceId, input.id);
  return moderateQuestion(
    deps,
    workspaceId,
    { id: pollId, questionId: input.questionId, status: input.status },
    input.id,
  );
}

/**
 * The `session.ended` webhook's leaderboard: names as written (webhooks carry the audience's text as
 * it came), each with whether the text filter flags it.
 */
async function writtenLeaderboard(
  deps: SessionsDeps,
  trx: SessionsDeps['db'],
  poll: Poll,
  session: SessionRow,
): Promise<LeaderboardEntry[] | null> {
  const entries = await leaderboardOf(trx, poll, session.id);
  if (!entries) return null;
  // Read in the transaction: the embedded database has one connection, which the transaction holds.
  const flagged = await flaggerOf({ ...deps, db: trx }, session.workspace_id);
  return entries.map((entry) => ({ ...entry, flagged: entry.name !== null && flagged(entry.name) }));
}

/** `GET /sessions/{id}/responses`: the room's open-ended answers as the presenter sees them; the review queue. */
export async function listSessionResponses(
  deps: SessionsDeps,
  workspaceId: string,
  input: z.output<typeof ListSessionResponsesInput>,
): Promise<ResponseList> {
  const pollId = await findPollOfSession(deps, workspaceId, input.id);
  return listRoomResponses(deps, workspaceId, input, pollId);
}

/** `PATCH /sessions/{id}/responses/{responseId}`: the presenter's review of this room's answers only. */
export async function moderateSessionResponse(
  deps: SessionsDeps,
  workspaceId: string,
  input: z.output<typeof ModerateSessionResponseInput>,
): Promise<PollResponse> {
  const pollId = await findPollOfSession(deps, workspaceId, input.id);
  return moderateResponse(
    deps,
    workspaceId,
    { id: pollId, responseId: input.responseId, status: input.status },
    input.id,
  );
}

/**
 * `PATCH /sessions/{id}`: lock or unlock joins, change the participant cap (never below the
 * participants who joined, whose seats are not given back), the closing time, the pages' language
 * or theme, the join challenge. An ended session takes none of them.
 */
export async function updateSession(
  deps: SessionsDeps,
  workspaceId: string,
  input: z.output<typeof UpdateSessionInput>,
): Promise<Session> {
  const existing = await sessions.findSession(deps.db, workspaceId, input.id);
  if (!existing) throw notFound();
  if (existing.status === 'ended') {
    throw new ApiError('invalid_session_state', 'The session has ended', { status: existing.status });
  }
  // Past its closing time the session is over (it takes no answers), even before the closer ends it.
  if (existing.closes_at && isPastClosing(existing, deps.clock.now())) {
    throw new ApiError('invalid_session_state', 'The session has closed: its closing time has passed', {
      status: 'ended',
      closesAt: existing.closes_at.toISOString(),
    });
  }
  const changes: sessions.SessionSettingsChange = {};
  if (input.joinsLocked !== undefined) changes.joins_locked = input.joinsLocked;
  if (input.language !== undefined) changes.language = input.language;
  if (input.themeId !== undefined) changes.theme_id = input.themeId;
  if (input.joinChallenge !== undefined) changes.join_challenge = input.joinChallenge;
  if (input.closesAt !== undefined)
    changes.closes_at = input.closesAt === null ? null : checkedClosesAt(deps, input.closesAt);
  if (input.maxParticipants !== undefined) {
    changes.max_participants = checkedCap(deps, input.maxParticipants);
    if (input.maxParticipants < existing.participant_count) {
      throw invalidField(
        'maxParticipants',
        `${existing.participant_count} participants have joined: the cap cannot be lower`,
      );
    }
  }
  const row = await naming(input.themeId, () =>
    sessions.updateSessionSettings(deps.db, workspaceId, input.id, changes),
  );
  if (!row) throw notFound();
  deps.liveHub.remember(row);
  return present(deps, row);
}

/**
 * `DELETE /sessions/{id}/participants/{participantId}`: the participant's token names nobody from
 * now on — at once in this process, through the bus in every other (the hub drops it from its
 * cache and closes its streams), within the cache's lifetime without Redis — and its answers stay.
 */
export async function removeParticipant(
  deps: SessionsDeps,
  workspaceId: string,
  input: z.output<typeof RemoveParticipantInput>,
): Promise<RemovedParticipant> {
  const session = await sessions.findSession(deps.db, workspaceId, input.id);
  if (!session) throw notFound();
  const removed = await sessions.removeParticipant(deps.db, session.id, input.participantId);
  if (!removed?.removed_at) throw ApiError.notFound('Participant');
  await deps.liveHub.participantRemoved(removed);
  return { sessionId: session.id, participantId: removed.id, removedAt: removed.removed_at.toISOString() };
}

/**
 * `POST /sessions/{id}/host-token`: a new host token, shown this once; the old one stops working at
 * once (every host request reads the session's token hash: nothing caches it). The new token carries
 * the scopes of whoever asked for it (`creatorScopes`: a credential's, or the current host token's).
 */
export async function rotateHostToken(
  deps: SessionsDeps,
  workspaceId: string,
  creatorScopes: HeldScopes,
  id: string,
): Promise<RotatedHostToken> {
  const existing = await sessions.findSession(deps.db, workspaceId, id);
  if (!existing) throw notFound();
  if (existing.status === 'ended') {
    throw new ApiError('invalid_session_state', 'The session has ended; its host token only reads it now', {
      status: existing.status,
    });
  }
  const hostToken = newSecret(HOST_TOKEN_PREFIX);
  const row = await sessions.replaceHostToken(
    deps.db,
    workspaceId,
    id,
    hashSecret(hostToken),
    hostTokenScopes(creatorScopes),
  );
  if (!row) throw notFound();
  return { sessionId: row.id, hostToken };
}

/**
 * `X-Host-Token`: whether it is the token of session `id` (by SHA-256, as every secret). Answers
 * the session's workspace and the scopes the token carries, or undefined for an unknown session or
 * a wrong token.
 */
export async function authenticateHost(
  deps: Pick<SessionsDeps, 'db'>,
  id: string,
  token: string,
): Promise<{ sessionId: string; workspaceId: string; endedAt: Date | null; scopes: HeldScopes } | undefined> {
  const row = await sessions.findSessionById(deps.db, id);
  if (!row || row.host_token_hash !== hashSecret(token)) return undefined;
  return {
    sessionId: row.id,
    workspaceId: row.workspace_id,
    endedAt: row.status === 'ended' ? row.ended_at : null,
    scopes: row.host_token_scopes === null ? 'all' : new Set(row.host_token_scopes),
  };
}
