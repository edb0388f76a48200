import type {
  AnswerDeleted,
  AnswersReset,
  CastVoteInput,
  CreateResponseInput,
  ListAnswersInput,
  ListResponsesInput,
  Poll,
  PollResponse,
  Slide,
  Vote,
} from '@pollkit/contracts';
import type { Kysely } from 'kysely';
import type { z } from 'zod';
import { ApiError } from '../../core/api-error.js';
import { keysetPage } from '../../core/paging.js';
import { newId } from '../../db/ids.js';
import type { AnswerRow, AnswerValue, Database } from '../../db/schema.js';
import type { DomainEvents } from '../events/domain-events.js';
import { type ModerationDeps, pollTextPolicies, slideTextPolicy } from '../moderation/index.js';
import { getPoll, lockPoll, type PollsDeps, setPollVersion } from '../polls/polls.service.js';
import { type OutboxEvent, outboxEvent } from '../webhooks/index.js';
import { removeAnswers } from './answer-removal.repository.js';
import { assertTakesAnswers, findSlide, responseValue, voteValue } from './answer-rules.js';
import type { AnswerWriter } from './answer-writer.js';
import * as answers from './answers.repository.js';
import { clearSeats, takeSeat } from './respondent-seats.repository.js';
import { deltasFor } from './tallies.js';

export interface AnswersDeps extends PollsDeps, ModerationDeps {
  answerWriter: AnswerWriter;
  events: DomainEvents;
}

/** Where a live answer came from, and the quiz points it earns (judged against the slide and its value). */
export interface LiveOrigin {
  sessionId: string;
  points: (slide: Slide, value: AnswerValue) => number | null;
}

function receipt(row: { id: string; poll_id: string; slide_id: string; voter_id: string }, createdAt: Date) {
  return {
    id: row.id,
    pollId: row.poll_id,
    slideId: row.slide_id,
    voterId: row.voter_id,
    createdAt: createdAt.toISOString(),
  };
}

const alreadyResponded = (slideId: string) =>
  new ApiError('already_responded', `This voter already answered slide '${slideId}'`);

/** A poll changing under every attempt means someone is editing it in a loop; the client may retry. */
const MAX_ATTEMPTS = 3;

/**
 * Judges an answer against its poll, then writes it. If the poll changed in between (the writer saw
 * a newer version under lock), the cached copy is dropped and the answer is judged again against the
 * poll as it now is: a deck change can make it a 422, a close a 409, a delete a 404.
 */
export async function recordAnswer(
  deps: AnswersDeps,
  workspaceId: string,
  input: { id: string; slideId: string; voterId: string },
  kind: 'vote' | 'response',
  judge: (slide: Slide) => AnswerValue,
  live?: LiveOrigin,
) {
  for (let attempt = 1; ; attempt++) {
    const poll = await getPoll(deps, workspaceId, input.id);
    assertTakesAnswers(poll);
    const slide = findSlide(poll, input.slideId);
    const value = judge(slide);
    const screened = await screenText(deps, workspaceId, poll, slide, value);
    if (poll.maxRespondents !== null) {
      await claimSeat(deps.db, poll.id, poll.maxRespondents, seatHolder(input.voterId, live));
    }
    const createdAt = new Date();
    const row = {
      id: newId(kind),
      poll_id: poll.id,
      slide_id: slide.id,
      voter_id: input.voterId,
      kind,
      slide_kind: slide.kind,
      value: JSON.stringify(value),
      status: screened.status,
      session_id: live?.sessionId ?? null,
      points: live ? live.points(slide, value) : null,
      created_at: createdAt,
    };
    const outcome = await deps.answerWriter.write(
      {
        row,
        // A held answer counts nowhere until approved (moderateResponse adds it then).
        deltas:
          screened.status === 'pending' && slide.kind === 'open_ended'
            ? { tallies: [] }
            : deltasFor(slide, value, screened.shown),
        event: answerEvent(row, value, createdAt, screened.flagged),
      },
      poll.updatedAt,
      workspaceId,
    );
    if (outcome === 'accepted') {
      deps.events.publish({
        type: 'answer.created',
        workspaceId,
        kind,
        pollId: row.poll_id,
        slideId: row.slide_id,
        answerId: row.id,
        voterId: row.voter_id,
        sessionId: row.session_id,
      });
      return receipt(row, createdAt);
    }
    if (outcome === 'duplicate') throw alreadyResponded(slide.id);
    if (attempt >= MAX_ATTEMPTS) {
      throw new ApiError('service_unavailable', 'The poll changed while the answer was being recorded; try again');
    }
    await deps.pollCache.invalidate(workspaceId, poll.id);
  }
}

/** Who holds a seat under `maxRespondents`: an API voter by their id, a participant by theirs. */
function seatHolder(voterId: string, live: LiveOrigin | undefined): string {
  return live ? `p:${voterId}` : `v:${voterId}`;
}

/**
 * A respondent's first answer to a capped poll takes a seat; none left is `409 poll_full` (exact under
 * concurrency: respondent-seats.repository.ts). Those already seated answer on.
 */
