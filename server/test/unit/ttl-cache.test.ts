import { afterEach, describe, expect, it, vi } from 'vitest';
import { TtlCache } from '../../src/infra/ttl-cache.js';

/** infra/ttl-cache.ts: the bound in number and in time every in-memory cache of the server relies on. */
describe('TtlCache', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('holds at most maxEntries, dropping the least recently used first', () => {
    const cache = new TtlCache<number>(60_000, 3);
    cache.set('a', 1);
    cache.set('b', 2);
    cache.set('c', 3);
    expect(cache.get('a')).toBe(1); // `a` is now the most recently used: `b` goes first.
    cache.set('d', 4);
    expect(cache.size).toBe(3);
    expect(cache.get('b')).toBeUndefined();
    expect([cache.get('a'), cache.get('c'), cache.get('d')]).toEqual([1, 3, 4]);
    cache.set('c', 30); // Setting a key again replaces it without growing.
    expect(cache.size).toBe(3);
    expect(cache.get('c')).toBe(30);
  });

  it('forgets an entry once its time is up, on lookup or when pruned', () => {
    vi.useFakeTimers({ now: 1_000_000 });
    const cache = new TtlCache<string>(1_000, 10);
    cache.set('old', 'x');
    vi.setSystemTime(1_000_500);
    cache.set('new', 'y');
    expect([...cache.values()]).toEqual(['x', 'y']);

    vi.setSystemTime(1_001_000);
    expect(cache.get('old')).toBeUndefined();
    expect([...cache.values()]).toEqual(['y']);

    cache.prune(1_001_500);
    expect(cache.size).toBe(0);
  });
});
