import type { FastifyReply } from 'fastify';
import type { RateLimitDecision } from '../api/call.js';
import { RATE_LIMIT_WINDOW_MS } from '../infra/rate-limit.js';

export const WINDOW_HEADER_VALUE = `${RATE_LIMIT_WINDOW_MS / 1000}s`;

/**
 * The rate limiter's decision (api/rate-limit.ts) as headers: `X-RateLimit-Limit`,
 * `X-RateLimit-Window`, `X-RateLimit-Remaining` and `X-RateLimit-Reset` (Unix seconds when the
 * window ends). Never `Retry-After`: the spec has clients back off with jitter up to the window.
 */
export function writeRateLimitHeaders(reply: FastifyReply, decision: RateLimitDecision): void {
  reply.header('x-ratelimit-limit', decision.limit);
  reply.header('x-ratelimit-window', WINDOW_HEADER_VALUE);
  reply.header('x-ratelimit-remaining', decision.remaining);
  reply.header('x-ratelimit-reset', Math.ceil(decision.resetAt / 1000));
}

/** The defaults every `/api` response announces before the credential (and its limit) is known. */
export function announceDefaultRateLimit(reply: FastifyReply, limit: number): void {
  reply.header('x-ratelimit-limit', limit);
  reply.header('x-ratelimit-window', WINDOW_HEADER_VALUE);
}