async function claimSeat(db: AnswersDeps['db'], pollId: string, cap: number, holder: string): Promise<void> {
  if (await takeSeat(db, pollId, cap, holder)) return;
  throw new ApiError('poll_full', `This poll takes at most ${cap} respondents`, { maxRespondents: cap });
}

/**
 * What the text filter makes of an answer's text (docs/moderation.md): under `block` a flagged one is
 * refused here, before anything is stored; under `review` it is held (`pending`). Q&A questions on a
 * moderated slide wait for approval whatever the filter says; elsewhere they show at once. Answers
 * without text are not flagged (`flagged` undefined: webhooks carry it on texts only).
 */
async function screenText(
  deps: AnswersDeps,
  workspaceId: string,
  poll: Poll,
  slide: Slide,
  value: AnswerValue,
): Promise<{ status: 'pending' | 'approved' | null; flagged: boolean | undefined; shown?: string }> {
  if ((slide.kind !== 'open_ended' && slide.kind !== 'qa') || value.text === undefined) {
    return { status: null, flagged: undefined };
  }
  const policy = await slideTextPolicy(deps, workspaceId, poll, slide);
  const { flagged, verdict } = policy.check(value.text, 'text');
  // The text as shown, for the word cloud's counters (tallies.ts `deltasFor`).
  const shown = flagged ? policy.shown(value.text) : undefined;
  const held = verdict === 'hold' || (slide.kind === 'qa' && slide.moderated);
  if (held) return { status: 'pending', flagged, shown };
  return { status: slide.kind === 'qa' ? 'approved' : null, flagged, shown };
}

/**
 * The webhook event an answer makes: `vote.created`, `question.created` (a Q&A slide) or
 * `response.created`, its `data` the vote, question or response as the API reads it back.
 */
function answerEvent(
  row: {
    id: string;
    poll_id: string;
    slide_id: string;
    voter_id: string;
    kind: 'vote' | 'response';
    slide_kind: Slide['kind'];
    status: 'pending' | 'approved' | null;
    session_id: string | null;
  },
  value: AnswerValue,
  createdAt: Date,
  flagged: boolean | undefined,
): OutboxEvent {
  const common = {
    id: row.id,
    pollId: row.poll_id,
    slideId: row.slide_id,
    voterId: row.voter_id,
    createdAt: createdAt.toISOString(),
    sessionId: row.session_id,
  };
  if (row.kind === 'vote')
    return outboxEvent('vote.created', { ...common, optionIds: value.optionIds ?? [] }, createdAt);
  if (row.slide_kind === 'qa') {
    return outboxEvent(
      'question.created',
      { ...common, text: value.text ?? '', status: row.status ?? 'approved', flagged: flagged ?? false, upvotes: 0 },
      createdAt,
    );
  }
  const kind = row.slide_kind as PollResponse['kind'];
  const moderation = kind === 'open_ended' ? { status: row.status ?? 'approved', flagged: flagged ?? false } : {};
  return outboxEvent('response.created', { ...common, kind, ...value, ...moderation }, createdAt);
}

export function castVote(deps: AnswersDeps, workspaceId: string, input: z.output<typeof CastVoteInput>) {
  return recordAnswer(deps, workspaceId, input, 'vote', (slide) => voteValue(slide, input.optionIds));
}

export function createResponse(deps: AnswersDeps, workspaceId: string, input: z.output<typeof CreateResponseInput>) {
  return recordAnswer(deps, workspaceId, input, 'response', (slide) => responseValue(slide, input));
}

function toVote(row: AnswerRow): Vote {
  return {
    id: row.id,
    pollId: row.poll_id,
    slideId: row.slide_id,
    voterId: row.voter_id,
    optionIds: row.value.optionIds ?? [],
    createdAt: row.created_at.toISOString(),
  };
}

/**
 * A stored response as the owner reads it: the text as written. Open-ended answers and Q&A questions
 * carry their `status` and whether the filter flags their text (`isFlagged`, the slide's policy).
 */
export function toResponse(row: AnswerRow, isFlagged?: (text: string) => boolean): PollResponse {
  const moderated = row.slide_kind === 'qa' || row.slide_kind === 'open_ended';
  return {
    id: row.id,
    pollId: row.poll_id,
    slideId: row.slide_id,
    voterId: row.voter_id,
    kind: row.slide_kind as PollResponse['kind'],
    ...row.value,
    ...(moderated ? { status: row.status ?? 'approved', flagged: isFlagged?.(row.value.text ?? '') ?? false } : {}),
    ...(row.slide_kind === 'qa' ? { upvotes: row.upvotes } : {}),
    createdAt: row.created_at.toISOString(),
  };
}

async function listPage<T>(
  deps: AnswersDeps,
  poll: Poll,
  input: z.output<typeof ListAnswersInput> | z.output<typeof ListResponsesInput>,
  kind: 'vote' | 'response',
  map: (row: AnswerRow) => T,
) {
  return keysetPage(
    input,
    kind === 'vote' ? 'vote' : 'rsp',
    ({ beforeId, limit }) =>
      answers.listAnswers(deps.db, {
        pollId: poll.id,
        kind,
        slideId: input.slideId,
        voterId: input.voterId,
        sessionId: input.sessionId,
        status: 'status' in input ? input.status : undefined,
        beforeId,
        limit,
      }),
    map,
  );
}

