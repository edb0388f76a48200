import type { Poll } from '@pollkit/contracts';
import { JsonText } from '../../core/json-text.js';
import type { InvalidationBus } from '../../infra/invalidation.js';
import { TtlCache } from '../../infra/ttl-cache.js';

const TOPIC = 'poll';

/**
 * Polls are read far more often than they change (every GET, and every vote checks its poll), so
 * reads are served from memory. Writes invalidate through the bus: at once in this process, within
 * milliseconds in others when Redis is configured; the TTL bounds staleness otherwise.
 */
export class PollCache {
  /** Each poll with its JSON text, made on the first read that sends it (see JsonText). */
  readonly #cache: TtlCache<JsonText<Poll>>;
  /** Bumped by every invalidation, so a load that raced a write does not cache the old row. */
  #epoch = 0;

  constructor(
    private readonly bus: InvalidationBus,
    options: { ttlMs?: number; maxEntries?: number } = {},
  ) {
    this.#cache = new TtlCache(options.ttlMs ?? 30_000, options.maxEntries ?? 10_000);
    bus.subscribe(TOPIC, (key) => {
      this.#epoch += 1;
      this.#cache.delete(key);
    });
  }

  async get(
    workspaceId: string,
    id: string,
    load: () => Promise<Poll | undefined>,
  ): Promise<JsonText<Poll> | undefined> {
    const key = `${workspaceId}:${id}`;
    const cached = this.#cache.get(key);
    if (cached) return cached;
    const epoch = this.#epoch;
    const poll = await load();
    if (!poll) return undefined;
    const entry = new JsonText(poll);
    if (epoch === this.#epoch) this.#cache.set(key, entry);
    return entry;
  }

  /** Forgets every poll: the bus was down, so invalidations from other processes may have been lost. */
  clear(): void {
    this.#epoch += 1;
    this.#cache.clear();
  }

  invalidate(workspaceId: string, id: string): Promise<void> {
    return this.bus.publish(TOPIC, `${workspaceId}:${id}`);
  }
}
