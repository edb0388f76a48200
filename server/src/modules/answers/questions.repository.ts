import type { QuestionStatus } from '@pollkit/contracts';
import { type Kysely, sql } from 'kysely';
import type { AnswerRow, Database } from '../../db/schema.js';

type Db = Kysely<Database>;

/**
 * Q&A questions are rows of `answers` with `slide_kind = 'qa'`; this repository reads them, moderates
 * them (and the open-ended answers the text filter holds) and counts their upvotes, for the questions
 * module, which calls it through question-rows.service.ts.
 */

/**
 * Newest first, keyset-paginated on the time-ordered id: the poll's questions, or one session's
 * (`sessionId`: the questions asked in that room; one asked through the API belongs to none).
 */
export function listQuestions(
  db: Db,
  filter: {
    pollId: string;
    sessionId?: string | undefined;
    slideId?: string | undefined;
    status?: QuestionStatus | undefined;
    beforeId?: string | undefined;
    limit: number;
  },
): Promise<AnswerRow[]> {
  // Served by the indexes of answers on (poll_id, kind, …, id), as answers' own lists are; a room's
  // by answers_session_questions (session_id, id), whose filter is written as literals so the planner
  // can prove the query matches it.
  let query = db.selectFrom('answers').selectAll().where('poll_id', '=', filter.pollId).where('kind', '=', 'response');
  if (filter.sessionId !== undefined) query = query.where('session_id', '=', filter.sessionId);
  if (filter.slideId !== undefined) query = query.where('slide_id', '=', filter.slideId);
  query = query.where(sql<boolean>`slide_kind = ${sql.lit('qa')}`);
  if (filter.status !== undefined) query = query.where('status', '=', filter.status);
  if (filter.beforeId !== undefined) query = query.where('id', '<', filter.beforeId);
  return query.orderBy('id', 'desc').limit(filter.limit).execute();
}

/**
 * The questions of one session's Q&A slide (or the answers of its open-ended slide) that wait for the
 * host's decision: the length of the moderation or review queue.
 */
export async function countPendingQuestions(
  db: Db,
  sessionId: string,
  slideId: string,
  kind: 'qa' | 'open_ended' = 'qa',
): Promise<number> {
  // Served by answers_session_questions (session_id, id) where slide_kind = 'qa', as the room's list
  // is; an open-ended slide's by answers_poll_session_idx, the held answers being few.
  const row = await db
    .selectFrom('answers')
    .select((eb) => eb.fn.countAll<number | string>().as('pending'))
    .where('session_id', '=', sessionId)
    .where(sql<boolean>`slide_kind = ${sql.lit(kind)}`)
    .where('slide_id', '=', slideId)
    .where('status', '=', 'pending')
    .executeTakeFirstOrThrow();
  return Number(row.pending);
}

/** A question of the poll; with `sessionId`, only one asked in that session. */
export function findQuestion(
  db: Db,
  pollId: string,
  questionId: string,
  sessionId?: string,
): Promise<AnswerRow | undefined> {
  return db
    .selectFrom('answers')
    .selectAll()
    .where('id', '=', questionId)
    .where('poll_id', '=', pollId)
    .where('slide_kind', '=', 'qa')
    .$if(sessionId !== undefined, (q) => q.where('session_id', '=', sessionId as string))
    .executeTakeFirst();
}

/**
 * Sets the status (with `sessionId`, only of a question asked in that session); the partial indexes
 * of approved questions follow by themselves.
 */
export function setQuestionStatus(
  db: Db,
  pollId: string,
  questionId: string,
  status: QuestionStatus,
  sessionId?: string,
): Promise<AnswerRow | undefined> {
  return db
    .updateTable('answers')
    .set({ status })
    .where('id', '=', questionId)
    .where('poll_id', '=', pollId)
    .where('slide_kind', '=', 'qa')
    .$if(sessionId !== undefined, (q) => q.where('session_id', '=', sessionId as string))
    .returningAll()
    .executeTakeFirst();
}

/** Records that the voter upvoted the question; false when they already had (the primary key decides). */
export async function insertUpvote(db: Db, questionId: string, voterId: string): Promise<boolean> {
  const inserted = await db
    .insertInto('question_upvotes')
    .values({ question_id: questionId, voter_id: voterId })
    .onConflict((oc) => oc.columns(['question_id', 'voter_id']).doNothing())
    .returning('question_id')
    .executeTakeFirst();
  return inserted !== undefined;
}

/**
 * Adds one upvote to a question that is still approved. `upvotes = upvotes + 1` is evaluated against
 * the row as locked by the update, so concurrent upvotes all count; a question dismissed meanwhile
 * matches nothing (undefined).
 */
export function incrementApprovedUpvotes(db: Db, pollId: string, questionId: string): Promise<AnswerRow | undefined> {
  return db
    .updateTable('answers')
    .set((eb) => ({ upvotes: eb('upvotes', '+', 1) }))
    .where('id', '=', questionId)
    .where('poll_id', '=', pollId)
    .where('slide_kind', '=', 'qa')
    .where('status', '=', 'approved')
    .returningAll()
    .executeTakeFirst();
}

/**
 * An open-ended answer or a Q&A question of the poll (the texts the filter moderates), locked FOR
 * UPDATE in the caller's transaction; with `sessionId`, only one given in that session.
 */
export function findModeratedTextForUpdate(
  trx: Db,
  pollId: string,
  responseId: string,
  sessionId?: string,
): Promise<AnswerRow | undefined> {
  return trx
    .selectFrom('answers')
    .selectAll()
    .where('id', '=', responseId)
    .where('poll_id', '=', pollId)
    .where('kind', '=', 'response')
    .where('slide_kind', 'in', ['qa', 'open_ended'])
    .$if(sessionId !== undefined, (q) => q.where('session_id', '=', sessionId as string))
    .forUpdate()
    .executeTakeFirst();
}

/** Sets an answer's status (an open-ended answer's `approved` is stored as null, as it always was). */
export function setAnswerStatus(trx: Db, id: string, status: QuestionStatus | null): Promise<AnswerRow> {
  return trx.updateTable('answers').set({ status }).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
}

/**
 * A session's open-ended answers, newest first, keyset-paginated (answers_poll_session_idx: poll,
 * session, kind, id); `status` `pending` is the review queue (`approved` includes the answers that
 * were never held, whose status is null).
 */
export function listSessionOpenAnswers(
  db: Db,
  filter: {
    pollId: string;
    sessionId: string;
    slideId?: string | undefined;
    status?: QuestionStatus | undefined;
    beforeId?: string | undefined;
    limit: number;
  },
): Promise<AnswerRow[]> {
  let query = db
    .selectFrom('answers')
    .selectAll()
    .where('poll_id', '=', filter.pollId)
    .where('session_id', '=', filter.sessionId)
    .where('kind', '=', 'response')
    .where('slide_kind', '=', 'open_ended');
  if (filter.slideId !== undefined) query = query.where('slide_id', '=', filter.slideId);
  if (filter.status === 'approved') {
    query = query.where((eb) => eb.or([eb('status', 'is', null), eb('status', '=', 'approved')]));
  } else if (filter.status !== undefined) query = query.where('status', '=', filter.status);
  if (filter.beforeId !== undefined) query = query.where('id', '<', filter.beforeId);
  return query.orderBy('id', 'desc').limit(filter.limit).execute();
}
