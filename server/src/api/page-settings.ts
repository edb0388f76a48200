import type { FastifyRequest } from 'fastify';
import { addressKey } from '../core/client-address.js';
import { TtlCache } from '../infra/ttl-cache.js';
import { type PageSettings, type PageTarget, pageSettings } from '../modules/pages/pages.service.js';
import type { LiveGateDeps } from './live-gates.js';

/** How long a page's settings are reused: a join storm reads them once, a change shows within this. */
const SETTINGS_TTL_MS = 2_000;
const SETTINGS_ENTRIES = 10_000;

/**
 * The settings of the session a page names (pages.service.ts), for http/web-pages.ts.
 *
 * A page named by a PIN tells, by its language, theme and framing, whether the PIN is open: its
 * lookup is budgeted like a join's (`LIVE_PIN_MISSES_PER_IP_PER_MINUTE`, the same counter, api/live-gates.ts).
 * A lookup reserves one from the address's budget and gives it back when the PIN names a session;
 * over budget, the page is served with the defaults, as for an unknown PIN, so guessing PINs through
 * pages is as slow as through the API. Link ids and session ids are unguessable and cost nothing.
 */
export function pageSettingsLookup(
  deps: Pick<LiveGateDeps, 'db' | 'rateLimits'> & {
    config: Pick<LiveGateDeps['config'], 'LIVE_PIN_MISSES_PER_IP_PER_MINUTE'>;
  },
): (request: FastifyRequest, target: PageTarget) => Promise<PageSettings | undefined> {
  const cache = new TtlCache<PageSettings | null>(SETTINGS_TTL_MS, SETTINGS_ENTRIES);
  const lookup = async (target: PageTarget) => {
    const key = JSON.stringify(target);
    const cached = cache.get(key);
    if (cached !== undefined) return cached ?? undefined;
    const found = await pageSettings(deps, target);
    cache.set(key, found ?? null);
    return found;
  };
  return async (request, target) => {
    if (!('pin' in target)) return lookup(target);
    const budgetKey = `pin-lookup:${addressKey(request.ip)}`;
    const reserved = await deps.rateLimits.hit(budgetKey);
    if (reserved.count > deps.config.LIVE_PIN_MISSES_PER_IP_PER_MINUTE) {
      await deps.rateLimits.release(budgetKey);
      return undefined;
    }
    const found = await lookup(target);
    if (found) await deps.rateLimits.release(budgetKey);
    return found;
  };
}
