import type { FastifyReply } from 'fastify';
import type { AppDeps } from '../deps.js';
import { RATE_LIMIT_WINDOW_MS } from '../infra/rate-limit.js';
import { ApiError } from './api-error.js';

export const WINDOW_HEADER_VALUE = `${RATE_LIMIT_WINDOW_MS / 1000}s`;

/**
 * Counts one request against `key` and sets the rate-limit headers on the reply:
 * `X-RateLimit-Limit`, `X-RateLimit-Window`, `X-RateLimit-Remaining` and `X-RateLimit-Reset`
 * (Unix seconds when the window ends). Over the limit it throws `rate_limited`; the spec sends no
 * `Retry-After` (clients back off with jitter up to the window length).
 */
export async function applyRateLimit(
  deps: Pick<AppDeps, 'rateLimits'>,
  reply: FastifyReply,
  options: { key: string; limit: number },
): Promise<void> {
  const { count, resetAt } = await deps.rateLimits.hit(options.key);
  reply.header('x-ratelimit-limit', options.limit);
  reply.header('x-ratelimit-window', WINDOW_HEADER_VALUE);
  reply.header('x-ratelimit-remaining', Math.max(0, options.limit - count));
  reply.header('x-ratelimit-reset', Math.ceil(resetAt / 1000));
  if (count > options.limit) {
    throw new ApiError('rate_limited', `Rate limit of ${options.limit} requests per minute exceeded`, {
      limit: options.limit,
      resetAt: new Date(resetAt).toISOString(),
    });
  }
}
