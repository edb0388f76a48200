import { type ExpressionBuilder, type Kysely, sql } from 'kysely';
import { toNumber } from '../../db/database.js';
import type { Database } from '../../db/schema.js';

/**
 * The reads results and exports make of the answers and their aggregates (modules/results calls them
 * through answer-reads.service.ts). Every query here is bounded and served by an index: the aggregate
 * tables by their primary keys, the top-N lists by the indexes made for them in migrations 0002 and
 * 0012. None scans the answers of a poll.
 *
 * Each read is of a scope: the poll as a whole (every session and every API answer: the poll's
 * tables), or one session of it, a room (the session's tables of migration 0012, and the answers'
 * session indexes).
 */

type Db = Kysely<Database>;

/** The poll as a whole, or one of its sessions. */
export interface ResultsScope {
  pollId: string;
  sessionId?: string | undefined;
}

export interface PollTotals {
  voters: number;
  answers: number;
}

/** poll_stats' (or session_stats') one row; a poll nobody answered has none yet. */
export async function findTotals(db: Db, scope: ResultsScope): Promise<PollTotals> {
  const row =
    scope.sessionId === undefined
      ? await db
          .selectFrom('poll_stats')
          .select(['voters', 'answers'])
          .where('poll_id', '=', scope.pollId)
          .executeTakeFirst()
      : await db
          .selectFrom('session_stats')
          .select(['voters', 'answers'])
          .where('session_id', '=', scope.sessionId)
          .executeTakeFirst();
  return { voters: toNumber(row?.voters), answers: toNumber(row?.answers) };
}

export interface TallyRow {
  slideId: string;
  key: string;
  count: number;
  total: number;
}

/**
 * Every counter of the scope, or of one of its slides: a few rows per slide (options, ratings,
 * statements), read through the primary key (or its prefix).
 */
export async function listTallies(db: Db, scope: ResultsScope, slideId?: string): Promise<TallyRow[]> {
  const rows =
    scope.sessionId === undefined
      ? await db
          .selectFrom('slide_tallies')
          .select(['slide_id', 'key', 'count', 'total'])
          .where('poll_id', '=', scope.pollId)
          .$if(slideId !== undefined, (q) => q.where('slide_id', '=', slideId as string))
          .execute()
      : await db
          .selectFrom('session_tallies')
          .select(['slide_id', 'key', 'count', 'total'])
          .where('session_id', '=', scope.sessionId)
          .$if(slideId !== undefined, (q) => q.where('slide_id', '=', slideId as string))
          .execute();
  return rows.map((row) => ({ slideId: row.slide_id, key: row.key, count: toNumber(row.count), total: row.total }));
}

/**
 * The newest open-ended answers of a slide, from the (poll_id, kind, slide_id, id) index read
 * backwards, or a session's from answers_poll_session_idx (poll_id, session_id, kind, id), newest
 * first, passing over the session's answers to other slides (a live slide's newest answers are its
 * own) and over answers the text filter holds or that were dismissed (few).
 */
export async function listRecentTexts(
  db: Db,
  scope: ResultsScope,
  slideId: string,
  limit: number,
): Promise<{ text: string; createdAt: Date }[]> {
  const rows = await db
    .selectFrom('answers')
    .select([sql<string>`value->>'text'`.as('text'), 'created_at'])
    .where(inScope(scope))
    .where('kind', '=', 'response')
    .where('slide_id', '=', slideId)
    // Held for review, or dismissed: shown nowhere (an open-ended answer's null status is "approved").
    .where((eb) => eb.or([eb('status', 'is', null), eb('status', '=', 'approved')]))
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
  return rows.map((row) => ({ text: row.text, createdAt: row.created_at }));
}

/** The most frequent words of a slide, from the word_counts_top (session_word_counts_top) index; ties alphabetically. */
export async function listTopWords(
  db: Db,
  scope: ResultsScope,
  slideId: string,
  limit: number,
): Promise<{ word: string; count: number }[]> {
  const rows =
    scope.sessionId === undefined
      ? await db
          .selectFrom('word_counts')
          .select(['word', 'count'])
          .where('poll_id', '=', scope.pollId)
          .where('slide_id', '=', slideId)
          .orderBy('count', 'desc')
          .orderBy('word', 'asc')
          .limit(limit)
          .execute()
      : await db
          .selectFrom('session_word_counts')
          .select(['word', 'count'])
          .where('session_id', '=', scope.sessionId)
          .where('slide_id', '=', slideId)
          .orderBy('count', 'desc')
          .orderBy('word', 'asc')
          .limit(limit)
          .execute();
  return rows.map((row) => ({ word: row.word, count: toNumber(row.count) }));
}

