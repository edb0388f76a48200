import type { Slide } from '@pollkit/contracts';
import { type Kysely, sql } from 'kysely';
import type { AnswerRow, Database } from '../../db/schema.js';
import { deltasFor } from './tallies.js';

type Db = Kysely<Database>;

/** What removing answers removed. */
export interface RemovedAnswers {
  votes: number;
  responses: number;
  questions: number;
  /** Upvotes the removed questions had received. */
  questionUpvotes: number;
}

/**
 * Removes answers and takes exactly what each added out of every aggregate — the poll's
 * (slide_tallies, open_text_counts, word_counts, poll_voters, poll_stats) and, for an answer that came
 * from a session, the session's (migration 0012) — the inverse of the batch statement
 * (answer-batch.repository.ts). `slideOf` gives each answer's slide: slides cannot change once a poll
 * has answers, so the current slide's `deltasFor` is exactly what the answer added.
 *
 * The caller holds the answers' poll rows FOR UPDATE in its transaction: answer batches hold them FOR
 * SHARE while they write, so none commits in between, and every row read here stays true until commit.
 * Counter rows that reach zero are deleted (a missing row reads as zero, as after a reset); a voter
 * leaves poll_voters / session_voters (and the `voters` count) when they have no answer left there.
 * Used by single deletes (answers.service.ts) and by erasure (respondents.service.ts).
 */
export async function removeAnswers(
  trx: Db,
  rows: AnswerRow[],
  slideOf: (row: AnswerRow) => Slide | undefined,
): Promise<RemovedAnswers> {
  const removed: RemovedAnswers = { votes: 0, responses: 0, questions: 0, questionUpvotes: 0 };
  if (rows.length === 0) return removed;
  const ids = rows.map((row) => row.id);
  const upvotes = await trx.deleteFrom('question_upvotes').where('question_id', 'in', ids).executeTakeFirst();
  removed.questionUpvotes = Number(upvotes.numDeletedRows);
  // Only what this statement deleted is taken out of the aggregates: a row gone meanwhile counts once.
  const deletedIds = new Set(
    (await trx.deleteFrom('answers').where('id', 'in', ids).returning('id').execute()).map((row) => row.id),
  );
  const deleted = rows.filter((row) => deletedIds.has(row.id));
  if (deleted.length === 0) return removed;

  for (const row of deleted) {
    if (row.kind === 'vote') removed.votes++;
    else if (row.slide_kind === 'qa') removed.questions++;
    else removed.responses++;
  }
  // A held or dismissed open-ended answer added nothing to the counters (answers.service.ts).
  const counted = (row: AnswerRow) =>
    row.slide_kind !== 'open_ended' || row.status === null || row.status === 'approved';
  await uncount(trx, deleted, (row) => (counted(row) ? slideOf(row) : undefined), { answers: true });
  await forgetVoters(trx, 'poll', deleted);
  await forgetVoters(trx, 'session', deleted);
  return removed;
}

/**
 * Takes what `rows` added out of the counters, texts and words of their polls and sessions; with
 * `answers`, out of the stats' answer counts too (a removal; a dismissal keeps the answer, which stays
 * counted as received). A row whose slide `slideOf` does not give adds nothing but its answer count.
 */
export async function uncount(
  trx: Db,
  rows: AnswerRow[],
  slideOf: (row: AnswerRow) => Slide | undefined,
  options: { answers: boolean },
): Promise<void> {
  const poll = new Deltas();
  const session = new Deltas();
  for (const row of rows) {
    const slide = slideOf(row);
    const deltas = slide ? deltasFor(slide, row.value) : { tallies: [] };
    poll.add(row.poll_id, row, deltas);
    if (row.session_id !== null) session.add(row.session_id, row, deltas);
  }
  if (!options.answers) {
    poll.answers.clear();
    session.answers.clear();
  }
  await subtract(trx, 'slide_tallies', 'poll_id', poll);
  await subtract(trx, 'session_tallies', 'session_id', session);
}

/**
 * Adds what an answer held for review adds once approved: its counters, text and words, to its poll
 * and its session, as the batch statement would have (answer-batch.repository.ts). Its voter and the
 * stats' answer counts were recorded when it arrived. `shownText`: its text as the filter shows it,
 * whose words the cloud counts (tallies.ts).
 */
