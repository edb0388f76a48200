import type { Logger } from 'pino';
import { type Clock, systemClock } from '../core/clock.js';
import type { RedisConnection } from './redis.js';

export const RATE_LIMIT_WINDOW_MS = 60_000;

export interface RateLimitHit {
  /** Requests counted in the current window, this one included. */
  count: number;
  /** When the current window ends (ms since epoch). */
  resetAt: number;
}

/**
 * Fixed-window counters (the spec's "fixed 60-second bucket"). Windows are aligned to the clock, so
 * every process agrees on where a window starts without coordinating.
 */
export interface RateLimitStore {
  hit(key: string, windowMs?: number): Promise<RateLimitHit>;
  /** The current window's count without adding to it (0 when nothing was counted). */
  count(key: string, windowMs?: number): Promise<number>;
  /**
   * Gives back one hit of the current window: a budget reserved before the work it guards (`hit`
   * first, atomically, so a burst can never get past it) and refunded when the work did not use it.
   */
  release(key: string, windowMs?: number): Promise<void>;
  close(): Promise<void>;
}

function windowOf(now: number, windowMs: number) {
  const start = Math.floor(now / windowMs) * windowMs;
  return { start, resetAt: start + windowMs };
}

/** One process: counters in a Map, pruned of past windows as they roll over. */
export class MemoryRateLimitStore implements RateLimitStore {
  readonly #counters = new Map<string, { windowStart: number; count: number }>();
  #lastSweep = 0;

  /** Windows are read off `clock` (core/clock.ts), so a test can hold one still instead of racing it. */
  constructor(private readonly clock: Clock = systemClock) {}

  async hit(key: string, windowMs = RATE_LIMIT_WINDOW_MS): Promise<RateLimitHit> {
    const now = this.clock.now();
    const { start, resetAt } = windowOf(now, windowMs);
    if (now - this.#lastSweep > windowMs) this.#sweep(start);
    const counter = this.#counters.get(key);
    if (counter && counter.windowStart === start) {
      counter.count += 1;
      return { count: counter.count, resetAt };
    }
    this.#counters.set(key, { windowStart: start, count: 1 });
    return { count: 1, resetAt };
  }

  async count(key: string, windowMs = RATE_LIMIT_WINDOW_MS): Promise<number> {
    const { start } = windowOf(this.clock.now(), windowMs);
    const counter = this.#counters.get(key);
    return counter && counter.windowStart === start ? counter.count : 0;
  }

  async release(key: string, windowMs = RATE_LIMIT_WINDOW_MS): Promise<void> {
    const { start } = windowOf(this.clock.now(), windowMs);
    const counter = this.#counters.get(key);
    if (counter && counter.windowStart === start && counter.count > 0) counter.count -= 1;
  }

  #sweep(currentStart: number) {
    this.#lastSweep = this.clock.now();
    for (const [key, counter] of this.#counters) {
      if (counter.windowStart < currentStart) this.#counters.delete(key);
    }
  }

  async close(): Promise<void> {
    this.#counters.clear();
  }
}

/**
 * Several processes: one INCR per request on a key named after the window, expiring with it.
 *
 * While Redis is away the counting goes on in this process (`fallback`): each process then allows
 * the limit on its own, which over-admits by at most the number of processes for that while, and
 * is far better than refusing every request or waiting on a Redis that is not there. A request
 * never waits for a connection that is not ready; a command that fails or times out on one that
 * seemed ready is counted in memory too. The switch is logged once each way.
 */
export class RedisRateLimitStore implements RateLimitStore {
  readonly #fallback: MemoryRateLimitStore;
  #inFallback = false;
  #fallbackHits = 0;

  constructor(
    private readonly redis: RedisConnection,
    private readonly log: Pick<Logger, 'warn' | 'info'>,
    private readonly clock: Clock = systemClock,
  ) {
    this.#fallback = new MemoryRateLimitStore(clock);
  }

  async hit(key: string, windowMs = RATE_LIMIT_WINDOW_MS): Promise<RateLimitHit> {
    if (!this.redis.ready) return this.#fallbackHit(key, windowMs, 'not connected');
    const { start, resetAt } = windowOf(this.clock.now(), windowMs);
    const redisKey = `pollkit:rl:${key}:${start}`;
    let count: number;
    try {
      const results = await this.redis.client
        .multi()
        .incr(redisKey)
        .pexpire(redisKey, windowMs + 1000)
        .exec();
      const [incrError, value] = results?.[0] ?? [new Error('empty MULTI reply'), 0];
      if (incrError) throw incrError;
      count = Number(value);
    } catch (error) {
      return this.#fallbackHit(key, windowMs, (error as Error).message);
    }
    this.#shared();
    return { count, resetAt };
  }

  async count(key: string, windowMs = RATE_LIMIT_WINDOW_MS): Promise<number> {
    if (!this.redis.ready) {
      this.#fallingBack('not connected');
      return this.#fallback.count(key, windowMs);
    }
    const { start } = windowOf(this.clock.now(), windowMs);
    try {
      return Number((await this.redis.client.get(`pollkit:rl:${key}:${start}`)) ?? 0);
    } catch (error) {
      this.#fallingBack((error as Error).message);
      return this.#fallback.count(key, windowMs);
    }
  }

  async release(key: string, windowMs = RATE_LIMIT_WINDOW_MS): Promise<void> {
    if (!this.redis.ready) return this.#fallback.release(key, windowMs);
    const { start } = windowOf(this.clock.now(), windowMs);
    try {
      await this.redis.client.decr(`pollkit:rl:${key}:${start}`);
    } catch {
      // A refund lost to an outage costs one budgeted lookup: the budget errs on the strict side.
    }
  }

  /** Whether counts are kept in this process now because Redis cannot be reached. */
  get inFallback(): boolean {
    return this.#inFallback || !this.redis.ready;
  }

  /** Requests counted in this process because Redis could not be reached, since start. */
  get fallbackHits(): number {
    return this.#fallbackHits;
  }

  #fallbackHit(key: string, windowMs: number, reason: string): Promise<RateLimitHit> {
    this.#fallingBack(reason);
    this.#fallbackHits += 1;
    return this.#fallback.hit(key, windowMs);
  }

  #fallingBack(reason: string): void {
    if (this.#inFallback) return;
    this.#inFallback = true;
    this.log.warn({ reason }, 'Redis unreachable: rate limits are counted in this process until it is back');
  }

  #shared(): void {
    if (!this.#inFallback) return;
    this.#inFallback = false;
    this.log.info('Redis reachable: rate limits are shared between processes again');
  }

  async close(): Promise<void> {
    await this.#fallback.close();
  }
}