// Resolving the poll first keeps workspaces apart: another workspace's poll id is a 404.
export async function listVotes(deps: AnswersDeps, workspaceId: string, input: z.output<typeof ListAnswersInput>) {
  return listPage(deps, await getPoll(deps, workspaceId, input.id), input, 'vote', toVote);
}

export async function listResponses(
  deps: AnswersDeps,
  workspaceId: string,
  input: z.output<typeof ListResponsesInput>,
) {
  const poll = await getPoll(deps, workspaceId, input.id);
  const policies = await pollTextPolicies(deps, workspaceId, poll);
  return listPage(deps, poll, input, 'response', (row) =>
    toResponse(row, (text) => policies.forSlide(slideOf(poll, row.slide_id)).flagged(text)),
  );
}

function slideOf(poll: Poll, slideId: string): Slide | undefined {
  return poll.content.questions.find((slide) => slide.id === slideId);
}

/**
 * `DELETE /polls/{id}/answers`: deletes every answer of the poll and resets its aggregates, in one
 * transaction holding the poll row FOR UPDATE. Answer batches hold that row FOR SHARE while they
 * write (answer-batch.repository.ts), so a batch commits entirely before the reset (and is deleted
 * with the rest) or runs entirely after it. The reset also moves the poll's version (`updated_at`):
 * an answer judged before it but written after is judged again, as after any other change. The poll
 * keeps its status and content.
 */
export async function resetAnswers(deps: AnswerResetDeps, workspaceId: string, pollId: string): Promise<AnswersReset> {
  const deleted = await deps.db.transaction().execute(async (trx) => {
    const poll = await lockPoll(trx, workspaceId, pollId);
    if (!poll) throw ApiError.notFound('Poll');
    const deleted = await answers.deleteAnswersOfPoll(trx, pollId, deps.pollSessions.idsOf(trx, pollId));
    await clearSeats(trx, pollId);
    // Strictly later than the version answers were judged against, even within the same millisecond.
    const version = new Date(Math.max(Date.now(), poll.updated_at.getTime() + 1));
    await setPollVersion(trx, workspaceId, pollId, version);
    return deleted;
  });
  await deps.pollCache.invalidate(workspaceId, pollId);
  return { pollId, deleted };
}

/**
 * What a poll's reset asks of the sessions module, which depends on this one and so cannot be
 * imported here: the composition root (deps.ts) hands over its function.
 */
export interface PollSessions {
  /** The ids of the poll's sessions, as a subquery of the reset's own statements. */
  idsOf(db: Kysely<Database>, pollId: string): answers.SessionIdsQuery;
}

export interface AnswerResetDeps extends PollsDeps {
  pollSessions: PollSessions;
}

/**
 * `DELETE /sessions/{id}/answers` (modules/sessions/session-results.service.ts): as `resetAnswers`,
 * of one session's answers, under the same lock.
 */
export function resetAnswersOfSession(
  deps: PollsDeps,
  workspaceId: string,
  pollId: string,
  sessionId: string,
): Promise<AnswersReset['deleted']> {
  return deps.db.transaction().execute(async (trx) => {
    const poll = await lockPoll(trx, workspaceId, pollId);
    if (!poll) throw ApiError.notFound('Poll');
    // Only the room's answers go: the poll's slides stay as locked as its other answers keep them,
    // so its version does not move, and an answer judged before the reset is recorded after it.
    return answers.deleteAnswersOfSession(trx, pollId, sessionId);
  });
}

/**
 * `DELETE /polls/{id}/votes/{voteId}` and `DELETE /polls/{id}/responses/{responseId}`: one answer
 * removed with exactly what it added to the poll's and its session's aggregates, in one transaction
 * holding the poll row FOR UPDATE (as a reset does), so no answer batch writes between reading the
 * answer and taking it out. The poll's version does not move: other answers in flight stay valid.
 */
export async function deleteAnswer(
  deps: AnswersDeps,
  workspaceId: string,
  pollId: string,
  answerId: string,
  kind: 'vote' | 'response',
): Promise<AnswerDeleted> {
  const removed = await deps.db.transaction().execute(async (trx) => {
    const poll = await lockPoll(trx, workspaceId, pollId);
    if (!poll) throw ApiError.notFound('Poll');
    const row = await answers.findAnswer(trx, pollId, answerId, kind);
    if (!row) throw ApiError.notFound(kind === 'vote' ? 'Vote' : 'Response');
    await removeAnswers(trx, [row], (answer) => poll.content.questions.find((slide) => slide.id === answer.slide_id));
    return row;
  });
  // The session it was given in (on every process) shows its results without it.
  if (removed.session_id !== null) {
    deps.events.publish({ type: 'session.answers_removed', workspaceId, sessionId: removed.session_id });
  }
  return { id: answerId, pollId, deleted: true };
}
