import type { QuestionStatus } from '@pollkit/contracts';
import { type Kysely, type SelectQueryBuilder, sql } from 'kysely';
import type { AnswerRow, AnswerValue, Database } from '../../db/schema.js';

type Db = Kysely<Database>;

/** Newest first, keyset-paginated on the time-ordered id, using the (poll_id, kind, …, id) indexes. */
export function listAnswers(
  db: Db,
  filter: {
    pollId: string;
    kind: 'vote' | 'response';
    slideId?: string | undefined;
    voterId?: string | undefined;
    sessionId?: string | undefined;
    /** Open-ended answers and Q&A questions in this status (an open-ended answer's null is `approved`). */
    status?: QuestionStatus | undefined;
    beforeId?: string | undefined;
    limit: number;
  },
): Promise<AnswerRow[]> {
  let query = db.selectFrom('answers').selectAll().where('poll_id', '=', filter.pollId).where('kind', '=', filter.kind);
  if (filter.status === 'approved') {
    query = query
      .where('slide_kind', 'in', ['open_ended', 'qa'])
      .where((eb) => eb.or([eb('status', 'is', null), eb('status', '=', 'approved')]));
  } else if (filter.status !== undefined) query = query.where('status', '=', filter.status);
  if (filter.slideId !== undefined) query = query.where('slide_id', '=', filter.slideId);
  if (filter.voterId !== undefined) query = query.where('voter_id', '=', filter.voterId);
  if (filter.sessionId !== undefined) query = query.where('session_id', '=', filter.sessionId);
  if (filter.beforeId !== undefined) query = query.where('id', '<', filter.beforeId);
  return query.orderBy('id', 'desc').limit(filter.limit).execute();
}

/** One answer of the poll, by id and kind (undefined for another poll's or an unknown id). */
export function findAnswer(
  db: Db,
  pollId: string,
  id: string,
  kind: 'vote' | 'response',
): Promise<AnswerRow | undefined> {
  return db
    .selectFrom('answers')
    .selectAll()
    .where('id', '=', id)
    .where('poll_id', '=', pollId)
    .where('kind', '=', kind)
    .executeTakeFirst();
}

/**
 * A respondent's answer to one slide (the first, for a Q&A slide that has several), by the
 * (poll_id, slide_id, voter_id) uniqueness the answer writer keeps; undefined when there is none.
 * With `sessionId`, only an answer given in that session (a participant's: answers_session_idx).
 */
export async function findVoterAnswer(
  db: Db,
  pollId: string,
  slideId: string,
  voterId: string,
  sessionId?: string,
): Promise<AnswerValue | undefined> {
  const row = await db
    .selectFrom('answers')
    .select('value')
    .where('poll_id', '=', pollId)
    .$if(sessionId !== undefined, (q) => q.where('session_id', '=', sessionId as string))
    .where('slide_id', '=', slideId)
    .where('voter_id', '=', voterId)
    .orderBy('id')
    .limit(1)
    .executeTakeFirst();
  return row?.value;
}

/** Whether anyone answered the poll (its deck may not change then: answers refer to slides by id). */
export async function pollHasAnswers(db: Db, pollId: string): Promise<boolean> {
  const row = await db.selectFrom('answers').select('id').where('poll_id', '=', pollId).limit(1).executeTakeFirst();
  return row !== undefined;
}

/**
 * The ids of a poll's sessions, as a subquery: the sessions module makes it (it owns the table, and
 * depends on this module, so it is handed in: see `PollSessions` in answers.service.ts).
 */
export type SessionIdsQuery = SelectQueryBuilder<Database, keyof Database, { id: string }>;

/** How many answers of each sort a reset deleted. */
export interface DeletedAnswers {
  votes: number;
  responses: number;
  questions: number;
  upvotes: number;
}

/**
 * Deletes every answer of a poll and everything derived from them: upvotes, the per-slide counters,
 * open-ended texts and words, voters and stats (every table migration 0002 fills from answers).
 * The caller holds the poll row FOR UPDATE, so no answer batch (which holds it FOR SHARE) writes
 * in between.
 */
