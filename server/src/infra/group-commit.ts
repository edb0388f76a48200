/**
 * Group commit: callers submit one item each and wait for its result; items that arrive while a
 * flush is running are written together by the next flush. Under light load every item is flushed
 * at once (no added latency); under heavy load one transaction carries hundreds of items, which is
 * what lets a single database keep up with thousands of answers a second.
 *
 * A batch whose flush fails is retried item by item, so one bad item (a poll deleted a moment ago)
 * fails alone instead of taking its neighbours down with it.
 */
interface Entry<T, R> {
  item: T;
  resolve: (result: R) => void;
  reject: (error: unknown) => void;
}

export class GroupCommit<T, R> {
  readonly #queue: Entry<T, R>[] = [];
  #inFlight = 0;
  #idle: (() => void)[] = [];

  constructor(
    private readonly flush: (items: T[]) => Promise<R[]>,
    private readonly options: { maxBatch: number; maxConcurrentFlushes: number },
  ) {}

  submit(item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.#queue.push({ item, resolve, reject });
      this.#drain();
    });
  }

  /** Resolves once every submitted item has been flushed (for shutdown). */
  async drained(): Promise<void> {
    if (this.#inFlight === 0 && this.#queue.length === 0) return;
    await new Promise<void>((resolve) => this.#idle.push(resolve));
  }

  #drain(): void {
    while (this.#inFlight < this.options.maxConcurrentFlushes && this.#queue.length > 0) {
      const batch = this.#queue.splice(0, this.options.maxBatch);
      this.#inFlight += 1;
      void this.#run(batch).finally(() => {
        this.#inFlight -= 1;
        this.#drain();
        if (this.#inFlight === 0 && this.#queue.length === 0) {
          for (const resolve of this.#idle.splice(0)) resolve();
        }
      });
    }
  }

  async #run(batch: Entry<T, R>[]): Promise<void> {
    try {
      const results = await this.flush(batch.map((entry) => entry.item));
      for (const [index, entry] of batch.entries()) entry.resolve(results[index] as R);
    } catch (error) {
      if (batch.length === 1) {
        batch[0]?.reject(error);
        return;
      }
      for (const entry of batch) {
        try {
          const [result] = await this.flush([entry.item]);
          entry.resolve(result as R);
        } catch (itemError) {
          entry.reject(itemError);
        }
      }
    }
  }
}
