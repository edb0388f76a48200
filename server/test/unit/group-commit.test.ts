import { describe, expect, it } from 'vitest';
import { GroupCommit } from '../../src/infra/group-commit.js';

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

/**
 * A flush that settles by itself on the next turn of the event loop and fails, like a database
 * statement, when its batch holds any poisoned item. Counts its calls.
 */
function poisonedFlush(poisoned: Set<number>) {
  const calls: number[][] = [];
  const flush = async (items: number[]): Promise<string[]> => {
    calls.push([...items]);
    await tick();
    const bad = items.filter((item) => poisoned.has(item));
    if (bad.length > 0) throw new Error(`poisoned: ${bad.join(', ')}`);
    return items.map((item) => `done ${item}`);
  };
  return { flush, calls };
}

/**
 * Submits `opener` (which takes the only flush slot alone) and then `items`, which therefore all
 * wait and form one batch; settles everything and returns each item's outcome and the flushes made
 * for `items` (the opener's left out).
 */
async function oneBatch(items: number[], poisoned: Set<number>) {
  const fake = poisonedFlush(poisoned);
  const commit = new GroupCommit(fake.flush, { maxBatch: items.length, maxConcurrentFlushes: 1 });
  const opener = commit.submit(-1);
  const outcomes = await Promise.allSettled(items.map((item) => commit.submit(item)));
  await commit.drained();
  expect(await opener).toBe('done -1');
  expect(fake.calls[1]).toEqual(items);
  return { outcomes, flushes: fake.calls.slice(1) };
}

