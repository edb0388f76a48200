import type { Kysely } from 'kysely';
import { isDependencyUnavailable } from '../../core/unavailable.js';
import type { Database } from '../../db/schema.js';
import { type FlushObservation, GroupCommit } from '../../infra/group-commit.js';
import { insertAnswerBatch, type PendingAnswer, type VersionedAnswer } from './answer-batch.repository.js';

export type { PendingAnswer } from './answer-batch.repository.js';

/** An answer waiting for its flush, with the poll version (`updatedAt`) it was judged against. */
type QueuedAnswer = VersionedAnswer;

/**
 * - `accepted`: stored, with its aggregates.
 * - `duplicate`: the voter had already answered that slide (decided by the unique index).
 * - `poll_changed`: the poll was changed, closed or deleted after the answer was judged against it;
 *   nothing was stored, and the caller judges the answer again against the poll as it is now.
 */
export type WriteOutcome = 'accepted' | 'duplicate' | 'poll_changed';

/** PostgreSQL's "try again" errors: deadlock detected, serialization failure. */
const RETRYABLE = new Set(['40P01', '40001']);

/**
 * Writes answers with their aggregates, many per transaction (see GroupCommit). Whether a voter
 * already answered is decided by the database's unique index, so two racing requests can never both
 * be accepted; whether the poll still is what the answer was judged against is decided under a lock
 * on the poll row, so a deck change or a close can never slip in between (see WriteOutcome).
 */
export class AnswerWriter {
  readonly #commit: GroupCommit<QueuedAnswer, WriteOutcome>;
  /**
   * The lane of sources (workspaces) one of whose answers the database refused lately: their
   * answers are batched only with each other, in a flush slot of their own, so a client that keeps
   * sending what validation did not foresee pays for its bisections itself instead of sharing
   * batches — and the one writer slot — with everybody else.
   */
  readonly #quarantine: GroupCommit<QueuedAnswer, WriteOutcome>;
  /** Source -> until when (ms since epoch) its answers go through the quarantine lane. */
  readonly #suspects = new Map<string, number>();
  readonly #quarantineMs: number;
  #retries = 0;
  #flushes = 0;
  #quarantineFlushes = 0;

  constructor(
    private readonly db: Kysely<Database>,
    options: {
      maxBatch?: number;
      maxConcurrentFlushes: number;
      quarantineMs?: number;
      /** The database runs in this thread (PGlite): see GroupCommit's `gatherBeforeFlush`. */
      inProcessDatabase?: boolean;
      /** Told of every batch statement's size, duration and failure (metrics). */
      observeFlush?: (flush: FlushObservation) => void;
    },
  ) {
    const lane = {
      maxBatch: options.maxBatch ?? 500,
      gatherBeforeFlush: options.inProcessDatabase ?? false,
      // The database away fails each waiting batch at once, with the 503 every waiter then answers:
      // none of them was stored, and a retry with the same Idempotency-Key counts once.
      failsWholeBatch: isDependencyUnavailable,
      observe: options.observeFlush,
    };
    this.#commit = new GroupCommit((items) => this.#flushWithRetry(items), {
      ...lane,
      maxConcurrentFlushes: options.maxConcurrentFlushes,
    });
    this.#quarantine = new GroupCommit(
      (items) => {
        this.#quarantineFlushes += 1;
        return this.#flushWithRetry(items);
      },
      { ...lane, maxConcurrentFlushes: 1 },
    );
    this.#quarantineMs = options.quarantineMs ?? 60_000;
  }

  /**
   * `pollVersion`: the `updatedAt` of the poll the answer was judged against. `source`: who sent it
   * (the workspace); an answer the database refuses puts its source in quarantine for a minute
   * (renewed by each further refusal).
   */
  write(answer: PendingAnswer, pollVersion: string, source?: string): Promise<WriteOutcome> {
    const queued = { answer, pollVersion };
    if (source === undefined) return this.#commit.submit(queued);
    const lane = this.isQuarantined(source) ? this.#quarantine : this.#commit;
    return lane.submit(queued).catch((error: unknown) => {
      // GroupCommit rejects an item only once it failed alone: this answer is the culprit — unless
      // the database was away, which is nobody's fault.
      if (!isDependencyUnavailable(error)) this.#suspects.set(source, Date.now() + this.#quarantineMs);
      throw error;
    });
  }

  /** Whether `source`'s answers currently go through the quarantine lane. */
  isQuarantined(source: string): boolean {
    const until = this.#suspects.get(source);
    if (until === undefined) return false;
    if (until > Date.now()) return true;
    this.#suspects.delete(source);
    return false;
  }

  /**
   * Whether the writer is the bottleneck now: at least `threshold` answers wait for a flush, or its
   * last flush, within the last second, took that many. Background work (webhook deliveries) gives
   * way while it is. The queue alone is a flickering signal: every flush empties it, so at full load
   * it reads 0 right after each flush starts; the last batch's size says the same thing steadily.
   */
  saturated(threshold: number): boolean {
    if (this.#commit.waiting + this.#quarantine.waiting >= threshold) return true;
    const last = this.#commit.lastBatch;
    return last.size >= threshold && Date.now() - last.at < 1000;
  }

  async drained(): Promise<void> {
    await Promise.all([this.#commit.drained(), this.#quarantine.drained()]);
  }

  /**
   * Transactions retried after a deadlock or serialization failure. Locks are taken in one fixed
   * order, so this should stay 0; tests check it, monitoring may.
   */
  get retries(): number {
    return this.#retries;
  }

  /**
   * Batch statements sent, failed ones and retries included. A failed batch is split in halves until
   * its bad answers are alone (GroupCommit), so this grows by O(k·log n) for k bad answers among n.
   */
  get flushes(): number {
    return this.#flushes;
  }

  /** Batches flushed through the quarantine lane (each counted once, however often retried). */
  get quarantineFlushes(): number {
    return this.#quarantineFlushes;
  }

  async #flushWithRetry(items: QueuedAnswer[]): Promise<WriteOutcome[]> {
    for (let attempt = 1; ; attempt++) {
      this.#flushes += 1;
      try {
        return await flush(this.db, items);
      } catch (error) {
        const code = (error as { code?: unknown }).code;
        if (attempt >= 3 || typeof code !== 'string' || !RETRYABLE.has(code)) throw error;
        this.#retries += 1;
      }
    }
  }
}

/** One statement per batch (answer-batch.repository.ts): the poll check, the answers, the aggregates. */
async function flush(db: Kysely<Database>, queued: QueuedAnswer[]): Promise<WriteOutcome[]> {
  const { inserted, current } = await insertAnswerBatch(db, queued);
  return queued.map(({ answer }) => {
    if (inserted.has(answer.row.id)) return 'accepted';
    return current.has(answer.row.id) ? 'duplicate' : 'poll_changed';
  });
}
