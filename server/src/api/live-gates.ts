import { contract, JoinCode, type RouteDefinition } from '@pollkit/contracts';
import { ApiError } from '../core/api-error.js';
import { addressKey } from '../core/client-address.js';
import type { Clock } from '../core/clock.js';
import type { RateLimitStore } from '../infra/rate-limit.js';
import type { Authenticator } from '../modules/auth/auth.service.js';
import { resolveEndedLiveCaller, resolveLiveCaller, resolveTokenHolder } from '../modules/live/live.service.js';
import type { LiveCaller } from '../modules/live/live-caller.js';
import type { LiveHub } from '../modules/live/live-hub.js';
import { authenticateHost } from '../modules/sessions/sessions.service.js';
import type { Next, Step } from './call.js';
import { decideRateLimit } from './rate-limit.js';

export interface LiveGateDeps {
  db: Parameters<typeof authenticateHost>[0]['db'];
  authenticator: Authenticator;
  rateLimits: RateLimitStore;
  liveHub: LiveHub;
  /** The clock session control stamped the end by (core/clock.ts). */
  clock: Clock;
  config: {
    RATE_LIMIT_PER_MINUTE: number;
    LIVE_RATE_LIMIT_PER_IP_PER_MINUTE: number;
    LIVE_RATE_LIMIT_PER_PARTICIPANT_PER_MINUTE: number;
    LIVE_PIN_MISSES_PER_IP_PER_MINUTE: number;
    LIVE_JOINS_PER_IP_PER_MINUTE: number;
    LIVE_HOST_TOKEN_TTL_AFTER_END_MS: number;
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
    if (host.endedAt) endedHostTokenMayOnlyRead(deps, call.route, host.endedAt);
    call.host = { sessionId: host.sessionId, workspaceId: host.workspaceId };
    const limit = deps.config.RATE_LIMIT_PER_MINUTE;
    decideRateLimit(call, limit, await deps.rateLimits.hit(`host:${host.sessionId}`));
    return next(call);
  };
}

/** What the host token of an ended session may still do: read the session (its summary), and follow its stream to the end. */
const READ_AFTER_END = new Set<RouteDefinition>([contract.sessions.get, contract.sessions.events]);

/**
 * Once its session has ended, a host token reads the session — its summary, and its event stream
 * up to the end for a presenter screen that reconnects — for LIVE_HOST_TOKEN_TTL_AFTER_END_MS, and
 * nothing else: no deck with its answer key, no questions, no moderation. Then it names nothing.
 */
function endedHostTokenMayOnlyRead(deps: LiveGateDeps, route: RouteDefinition, endedAt: Date): void {
  const expired = deps.clock.now() - endedAt.getTime() >= deps.config.LIVE_HOST_TOKEN_TTL_AFTER_END_MS;
  if (expired) {
    throw new ApiError('invalid_host_token', 'This host token’s session ended and the token has expired');
  }
  if (!READ_AFTER_END.has(route)) {
    throw new ApiError(
      'invalid_host_token',
      'This host token’s session has ended: the token only reads the session now; use a workspace credential',
    );
  }
}

/**
 * `auth: 'participant'`: no credential, so limits are per participant and per client address
 * (`addressKey`: an IPv6 client by its /64).
 *
 * - **A participant token of the session the PIN names** is all a request needs: it counts against
 *   that participant's own limit and nothing else. Another client's misses behind the same address
 *   (a venue's NAT, a proxy) never refuse it; a classroom behind one address is not one client.
 * - **Every other request looks a PIN up anonymously** (a join, an anonymous stream, a token that
 *   names nobody there). Those lookups are budgeted per address: one is reserved from the budget
 *   (`LIVE_PIN_MISSES_PER_IP_PER_MINUTE`) before the PIN is looked up, atomically, so a burst of
 *   concurrent guesses tests no more PINs than the budget allows, and over budget every PIN gets the
 *   same 429 (no answer tells a real PIN from a wrong one). A PIN that names a session gives its
 *   reservation back: only misses use the budget. At the default 10 a minute, trying the million
 *   PINs takes an address 69 days. Found, the request counts against the address's request limit,
 *   and a join also against its joins (`LIVE_JOINS_PER_IP_PER_MINUTE`).
 */
export function participantGateStep(deps: LiveGateDeps): Step {
  return async (call, next) => {
    const address = addressKey(call.request.ip);
    const pin = call.request.params.pin ?? '';
    // A PIN, or a self-paced session's link id: looked up (and budgeted) alike.
    const wellFormed = JoinCode.safeParse(pin).success;
    const token = single(call.request.participantToken) ?? undefinedIfArray(call);
    const isStream = call.route.format === 'sse';

    const holder = wellFormed && token ? await resolveTokenHolder(deps.liveHub, pin, token, isStream) : undefined;
    if (holder) {
      decideRateLimit(
        call,
        deps.config.LIVE_RATE_LIMIT_PER_PARTICIPANT_PER_MINUTE,
        await deps.rateLimits.hit(`participant:${holder.participant?.id}`),
      );
      call.live = { ...holder, address };
      return next(call);
    }

    const budgetKey = `pin-lookup:${address}`;
    const budget = deps.config.LIVE_PIN_MISSES_PER_IP_PER_MINUTE;
    const reserved = await deps.rateLimits.hit(budgetKey);
    if (reserved.count > budget) throw pinLookupsExceeded(deps, reserved.resetAt);
    const caller = wellFormed ? await resolveLiveCaller(deps.liveHub, pin, token) : undefined;
    // A PIN whose session ended lately is no guess either (browsers reconnect to it after the end):
    // an event stream reconnecting to it gets what it missed, the end summary last.
    const ended = !caller && wellFormed ? await resolveEndedLiveCaller(deps.liveHub, pin, token) : undefined;
    if (!caller && !ended) {
      decideRateLimit(call, budget, reserved);
      throw ApiError.notFound('Session');
    }
    await deps.rateLimits.release(budgetKey);
    decideRateLimit(call, deps.config.LIVE_RATE_LIMIT_PER_IP_PER_MINUTE, await deps.rateLimits.hit(`ip:${address}`));
    if (ended) {
      if (!isStream) throw ApiError.notFound('Session');
      call.live = { ...ended, address };
      return next(call);
    }
    if (call.route === contract.live.join) {
      const joins = deps.config.LIVE_JOINS_PER_IP_PER_MINUTE;
      const hit = await deps.rateLimits.hit(`joins:${address}`);
      if (hit.count > joins) {
        throw new ApiError('rate_limited', `${joins} new participants from this address this minute; retry later`, {
          limit: joins,
          resetAt: new Date(hit.resetAt).toISOString(),
        });
      }
    }
    call.live = { ...(caller as LiveCaller), address };
    return next(call);
  };
}

/** A repeated `X-Participant-Token` header names nobody: it is sent on as a token that resolves to none. */
function undefinedIfArray(call: { request: { participantToken: string | string[] | undefined } }): string | undefined {
  return Array.isArray(call.request.participantToken) ? '' : undefined;
}

function pinLookupsExceeded(deps: LiveGateDeps, resetAt: number): ApiError {
  const limit = deps.config.LIVE_PIN_MISSES_PER_IP_PER_MINUTE;
  return new ApiError('rate_limited', `${limit} unknown PINs from this address this minute; retry later`, {
    limit,
    resetAt: new Date(resetAt).toISOString(),
  });
}
