import { describe, expect, it, vi } from 'vitest';
import { turnLoader } from '../../src/infra/turn-loader.js';

/** A loader that records each batch it was asked for and answers each key doubled. */
function recordingLoader(maxBatch?: number) {
  const batches: number[][] = [];
  const loader = turnLoader<number, number>(async (keys) => {
    batches.push([...keys]);
    return keys.map((key) => key * 2);
  }, maxBatch);
  return { loader, batches };
}

/**
 * Runs `work` in a task of its own, as each request's socket read is: microtasks run between two
 * such tasks, so a loader that batched per microtask flush would see one key at a time. Immediates
 * queued together run in the same check phase; the batch an immediate schedules runs in the next.
 */
function inTask<T>(work: () => Promise<T>): Promise<T> {
  return new Promise((resolve, reject) => setImmediate(() => work().then(resolve, reject)));
}

describe('turnLoader (infra/turn-loader.ts)', () => {
  it('sends the keys of separate tasks in one event-loop turn as one batch, each caller its own value', async () => {
    const { loader, batches } = recordingLoader();
    const values = await Promise.all([1, 2, 3, 4].map((key) => inTask(() => loader.load(key))));
    expect(values).toEqual([2, 4, 6, 8]);
    expect(batches).toEqual([[1, 2, 3, 4]]);
  });

  it('caches nothing: the same key asked again in a later turn is read again', async () => {
    const { loader, batches } = recordingLoader();
    expect(await loader.load(7)).toBe(14);
    expect(await loader.load(7)).toBe(14);
    expect(batches).toEqual([[7], [7]]);
  });

  it('splits a turn of more keys than maxBatch into batches of at most maxBatch', async () => {
    const { loader, batches } = recordingLoader(500);
    const keys = Array.from({ length: 1_200 }, (_, i) => i);
    const values = await Promise.all(keys.map((key) => loader.load(key)));
    expect(values).toEqual(keys.map((key) => key * 2));
    expect(batches.map((batch) => batch.length)).toEqual([500, 500, 200]);
  });

  it('gives every caller of a batch that failed the failure, and loads again afterwards', async () => {
    let fail = true;
    const loader = turnLoader<number, number>(async (keys) => {
      if (fail) throw new Error('database away');
      return keys.map((key) => key + 1);
    });
    const outcomes = await Promise.allSettled([1, 2, 3].map((key) => inTask(() => loader.load(key))));
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['rejected', 'rejected', 'rejected']);
    expect(outcomes.map((outcome) => (outcome as PromiseRejectedResult).reason?.message)).toEqual([
      'database away',
      'database away',
      'database away',
    ]);
    fail = false;
    expect(await loader.load(1)).toBe(2);
  });

  it('holds the keys that arrive while a batch is loading, one turn after another, and sends them together when it ends', async () => {
    const batches: number[][] = [];
    let finishFirst = () => {};
    const loader = turnLoader<number, number>(async (keys) => {
      batches.push([...keys]);
      if (batches.length === 1) await new Promise<void>((resolve) => (finishFirst = resolve));
      return keys.map((key) => key * 2);
    });
    const first = inTask(() => loader.load(1));
    // The first batch goes at a later turn's check phase; a busy loop may run timers first.
    await vi.waitFor(() => expect(batches).toEqual([[1]]));
    // Requests arriving one per turn while the first batch is in flight: none is sent on its own.
    const later: Promise<number>[] = [];
    for (const key of [2, 3, 4, 5]) {
      later.push(inTask(() => loader.load(key)));
      await new Promise((resolve) => setImmediate(resolve));
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(batches).toEqual([[1]]);
    finishFirst();
    expect(await first).toBe(2);
    expect(await Promise.all(later)).toEqual([4, 6, 8, 10]);
    expect(batches).toEqual([[1], [2, 3, 4, 5]]);
    // Idle again: a lone key goes at once, alone.
    expect(await loader.load(9)).toBe(18);
    expect(batches.at(-1)).toEqual([9]);
  });
});
