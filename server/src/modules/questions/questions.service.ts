import type {
  ListQuestionsInput,
  ListSessionResponsesInput,
  ModerateQuestionInput,
  ModerateResponseInput,
  Poll,
  PollResponse,
  Question,
  Slide,
  UpvoteQuestionInput,
} from '@pollkit/contracts';
import type { Kysely } from 'kysely';
import type { z } from 'zod';
import { ApiError } from '../../core/api-error.js';
import { keysetPage } from '../../core/paging.js';
import type { AnswerRow, Database } from '../../db/schema.js';
import { assertTakesAnswers } from '../answers/answer-rules.js';
import * as answers from '../answers/index.js';
import type { DomainEvents } from '../events/domain-events.js';
import { type ModerationDeps, pollTextPolicies, type TextView } from '../moderation/index.js';
import { getPoll, lockPoll, type PollsDeps } from '../polls/polls.service.js';

/**
 * Q&A questions: audience questions asked with `POST /polls/{id}/responses` on a `qa` slide, listed,
 * moderated and upvoted here. Every use case resolves the poll with getPoll first, so another
 * workspace's poll (and so its questions) is a 404.
 */

/**
 * A question as its reader is shown it: `view` gives its text and whether the filter flags it — as
 * written for the owner's raw views, masked for the presenter's and the audience's (TextPolicy.view).
 */
function toQuestion(row: AnswerRow, view: (text: string) => TextView): Question {
  const shown = view(row.value.text ?? '');
  return {
    id: row.id,
    pollId: row.poll_id,
    slideId: row.slide_id,
    voterId: row.voter_id,
    text: shown.text,
    status: row.status ?? 'approved',
    flagged: shown.flagged,
    upvotes: row.upvotes,
    createdAt: row.created_at.toISOString(),
  };
}

/** A response (open-ended answer or question) with its text as `view` gives it. */
function responseAsViewed(row: AnswerRow, view: (text: string) => TextView): PollResponse {
  const shown = view(row.value.text ?? '');
  return { ...answers.toResponse(row), text: shown.text, flagged: shown.flagged };
}

/**
 * How a poll's texts read on a route: with `sessionId` (a presenter's route, or the audience's) as
 * shown, flagged words masked; without (the owner's raw views), as written, with `flagged`.
 */
async function viewer(
  deps: PollsDeps & ModerationDeps,
  workspaceId: string,
  poll: Poll,
  shown: boolean,
): Promise<(row: AnswerRow) => (text: string) => TextView> {
  const policies = await pollTextPolicies(deps, workspaceId, poll);
  return (row) => {
    const policy = policies.forSlide(poll.content.questions.find((slide) => slide.id === row.slide_id));
    return shown ? (text) => policy.view(text) : (text) => ({ text, flagged: policy.flagged(text) });
  };
}

const questionNotFound = () => ApiError.notFound('Question');

/**
 * `GET /polls/{id}/questions`: every question of the poll; with `sessionId` (`GET
 * /sessions/{id}/questions`), only those asked in that session.
 */
export async function listQuestions(
  deps: PollsDeps & ModerationDeps,
  workspaceId: string,
  input: z.output<typeof ListQuestionsInput>,
  sessionId?: string,
) {
  const poll = await getPoll(deps, workspaceId, input.id);
  const viewOf = await viewer(deps, workspaceId, poll, sessionId !== undefined);
  return keysetPage(
    input,
    'rsp',
    ({ beforeId, limit }) =>
      answers.listQuestions(deps.db, {
        pollId: poll.id,
        sessionId,
        slideId: input.slideId,
        status: input.status,
        beforeId,
        limit,
      }),
    (row) => toQuestion(row, viewOf(row)),
  );
}

/**
 * `GET /sessions/{id}/responses`: the session's open-ended answers as the presenter is shown them
 * (masked, with `flagged`); `status=pending` is the review queue.
 */
export async function listSessionResponses(
  deps: PollsDeps & ModerationDeps,
  workspaceId: string,
  input: z.output<typeof ListSessionResponsesInput>,
  pollId: string,
) {
  const poll = await getPoll(deps, workspaceId, pollId);
  const viewOf = await viewer(deps, workspaceId, poll, true);
  return keysetPage(
    input,
    'rsp',
    ({ beforeId, limit }) =>
      answers.listSessionOpenAnswers(deps.db, {
        pollId: poll.id,
        sessionId: input.id,
        slideId: input.slideId,
        status: input.status,
        beforeId,
        limit,
      }),
    (row) => responseAsViewed(row, viewOf(row)),
  );
}

/**
 * `PATCH /polls/{id}/responses/{responseId}` (and, with `sessionId`, the presenter's
 * `PATCH /sessions/{id}/responses/{responseId}`): the text filter's review queue. An open-ended answer
 * counts in the results while approved and nowhere otherwise: approving a held (or dismissed) one adds
 * its counters, text and words; dismissing an approved one takes them out. A Q&A question only
 * changes status, as `moderateQuestion` does. Under the poll's lock, as deletes are, so no answer batch
 * writes the same counters in between.
 */
