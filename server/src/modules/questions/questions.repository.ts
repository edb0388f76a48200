import type { QuestionStatus } from '@pollkit/contracts';
import type { Kysely } from 'kysely';
import type { AnswerRow, Database } from '../../db/schema.js';

type Db = Kysely<Database>;

/**
 * Q&A questions are rows of `answers` with `slide_kind = 'qa'` (written by the answers module); this
 * repository reads them, moderates them and counts their upvotes.
 */

/** Newest first, keyset-paginated on the time-ordered id. */
export function listQuestions(
  db: Db,
  filter: {
    pollId: string;
    slideId?: string | undefined;
    status?: QuestionStatus | undefined;
    beforeId?: string | undefined;
    limit: number;
  },
): Promise<AnswerRow[]> {
  // Served by the indexes of answers on (poll_id, kind, …, id), as answers' own lists are.
  let query = db.selectFrom('answers').selectAll().where('poll_id', '=', filter.pollId).where('kind', '=', 'response');
  if (filter.slideId !== undefined) query = query.where('slide_id', '=', filter.slideId);
  query = query.where('slide_kind', '=', 'qa');
  if (filter.status !== undefined) query = query.where('status', '=', filter.status);
  if (filter.beforeId !== undefined) query = query.where('id', '<', filter.beforeId);
  return query.orderBy('id', 'desc').limit(filter.limit).execute();
}

export function findQuestion(db: Db, pollId: string, questionId: string): Promise<AnswerRow | undefined> {
  return db
    .selectFrom('answers')
    .selectAll()
    .where('id', '=', questionId)
    .where('poll_id', '=', pollId)
    .where('slide_kind', '=', 'qa')
    .executeTakeFirst();
}

/** Sets the status; the partial index `answers_top_questions` (approved only) follows by itself. */
export function setQuestionStatus(
  db: Db,
  pollId: string,
  questionId: string,
  status: QuestionStatus,
): Promise<AnswerRow | undefined> {
  return db
    .updateTable('answers')
    .set({ status })
    .where('id', '=', questionId)
    .where('poll_id', '=', pollId)
    .where('slide_kind', '=', 'qa')
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
