import type { ErrorCode } from '@pollkit/contracts';
import { ApiError } from '../core/api-error.js';
import type { RateLimitHit, RateLimitStore } from '../infra/rate-limit.js';
import { AUTH_FAILURE_CODES, countAuthFailure } from '../modules/credentials/auth-failures.js';
import type { WorkspaceCredential } from '../modules/credentials/workspace-credential.js';
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
    const general = generalLimit(deps, call.credential!);
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

/** A credential's own counter and limit: the workspace's override or the server's. */
function generalLimit(deps: RateLimitDeps, credential: WorkspaceCredential): { key: string; limit: number } {
  return {
    key: `cred:${credential.id}`,
    limit: credential.rateLimitPerMinute ?? deps.config.RATE_LIMIT_PER_MINUTE,
  };
}

/**
 * Counts a request that runs no operation against its credential's limit, as a call of one would be
 * counted (the same counter): MCP's `initialize`, `tools/list` and `ping`, which cost the server as
 * much as a read and must not be free for one credential to repeat while others wait. 429 past it.
 */
export async function countRequest(
  deps: RateLimitDeps,
  caller: { credential: WorkspaceCredential; rateLimit: RateLimitDecision | undefined },
): Promise<void> {
  const general = generalLimit(deps, caller.credential);
  decideRateLimit(caller, general.limit, await deps.rateLimits.hit(general.key));
}

/** Records the decision on the call (the transport turns it into headers); past the limit, 429. */
export function decideRateLimit(
  call: { rateLimit: RateLimitDecision | undefined },
  limit: number,
  hit: RateLimitHit,
): void {
  const decision: RateLimitDecision = { limit, remaining: Math.max(0, limit - hit.count), resetAt: hit.resetAt };
  call.rateLimit = decision;
  if (hit.count > limit) {
    throw new ApiError('rate_limited', `Rate limit of ${limit} requests per minute exceeded`, {
      limit,
      resetAt: new Date(hit.resetAt).toISOString(),
    });
  }
}

export interface AuthFailureDeps {
  rateLimits: RateLimitStore;
  config: { AUTH_FAILURES_PER_IP_PER_MINUTE: number };
}

/**
 * What to throw once authentication failed with `error`: a credential that was sent and is not valid
 * (`codes`) counts against the client address's budget (`AUTH_FAILURES_PER_IP_PER_MINUTE`, counted
 * as the live participant limits count, through the shared store); past it the answer is 429
 * `rate_limited`, with the budget in the `X-RateLimit-*` headers, until the window ends. Anything
 * else (no credential at all, a database away) is thrown as it is, uncounted. Successes are never
 * counted nor refused here: a valid credential passes whatever its neighbours behind the same
 * address got wrong (modules/credentials/auth-failures.ts).
 */
export async function afterAuthFailure(
  deps: AuthFailureDeps,
  call: { request: Pick<ApiCall['request'], 'ip'>; rateLimit: RateLimitDecision | undefined },
  error: unknown,
  codes: ReadonlySet<ErrorCode> = AUTH_FAILURE_CODES,
): Promise<unknown> {
  if (!(error instanceof ApiError) || !codes.has(error.code)) return error;
  const limit = deps.config.AUTH_FAILURES_PER_IP_PER_MINUTE;
  const hit = await countAuthFailure(deps.rateLimits, call.request.ip, limit);
  if (!hit.exceeded) return error;
  call.rateLimit = { limit, remaining: 0, resetAt: hit.resetAt };
  return new ApiError(
    'rate_limited',
    `More than ${limit} failed authentications from this address this minute; retry after the window resets`,
    { limit, resetAt: new Date(hit.resetAt).toISOString() },
  );
}

/**
 * A gate step whose failures with `code` count against the client address, as the authenticate
 * step's do: the host gate's wrong `X-Host-Token` (api/live-gates.ts). Its workspace branch runs the
 * authenticate step, which counts its own failures, so they are not counted twice.
 */
export function authFailureLimit(deps: AuthFailureDeps, gate: Step, code: ErrorCode): Step {
  const codes: ReadonlySet<ErrorCode> = new Set([code]);
  return async (call, next) => {
    try {
      return await gate(call, next);
    } catch (error) {
      throw await afterAuthFailure(deps, call, error, codes);
    }
  };
}
