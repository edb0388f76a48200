import type { QuestionStatus, Slide } from '@pollkit/contracts';
import type { Kysely } from 'kysely';
import type { AnswerRow, Database } from '../../db/schema.js';
import { count, uncount } from './answer-removal.repository.js';
import * as questions from './questions.repository.js';

/**
 * What the questions module does with answer rows (exported by index.ts): Q&A questions are answers
 * of `qa` slides, and the texts the filter holds for review are open-ended answers. It lists and
 * moderates them, counts their upvotes, and counts an approved text into the aggregates (or takes a
 * dismissed one out). A function given a transaction (`trx`) runs in it.
 */

type Db = Kysely<Database>;

/** Newest first: the poll's questions, or one session's. */
export function listQuestions(db: Db, filter: Parameters<typeof questions.listQuestions>[1]): Promise<AnswerRow[]> {
  return questions.listQuestions(db, filter);
}

/** A session's open-ended answers, newest first (`pending`: the review queue). */
export function listSessionOpenAnswers(
  db: Db,
  filter: Parameters<typeof questions.listSessionOpenAnswers>[1],
): Promise<AnswerRow[]> {
  return questions.listSessionOpenAnswers(db, filter);
}

/** How many questions (or open-ended answers) of a session's slide wait for the host's decision. */
export function countPendingQuestions(
  db: Db,
  sessionId: string,
  slideId: string,
  kind?: 'qa' | 'open_ended',
): Promise<number> {
  return questions.countPendingQuestions(db, sessionId, slideId, kind);
}

/** A question of the poll; with `sessionId`, only one asked in that session. */
export function findQuestion(
  db: Db,
  pollId: string,
  questionId: string,
  sessionId?: string,
): Promise<AnswerRow | undefined> {
  return questions.findQuestion(db, pollId, questionId, sessionId);
}

/** Sets a question's status (with `sessionId`, only of one asked in that session). */
export function setQuestionStatus(
  db: Db,
  pollId: string,
  questionId: string,
  status: QuestionStatus,
  sessionId?: string,
): Promise<AnswerRow | undefined> {
  return questions.setQuestionStatus(db, pollId, questionId, status, sessionId);
}

/** Records the voter's upvote; false when they had upvoted the question already. */
export function recordUpvote(db: Db, questionId: string, voterId: string): Promise<boolean> {
  return questions.insertUpvote(db, questionId, voterId);
}

/** Adds one upvote to a question still approved; undefined when it is not (any more). */
export function incrementApprovedUpvotes(db: Db, pollId: string, questionId: string): Promise<AnswerRow | undefined> {
  return questions.incrementApprovedUpvotes(db, pollId, questionId);
}

/** An open-ended answer or a question of the poll, locked FOR UPDATE in `trx`. */
export function findModeratedTextForUpdate(
  trx: Db,
  pollId: string,
  responseId: string,
  sessionId?: string,
): Promise<AnswerRow | undefined> {
  return questions.findModeratedTextForUpdate(trx, pollId, responseId, sessionId);
}

/** Sets an answer's status (an open-ended answer's `approved` is stored as null). */
export function setAnswerStatus(trx: Db, id: string, status: QuestionStatus | null): Promise<AnswerRow> {
  return questions.setAnswerStatus(trx, id, status);
}

/**
 * An open-ended answer the filter held, approved: its counters, text and words go into its poll's and
 * session's aggregates, as the answer writer would have added them; `shownText` is its text as shown.
 */
export function countApprovedText(trx: Db, row: AnswerRow, slide: Slide, shownText: string): Promise<void> {
  return count(trx, row, slide, shownText);
}

/** An open-ended answer dismissed: what it added is taken out (it stays counted as received). */
export function uncountDismissedText(trx: Db, row: AnswerRow, slide: Slide): Promise<void> {
  return uncount(trx, [row], () => slide, { answers: false });
}
