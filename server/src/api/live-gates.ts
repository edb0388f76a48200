import { contract, JoinCode, type RouteDefinition } from '@pollkit/contracts';
import { ApiError } from '../core/api-error.js';
import { addressKey } from '../core/client-address.js';
import type { Clock } from '../core/clock.js';
import { hashSecret } from '../core/secrets.js';
import type { RateLimitHit, RateLimitStore } from '../infra/rate-limit.js';
import { TtlCache } from '../infra/ttl-cache.js';
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
    call.host = { sessionId: host.sessionId, workspaceId: host.workspaceId, scopes: host.scopes };
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
 * - **Every lookup that can miss is budgeted per address** (`LIVE_PIN_MISSES_PER_IP_PER_MINUTE`), and
 *   reserved from the budget before it happens, atomically, so a burst of concurrent guesses costs
 *   no more lookups than the budget allows. Over budget every PIN and every token gets the same 429
 *   (no answer tells a real PIN from a wrong one). Only misses keep their reservation.
 * - **A token** is looked up before anything else (its participant, then its session: never the PIN).
 *   One this process knows — the hub holds its participant, or it issued it at a join or named one
 *   here in the last hour (`knownTokens`) — costs no budget, so a participant is not refused for its neighbours' misses. Any
 *   other token (a random one costs a database read) reserves a lookup first, and gives it back when
 *   it names a participant; one that names nobody is a miss, and its reservation stands for the PIN
 *   lookup that follows (one per request). Refused over budget, it gives its reservation back too:
 *   the budget then counts misses and lookups in flight, so a room whose tokens this process has not
 *   seen yet (it restarted; another process served them) is turned away only while a burst of them is
 *   in flight, and gets through on retrying.
 * - **Every other request looks a PIN up anonymously** (a join, an anonymous stream, a token that
 *   names nobody there), under one reservation. A PIN that names a session gives it back, unless the
 *   request's token was a miss; a request refused over budget gives it back too (it looked nothing up). At the default 10 a minute, trying the million PINs takes an address
 *   69 days. Found, the request counts against the address's request limit, and a join also against
 *   its joins (`LIVE_JOINS_PER_IP_PER_MINUTE`).
 */
