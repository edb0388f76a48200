import { ApiError } from '../core/api-error.js';
import type { RateLimitStore } from '../infra/rate-limit.js';
import type { Authenticator } from '../modules/auth/auth.service.js';
import { resolveLiveCaller } from '../modules/live/live.service.js';
import type { LiveHub } from '../modules/live/live-hub.js';
import { authenticateHost } from '../modules/sessions/sessions.service.js';
import type { Next, Step } from './call.js';
import { decideRateLimit } from './rate-limit.js';

export interface LiveGateDeps {
  db: Parameters<typeof authenticateHost>[0]['db'];
  authenticator: Authenticator;
  rateLimits: RateLimitStore;
  liveHub: LiveHub;
  config: {
    RATE_LIMIT_PER_MINUTE: number;
    LIVE_RATE_LIMIT_PER_IP_PER_MINUTE: number;
    LIVE_PIN_MISSES_PER_IP_PER_MINUTE: number;
  };
}

/** One header value: a repeated header (an array) is not a credential. */
function single(value: string | string[] | undefined): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/**
 * `auth: 'host'`: a workspace credential when `Authorization` is sent (the same steps as a workspace
 * route: `workspaceSteps`), else the session's `X-Host-Token`, counted against a limit per session.
 */
export function hostGateStep(deps: LiveGateDeps, workspaceSteps: (next: Next) => Next): Step {
  return async (call, next) => {
    if (call.request.authorization !== undefined) return workspaceSteps(next)(call);
    const token = call.request.hostToken;
    if (token === undefined) {
      throw new ApiError(
        'missing_authorization',
        'Send a workspace credential as `Authorization: Bearer …`, or the session’s host token as `X-Host-Token`',
      );
    }
    const sessionId = call.request.params.id ?? '';
    const host = typeof token === 'string' ? await authenticateHost(deps, sessionId, token) : undefined;
    if (!host) throw new ApiError('invalid_host_token', 'The X-Host-Token is not this session’s host token');
    call.host = host;
    const limit = deps.config.RATE_LIMIT_PER_MINUTE;
    decideRateLimit(call, limit, await deps.rateLimits.hit(`host:${host.sessionId}`));
    return next(call);
  };
}

/**
 * `auth: 'participant'`: no credential, so the limits are per IP address — every request, and
 * separately the PINs that name no open session: past `LIVE_PIN_MISSES_PER_IP_PER_MINUTE` misses an
 * address gets 429 on every PIN until the window ends, so PINs cannot be found by trying them all.
 * Then the PIN is resolved (404 for a miss) and the participant token, if one was sent.
 */
export function participantGateStep(deps: LiveGateDeps): Step {
  const blockedUntil = new Map<string, number>();
  return async (call, next) => {
    const { ip } = call.request;
    decideRateLimit(call, deps.config.LIVE_RATE_LIMIT_PER_IP_PER_MINUTE, await deps.rateLimits.hit(`ip:${ip}`));
    const blocked = blockedUntil.get(ip);
    if (blocked !== undefined) {
      if (blocked > Date.now()) throw pinMissesExceeded(deps, blocked);
      blockedUntil.delete(ip);
    }
    const pin = call.request.params.pin ?? '';
    const caller = /^[0-9]{6}$/.test(pin)
      ? await resolveLiveCaller(deps.liveHub, pin, single(call.request.participantToken) ?? undefinedIfArray(call))
      : undefined;
    if (!caller) {
      const miss = await deps.rateLimits.hit(`pin-miss:${ip}`);
      if (miss.count > deps.config.LIVE_PIN_MISSES_PER_IP_PER_MINUTE) {
        if (blockedUntil.size > 100_000) blockedUntil.clear();
        blockedUntil.set(ip, miss.resetAt);
        throw pinMissesExceeded(deps, miss.resetAt);
      }
      throw ApiError.notFound('Session');
    }
    call.live = caller;
    return next(call);
  };
}

/** A repeated `X-Participant-Token` header names nobody: it is sent on as a token that resolves to none. */
function undefinedIfArray(call: { request: { participantToken: string | string[] | undefined } }): string | undefined {
  return Array.isArray(call.request.participantToken) ? '' : undefined;
}

function pinMissesExceeded(deps: LiveGateDeps, resetAt: number): ApiError {
  const limit = deps.config.LIVE_PIN_MISSES_PER_IP_PER_MINUTE;
  return new ApiError('rate_limited', `More than ${limit} unknown PINs from this address in a minute; retry later`, {
    limit,
    resetAt: new Date(resetAt).toISOString(),
  });
}
