import { ApiError } from '../core/api-error.js';
import { RATE_LIMIT_WINDOW_MS, type RateLimitStore } from '../infra/rate-limit.js';
import type { Authenticator } from '../modules/auth/auth.service.js';
import { resolveEndedLiveCaller, resolveLiveCaller } from '../modules/live/live.service.js';
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
    LIVE_RATE_LIMIT_PER_PARTICIPANT_PER_MINUTE: number;
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
 * `auth: 'participant'`: no credential, so limits are per participant and per IP address. PINs that
 * name no open session are counted per address (shared through Redis): once an address has made
 * `LIVE_PIN_MISSES_PER_IP_PER_MINUTE` misses, it gets 429 on every PIN, on every participant route
 * and process, until the window ends: at the default 10 a minute, trying the million PINs takes an
 * address 69 days.
 * A request that names a participant (a valid `X-Participant-Token`) counts against that
 * participant's limit, so a classroom behind one NAT address is not throttled as one client; the
 * rest (joins, anonymous streams) against the address's limit.
 */
export function participantGateStep(deps: LiveGateDeps): Step {
  return async (call, next) => {
    const { ip } = call.request;
    // Checked first, on every participant route: past the limit an address learns nothing more
    // about which PINs exist, whichever process or route it asks.
    const misses = await deps.rateLimits.count(`pin-miss:${ip}`);
    if (misses >= deps.config.LIVE_PIN_MISSES_PER_IP_PER_MINUTE) throw pinMissesExceeded(deps);
    const pin = call.request.params.pin ?? '';
    const caller = /^[0-9]{6}$/.test(pin)
      ? await resolveLiveCaller(deps.liveHub, pin, single(call.request.participantToken) ?? undefinedIfArray(call))
      : undefined;
    if (!caller) {
      // A PIN whose session ended lately is no guess (browsers reconnect to it after the end): it
      // counts against the address's request limit, not against its misses, and an event stream
      // reconnecting to it gets what it missed, the end summary last.
      const ended = /^[0-9]{6}$/.test(pin)
        ? await resolveEndedLiveCaller(deps.liveHub, pin, single(call.request.participantToken))
        : undefined;
      const key = ended ? `ip:${ip}` : `pin-miss:${ip}`;
      const limit = ended
        ? deps.config.LIVE_RATE_LIMIT_PER_IP_PER_MINUTE
        : deps.config.LIVE_PIN_MISSES_PER_IP_PER_MINUTE;
      decideRateLimit(call, limit, await deps.rateLimits.hit(key));
      if (ended && call.route.format === 'sse') {
        call.live = ended;
        return next(call);
      }
      throw ApiError.notFound('Session');
    }
    if (caller.participant) {
      decideRateLimit(
        call,
        deps.config.LIVE_RATE_LIMIT_PER_PARTICIPANT_PER_MINUTE,
        await deps.rateLimits.hit(`participant:${caller.participant.id}`),
      );
    } else {
      decideRateLimit(call, deps.config.LIVE_RATE_LIMIT_PER_IP_PER_MINUTE, await deps.rateLimits.hit(`ip:${ip}`));
    }
    call.live = caller;
    return next(call);
  };
}

/** A repeated `X-Participant-Token` header names nobody: it is sent on as a token that resolves to none. */
function undefinedIfArray(call: { request: { participantToken: string | string[] | undefined } }): string | undefined {
  return Array.isArray(call.request.participantToken) ? '' : undefined;
}

function pinMissesExceeded(deps: LiveGateDeps): ApiError {
  const limit = deps.config.LIVE_PIN_MISSES_PER_IP_PER_MINUTE;
  const resetAt = (Math.floor(Date.now() / RATE_LIMIT_WINDOW_MS) + 1) * RATE_LIMIT_WINDOW_MS;
  return new ApiError('rate_limited', `${limit} unknown PINs from this address this minute; retry later`, {
    limit,
    resetAt: new Date(resetAt).toISOString(),
  });
}
