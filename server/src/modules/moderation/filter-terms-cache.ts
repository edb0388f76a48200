import type { InvalidationBus } from '../../infra/invalidation.js';
import { TtlCache } from '../../infra/ttl-cache.js';
import { compileTermList, type TermList } from './text-filter.js';

const TOPIC = 'filter-terms';

/** A workspace's lists, compiled for the filter (docs/moderation.md, "Your own terms"). */
export interface FilterTerms {
  blocked: TermList;
  allowed: TermList;
}

/**
 * Every open-ended answer, Q&A question and name is checked against its workspace's lists, so they
 * are compiled once and kept in memory. `PATCH /workspace` invalidates through the bus, as the poll
 * cache does: at once in this process, within milliseconds in others when Redis is configured; the
 * TTL bounds staleness otherwise.
 */
export class FilterTermsCache {
  readonly #cache: TtlCache<FilterTerms>;
  /** Bumped by every invalidation, so a load that raced a write does not cache the old lists. */
  #epoch = 0;

  constructor(
    private readonly bus: InvalidationBus,
    options: { ttlMs?: number; maxEntries?: number } = {},
  ) {
    this.#cache = new TtlCache(options.ttlMs ?? 30_000, options.maxEntries ?? 10_000);
    bus.subscribe(TOPIC, (workspaceId) => {
      this.#epoch += 1;
      this.#cache.delete(workspaceId);
    });
  }

  async get(
    workspaceId: string,
    load: () => Promise<{ blocked: string[]; allowed: string[] } | undefined>,
  ): Promise<FilterTerms> {
    const cached = this.#cache.get(workspaceId);
    if (cached) return cached;
    const epoch = this.#epoch;
    const stored = (await load()) ?? { blocked: [], allowed: [] };
    const terms = { blocked: compileTermList(stored.blocked), allowed: compileTermList(stored.allowed) };
    if (epoch === this.#epoch) this.#cache.set(workspaceId, terms);
    return terms;
  }

  /** Forgets every workspace's lists: the bus was down, so invalidations may have been lost. */
  clear(): void {
    this.#epoch += 1;
    this.#cache.clear();
  }

  invalidate(workspaceId: string): Promise<void> {
    return this.bus.publish(TOPIC, workspaceId);
  }
}