export async function deleteAnswersOfPoll(
  db: Db,
  pollId: string,
  sessionsOfPoll: SessionIdsQuery,
): Promise<DeletedAnswers> {
  const deleted = await deleteAnswersWhere(db, 'poll_id', pollId);
  for (const table of ['slide_tallies', 'open_text_counts', 'word_counts', 'poll_voters', 'poll_stats'] as const) {
    await db.deleteFrom(table).where('poll_id', '=', pollId).execute();
  }
  // Every room of the poll starts again too.
  for (const table of sessionAggregateTables) {
    await db.deleteFrom(table).where('session_id', 'in', sessionsOfPoll).execute();
  }
  return deleted;
}

/** A session's share of the aggregates (migration 0012), emptied when its room is reset. */
const sessionAggregateTables = [
  'session_tallies',
  'session_text_counts',
  'session_word_counts',
  'session_voters',
  'session_stats',
] as const;

/**
 * Deletes the answers of one session (a room) and everything derived from them: the session's own
 * aggregates, and exactly the session's share of the poll's — which is what the session's aggregates
 * hold, so the poll's counters are decremented by them row for row, and a counter left at zero is
 * removed (as if never counted); the poll's `voters` lose the session's. The caller holds the poll
 * row FOR UPDATE, so no answer
 * batch (which holds it FOR SHARE) writes in between.
 */
export async function deleteAnswersOfSession(db: Db, pollId: string, sessionId: string): Promise<DeletedAnswers> {
  await sql`
    update slide_tallies t set count = t.count - s.count, total = t.total - s.total
    from session_tallies s
    where s.session_id = ${sessionId} and t.poll_id = ${pollId} and t.slide_id = s.slide_id and t.key = s.key`.execute(
    db,
  );
  await sql`
    update open_text_counts t set count = t.count - s.count
    from session_text_counts s
    where s.session_id = ${sessionId} and t.poll_id = ${pollId} and t.slide_id = s.slide_id
      and t.text_hash = s.text_hash`.execute(db);
  await sql`
    update word_counts t set count = t.count - s.count
    from session_word_counts s
    where s.session_id = ${sessionId} and t.poll_id = ${pollId} and t.slide_id = s.slide_id and t.word = s.word`.execute(
    db,
  );
  for (const table of ['slide_tallies', 'open_text_counts', 'word_counts'] as const) {
    await db.deleteFrom(table).where('poll_id', '=', pollId).where('count', '<=', 0).execute();
  }

  const deleted = await deleteAnswersWhere(db, 'session_id', sessionId);

  // The session's voters (recorded in session_voters only, counted in the poll's `voters` too: see
  // answer-batch.repository.ts) all go with its answers.
  await sql`
    update poll_stats p
    set voters = p.voters - s.voters, answers = p.answers - s.answers
    from session_stats s
    where s.session_id = ${sessionId} and p.poll_id = ${pollId}`.execute(db);

  for (const table of sessionAggregateTables) {
    await db.deleteFrom(table).where('session_id', '=', sessionId).execute();
  }
  return deleted;
}

/** Deletes the answers of a poll or of a session, with their questions' upvotes, and counts them by sort. */
async function deleteAnswersWhere(db: Db, column: 'poll_id' | 'session_id', id: string): Promise<DeletedAnswers> {
  const upvotes = await db
    .deleteFrom('question_upvotes')
    .where('question_id', 'in', (eb) =>
      eb.selectFrom('answers').select('id').where(column, '=', id).where('slide_kind', '=', 'qa'),
    )
    .executeTakeFirst();
  const answers = await db
    .with('deleted', (db) => db.deleteFrom('answers').where(column, '=', id).returning(['kind', 'slide_kind']))
    .selectFrom('deleted')
    .select((eb) => [
      eb.fn.countAll().filterWhere('kind', '=', 'vote').as('votes'),
      eb.fn.countAll().filterWhere('kind', '=', 'response').filterWhere('slide_kind', '<>', 'qa').as('responses'),
      eb.fn.countAll().filterWhere('slide_kind', '=', 'qa').as('questions'),
    ])
    .executeTakeFirstOrThrow();
  return {
    votes: Number(answers.votes),
    responses: Number(answers.responses),
    questions: Number(answers.questions),
    upvotes: Number(upvotes.numDeletedRows),
  };
}
