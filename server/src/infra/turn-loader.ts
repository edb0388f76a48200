import DataLoader from 'dataloader';

/**
 * A loader whose `load(key)` calls reach `loadMany` as lists (at most `maxBatch` keys a call): one
 * query for what a room of thousands asks at once. Nothing is cached: every `load` is read afresh;
 * callers keep their own caches.
 *
 * A batch waits for the loop's check phase (`setImmediate`) rather than the end of the current
 * microtasks, which would hold one request's keys only; and while a batch is being loaded, the keys
 * that arrive wait for it and go together in the next. Requests arrive one socket read at a time,
 * each its own turn of the loop, so per turn alone a room of 10,000 reconnecting made 1,300 one-key
 * queries every 2 s (server/bench/RESULTS.md, issue 42): batches now grow with the load and stay one
 * key, with no added wait, when it is light.
 */
export function turnLoader<K, V>(
  loadMany: (keys: readonly K[]) => Promise<readonly V[]>,
  maxBatch = 500,
): DataLoader<K, V> {
  /** Batches being loaded now, and a promise kept while there are any: it resolves when the last ends. */
  let loading = 0;
  let idle: { promise: Promise<void>; resolve: () => void } | undefined;
  return new DataLoader<K, V>(
    (keys) => {
      loading += 1;
      if (!idle) {
        let resolve = () => {};
        const promise = new Promise<void>((done) => {
          resolve = done;
        });
        idle = { promise, resolve };
      }
      const loaded = loadMany(keys);
      const ended = () => {
        loading -= 1;
        if (loading === 0 && idle) {
          idle.resolve();
          idle = undefined;
        }
      };
      loaded.then(ended, ended);
      return loaded;
    },
    {
      cache: false,
      maxBatchSize: maxBatch,
      batchScheduleFn: (send) => {
        // A batch in flight: this one gathers the keys that arrive meanwhile, and goes when it ends.
        if (idle) void idle.promise.then(() => setImmediate(send));
        else setImmediate(send);
      },
    },
  );
}
