/**
 * A bounded map whose entries expire: least-recently-used entries are evicted past `maxEntries`
 * (a Map keeps insertion order; a hit re-inserts). Small on purpose: hot lookups only.
 */
export class TtlCache<V> {
  readonly #entries = new Map<string, { value: V; expiresAt: number }>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries: number,
  ) {}

  get(key: string): V | undefined {
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= Date.now()) {
      this.#entries.delete(key);
      return undefined;
    }
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    return entry.value;
  }

  set(key: string, value: V): void {
    this.#entries.delete(key);
    this.#entries.set(key, { value, expiresAt: Date.now() + this.ttlMs });
    if (this.#entries.size > this.maxEntries) {
      const oldest = this.#entries.keys().next().value;
      if (oldest !== undefined) this.#entries.delete(oldest);
    }
  }

  delete(key: string): void {
    this.#entries.delete(key);
  }

  clear(): void {
    this.#entries.clear();
  }

  /** The values not expired yet, least recently used first (reading them does not count as a use). */
  *values(now = Date.now()): IterableIterator<V> {
    for (const entry of this.#entries.values()) if (entry.expiresAt > now) yield entry.value;
  }

  /**
   * Drops the entries expired as of `now`. A lookup drops an expired entry anyway; this is for keys
   * nobody looks up again, which would otherwise stay until `maxEntries` newer ones pushed them out.
   */
  prune(now = Date.now()): void {
    for (const [key, entry] of this.#entries) if (entry.expiresAt <= now) this.#entries.delete(key);
  }

  /** Entries held, expired ones not yet dropped included. */
  get size(): number {
    return this.#entries.size;
  }
}
