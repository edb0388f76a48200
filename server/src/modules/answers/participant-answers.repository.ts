import { type Kysely, sql } from 'kysely';
import { toNumber } from '../../db/database.js';
import { preparedStatement } from '../../db/prepared.js';
import type { AnswerRow, Database } from '../../db/schema.js';

/**
 * A live session's participants' answers, as the live side (their screens, walks and streams) and
 * the sessions' standings read them: each participant answers under its own id (`voter_id`), unique
 * to its session. Other modules call these through answer-reads.service.ts.
 */

type Db = Kysely<Database>;

/**
 * One participant's quiz points, leaving out those of `hiddenSlideId` — the slide on screen whose
 * results the host has not shown: its points would tell whether the answer was right.
 */
export async function participantScore(
  db: Db,
  sessionId: string,
  participantId: string,
  hiddenSlideId?: string,
): Promise<number> {
  let query = db
    .selectFrom('answers')
    .select((eb) => eb.fn.coalesce(eb.fn.sum<number | string>('points'), eb.lit(0)).as('score'))
    .where('session_id', '=', sessionId)
    .where('voter_id', '=', participantId);
  if (hiddenSlideId !== undefined) query = query.where('slide_id', '<>', hiddenSlideId);
  const row = await query.executeTakeFirstOrThrow();
  return toNumber(row.score);
}

/** The slides of the session each of these participants answered (one query for many). */
export async function answeredSlidesOfEach(
  db: Db,
  sessionId: string,
  participantIds: readonly string[],
): Promise<Map<string, Set<string>>> {
  // Prepared (db/prepared.ts), as the participants' token lookup is: a room connecting runs it
  // hundreds of times.
  const { rows } = await sql<{ voter_id: string; slide_id: string }>`${sql.raw(ANSWERED_SLIDES)}
    select voter_id, slide_id from answers
    where session_id = ${sessionId}::text and voter_id = any(${participantIds}::text[])`.execute(db);
  const answered = new Map<string, Set<string>>(participantIds.map((id) => [id, new Set()]));
  for (const row of rows) answered.get(row.voter_id)?.add(row.slide_id);
  return answered;
}

const ANSWERED_SLIDES = preparedStatement('answered_slides');

/** The participants of the session who answered this slide. */
export async function slideRespondents(db: Db, sessionId: string, slideId: string): Promise<Set<string>> {
  const rows = await db
    .selectFrom('answers')
    .select('voter_id')
    .where('session_id', '=', sessionId)
    .where('slide_id', '=', slideId)
    .execute();
  return new Set(rows.map((row) => row.voter_id));
}

/** The participant's answers in the session (a Q&A slide's several questions each), oldest first. */
export function participantAnswers(
  db: Db,
  sessionId: string,
  participantId: string,
): Promise<Array<Pick<AnswerRow, 'slide_id' | 'value' | 'points'>>> {
  return db
    .selectFrom('answers')
    .select(['slide_id', 'value', 'points'])
    .where('session_id', '=', sessionId)
    .where('voter_id', '=', participantId)
    .orderBy('id')
    .execute();
}

/**
 * The session answers' points by participant and slide, as a subquery for the sessions module's
 * standings to join their participants to (PostgreSQL folds it into the joining query: the plan and
 * the rows are those of a join on answers itself).
 */
export function answerPoints(db: Db) {
  return db.selectFrom('answers').select(['session_id', 'voter_id', 'slide_id', 'points']);
}
