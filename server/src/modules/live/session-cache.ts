import type { Kysely } from 'kysely';
import type { Database, SessionRow } from '../../db/schema.js';
import { TtlCache } from '../../infra/ttl-cache.js';
import { findOpenSessionByCode, findSessionById } from '../sessions/index.js';

/** How long a cached session row is trusted by the answer path before it is read again. */
const SESSION_TTL_MS = 1000;
/**
 * How long a session row and its PIN stay known after they were last read or written: past it, the
 * next lookup goes to the database (sessions no stream follows would otherwise be kept for ever).
 */
const IDLE_ENTRY_MS = 10 * 60_000;
/** Sessions (and PINs) kept in memory per process: the least recently used are dropped past this. */
const SESSION_CACHE_SIZE = 100_000;

interface CachedSession {
  row: SessionRow;
  /** When the row was read or written; 0 when a change elsewhere was announced (read it again). */
  loadedAt: number;
}

/**
 * The session rows the answer path and the live streams read, by id and by PIN: each at most a
 * second old, and read again as soon as any process announces a change (`stale`). A burst of
 * lookups finding a row stale reads it once. Bounded in time and in number (infra/ttl-cache.ts).
 */
export class SessionCache {
  readonly #sessions = new TtlCache<CachedSession>(IDLE_ENTRY_MS, SESSION_CACHE_SIZE);
  /** By join code: a PIN, or a self-paced session's link id. */
  readonly #sessionIdByCode = new TtlCache<string>(IDLE_ENTRY_MS, SESSION_CACHE_SIZE);
  readonly #loading = new Map<string, Promise<SessionRow | undefined>>();

  constructor(private readonly db: Kysely<Database>) {}

  /** The open (not ended) session a join code (PIN or link id) names, at most a second old. */
  async byCode(code: string): Promise<SessionRow | undefined> {
    const id = this.#sessionIdByCode.get(code);
    if (id !== undefined) {
      const known = await this.fresh(id);
      if (known && hasJoinCode(known, code) && known.status !== 'ended') return known;
    }
    const row = await findOpenSessionByCode(this.db, code);
    if (row) this.remember(row);
    return row;
  }

  /** The session row, at most a second old (`reload`: read now). */
  async fresh(id: string, options: { reload?: boolean } = {}): Promise<SessionRow | undefined> {
    const cached = this.#sessions.get(id);
    if (cached && !options.reload && Date.now() - cached.loadedAt < SESSION_TTL_MS) return cached.row;
    // A burst of answers finding the row stale reads it once, not once each.
    let loading = this.#loading.get(id);
    if (!loading) {
      loading = findSessionById(this.db, id).then(
        (row) => {
          this.#loading.delete(id);
          if (row) this.remember(row);
          else this.#forget(id);
          return row;
        },
        (error: unknown) => {
          this.#loading.delete(id);
          throw error;
        },
      );
      this.#loading.set(id, loading);
    }
    return loading;
  }

  /** Keeps a session row just read or written (an older one never replaces a newer one). */
  remember(row: SessionRow): void {
    const cached = this.#sessions.get(row.id);
    if (cached && cached.row.seq > row.seq) return;
    this.#sessions.set(row.id, { row, loadedAt: Date.now() });
    for (const code of joinCodes(row)) {
      if (row.status !== 'ended') this.#sessionIdByCode.set(code, row.id);
      else if (this.#sessionIdByCode.get(code) === row.id) this.#sessionIdByCode.delete(code);
    }
  }

  /** A process announced history event `seq` of the session: a cached row older than it is read again. */
  changed(id: string, seq: number): void {
    const cached = this.#sessions.get(id);
    if (cached && cached.row.seq < seq) cached.loadedAt = 0;
  }

  /** Announcements may have been lost (the bus was down): every cached row is read again before use. */
  allStale(): void {
    for (const cached of this.#sessions.values()) cached.loadedAt = 0;
  }

  #forget(id: string): void {
    const cached = this.#sessions.get(id);
    this.#sessions.delete(id);
    for (const code of cached ? joinCodes(cached.row) : []) {
      if (this.#sessionIdByCode.get(code) === id) this.#sessionIdByCode.delete(code);
    }
  }

  /** Drops the entries idle past IDLE_ENTRY_MS as of `now` (they would be dropped when next read anyway). */
  sweep(now: number): void {
    this.#sessions.prune(now);
    this.#sessionIdByCode.prune(now);
  }

  get sizes(): { sessions: number; pins: number } {
    return { sessions: this.#sessions.size, pins: this.#sessionIdByCode.size };
  }
}

/** The codes a session is joined by: its PIN, its link id, or both. */
function joinCodes(row: SessionRow): string[] {
  const codes: string[] = [];
  if (row.pin !== null) codes.push(row.pin);
  if (row.link_id !== null) codes.push(row.link_id);
  return codes;
}

/** Whether `code` joins this session. */
export function hasJoinCode(row: SessionRow, code: string): boolean {
  return row.pin === code || row.link_id === code;
}