export async function moderateResponse(
  deps: PollsDeps & ModerationDeps & { events: DomainEvents },
  workspaceId: string,
  input: z.output<typeof ModerateResponseInput>,
  sessionId?: string,
): Promise<PollResponse> {
  const poll = await getPoll(deps, workspaceId, input.id);
  // Read before the transaction: the embedded database has one connection, which it holds.
  const policies = await pollTextPolicies(deps, workspaceId, poll);
  const row = await deps.db.transaction().execute(async (trx) => {
    const locked = await lockPoll(trx, workspaceId, poll.id);
    if (!locked) throw ApiError.notFound('Poll');
    const current = await answers.findModeratedTextForUpdate(trx, poll.id, input.responseId, sessionId);
    if (!current) throw ApiError.notFound('Response');
    if (current.slide_kind === 'qa') return answers.setAnswerStatus(trx, current.id, input.status);
    const wasCounted = current.status === null || current.status === 'approved';
    const counted = input.status === 'approved';
    const slide = locked.content.questions.find((s) => s.id === current.slide_id);
    if (slide && wasCounted !== counted) {
      // The cloud counts the words of the text as shown (masked), as the writer does.
      const shown = policies.forSlide(slide).shown(current.value.text ?? '');
      if (counted) await answers.countApprovedText(trx, current, slide, shown);
      else await answers.uncountDismissedText(trx, current, slide);
    }
    return answers.setAnswerStatus(trx, current.id, counted ? null : 'dismissed');
  });
  // The room it was given in refreshes its results and boards (on every process).
  deps.events.publish({
    type: 'question.moderated',
    workspaceId,
    pollId: poll.id,
    questionId: row.id,
    status: input.status,
    sessionId: row.session_id,
  });
  const viewOf = await viewer(deps, workspaceId, poll, sessionId !== undefined);
  return responseAsViewed(row, viewOf(row));
}

/**
 * Approve, dismiss, or send back to pending. Allowed whatever the poll's status: hosts tidy up the
 * questions of a closed poll too, and moderating is not answering. The results list approved
 * questions through a partial index on `status`, so they follow without further bookkeeping. With
 * `sessionId` (a presenter's moderation), only a question asked in that session: another room's is a 404.
 */
/**
 * How many questions of a session's moderated Q&A slide (or answers of its open-ended slide under
 * `textFilter: review`) wait for a decision: what the presenter's `counts` carry, so that every
 * presenter screen re-reads its queue when a decision is made anywhere.
 */
export function pendingQuestionCount(
  deps: { db: Kysely<Database> },
  sessionId: string,
  slideId: string,
  kind: 'qa' | 'open_ended' = 'qa',
) {
  return answers.countPendingQuestions(deps.db, sessionId, slideId, kind);
}

export async function moderateQuestion(
  deps: PollsDeps & ModerationDeps & { events: DomainEvents },
  workspaceId: string,
  input: z.output<typeof ModerateQuestionInput>,
  sessionId?: string,
): Promise<Question> {
  const poll = await getPoll(deps, workspaceId, input.id);
  const row = await answers.setQuestionStatus(deps.db, poll.id, input.questionId, input.status, sessionId);
  if (!row) throw questionNotFound();
  const viewOf = await viewer(deps, workspaceId, poll, sessionId !== undefined);
  // Live sessions of the poll refresh their Q&A board.
  deps.events.publish({
    type: 'question.moderated',
    workspaceId,
    pollId: poll.id,
    questionId: row.id,
    status: input.status,
    sessionId: row.session_id,
  });
  return toQuestion(row, viewOf(row));
}

function qaSlide(poll: Poll, slideId: string): Extract<Slide, { kind: 'qa' }> | undefined {
  const slide = poll.content.questions.find((s) => s.id === slideId);
  return slide?.kind === 'qa' ? slide : undefined;
}

/**
 * One upvote per voter per question, decided by the primary key of `question_upvotes`: the upvote
 * row and the counter change commit together or not at all, so racing upvotes by one voter give one
 * 201 and one 409, and racing voters all count. Only approved questions take upvotes: a pending or
 * dismissed one is not visible to the audience, so it answers 404 like an unknown id.
 */
export async function upvoteQuestion(
  deps: PollsDeps & ModerationDeps,
  workspaceId: string,
  input: z.output<typeof UpvoteQuestionInput>,
  /**
   * Live sessions: only questions of the slide on screen take upvotes, and only those asked in the
   * participant's own session (another room's question is a 404, as an unknown one).
   */
  options: { currentSlideId?: string; sessionId?: string } = {},
): Promise<Question> {
  const poll = await getPoll(deps, workspaceId, input.id);
  assertTakesAnswers(poll);
  const question = await answers.findQuestion(deps.db, poll.id, input.questionId, options.sessionId);
  if (question?.status !== 'approved') throw questionNotFound();
  if (options.currentSlideId !== undefined && question.slide_id !== options.currentSlideId) {
    throw new ApiError('slide_not_active', 'Only questions of the current slide take upvotes', {
      currentSlideId: options.currentSlideId,
    });
  }
  // Slides cannot change once the poll has answers, so a question's slide is still there; a
  // missing one is treated as a missing question all the same.
  const slide = qaSlide(poll, question.slide_id);
  if (!slide) throw questionNotFound();
  if (!slide.allowUpvotes) {
    throw new ApiError('upvotes_disabled', `Slide '${slide.id}' does not take upvotes`);
  }

  const row = await deps.db.transaction().execute(async (trx) => {
    if (!(await answers.recordUpvote(trx, question.id, input.voterId))) {
      throw new ApiError('already_upvoted', 'This voter already upvoted this question');
    }
    const updated = await answers.incrementApprovedUpvotes(trx, poll.id, question.id);
    // Dismissed (or sent back to pending) since it was read: throwing rolls the upvote row back.
    if (!updated) throw questionNotFound();
    return updated;
  });
  // The audience's upvote (a live session) reads the question as the board shows it.
  const viewOf = await viewer(deps, workspaceId, poll, options.sessionId !== undefined);
  return toQuestion(row, viewOf(row));
}
