import type { Redis } from 'ioredis';

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

  async hit(key: string, windowMs = RATE_LIMIT_WINDOW_MS): Promise<RateLimitHit> {
    const now = Date.now();
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
    const { start } = windowOf(Date.now(), windowMs);
    const counter = this.#counters.get(key);
    return counter && counter.windowStart === start ? counter.count : 0;
  }

  #sweep(currentStart: number) {
    this.#lastSweep = Date.now();
    for (const [key, counter] of this.#counters) {
      if (counter.windowStart < currentStart) this.#counters.delete(key);
    }
  }

  async close(): Promise<void> {
    this.#counters.clear();
  }
}

/** Several processes: one INCR per request on a key named after the window, expiring with it. */
export class RedisRateLimitStore implements RateLimitStore {
  constructor(private readonly redis: Redis) {}

  async hit(key: string, windowMs = RATE_LIMIT_WINDOW_MS): Promise<RateLimitHit> {
    const { start, resetAt } = windowOf(Date.now(), windowMs);
    const redisKey = `pollkit:rl:${key}:${start}`;
    const results = await this.redis
      .multi()
      .incr(redisKey)
      .pexpire(redisKey, windowMs + 1000)
      .exec();
    const [incrError, count] = results?.[0] ?? [new Error('empty MULTI reply'), 0];
    if (incrError) throw incrError;
    return { count: Number(count), resetAt };
  }

  async count(key: string, windowMs = RATE_LIMIT_WINDOW_MS): Promise<number> {
    const { start } = windowOf(Date.now(), windowMs);
    return Number((await this.redis.get(`pollkit:rl:${key}:${start}`)) ?? 0);
  }

  async close(): Promise<void> {}
}
