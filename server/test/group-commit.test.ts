import { describe, expect, it } from 'vitest';
import { GroupCommit } from '../src/infra/group-commit.js';

/**
 * The group-commit queue on its own, with a flush we control: each call to `flush` is recorded and
 * stays open until the test releases it, so "what arrives while a flush runs" is exact, not timed.
 */
interface Call {
  items: number[];
  release(): void;
  fail(error: Error): void;
}

function controlledFlush(options: { badItem?: number } = {}) {
  const calls: Call[] = [];
  let open = 0;
  let maxOpen = 0;
  const flush = (items: number[]): Promise<string[]> =>
    new Promise<string[]>((resolve, reject) => {
      open += 1;
      maxOpen = Math.max(maxOpen, open);
      const settle = (action: () => void) => {
        open -= 1;
        action();
      };
      calls.push({
        items: [...items],
        release: () =>
          settle(() => {
            // Like a database constraint: a batch holding the bad item fails as a whole.
            if (options.badItem !== undefined && items.includes(options.badItem)) {
              reject(new Error(`item ${options.badItem} is bad`));
            } else {
              resolve(items.map((item) => `done ${item}`));
            }
          }),
        fail: (error) => settle(() => reject(error)),
      });
    });
  return {
    flush,
    calls,
    maxOpen: () => maxOpen,
    /** Releases every flush call made so far and not yet released, oldest first. */
    releaseAll: (() => {
      let released = 0;
      return async () => {
        while (released < calls.length) calls[released++]?.release();
        await tick();
      };
    })(),
  };
}

/** Lets promise callbacks (and the queue's follow-up flushes) run. */
const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('GroupCommit', () => {
  it('flushes a lone item at once, and batches the items that arrive while a flush runs', async () => {
    const fake = controlledFlush();
    const commit = new GroupCommit(fake.flush, { maxBatch: 100, maxConcurrentFlushes: 1 });

    const first = commit.submit(1);
    expect(fake.calls.map((c) => c.items)).toEqual([[1]]);

    const during = [2, 3, 4, 5].map((item) => commit.submit(item));
    // The only flush slot is busy: nothing new starts until it ends.
    expect(fake.calls).toHaveLength(1);

    await fake.releaseAll();
    expect(await first).toBe('done 1');
    expect(fake.calls.map((c) => c.items)).toEqual([[1], [2, 3, 4, 5]]);

    await fake.releaseAll();
    expect(await Promise.all(during)).toEqual(['done 2', 'done 3', 'done 4', 'done 5']);
  });

  it('never puts more than maxBatch items in one flush', async () => {
    const fake = controlledFlush();
    const commit = new GroupCommit(fake.flush, { maxBatch: 3, maxConcurrentFlushes: 1 });

    const results = [1, 2, 3, 4, 5, 6, 7, 8].map((item) => commit.submit(item));
    for (let round = 0; round < 5; round++) await fake.releaseAll();

    expect(fake.calls.map((c) => c.items)).toEqual([[1], [2, 3, 4], [5, 6, 7], [8]]);
    expect(await Promise.all(results)).toEqual([1, 2, 3, 4, 5, 6, 7, 8].map((item) => `done ${item}`));
  });

  it('runs at most maxConcurrentFlushes flushes at a time', async () => {
    const fake = controlledFlush();
    const commit = new GroupCommit(fake.flush, { maxBatch: 2, maxConcurrentFlushes: 2 });

    const results = Array.from({ length: 9 }, (_, index) => commit.submit(index));
    // Two slots: items 0 and 1 each start a flush; the rest wait.
    expect(fake.calls.map((c) => c.items)).toEqual([[0], [1]]);

    // Ending one flush frees one slot, which takes the next maxBatch items.
    fake.calls[0]?.release();
    await tick();
    expect(fake.calls.map((c) => c.items)).toEqual([[0], [1], [2, 3]]);

    for (let round = 0; round < 6; round++) await fake.releaseAll();
    expect(await Promise.all(results)).toEqual(Array.from({ length: 9 }, (_, index) => `done ${index}`));
    expect(fake.maxOpen()).toBe(2);
    // Every item flushed exactly once, in batches of at most two.
    expect(fake.calls.flatMap((c) => c.items).sort((a, b) => a - b)).toEqual(Array.from({ length: 9 }, (_, i) => i));
    expect(Math.max(...fake.calls.map((c) => c.items.length))).toBe(2);
  });

  it('retries a failed batch item by item, so only the bad item fails', async () => {
    const fake = controlledFlush({ badItem: 3 });
    const commit = new GroupCommit(fake.flush, { maxBatch: 10, maxConcurrentFlushes: 1 });

    const first = commit.submit(1);
    const batch = [2, 3, 4].map((item) => commit.submit(item));
    const settled = Promise.allSettled(batch);
    for (let round = 0; round < 6; round++) await fake.releaseAll();

    expect(await first).toBe('done 1');
    const outcomes = await settled;
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(outcomes[0]).toMatchObject({ value: 'done 2' });
    expect(outcomes[1]).toMatchObject({ reason: new Error('item 3 is bad') });
    expect(outcomes[2]).toMatchObject({ value: 'done 4' });
    // The batch, then each of its items alone.
    expect(fake.calls.map((c) => c.items)).toEqual([[1], [2, 3, 4], [2], [3], [4]]);
  });

  it('rejects a lone item whose flush fails, without a second attempt', async () => {
    const fake = controlledFlush();
    const commit = new GroupCommit(fake.flush, { maxBatch: 10, maxConcurrentFlushes: 1 });
    const result = commit.submit(7);
    fake.calls[0]?.fail(new Error('database is down'));
    await expect(result).rejects.toThrow('database is down');
    expect(fake.calls).toHaveLength(1);

    // The queue keeps working after a failure.
    const next = commit.submit(8);
    await fake.releaseAll();
    expect(await next).toBe('done 8');
  });

  it('drained() resolves at once when idle, and otherwise only after every submitted item is flushed', async () => {
    const fake = controlledFlush();
    const commit = new GroupCommit(fake.flush, { maxBatch: 2, maxConcurrentFlushes: 1 });
    await expect(commit.drained()).resolves.toBeUndefined();

    const results = [1, 2, 3, 4].map((item) => commit.submit(item));
    let drained = false;
    const waiting = commit.drained().then(() => {
      drained = true;
    });

    await fake.releaseAll(); // [1] done; [2, 3] starts
    expect(drained).toBe(false);
    await fake.releaseAll(); // [2, 3] done; [4] starts
    expect(drained).toBe(false);
    await fake.releaseAll(); // [4] done: idle
    await waiting;
    expect(drained).toBe(true);
    expect(await Promise.all(results)).toEqual(['done 1', 'done 2', 'done 3', 'done 4']);
  });
});