function expectOwnOutcomes(items: number[], outcomes: PromiseSettledResult<string>[], poisoned: Set<number>) {
  for (const [index, item] of items.entries()) {
    // A poisoned item is rejected with the error of a flush that held it alone.
    expect(outcomes[index]).toEqual(
      poisoned.has(item)
        ? { status: 'rejected', reason: new Error(`poisoned: ${item}`) }
        : { status: 'fulfilled', value: `done ${item}` },
    );
  }
}

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

  it('tells the size of the last batch it took, and when: what the answer writer calls saturated', async () => {
    const fake = controlledFlush();
    const commit = new GroupCommit(fake.flush, { maxBatch: 100, maxConcurrentFlushes: 1 });
    expect(commit.lastBatch.size).toBe(0);

    const before = Date.now();
    const first = commit.submit(1);
    expect(commit.lastBatch.size).toBe(1);
    const during = [2, 3, 4, 5, 6].map((item) => commit.submit(item));
    // Waiting, not yet taken: the last batch is still the lone first item.
    expect(commit.waiting).toBe(5);
    expect(commit.lastBatch.size).toBe(1);

    await fake.releaseAll();
    await first;
    expect(commit.waiting).toBe(0);
    expect(commit.lastBatch.size).toBe(5);
    expect(commit.lastBatch.at).toBeGreaterThanOrEqual(before);
    await fake.releaseAll();
    await Promise.all(during);
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

  it('splits a failed batch in halves until the bad item is alone: only it fails', async () => {
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
    // The batch; its halves [2, 3] (fails) and [4]; then [2, 3]'s halves.
    expect(fake.calls.map((c) => c.items)).toEqual([[1], [2, 3, 4], [2, 3], [4], [2], [3]]);
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

  it('fails a whole batch at once when the failure is the batch’s (the database away): no split, each waiter told', async () => {
    const fake = controlledFlush();
    const flushes: { size: number; failed: boolean }[] = [];
    const away = Object.assign(new Error('database unreachable'), { wholeBatch: true });
    const commit = new GroupCommit(fake.flush, {
      maxBatch: 10,
      maxConcurrentFlushes: 1,
      failsWholeBatch: (error) => (error as { wholeBatch?: boolean }).wholeBatch === true,
      observe: ({ size, failed }) => flushes.push({ size, failed }),
    });
    const first = commit.submit(1);
    const batch = [2, 3, 4].map((item) => commit.submit(item));
    const settled = Promise.allSettled(batch);
    await fake.releaseAll();
    expect(await first).toBe('done 1');
    fake.calls[1]?.fail(away);
    const outcomes = await settled;
    expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected', 'rejected']);
    for (const outcome of outcomes) expect(outcome).toMatchObject({ reason: away });
    // One statement for the batch: no halves tried against a database that is not there.
    expect(fake.calls.map((c) => c.items)).toEqual([[1], [2, 3, 4]]);
    expect(flushes).toEqual([
      { size: 1, failed: false },
      { size: 3, failed: true },
    ]);
    // Items of the next batch are untouched by it.
    const next = commit.submit(5);
    await fake.releaseAll();
    expect(await next).toBe('done 5');
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

  describe('a failed batch is bisected: k bad items among n cost O(k·log n) flushes', () => {
    const items = Array.from({ length: 256 }, (_, index) => index);

    it('a second half is not flushed whole when the first half of its failed parent succeeded', async () => {
      // The bad item last: at every level the first half succeeds and the second is split at once,
      // so the flushes are the batch, one first half per level (8) and the bad item alone.
      const last = await oneBatch(items, new Set([255]));
      expect(last.flushes.map((batch) => batch.length)).toEqual([256, 128, 64, 32, 16, 8, 4, 2, 1, 1]);
      // The bad item first: every first half fails, so every second half must be tried: 2·8 + 1.
      const first = await oneBatch(items, new Set([0]));
      expect(first.flushes).toHaveLength(17);
    });

    for (const bad of [0, 100, 255]) {
      it(`one poisoned item (#${bad}) in 256: at most 2·log2(256) + 1 = 17 flushes`, async () => {
        const poisoned = new Set([bad]);
        const { outcomes, flushes } = await oneBatch(items, poisoned);
        expectOwnOutcomes(items, outcomes, poisoned);
        expect(flushes.length).toBeLessThanOrEqual(17);
        // Every good item was written exactly once, by a flush that succeeded.
        const written = flushes.filter((batch) => !batch.includes(bad)).flat();
        expect(written.sort((a, b) => a - b)).toEqual(items.filter((item) => item !== bad));
      });
    }

    it('four poisoned items in 256: at most 4 · (2·log2(256) + 1) flushes, far fewer than 256', async () => {
      const poisoned = new Set([3, 64, 65, 200]);
      const { outcomes, flushes } = await oneBatch(items, poisoned);
      expectOwnOutcomes(items, outcomes, poisoned);
      expect(flushes.length).toBeLessThanOrEqual(4 * 17);
    });

    it('every item poisoned: each rejected with its own error (2n − 1 flushes, the whole tree)', async () => {
      const few = Array.from({ length: 16 }, (_, index) => index);
      const poisoned = new Set(few);
      const { outcomes, flushes } = await oneBatch(few, poisoned);
      expectOwnOutcomes(few, outcomes, poisoned);
      expect(flushes).toHaveLength(2 * 16 - 1);
    });

    it('no poison: one flush for the whole batch', async () => {
      const { outcomes, flushes } = await oneBatch(items, new Set());
      expectOwnOutcomes(items, outcomes, new Set());
      expect(flushes).toHaveLength(1);
    });

    it("takes turns with new items: a failing batch's halves never keep new items waiting for the whole bisection", async () => {
      const fake = controlledFlush({ badItem: 5 });
      const commit = new GroupCommit(fake.flush, { maxBatch: 100, maxConcurrentFlushes: 1 });
      const opener = commit.submit(0);
      const batch = Promise.allSettled([1, 2, 3, 4, 5, 6, 7, 8].map((item) => commit.submit(item)));
      await fake.releaseAll(); // [0] done; [1..8] starts
      const fresh = commit.submit(100);
      await fake.releaseAll(); // [1..8] fails: its halves wait beside [100]; the first half starts
      await fake.releaseAll(); // [1..4] done; [100] starts
      const late = commit.submit(200);
      for (let round = 0; round < 10; round++) await fake.releaseAll();

      expect(await opener).toBe('done 0');
      expect(await fresh).toBe('done 100');
      expect(await late).toBe('done 200');
      expect((await batch).map((o) => o.status)).toEqual([
        ...Array(4).fill('fulfilled'),
        'rejected',
        ...Array(3).fill('fulfilled'),
      ]);
      // A half, then the new item; a half, then the next new item; and the halves that are left.
      // [5..8] is never flushed whole: its parent failed and its first half [1..4] did not, so the
      // bad item is in it, and it is split at once.
      expect(fake.calls.map((c) => c.items)).toEqual([
        [0],
        [1, 2, 3, 4, 5, 6, 7, 8],
        [1, 2, 3, 4],
        [100],
        [5, 6],
        [200],
        [7, 8],
        [5],
        [6],
      ]);
      // Never more than the one slot, bisection included.
      expect(fake.maxOpen()).toBe(1);
    });

    it('keeps maxConcurrentFlushes while halves and new batches run side by side', async () => {
      const fake = controlledFlush({ badItem: 2 });
      const commit = new GroupCommit(fake.flush, { maxBatch: 4, maxConcurrentFlushes: 2 });
      const results = Promise.allSettled(Array.from({ length: 20 }, (_, index) => commit.submit(index)));
      for (let round = 0; round < 20; round++) await fake.releaseAll();
      const outcomes = await results;
      expect(outcomes.filter((o) => o.status === 'rejected')).toHaveLength(1);
      expect(outcomes[2]).toMatchObject({ status: 'rejected', reason: new Error('item 2 is bad') });
      expect(fake.maxOpen()).toBe(2);
    });

    it('drained() waits for the bisection of a failed batch to end', async () => {
      const poisoned = new Set([7]);
      const fake = poisonedFlush(poisoned);
      const commit = new GroupCommit(fake.flush, { maxBatch: 50, maxConcurrentFlushes: 1 });
      const outcomes = Promise.allSettled(Array.from({ length: 33 }, (_, index) => commit.submit(index)));
      await commit.drained();
      // Everything settled before drained() resolved: nothing is left pending.
      let settled = false;
      void outcomes.then(() => {
        settled = true;
      });
      await Promise.resolve();
      expect(settled).toBe(true);
      expect((await outcomes).filter((o) => o.status === 'rejected')).toHaveLength(1);
    });
  });
});

/**
 * For a database inside this thread (PGlite), a flush started by the first submit would run before
 * the other requests of the same event-loop turn were even read: with `gatherBeforeFlush` the flush
 * waits for the turn to end (setImmediate), so they share it.
 */
describe('gathering before a flush (in-process databases)', () => {
  async function batchesOf(gatherBeforeFlush: boolean): Promise<number[][]> {
    const batches: number[][] = [];
    const commit = new GroupCommit(
      async (items: number[]) => {
        batches.push([...items]);
        return items;
      },
      { maxBatch: 100, maxConcurrentFlushes: 1, gatherBeforeFlush },
    );
    // Requests of one turn reach `submit` one after another, each after a few awaits of its own.
    const submits = [1, 2, 3, 4].map(async (item) => {
      for (let hop = 0; hop < item; hop++) await Promise.resolve();
      return commit.submit(item);
    });
    expect(await Promise.all(submits)).toEqual([1, 2, 3, 4]);
    await commit.drained();
    return batches;
  }

  it('flushes everything submitted in one turn as one batch', async () => {
    expect(await batchesOf(true)).toEqual([[1, 2, 3, 4]]);
  });

  it('without it, the first submit flushes at once, alone', async () => {
    expect((await batchesOf(false))[0]).toEqual([1]);
  });
});
