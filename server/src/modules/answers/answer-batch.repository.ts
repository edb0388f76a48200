import { type Kysely, type RawBuilder, sql } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { PendingAnswer } from './answer-writer.js';

const values = (rows: RawBuilder<unknown>[]) => sql.join(rows);
const tuple = (...cells: unknown[]) => sql`(${sql.join(cells)})`;

/**
 * Writes a batch of answers and everything they add to the aggregates in ONE statement (one round
 * trip, atomic on its own): data-modifying CTEs insert the answers (a voter's second answer to a
 * slide is skipped by the unique index), and only the answers actually inserted — the `inserted`
 * CTE's RETURNING — feed the counters, voters and per-poll stats. Deltas arrive pre-computed per
 * answer (see tallies.ts) and are summed per counter row in SQL, so each row is written once.
 *
 * Returns the ids that were inserted.
 */
export async function insertAnswerBatch(db: Kysely<Database>, items: PendingAnswer[]): Promise<Set<string>> {
  if (items.length === 0) return new Set();
  // Fixed order, so concurrent batches take row locks in the same order.
  const sorted = [...items].sort(
    (a, b) =>
      compare(a.row.poll_id, b.row.poll_id) ||
      compare(a.row.slide_id, b.row.slide_id) ||
      compare(a.row.voter_id, b.row.voter_id),
  );

  const answerRows = sorted.map(({ row }) =>
    tuple(
      row.id,
      row.poll_id,
      row.slide_id,
      row.voter_id,
      row.kind,
      row.slide_kind,
      sql`${row.value}::jsonb`,
      row.status ?? null,
      row.created_at ?? new Date(),
    ),
  );
  const tallyRows = sorted.flatMap(({ row, deltas }) =>
    deltas.tallies.map((d) =>
      tuple(row.id, row.poll_id, row.slide_id, d.key, sql`${d.count}::bigint`, sql`${d.total}::float8`),
    ),
  );
  const textRows = sorted.flatMap(({ row, deltas }) =>
    deltas.text ? [tuple(row.id, row.poll_id, row.slide_id, deltas.text.hash, deltas.text.text)] : [],
  );
  const wordRows = sorted.flatMap(({ row, deltas }) =>
    (deltas.words ?? []).map((word) => tuple(row.id, row.poll_id, row.slide_id, word)),
  );

  const ctes: RawBuilder<unknown>[] = [
    sql`inserted as (
      insert into answers (id, poll_id, slide_id, voter_id, kind, slide_kind, value, status, created_at)
      values ${values(answerRows)}
      on conflict (poll_id, slide_id, voter_id) where slide_kind <> 'qa' do nothing
      returning id, poll_id, voter_id)`,
  ];
  if (tallyRows.length > 0) {
    ctes.push(sql`tally_deltas (answer_id, poll_id, slide_id, key, count, total) as (values ${values(tallyRows)})`);
    ctes.push(sql`tallied as (
      insert into slide_tallies (poll_id, slide_id, key, count, total)
      select d.poll_id, d.slide_id, d.key, sum(d.count), sum(d.total)
      from tally_deltas d join inserted i on i.id = d.answer_id
      group by d.poll_id, d.slide_id, d.key
      order by d.poll_id, d.slide_id, d.key
      on conflict (poll_id, slide_id, key) do update
        set count = slide_tallies.count + excluded.count, total = slide_tallies.total + excluded.total)`);
  }
  if (textRows.length > 0) {
    ctes.push(sql`text_deltas (answer_id, poll_id, slide_id, text_hash, text) as (values ${values(textRows)})`);
    ctes.push(sql`texted as (
      insert into open_text_counts (poll_id, slide_id, text_hash, text, count)
      select d.poll_id, d.slide_id, d.text_hash, min(d.text), count(*)
      from text_deltas d join inserted i on i.id = d.answer_id
      group by d.poll_id, d.slide_id, d.text_hash
      order by d.poll_id, d.slide_id, d.text_hash
      on conflict (poll_id, slide_id, text_hash) do update set count = open_text_counts.count + excluded.count)`);
  }
  if (wordRows.length > 0) {
    ctes.push(sql`word_deltas (answer_id, poll_id, slide_id, word) as (values ${values(wordRows)})`);
    ctes.push(sql`worded as (
      insert into word_counts (poll_id, slide_id, word, count)
      select d.poll_id, d.slide_id, d.word, count(*)
      from word_deltas d join inserted i on i.id = d.answer_id
      group by d.poll_id, d.slide_id, d.word
      order by d.poll_id, d.slide_id, d.word
      on conflict (poll_id, slide_id, word) do update set count = word_counts.count + excluded.count)`);
  }
  ctes.push(sql`new_voters as (
    insert into poll_voters (poll_id, voter_id)
    select distinct poll_id, voter_id from inserted order by poll_id, voter_id
    on conflict (poll_id, voter_id) do nothing
    returning poll_id)`);
  ctes.push(sql`stats as (
    insert into poll_stats (poll_id, voters, answers)
    select a.poll_id, coalesce(v.voters, 0), a.answers
    from (select poll_id, count(*) as answers from inserted group by poll_id) a
    left join (select poll_id, count(*) as voters from new_voters group by poll_id) v on v.poll_id = a.poll_id
    order by a.poll_id
    on conflict (poll_id) do update
      set voters = poll_stats.voters + excluded.voters, answers = poll_stats.answers + excluded.answers)`);

  const result = await sql<{ id: string }>`with ${sql.join(ctes)} select id from inserted`.execute(db);
  return new Set(result.rows.map((row) => row.id));
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
