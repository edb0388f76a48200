import { describe, expect, it } from 'vitest';
import { DESCRIPTOR_RESERVE, openFilesLimit, streamBudget } from '../../src/infra/descriptors.js';
import { StreamLimits } from '../../src/modules/live/stream-limits.js';

/**
 * How many event streams a process may hold (issue 42): its open-files limit, read at start, less a
 * reserve for everything else a server opens — so that past it new streams get a 429 rather than
 * connections reset for want of a descriptor — and the warning when a room approaches the cap.
 */
describe('the descriptor budget of event streams', () => {
  const limits = (soft: string) =>
    `Limit                     Soft Limit           Hard Limit           Units     \nMax cpu time              unlimited            unlimited            seconds   \nMax open files            ${soft}                20000                files     \n`;

  it('reads the soft open-files limit from /proc/self/limits', () => {
    expect(openFilesLimit(() => limits('20000'))).toBe(20_000);
    expect(openFilesLimit(() => limits('1024'))).toBe(1024);
    expect(openFilesLimit(() => limits('unlimited'))).toBeUndefined();
    expect(
      openFilesLimit(() => {
        throw new Error('ENOENT: no /proc here');
      }),
    ).toBeUndefined();
    // This machine's own (Linux, as CI): a number.
    expect(openFilesLimit()).toBeGreaterThan(0);
  });

  it('caps streams at the limit less the reserve, never above the configured cap, never below a tenth of the limit', () => {
    expect(streamBudget(20_000, 20_000)).toBe(20_000 - DESCRIPTOR_RESERVE);
    expect(streamBudget(5_000, 20_000)).toBe(5_000);
    expect(streamBudget(20_000, 1_048_576)).toBe(20_000);
    expect(streamBudget(20_000, 1024)).toBe(102);
    expect(streamBudget(20_000, undefined)).toBe(20_000);
  });

  it('warns once when the streams pass 90 % of the cap, again only after they fell below 80 %', () => {
    const warnings: number[] = [];
    const limitsOf = new StreamLimits(10, (streams) => warnings.push(streams));
    const releases = Array.from({ length: 9 }, () => limitsOf.take(undefined));
    expect(warnings).toEqual([9]);
    limitsOf.take(undefined);
    expect(warnings).toEqual([9]);
    expect(() => limitsOf.take(undefined)).toThrow(/holds 10 event streams/);
    for (const release of releases.slice(0, 3)) release();
    expect(limitsOf.streams).toBe(7);
    releases[3]?.();
    limitsOf.take(undefined);
    limitsOf.take(undefined);
    expect(warnings).toEqual([9]);
    limitsOf.take(undefined);
    expect(warnings).toEqual([9, 9]);
  });

  it('keeps places for presenters: participants and anonymous viewers stop short of the cap, and refusals are counted', () => {
    const limits = new StreamLimits(1000);
    expect(limits.presenterPlaces).toBe(10);
    const viewer = { key: 'a:127.0.0.1', limit: 10_000, what: 'this address' };
    for (let i = 0; i < 990; i++) limits.take(viewer);
    expect(() => limits.take(viewer)).toThrow(/holds 990 event streams/);
    for (let i = 0; i < 10; i++) limits.take(undefined);
    expect(() => limits.take(undefined)).toThrow(/holds 1000 event streams/);
    expect(limits.refusedAtCap).toBe(2);
    expect(new StreamLimits(19_000).presenterPlaces).toBe(100);
    expect(new StreamLimits(6).presenterPlaces).toBe(1);
  });
});