export async function count(trx: Db, row: AnswerRow, slide: Slide, shownText?: string): Promise<void> {
  const deltas = deltasFor(slide, row.value, shownText);
  const owners: Array<['poll_id' | 'session_id', string]> = [['poll_id', row.poll_id]];
  if (row.session_id !== null) owners.push(['session_id', row.session_id]);
  for (const [column, owner] of owners) {
    const tallyTable = column === 'poll_id' ? 'slide_tallies' : 'session_tallies';
    const { texts, words } = tables[column];
    const ref = sql.ref(column);
    for (const delta of deltas.tallies) {
      await sql`insert into ${sql.table(tallyTable)} (${ref}, slide_id, key, count, total)
        values (${owner}, ${row.slide_id}, ${delta.key}, ${delta.count}, ${delta.total})
        on conflict (${ref}, slide_id, key) do update
          set count = ${sql.table(tallyTable)}.count + excluded.count,
              total = ${sql.table(tallyTable)}.total + excluded.total`.execute(trx);
    }
    if (deltas.text) {
      await sql`insert into ${sql.table(texts)} (${ref}, slide_id, text_hash, text, count)
        values (${owner}, ${row.slide_id}, ${deltas.text.hash}, ${deltas.text.text}, 1)
        on conflict (${ref}, slide_id, text_hash) do update set count = ${sql.table(texts)}.count + 1`.execute(trx);
    }
    for (const word of deltas.words ?? []) {
      await sql`insert into ${sql.table(words)} (${ref}, slide_id, word, count)
        values (${owner}, ${row.slide_id}, ${word}, 1)
        on conflict (${ref}, slide_id, word) do update set count = ${sql.table(words)}.count + 1`.execute(trx);
    }
  }
}

type DeltasFor = ReturnType<typeof deltasFor>;

/** The sums to take away, keyed by owner (a poll or a session), slide and key. */
class Deltas {
  readonly tallies = new Map<string, { owner: string; slide: string; key: string; count: number; total: number }>();
  readonly texts = new Map<string, { owner: string; slide: string; hash: string; count: number }>();
  readonly words = new Map<string, { owner: string; slide: string; word: string; count: number }>();
  readonly answers = new Map<string, number>();

  add(owner: string, row: AnswerRow, deltas: DeltasFor): void {
    this.answers.set(owner, (this.answers.get(owner) ?? 0) + 1);
    for (const delta of deltas.tallies) {
      const id = JSON.stringify([owner, row.slide_id, delta.key]);
      const entry = this.tallies.get(id) ?? { owner, slide: row.slide_id, key: delta.key, count: 0, total: 0 };
      entry.count += delta.count;
      entry.total += delta.total;
      this.tallies.set(id, entry);
    }
    if (deltas.text) {
      const id = JSON.stringify([owner, row.slide_id, deltas.text.hash]);
      const entry = this.texts.get(id) ?? { owner, slide: row.slide_id, hash: deltas.text.hash, count: 0 };
      entry.count += 1;
      this.texts.set(id, entry);
    }
    for (const word of deltas.words ?? []) {
      const id = JSON.stringify([owner, row.slide_id, word]);
      const entry = this.words.get(id) ?? { owner, slide: row.slide_id, word, count: 0 };
      entry.count += 1;
      this.words.set(id, entry);
    }
  }
}

const tables = {
  poll_id: { texts: 'open_text_counts', words: 'word_counts', stats: 'poll_stats' },
  session_id: { texts: 'session_text_counts', words: 'session_word_counts', stats: 'session_stats' },
} as const;