export interface QuestionRow {
  id: string;
  text: string;
  upvotes: number;
  createdAt: Date;
}

/**
 * The filter of the partial index answers_top_questions, written as literals (not parameters) so the
 * planner can prove a query matches the index whatever plan it caches.
 */
const approvedQuestion = sql<boolean>`slide_kind = ${sql.lit('qa')} and status = ${sql.lit('approved')}`;

/**
 * The most upvoted approved questions of a Q&A slide (oldest first among equals), from
 * answers_top_questions, or a session's from answers_session_top_questions.
 */
export async function listTopQuestions(
  db: Db,
  scope: ResultsScope,
  slideId: string,
  limit: number,
): Promise<QuestionRow[]> {
  const rows = await db
    .selectFrom('answers')
    .select(['id', sql<string>`value->>'text'`.as('text'), 'upvotes', 'created_at'])
    .where(inScope(scope))
    .where('slide_id', '=', slideId)
    .where(approvedQuestion)
    .orderBy('upvotes', 'desc')
    .orderBy('id', 'asc')
    .limit(limit)
    .execute();
  return rows.map((row) => ({ id: row.id, text: row.text, upvotes: row.upvotes, createdAt: row.created_at }));
}

/**
 * One page of a slide's approved questions in the order they were asked, after `afterId`. Keyed by
 * the immutable id (the (poll_id, kind, slide_id, id) index), not by upvotes: an upvote landing during
 * an export cannot move a question past the cursor, so every question is exported exactly once.
 */
export async function listApprovedQuestionsPage(
  db: Db,
  scope: ResultsScope,
  slideId: string,
  page: { afterId: string | undefined; limit: number },
): Promise<QuestionRow[]> {
  let query = db
    .selectFrom('answers')
    .select(['id', sql<string>`value->>'text'`.as('text'), 'upvotes', 'created_at'])
    .where(inScope(scope))
    .where('kind', '=', 'response')
    .where('slide_id', '=', slideId)
    .where(approvedQuestion);
  if (page.afterId !== undefined) query = query.where('id', '>', page.afterId);
  const rows = await query.orderBy('id', 'asc').limit(page.limit).execute();
  return rows.map((row) => ({ id: row.id, text: row.text, upvotes: row.upvotes, createdAt: row.created_at }));
}

/**
 * One page of a slide's distinct open-ended answers with their counts, after `afterHash`, in primary
 * key order. The hash is fixed per text, so concurrent answers only change counts, never the order.
 */
export async function listOpenTextCountsPage(
  db: Db,
  scope: ResultsScope,
  slideId: string,
  page: { afterHash: string | undefined; limit: number },
): Promise<{ hash: string; text: string; count: number }[]> {
  const rows =
    scope.sessionId === undefined
      ? await db
          .selectFrom('open_text_counts')
          .select(['text_hash', 'text', 'count'])
          .where('poll_id', '=', scope.pollId)
          .where('slide_id', '=', slideId)
          .$if(page.afterHash !== undefined, (q) => q.where('text_hash', '>', page.afterHash as string))
          .orderBy('text_hash', 'asc')
          .limit(page.limit)
          .execute()
      : await db
          .selectFrom('session_text_counts')
          .select(['text_hash', 'text', 'count'])
          .where('session_id', '=', scope.sessionId)
          .where('slide_id', '=', slideId)
          .$if(page.afterHash !== undefined, (q) => q.where('text_hash', '>', page.afterHash as string))
          .orderBy('text_hash', 'asc')
          .limit(page.limit)
          .execute();
  return rows.map((row) => ({ hash: row.text_hash, text: row.text, count: toNumber(row.count) }));
}

/**
 * The answers of the scope: the poll's, or one session's (served by the answers' session indexes, the
 * poll's id leading answers_poll_session_idx).
 */
function inScope(scope: ResultsScope) {
  return (eb: ExpressionBuilder<Database, 'answers'>) =>
    scope.sessionId === undefined
      ? eb('poll_id', '=', scope.pollId)
      : eb.and([eb('poll_id', '=', scope.pollId), eb('session_id', '=', scope.sessionId)]);
}
