import DataLoader from 'dataloader';

/**
 * A loader whose `load(key)` calls made in one event-loop turn reach `loadMany` as one list (at most
 * `maxBatch` keys a call): one query for what a room of thousands asks at once. Requests arrive one
 * socket read at a time, each its own task, so the batch waits for the loop's check phase
 * (`setImmediate`) rather than the end of the current microtasks, which would hold one request's
 * keys only. Nothing is cached: every `load` is read afresh; callers keep their own caches.
 */
export function turnLoader<K, V>(
  loadMany: (keys: readonly K[]) => Promise<readonly V[]>,
  maxBatch = 500,
): DataLoader<K, V> {
  return new DataLoader<K, V>(loadMany, {
    cache: false,
    maxBatchSize: maxBatch,
    batchScheduleFn: (send) => setImmediate(send),
  });
}
