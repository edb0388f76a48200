import { ApiError } from '../core/api-error.js';
import type { RateLimitHit, RateLimitStore } from '../infra/rate-limit.js';
import type { ApiCall, RateLimitDecision, Step } from './call.js';

export interface RateLimitDeps {
  rateLimits: RateLimitStore;
  config: { RATE_LIMIT_PER_MINUTE: number };
}

/**
 * Counts the call against its credential's limit: the workspace's override or the server's
 * `RATE_LIMIT_PER_MINUTE`, per API key or OAuth client. A route with a limit of its own
 * (`rateLimitPerMinute`, e.g. `POST /media`) counts against both, and the decision describes the
 * binding one: the one exceeded, else the one with fewer requests left. Past the general limit the
 * route's own counter is not touched. Past a limit: 429 `rate_limited` (the spec sends no
 * `Retry-After`; clients back off with jitter up to the window length).
 */
export function rateLimitStep(deps: RateLimitDeps): Step {
  return async (call, next) => {
    const credential = call.credential!;
    const general = {
      key: `cred:${credential.id}`,
      limit: credential.rateLimitPerMinute ?? deps.config.RATE_LIMIT_PER_MINUTE,
    };
    const generalHit = await deps.rateLimits.hit(general.key);
    const own = call.route.rateLimitPerMinute;
    if (own === undefined || generalHit.count > general.limit) {
      decideRateLimit(call, general.limit, generalHit);
      return next(call);
    }
    const ownHit = await deps.rateLimits.hit(`${general.key}:${call.route.method} ${call.route.path}`);
    if (own - ownHit.count <= general.limit - generalHit.count) decideRateLimit(call, own, ownHit);
    else decideRateLimit(call, general.limit, generalHit);
    return next(call);
  };
}

/** Records the decision on the call (the transport turns it into headers); past the limit, 429. */
export function decideRateLimit(call: ApiCall, limit: number, hit: RateLimitHit): void {
  const decision: RateLimitDecision = { limit, remaining: Math.max(0, limit - hit.count), resetAt: hit.resetAt };
  call.rateLimit = decision;
  if (hit.count > limit) {
    throw new ApiError('rate_limited', `Rate limit of ${limit} requests per minute exceeded`, {
      limit,
      resetAt: new Date(hit.resetAt).toISOString(),
    });
  }
}
