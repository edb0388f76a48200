import type {
  ListQuestionsInput,
  ModerateQuestionInput,
  Poll,
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
import type { DomainEvents } from '../events/domain-events.js';
import { getPoll, type PollsDeps } from '../polls/polls.service.js';
import * as questions from './questions.repository.js';

/**
 * Q&A questions: audience questions asked with `POST /polls/{id}/responses` on a `qa` slide, listed,
 * moderated and upvoted here. Every use case resolves the poll with getPoll first, so another
 * workspace's poll (and so its questions) is a 404.
 */

export function toQuestion(row: AnswerRow): Question {
  return {
    id: row.id,
    pollId: row.poll_id,
    slideId: row.slide_id,
    voterId: row.voter_id,
    text: row.value.text ?? '',
    status: row.status ?? 'approved',
    upvotes: row.upvotes,
    createdAt: row.created_at.toISOString(),
  };
}

const questionNotFound = () => ApiError.notFound('Question');

/**
 * `GET /polls/{id}/questions`: every question of the poll; with `sessionId` (`GET
 * /sessions/{id}/questions`), only those asked in that session.
 */
export async function listQuestions(
  deps: PollsDeps,
  workspaceId: string,
  input: z.output<typeof ListQuestionsInput>,
  sessionId?: string,
) {
  const poll = await getPoll(deps, workspaceId, input.id);
  return keysetPage(
    input,
    'rsp',
    ({ beforeId, limit }) =>
      questions.listQuestions(deps.db, {
        pollId: poll.id,
        sessionId,
        slideId: input.slideId,
        status: input.status,
        beforeId,
        limit,
      }),
    toQuestion,
  );
}

/**
 * Approve, dismiss, or send back to pending. Allowed whatever the poll's status: hosts tidy up the
 * questions of a closed poll too, and moderating is not answering. The results list approved
 * questions through a partial index on `status`, so they follow without further bookkeeping. With
 * `sessionId` (a presenter's moderation), only a question asked in that session: another room's is a 404.
 */
/**
 * How many questions of a session's moderated Q&A slide wait for approval: what the presenter's
 * `counts` carry, so that every presenter screen re-reads its queue when a decision is made anywhere.
 */
export function pendingQuestionCount(deps: { db: Kysely<Database> }, sessionId: string, slideId: string) {
  return questions.countPendingQuestions(deps.db, sessionId, slideId);
}

export async function moderateQuestion(
  deps: PollsDeps & { events: DomainEvents },
  workspaceId: string,
  input: z.output<typeof ModerateQuestionInput>,
  sessionId?: string,
): Promise<Question> {
  const poll = await getPoll(deps, workspaceId, input.id);
  const row = await questions.setQuestionStatus(deps.db, poll.id, input.questionId, input.status, sessionId);
  if (!row) throw questionNotFound();
  // Live sessions of the poll refresh their Q&A board.
  deps.events.publish({
    type: 'question.moderated',
    workspaceId,
    pollId: poll.id,
    questionId: row.id,
    status: input.status,
    sessionId: row.session_id,
  });
  return toQuestion(row);
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
  deps: PollsDeps,
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
  const question = await questions.findQuestion(deps.db, poll.id, input.questionId, options.sessionId);
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
    if (!(await questions.insertUpvote(trx, question.id, input.voterId))) {
      throw new ApiError('already_upvoted', 'This voter already upvoted this question');
    }
    const updated = await questions.incrementApprovedUpvotes(trx, poll.id, question.id);
    // Dismissed (or sent back to pending) since it was read: throwing rolls the upvote row back.
    if (!updated) throw questionNotFound();
    return updated;
  });
  return toQuestion(row);
}