/** Subtracts the counters, texts, words and answer counts, deleting the rows that reach zero. */
async function subtract(
  trx: Db,
  tallyTable: 'slide_tallies' | 'session_tallies',
  ownerColumn: 'poll_id' | 'session_id',
  deltas: Deltas,
): Promise<void> {
  const owner = sql.ref(ownerColumn);
  const { texts, words, stats } = tables[ownerColumn];
  const tallies = [...deltas.tallies.values()];
  if (tallies.length > 0) {
    await sql`
      with d (owner, slide_id, key, count, total) as (
        select * from unnest(${tallies.map((d) => d.owner)}::text[], ${tallies.map((d) => d.slide)}::text[],
                             ${tallies.map((d) => d.key)}::text[], ${tallies.map((d) => d.count)}::bigint[],
                             ${tallies.map((d) => d.total)}::float8[])
      )
      update ${sql.table(tallyTable)} t set count = t.count - d.count, total = t.total - d.total
      from d where t.${owner} = d.owner and t.slide_id = d.slide_id and t.key = d.key`.execute(trx);
    await sql`delete from ${sql.table(tallyTable)} where ${owner} = any(${unique(tallies.map((d) => d.owner))}::text[])
      and count <= 0`.execute(trx);
  }
  const textRows = [...deltas.texts.values()];
  if (textRows.length > 0) {
    await sql`
      with d (owner, slide_id, text_hash, count) as (
        select * from unnest(${textRows.map((d) => d.owner)}::text[], ${textRows.map((d) => d.slide)}::text[],
                             ${textRows.map((d) => d.hash)}::text[], ${textRows.map((d) => d.count)}::bigint[])
      )
      update ${sql.table(texts)} t set count = t.count - d.count
      from d where t.${owner} = d.owner and t.slide_id = d.slide_id and t.text_hash = d.text_hash`.execute(trx);
    await sql`delete from ${sql.table(texts)} where ${owner} = any(${unique(textRows.map((d) => d.owner))}::text[])
      and count <= 0`.execute(trx);
  }
  const wordRows = [...deltas.words.values()];
  if (wordRows.length > 0) {
    await sql`
      with d (owner, slide_id, word, count) as (
        select * from unnest(${wordRows.map((d) => d.owner)}::text[], ${wordRows.map((d) => d.slide)}::text[],
                             ${wordRows.map((d) => d.word)}::text[], ${wordRows.map((d) => d.count)}::bigint[])
      )
      update ${sql.table(words)} t set count = t.count - d.count
      from d where t.${owner} = d.owner and t.slide_id = d.slide_id and t.word = d.word`.execute(trx);
    await sql`delete from ${sql.table(words)} where ${owner} = any(${unique(wordRows.map((d) => d.owner))}::text[])
      and count <= 0`.execute(trx);
  }
  for (const [id, answers] of deltas.answers) {
    await sql`update ${sql.table(stats)} set answers = answers - ${answers} where ${owner} = ${id}`.execute(trx);
  }
}

/**
 * A voter whose last answer in a poll (or session) went leaves its voters, and its `voters` count
 * drops by one. As the writer records them (answer-batch.repository.ts): an API voter in poll_voters,
 * a session's participant in session_voters only, counted in both stats (the poll's `voters` adds
 * the sessions'). Whether any answer is left is asked through answers_poll_voter_idx (poll, kind,
 * voter) — a session belongs to one poll, so a session's question narrows the poll's.
 */
async function forgetVoters(trx: Db, level: 'poll' | 'session', deleted: AnswerRow[]): Promise<void> {
  const pairs = new Map<string, { owner: string; pollId: string; voter: string }>();
  for (const row of deleted) {
    const owner = level === 'poll' ? (row.session_id === null ? row.poll_id : null) : row.session_id;
    if (owner !== null)
      pairs.set(JSON.stringify([owner, row.voter_id]), { owner, pollId: row.poll_id, voter: row.voter_id });
  }
  const votersTable = level === 'poll' ? 'poll_voters' : 'session_voters';
  const statsTable = level === 'poll' ? 'poll_stats' : 'session_stats';
  const ownerColumn = level === 'poll' ? 'poll_id' : 'session_id';
  for (const { owner, pollId, voter } of pairs.values()) {
    let remaining = trx
      .selectFrom('answers')
      .select('id')
      .where('poll_id', '=', pollId)
      .where('kind', 'in', ['vote', 'response'])
      .where('voter_id', '=', voter);
    remaining =
      level === 'session' ? remaining.where('session_id', '=', owner) : remaining.where('session_id', 'is', null);
    if (await remaining.limit(1).executeTakeFirst()) continue;
    const gone = await sql`delete from ${sql.table(votersTable)} where ${sql.ref(ownerColumn)} = ${owner}
      and voter_id = ${voter}`.execute(trx);
    if (Number(gone.numAffectedRows ?? 0) > 0) {
      await sql`update ${sql.table(statsTable)} set voters = voters - 1 where ${sql.ref(ownerColumn)} = ${owner}`.execute(
        trx,
      );
      // A session's voter counted in its poll's `voters` too.
      if (level === 'session') {
        await sql`update poll_stats set voters = voters - 1 where poll_id = ${pollId}`.execute(trx);
      }
    }
  }
  const owners = unique([...pairs.values()].map((pair) => pair.owner));
  if (owners.length > 0) {
    await sql`delete from ${sql.table(statsTable)} where ${sql.ref(ownerColumn)} = any(${owners}::text[])
      and answers <= 0 and voters <= 0`.execute(trx);
  }
}

function unique(values: string[]): string[] {
  return [...new Set(values)].sort();
}
