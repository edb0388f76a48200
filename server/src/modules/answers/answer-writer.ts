import type { Kysely } from 'kysely';
import type { Database, NewAnswer } from '../../db/schema.js';
import { GroupCommit } from '../../infra/group-commit.js';
import * as answers from './answers.repository.js';
import type { AnswerDeltas } from './tallies.js';

export interface PendingAnswer {
  row: NewAnswer;
  deltas: AnswerDeltas;
}

/** PostgreSQL's "try again" errors: deadlock detected, serialization failure. */
const RETRYABLE = new Set(['40P01', '40001']);

/**
 * Writes answers with their aggregates, many per transaction (see GroupCommit). `write` resolves to
 * true when the answer was stored, false when the voter had already answered that slide — decided by
 * the database's unique index, so two racing requests can never both be accepted.
 */
export class AnswerWriter {
  readonly #commit: GroupCommit<PendingAnswer, boolean>;

  constructor(
    private readonly db: Kysely<Database>,
    options: { maxBatch?: number; maxConcurrentFlushes: number },
  ) {
    this.#commit = new GroupCommit((items) => this.#flushWithRetry(items), {
      maxBatch: options.maxBatch ?? 500,
      maxConcurrentFlushes: options.maxConcurrentFlushes,
    });
  }

  write(answer: PendingAnswer): Promise<boolean> {
    return this.#commit.submit(answer);
  }

  drained(): Promise<void> {
    return this.#commit.drained();
  }

  async #flushWithRetry(items: PendingAnswer[]): Promise<boolean[]> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.db.transaction().execute((trx) => flush(trx, items));
      } catch (error) {
        const code = (error as { code?: unknown }).code;
        if (attempt >= 3 || typeof code !== 'string' || !RETRYABLE.has(code)) throw error;
      }
    }
  }
}

const byKeys =
  <T>(...keys: ((item: T) => string)[]) =>
  (a: T, b: T) => {
    for (const key of keys) {
      const x = key(a);
      const y = key(b);
      if (x !== y) return x < y ? -1 : 1;
    }
    return 0;
  };

/**
 * One transaction: the answers (duplicates skipped), then the counters of the accepted ones, summed
 * per row first so each counter row is written once. Rows are written in a fixed order (sorted keys)
 * so concurrent flushes lock them in the same order and do not deadlock.
 */
async function flush(trx: Kysely<Database>, items: PendingAnswer[]): Promise<boolean[]> {
  const rows = items.map((item) => item.row);
  rows.sort(
    byKeys(
      (r) => r.poll_id,
      (r) => r.slide_id,
      (r) => r.voter_id,
    ),
  );
  const inserted = await answers.insertAnswersSkippingDuplicates(trx, rows);

  const tallies = new Map<string, { poll_id: string; slide_id: string; key: string; count: number; total: number }>();
  const texts = new Map<
    string,
    { poll_id: string; slide_id: string; text_hash: string; text: string; count: number }
  >();
  const words = new Map<string, { poll_id: string; slide_id: string; word: string; count: number }>();
  const voters = new Map<string, { poll_id: string; voter_id: string }>();
  const answersPerPoll = new Map<string, number>();

  for (const { row, deltas } of items) {
    if (!inserted.has(row.id)) continue;
    const { poll_id, slide_id } = row;
    for (const delta of deltas.tallies) {
      const id = `${poll_id}\u0000${slide_id}\u0000${delta.key}`;
      const current = tallies.get(id);
      if (current) {
        current.count += delta.count;
        current.total += delta.total;
      } else {
        tallies.set(id, { poll_id, slide_id, key: delta.key, count: delta.count, total: delta.total });
      }
    }
    if (deltas.text) {
      const id = `${poll_id}\u0000${slide_id}\u0000${deltas.text.hash}`;
      const current = texts.get(id);
      if (current) current.count += 1;
      else texts.set(id, { poll_id, slide_id, text_hash: deltas.text.hash, text: deltas.text.text, count: 1 });
    }
    for (const word of deltas.words ?? []) {
      const id = `${poll_id}\u0000${slide_id}\u0000${word}`;
      const current = words.get(id);
      if (current) current.count += 1;
      else words.set(id, { poll_id, slide_id, word, count: 1 });
    }
    voters.set(`${poll_id}\u0000${row.voter_id}`, { poll_id, voter_id: row.voter_id });
    answersPerPoll.set(poll_id, (answersPerPoll.get(poll_id) ?? 0) + 1);
  }

  const sortedValues = <T>(map: Map<string, T>) =>
    [...map.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([, v]) => v);
  await answers.addToTallies(trx, sortedValues(tallies));
  await answers.addToOpenTexts(trx, sortedValues(texts));
  await answers.addToWordCounts(trx, sortedValues(words));
  const newVoters = await answers.insertNewVoters(trx, sortedValues(voters));
  const votersPerPoll = new Map<string, number>();
  for (const { poll_id } of newVoters) votersPerPoll.set(poll_id, (votersPerPoll.get(poll_id) ?? 0) + 1);
  await answers.addToPollStats(
    trx,
    [...answersPerPoll.entries()]
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([poll_id, count]) => ({ poll_id, answers: count, voters: votersPerPoll.get(poll_id) ?? 0 })),
  );

  return items.map((item) => inserted.has(item.row.id));
}
