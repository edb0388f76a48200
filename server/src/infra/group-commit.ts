/**
 * Group commit: callers submit one item each and wait for its result; items that arrive while a
 * flush is running are written together by the next flush. Under light load every item is flushed
 * at once (no added latency); under heavy load one transaction carries hundreds of items, which is
 * what lets a single database keep up with thousands of answers a second.
 *
 * A batch whose flush fails is split in halves, and each half flushed on its own, recursively: the
 * halves without a bad item succeed whole, so k bad items among n cost O(k·log n) flushes (one bad
 * item in 256: at most 17), not the n + 1 of retrying item by item, and a bad item is rejected with
 * the error of its own flush, alone. Validation is what keeps bad items out of a batch; this only
 * bounds what an unforeseen database rejection costs everyone else whose item shared the batch.
 * A failure of the batch as a whole (the database is unreachable: `failsWholeBatch`) is not split:
 * every item of that batch learns it at once, and no item of another batch is touched by it.
 */
interface Entry<T, R> {
  item: T;
  resolve: (result: R) => void;
  reject: (error: unknown) => void;
}

/**
 * A half of a failed batch. Halves come in pairs, flushed first then second: when the first half
 * succeeds, its failed parent's culprit must be in the second, which is then split again at once
 * rather than flushed whole only to fail: on average half the statements that would only fail are saved.
 */
interface Half<T, R> {
  entries: Entry<T, R>[];
  first: boolean;
  pair: { firstSucceeded?: boolean };
}

export interface FlushObservation {
  size: number;
  seconds: number;
  failed: boolean;
}

export class GroupCommit<T, R> {
  /** Items submitted and not yet in a flush: the next flush takes up to maxBatch of them. */
  readonly #queue: Entry<T, R>[] = [];
  /** Halves of failed batches, each flushed exactly as it is (never merged with new items). */
  readonly #splits: Half<T, R>[] = [];
  #lastWasSplit = false;
  #inFlight = 0;
  #idle: (() => void)[] = [];

  #drainScheduled = false;
  #lastBatch = { size: 0, at: 0 };

  constructor(
    private readonly flush: (items: T[]) => Promise<R[]>,
    private readonly options: {
      maxBatch: number;
      maxConcurrentFlushes: number;
      /**
       * Start a flush only once the event loop has handled every request that arrived with this
       * one (`setImmediate`), instead of at once. For a database that runs inside this thread
       * (PGlite): its statements execute synchronously, so a flush started at once by the first
       * request blocks the loop before the requests that arrived with it have been read, and every
       * batch holds one item (measured: 1,500 flushes for 1,500 votes, ~370 votes/s). A database
       * across a socket needs no such help: items arrive while its flush is in flight.
       */
      gatherBeforeFlush?: boolean;
      /**
       * Whether a failure concerns the batch as a whole rather than an item in it — the database
       * could not be reached. Such a batch is failed at once, every item with that error, instead
       * of being split: halves would only fail the same way, each after its own wait.
       */
      failsWholeBatch?: (error: unknown) => boolean;
      /** Told of every flush: its size, how long it took and whether it failed (metrics). */
      observe?: (flush: FlushObservation) => void;
    },
  ) {}

  submit(item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.#queue.push({ item, resolve, reject });
      if (!this.options.gatherBeforeFlush) {
        this.#drain();
      } else if (!this.#drainScheduled) {
        this.#drainScheduled = true;
        setImmediate(() => {
          this.#drainScheduled = false;
          this.#drain();
        });
      }
    });
  }

  /** Items submitted and waiting for a flush (not those in the flushes running now). */
  get waiting(): number {
    return this.#queue.length;
  }

  /** The size of the last batch of new items a flush took, and when (ms since the epoch). */
  get lastBatch(): { size: number; at: number } {
    return this.#lastBatch;
  }

  /** Resolves once every submitted item has been flushed (for shutdown). */
  async drained(): Promise<void> {
    if (this.#isIdle()) return;
    await new Promise<void>((resolve) => this.#idle.push(resolve));
  }

  #isIdle(): boolean {
    return this.#inFlight === 0 && this.#queue.length === 0 && this.#splits.length === 0;
  }

  #drain(): void {
    while (this.#inFlight < this.options.maxConcurrentFlushes) {
      const batch = this.#next();
      if (!batch) break;
      this.#inFlight += 1;
      void this.#run(batch).finally(() => {
        this.#inFlight -= 1;
        this.#drain();
        if (this.#isIdle()) {
          for (const resolve of this.#idle.splice(0)) resolve();
        }
      });
    }
  }

  /**
   * The halves of a failed batch go through the same flush slots as everything else, taking turns
   * with new items: when both wait, a half and a new batch alternate. Running the whole bisection
   * inline in the failed batch's slot would be simpler, but it holds that slot for every flush of
   * the bisection — up to 2n − 1 of them when most of a batch is bad — while new items from other
   * submitters wait behind it (with the writer's one slot, everyone waits). Taking turns bounds what
   * a bad batch costs a new item to one extra flush per turn, keeps maxConcurrentFlushes the only
   * limit on open transactions, and still never merges a half with new items, which would let a bad
   * item spoil fresh batches again and lose the O(k·log n) bound.
   */
  #next(): { entries: Entry<T, R>[]; half?: Half<T, R> } | undefined {
    while (this.#splits.length > 0 && (this.#queue.length === 0 || !this.#lastWasSplit)) {
      const half = this.#splits.shift() as Half<T, R>;
      if (!half.first && half.pair.firstSucceeded === true && half.entries.length > 1) {
        // The parent failed, its first half did not: the culprit is in here (a failure that does
        // not repeat costs nothing but this split, whose halves then succeed).
        this.#bisect(half.entries);
        continue;
      }
      this.#lastWasSplit = true;
      return { entries: half.entries, half };
    }
    this.#lastWasSplit = false;
    if (this.#queue.length === 0) return undefined;
    const entries = this.#queue.splice(0, this.options.maxBatch);
    this.#lastBatch = { size: entries.length, at: Date.now() };
    return { entries };
  }

  #observe(size: number, started: number, failed: boolean): void {
    this.options.observe?.({ size, seconds: (performance.now() - started) / 1000, failed });
  }

  #bisect(entries: Entry<T, R>[]): void {
    const middle = Math.ceil(entries.length / 2);
    const pair = {};
    this.#splits.push(
      { entries: entries.slice(0, middle), first: true, pair },
      { entries: entries.slice(middle), first: false, pair },
    );
  }

  async #run({ entries, half }: { entries: Entry<T, R>[]; half?: Half<T, R> }): Promise<void> {
    let results: R[];
    const started = this.options.observe ? performance.now() : 0;
    try {
      results = await this.flush(entries.map((entry) => entry.item));
    } catch (error) {
      this.#observe(entries.length, started, true);
      if (half?.first) half.pair.firstSucceeded = false;
      if (entries.length === 1 || this.options.failsWholeBatch?.(error)) {
        for (const entry of entries) entry.reject(error);
      } else {
        this.#bisect(entries);
      }
      return;
    }
    this.#observe(entries.length, started, false);
    if (half?.first) half.pair.firstSucceeded = true;
    for (const [index, entry] of entries.entries()) entry.resolve(results[index] as R);
  }
}
