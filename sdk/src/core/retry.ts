import { ConflictError, ConnectionError, InternalServerError, RateLimitError } from './errors.js';

/** How long to wait between attempts. Every value is in milliseconds. */
export interface BackoffOptions {
  /** The first retry's delay ceiling; it doubles for each later retry. */
  retryBaseDelayMs: number;
  /** The ceiling of any delay after a 5xx or a connection failure. */
  retryMaxDelayMs: number;
  /** The ceiling of any delay after a 429: the rate limit's window, 60 s. */
  rateLimitMaxDelayMs: number;
}

export const defaultBackoff: Readonly<BackoffOptions> = Object.freeze({
  retryBaseDelayMs: 500,
  retryMaxDelayMs: 8_000,
  rateLimitMaxDelayMs: 60_000,
});

/** Why a failed attempt may be tried again. */
export type RetryReason = 'rate_limited' | 'server_error' | 'connection_error' | 'idempotency_key_in_use';

/**
 * Follows the spec's client guidance: a 429, a 5xx and a request that got no answer (including a
 * timeout) are retried; every other 4xx, an unreadable 2xx and a caller's abort are not.
 *
 * One 409 is the exception: `idempotency_key_in_use` says the first attempt of this very request is
 * still running on the server (a retry after a timeout can overtake it), and asks to be retried; the
 * retry then gets the first attempt's stored answer.
 */
export function retryReasonOf(error: unknown): RetryReason | undefined {
  if (error instanceof RateLimitError) return 'rate_limited';
  if (error instanceof ConflictError && error.code === 'idempotency_key_in_use') return 'idempotency_key_in_use';
  if (error instanceof InternalServerError) return 'server_error';
  if (error instanceof ConnectionError) return 'connection_error';
  return undefined;
}

/**
 * The wait before retry number `retry` (0 for the first retry).
 *
 * - After a 429: exponential with full jitter, a uniform pick in `[0, min(window, base·2^retry))`:
 *   clients throttled together spread out over the window instead of returning in step.
 * - After a 5xx, a connection failure or a key in use: exponential, capped, with up to a quarter taken off at
 *   random, so the server gets the whole backoff while retries still de-synchronise.
 */
export function backoffDelay(
  reason: RetryReason,
  retry: number,
  options: BackoffOptions,
  random: () => number = Math.random,
): number {
  const exponential = options.retryBaseDelayMs * 2 ** retry;
  if (reason === 'rate_limited') {
    return Math.floor(random() * Math.min(options.rateLimitMaxDelayMs, exponential));
  }
  const capped = Math.min(options.retryMaxDelayMs, exponential);
  return Math.floor(capped * (1 - random() * 0.25));
}

/** Waits `ms`, or rejects with the signal's reason as soon as the caller aborts. */
export function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
