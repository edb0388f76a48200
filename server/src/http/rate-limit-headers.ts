import type { FastifyReply } from 'fastify';
import { ApiError } from '../core/api-error.js';
import type { AppDeps } from '../deps.js';
import { RATE_LIMIT_WINDOW_MS, type RateLimitHit } from '../infra/rate-limit.js';

export const WINDOW_HEADER_VALUE = `${RATE_LIMIT_WINDOW_MS / 1000}s`;

/**
 * Counts one request against `key` and reports it (see `reportRateLimit`).
 */
export async function applyRateLimit(
  deps: Pick<AppDeps, 'rateLimits'>,
  reply: FastifyReply,
  options: { key: string; limit: number },
): Promise<void> {
  reportRateLimit(reply, options.limit, await deps.rateLimits.hit(options.key));
}

/**
 * Sets the rate-limit headers for one counter: `X-RateLimit-Limit`, `X-RateLimit-Window`,
 * `X-RateLimit-Remaining` and `X-RateLimit-Reset` (Unix seconds when the window ends). Past the
 * limit it throws `rate_limited`; the spec sends no `Retry-After` (clients back off with jitter up to
 * the window length).
 */
export function reportRateLimit(reply: FastifyReply, limit: number, hit: RateLimitHit): void {
  reply.header('x-ratelimit-limit', limit);
  reply.header('x-ratelimit-window', WINDOW_HEADER_VALUE);
  reply.header('x-ratelimit-remaining', Math.max(0, limit - hit.count));
  reply.header('x-ratelimit-reset', Math.ceil(hit.resetAt / 1000));
  if (hit.count > limit) {
    throw new ApiError('rate_limited', `Rate limit of ${limit} requests per minute exceeded`, {
      limit,
      resetAt: new Date(hit.resetAt).toISOString(),
    });
  }
}

/** The defaults every `/api` response announces before the credential (and its limit) is known. */
export function announceDefaultRateLimit(reply: FastifyReply, limit: number): void {
  reply.header('x-ratelimit-limit', limit);
  reply.header('x-ratelimit-window', WINDOW_HEADER_VALUE);
}
