import type { ErrorCode } from '@pollkit/contracts';
import { addressKey } from '../../core/client-address.js';
import type { RateLimitHit, RateLimitStore } from '../../infra/rate-limit.js';

/**
 * Failed authentications, counted per client address (docs/rate-limits.md, "Failed
 * authentications"). One counter per address for every way in — API keys, OAuth access tokens, host
 * tokens and the token endpoint's client secrets — so that guessing one kind of secret costs the
 * budget of all. Only failures are counted: a valid credential is never slowed by its address's
 * failures (several clients behind one NAT), and past the budget a failure answers 429 instead of
 * its 401, so a guesser learns nothing more from it (not even which of unknown, revoked or expired).
 */

/** The codes of a credential that was sent and is not valid; `missing_authorization` is not a guess. */
export const AUTH_FAILURE_CODES: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  'invalid_api_key',
  'revoked_api_key',
  'expired_api_key',
  'invalid_oauth_token',
  'invalid_host_token',
]);

/**
 * Counts one failed authentication from `ip`; `exceeded` once past `limit` this window. An IPv6
 * client counts by its /64, as every per-address limit does (core/client-address.ts).
 */
export async function countAuthFailure(
  rateLimits: Pick<RateLimitStore, 'hit'>,
  ip: string,
  limit: number,
): Promise<RateLimitHit & { exceeded: boolean }> {
  const hit = await rateLimits.hit(`auth-fail:${addressKey(ip)}`);
  return { ...hit, exceeded: hit.count > limit };
}
