import type { Slide } from '@pollkit/contracts';
import type { Kysely } from 'kysely';
import { toNumber } from '../../src/db/database.js';
import type { Database } from '../../src/db/schema.js';
import { deltasFor } from '../../src/modules/answers/tallies.js';

/**
 * The aggregates a scope (a poll, or one session of it) should hold, recounted from the answers
 * left in the database with the writer's own model (`deltasFor`), beside what the aggregate tables
 * hold: a test that deletes or erases answers compares the two. Counters at zero are left out of
 * both (a removal deletes the rows it brings to zero; a recount never makes them).
 */
export interface Aggregates {
  voters: number;
  answers: number;
  tallies: Record<string, { count: number; total: number }>;
  texts: Record<string, number>;
  words: Record<string, number>;
  voterIds: string[];
}

type Db = Kysely<Database>;

/** What the answers of the scope add up to. */
export async function recount(db: Db, scope: { pollId: string; sessionId?: string }): Promise<Aggregates> {
  const poll = await db.selectFrom('polls').select('content').where('id', '=', scope.pollId).executeTakeFirstOrThrow();
  const slides = new Map<string, Slide>(poll.content.questions.map((slide) => [slide.id, slide as Slide]));
  let query = db.selectFrom('answers').select(['slide_id', 'voter_id', 'value']).where('poll_id', '=', scope.pollId);
  if (scope.sessionId !== undefined) query = query.where('session_id', '=', scope.sessionId);
  const rows = await query.execute();
  const result: Aggregates = { voters: 0, answers: rows.length, tallies: {}, texts: {}, words: {}, voterIds: [] };
  const voters = new Set<string>();
  for (const row of rows) {
    voters.add(row.voter_id);
    const slide = slides.get(row.slide_id);
    if (!slide) throw new Error(`answer to unknown slide ${row.slide_id}`);
    const deltas = deltasFor(slide, row.value);
    for (const delta of deltas.tallies) {
      const key = `${row.slide_id}/${delta.key}`;
      const sum = result.tallies[key] ?? { count: 0, total: 0 };
      result.tallies[key] = { count: sum.count + delta.count, total: sum.total + delta.total };
    }
    if (deltas.text) add(result.texts, `${row.slide_id}/${deltas.text.hash}`, 1);
    for (const word of deltas.words ?? []) add(result.words, `${row.slide_id}/${word}`, 1);
  }
  result.voters = voters.size;
  result.voterIds = [...voters].sort();
  return result;
}

/** What the aggregate tables of the scope hold. */
export async function storedAggregates(db: Db, scope: { pollId: string; sessionId?: string }): Promise<Aggregates> {
  const { pollId, sessionId } = scope;
  const [stats, voterRows, tallyRows, textRows, wordRows] =
    sessionId === undefined
      ? await Promise.all([
          db.selectFrom('poll_stats').select(['voters', 'answers']).where('poll_id', '=', pollId).executeTakeFirst(),
          db.selectFrom('poll_voters').select('voter_id').where('poll_id', '=', pollId).execute(),
          db.selectFrom('slide_tallies').selectAll().where('poll_id', '=', pollId).execute(),
          db.selectFrom('open_text_counts').selectAll().where('poll_id', '=', pollId).execute(),
          db.selectFrom('word_counts').selectAll().where('poll_id', '=', pollId).execute(),
        ])
      : await Promise.all([
          db
            .selectFrom('session_stats')
            .select(['voters', 'answers'])
            .where('session_id', '=', sessionId)
            .executeTakeFirst(),
          db.selectFrom('session_voters').select('voter_id').where('session_id', '=', sessionId).execute(),
          db.selectFrom('session_tallies').selectAll().where('session_id', '=', sessionId).execute(),
          db.selectFrom('session_text_counts').selectAll().where('session_id', '=', sessionId).execute(),
          db.selectFrom('session_word_counts').selectAll().where('session_id', '=', sessionId).execute(),
        ]);
  const result: Aggregates = {
    voters: toNumber(stats?.voters),
    answers: toNumber(stats?.answers),
    tallies: {},
    texts: {},
    words: {},
    voterIds: voterRows.map((row) => row.voter_id).sort(),
  };
  for (const row of tallyRows) {
    if (toNumber(row.count) !== 0) {
      result.tallies[`${row.slide_id}/${row.key}`] = { count: toNumber(row.count), total: row.total };
    }
  }
  for (const row of textRows) add(result.texts, `${row.slide_id}/${row.text_hash}`, toNumber(row.count));
  for (const row of wordRows) add(result.words, `${row.slide_id}/${row.word}`, toNumber(row.count));
  return result;
}

function add(counts: Record<string, number>, key: string, count: number): void {
  const sum = (counts[key] ?? 0) + count;
  if (sum === 0) delete counts[key];
  else counts[key] = sum;
}