export function participantGateStep(deps: LiveGateDeps): Step {
  const known = knownTokens(deps.liveHub);
  return async (call, next) => {
    const address = addressKey(call.request.ip);
    const pin = call.request.params.pin ?? '';
    // A PIN, or a self-paced session's link id: looked up (and budgeted) alike.
    const wellFormed = JoinCode.safeParse(pin).success;
    const token = single(call.request.participantToken) ?? undefinedIfArray(call);
    const isStream = call.route.format === 'sse';
    const budgetKey = `pin-lookup:${address}`;
    const budget = deps.config.LIVE_PIN_MISSES_PER_IP_PER_MINUTE;

    /** The lookup this request reserved from the address's budget, if it did. */
    let reserved: RateLimitHit | undefined;
    /** A token was sent and names no participant at all: a miss. */
    let tokenMissed = false;
    if (wellFormed && token) {
      const tokenHash = hashSecret(token);
      if (!deps.liveHub.knowsParticipantToken(tokenHash) && !known.get(tokenHash)) {
        reserved = await deps.rateLimits.hit(budgetKey);
        if (reserved.count > budget) {
          await deps.rateLimits.release(budgetKey);
          throw pinLookupsExceeded(deps, reserved.resetAt);
        }
      }
      const holder = await resolveTokenHolder(deps.liveHub, pin, token, isStream);
      if (holder) {
        if (reserved) await deps.rateLimits.release(budgetKey);
        known.set(tokenHash, true);
        decideRateLimit(
          call,
          deps.config.LIVE_RATE_LIMIT_PER_PARTICIPANT_PER_MINUTE,
          await deps.rateLimits.hit(`participant:${holder.participant?.id}`),
        );
        call.live = { ...holder, address };
        return next(call);
      }
      known.delete(tokenHash);
      // Found, its participant is in the hub now: a token of another session, or of one that ended, is no guess.
      tokenMissed = !deps.liveHub.knowsParticipantToken(tokenHash);
      if (reserved && !tokenMissed) {
        await deps.rateLimits.release(budgetKey);
        reserved = undefined;
      }
    }

    if (!reserved) {
      reserved = await deps.rateLimits.hit(budgetKey);
      if (reserved.count > budget) {
        // Refused, it looked nothing up: its reservation goes back, so a classroom's burst of joins
        // behind one address is turned away only while it is in flight, not for the rest of the minute.
        await deps.rateLimits.release(budgetKey);
        throw pinLookupsExceeded(deps, reserved.resetAt);
      }
    }
    const caller = wellFormed ? await resolveLiveCaller(deps.liveHub, pin, token) : undefined;
    // A PIN whose session ended lately is no guess either (browsers reconnect to it after the end):
    // an event stream reconnecting to it gets what it missed, the end summary last.
    const ended = !caller && wellFormed ? await resolveEndedLiveCaller(deps.liveHub, pin, token) : undefined;
    if (!caller && !ended) {
      decideRateLimit(call, budget, reserved);
      throw ApiError.notFound('Session');
    }
    if (!tokenMissed) await deps.rateLimits.release(budgetKey);
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
    if (call.route !== contract.live.join) return next(call);
    // A join refused for its challenge (a first try without one, then the solved one) added nobody:
    // it gives its place among the address's new participants back, or a room behind one address
    // joining a session with the challenge would count twice.
    const outcome = await next(call).catch(async (error: unknown) => {
      if (error instanceof ApiError && error.code === 'challenge_failed') {
        await deps.rateLimits.release(`joins:${address}`);
      }
      throw error;
    });
    // A token this process just issued is known from the start: its participant's first answer may
    // come minutes later, when the hub has long forgotten the row, and must not be budgeted as a
    // stranger's guess (a room answering its first question at once would be refused while in flight).
    const issued =
      outcome.kind === 'json' ? (outcome.body as { participantToken?: unknown }).participantToken : undefined;
    if (typeof issued === 'string') known.set(hashSecret(issued), true);
    return outcome;
  };
}

/** How long a token that named a participant stays known without being used: longer than a room's pauses. */
const KNOWN_TOKEN_TTL_MS = 60 * 60_000;
/** Known tokens kept per process (the least recently used are dropped past this), as the hub's own cache. */
const KNOWN_TOKEN_COUNT = 100_000;
const knownTokensByHub = new WeakMap<LiveHub, TtlCache<true>>();

/**
 * The hashes of the tokens this process issued or that named a participant in it lately (one set per server, by its
 * hub). The hub trusts a participant row for ten seconds only, and a participant who answers once a
 * minute must not be budgeted like a stranger each time: a known token skips the lookup budget. It is
 * still looked up — who may do what never rests on this set — and is forgotten when it names nobody.
 */
function knownTokens(hub: LiveHub): TtlCache<true> {
  let known = knownTokensByHub.get(hub);
  if (!known) {
    known = new TtlCache<true>(KNOWN_TOKEN_TTL_MS, KNOWN_TOKEN_COUNT);
    knownTokensByHub.set(hub, known);
  }
  return known;
}

/** A repeated `X-Participant-Token` header names nobody: it is sent on as a token that resolves to none. */
function undefinedIfArray(call: { request: { participantToken: string | string[] | undefined } }): string | undefined {
  return Array.isArray(call.request.participantToken) ? '' : undefined;
}

function pinLookupsExceeded(deps: LiveGateDeps, resetAt: number): ApiError {
  const limit = deps.config.LIVE_PIN_MISSES_PER_IP_PER_MINUTE;
  return new ApiError('rate_limited', `${limit} unknown PINs or tokens from this address this minute; retry later`, {
    limit,
    resetAt: new Date(resetAt).toISOString(),
  });
}
