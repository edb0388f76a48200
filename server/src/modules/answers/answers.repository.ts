import { type Kysely, sql } from 'kysely';
import type { AnswerRow, Database, NewAnswer } from '../../db/schema.js';

type Db = Kysely<Database>;

/** Inserts the answers; a second answer by the same voter to the same slide is skipped. Returns the ids inserted. */
export async function insertAnswersSkippingDuplicates(db: Db, rows: NewAnswer[]): Promise<Set<string>> {
  if (rows.length === 0) return new Set();
  const inserted = await db
    .insertInto('answers')
    .values(rows)
    .onConflict((oc) => oc.columns(['poll_id', 'slide_id', 'voter_id']).where('slide_kind', '<>', 'qa').doNothing())
    .returning('id')
    .execute();
  return new Set(inserted.map((row) => row.id));
}

export async function addToTallies(
  db: Db,
  rows: { poll_id: string; slide_id: string; key: string; count: number; total: number }[],
): Promise<void> {
  if (rows.length === 0) return;
  await db
    .insertInto('slide_tallies')
    .values(rows)
    .onConflict((oc) =>
      oc.columns(['poll_id', 'slide_id', 'key']).doUpdateSet({
        count: sql`slide_tallies.count + excluded.count`,
        total: sql`slide_tallies.total + excluded.total`,
      }),
    )
    .execute();
}

export async function addToOpenTexts(
  db: Db,
  rows: { poll_id: string; slide_id: string; text_hash: string; text: string; count: number }[],
): Promise<void> {
  if (rows.length === 0) return;
  await db
    .insertInto('open_text_counts')
    .values(rows)
    .onConflict((oc) =>
      oc
        .columns(['poll_id', 'slide_id', 'text_hash'])
        .doUpdateSet({ count: sql`open_text_counts.count + excluded.count` }),
    )
    .execute();
}

export async function addToWordCounts(
  db: Db,
  rows: { poll_id: string; slide_id: string; word: string; count: number }[],
): Promise<void> {
  if (rows.length === 0) return;
  await db
    .insertInto('word_counts')
    .values(rows)
    .onConflict((oc) =>
      oc.columns(['poll_id', 'slide_id', 'word']).doUpdateSet({ count: sql`word_counts.count + excluded.count` }),
    )
    .execute();
}

/** Records who answered; returns the (poll, voter) pairs seen for the first time. */
export async function insertNewVoters(
  db: Db,
  rows: { poll_id: string; voter_id: string }[],
): Promise<{ poll_id: string }[]> {
  if (rows.length === 0) return [];
  return db
    .insertInto('poll_voters')
    .values(rows)
    .onConflict((oc) => oc.columns(['poll_id', 'voter_id']).doNothing())
    .returning('poll_id')
    .execute();
}

export async function addToPollStats(
  db: Db,
  rows: { poll_id: string; voters: number; answers: number }[],
): Promise<void> {
  if (rows.length === 0) return;
  await db
    .insertInto('poll_stats')
    .values(rows)
    .onConflict((oc) =>
      oc.column('poll_id').doUpdateSet({
        voters: sql`poll_stats.voters + excluded.voters`,
        answers: sql`poll_stats.answers + excluded.answers`,
      }),
    )
    .execute();
}

/** Newest first, keyset-paginated on the time-ordered id, using the (poll_id, kind, …, id) indexes. */
export function listAnswers(
  db: Db,
  filter: {
    pollId: string;
    kind: 'vote' | 'response';
    slideId?: string | undefined;
    voterId?: string | undefined;
    slideKind?: 'qa' | undefined;
    status?: AnswerRow['status'] | undefined;
    beforeId?: string | undefined;
    limit: number;
  },
): Promise<AnswerRow[]> {
  let query = db.selectFrom('answers').selectAll().where('poll_id', '=', filter.pollId).where('kind', '=', filter.kind);
  if (filter.slideId !== undefined) query = query.where('slide_id', '=', filter.slideId);
  if (filter.voterId !== undefined) query = query.where('voter_id', '=', filter.voterId);
  if (filter.slideKind !== undefined) query = query.where('slide_kind', '=', filter.slideKind);
  if (filter.status !== undefined) query = query.where('status', '=', filter.status);
  if (filter.beforeId !== undefined) query = query.where('id', '<', filter.beforeId);
  return query.orderBy('id', 'desc').limit(filter.limit).execute();
}

export async function pollHasAnswers(db: Db, pollId: string): Promise<boolean> {
  const row = await db.selectFrom('answers').select('id').where('poll_id', '=', pollId).limit(1).executeTakeFirst();
  return row !== undefined;
}
