import type { PostgresPool, PostgresPoolClient } from 'kysely';
import pg from 'pg';
import { DependencyUnavailableError } from '../core/unavailable.js';
import { preparedName } from './prepared.js';

/**
 * Every connection to PostgreSQL is made here, and only here (`pnpm layers` refuses `pg` anywhere
 * else in server/src): a pool or client made elsewhere would miss what keeps a restart of the
 * database from killing the process.
 *
 * - **Every `error` event is handled.** `pg` emits `error` on a client whose socket dies — idle in
 *   the pool, or checked out between two queries of a transaction — and Node exits on an `error`
 *   event nobody listens to. The pool's own listener covers idle clients only, so each client gets
 *   a listener of ours for its whole life, and the pool one too.
 * - **Every wait is bounded.** Getting a connection (a new one, or a free one from a busy pool)
 *   waits `connectTimeoutMs` at most; a statement runs `statementTimeoutMs` at most on the server
 *   (`statement_timeout`), and the client stops waiting for an answer a second after that, for a
 *   server that cannot even cancel (stopped, or cut off by the network). TCP keep-alive finds dead
 *   idle connections.
 * - **Unreachable is one error.** A failure to connect, a connection that died, a server shutting
 *   down or refusing connections, a timeout: each becomes `DependencyUnavailableError` (a 503),
 *   whatever shape `pg` gave it. Errors about the statement itself (a constraint, a deadlock) pass
 *   through as they are.
 */

export interface PostgresOptions {
  url: string;
  poolSize: number;
  connectTimeoutMs: number;
  /** 0: no limit (the migrations' own connection). */
  statementTimeoutMs: number;
  /** Told about every `error` event of the pool and its clients (they are handled either way). */
  onConnectionError?: (error: Error) => void;
  /** The first call that could not reach the database after it was reachable (the start of an outage). */
  onUnreachable?: (error: DependencyUnavailableError) => void;
  /** The first connection made after an outage. */
  onReachable?: () => void;
}

/** What the pool is doing now, and what went wrong so far (read by /metrics). */
export interface PoolStats {
  total: number;
  idle: number;
  waiting: number;
  /** `error` events of the pool and its clients: connections that died. */
  connectionErrors: number;
  /** Calls that failed because the database could not be reached or did not answer in time. */
  unavailableErrors: number;
  /** False from a call that could not reach the database until the next connection is made. */
  reachable: boolean;
}

/** The client waits this much longer than the server's statement timeout before giving up on it. */
const READ_TIMEOUT_MARGIN_MS = 1_000;

export interface PostgresConnector {
  /** The pool as Kysely's PostgresDialect takes it, with errors classified. */
  pool: PostgresPool;
  stats(): PoolStats;
  /**
   * Resolves once every connection the pool holds now is gone. pg-pool's end() (called by Kysely's
   * destroy) resolves before its sockets have closed: waiting for this too means "closed" really is
   * closed, so a dropped test database or a restarting PostgreSQL cannot hit a connection we hold.
   */
  emptied(): Promise<void>;
}

export function createPostgresPool(options: PostgresOptions): PostgresConnector {
  const readTimeoutMs = options.statementTimeoutMs > 0 ? options.statementTimeoutMs + READ_TIMEOUT_MARGIN_MS : 0;
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.poolSize,
    connectionTimeoutMillis: options.connectTimeoutMs,
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
    ...(options.statementTimeoutMs > 0
      ? { statement_timeout: options.statementTimeoutMs, query_timeout: readTimeoutMs }
      : {}),
  });
  let connectionErrors = 0;
  let unavailableErrors = 0;
  let reachable = true;
  const markUnavailable = (error: DependencyUnavailableError): DependencyUnavailableError => {
    unavailableErrors += 1;
    if (reachable) {
      reachable = false;
      options.onUnreachable?.(error);
    }
    return error;
  };
  const markReachable = () => {
    if (reachable) return;
    reachable = true;
    options.onReachable?.();
  };
  const onError = (error: Error) => {
    connectionErrors += 1;
    options.onConnectionError?.(error);
  };
  pool.on('error', onError);
  // Once per client, for its whole life: checked out or idle, its `error` event has a listener.
  pool.on('connect', (client) => client.on('error', onError));

  const unavailable = (error: unknown): unknown =>
    isConnectionFailure(error) ? markUnavailable(new DependencyUnavailableError('database', error)) : error;

  const guarded = new WeakMap<pg.PoolClient, PostgresPoolClient>();
  const guard = (client: pg.PoolClient): PostgresPoolClient => {
    let wrapper = guarded.get(client);
    if (!wrapper) {
      wrapper = {
        get processID() {
          return (client as { processID?: number }).processID;
        },
        release: (destroy?: boolean) => client.release(destroy),
        query: ((sql: string | object, parameters: readonly unknown[]) => {
          // A cursor (a submittable object) is handed over as it is: it reports its own errors.
          if (typeof sql !== 'string') return client.query(sql as never);
          const name = preparedName(sql);
          const query = name
            ? client.query({ name, text: sql, values: parameters as unknown[] })
            : client.query(sql, parameters as unknown[]);
          return query.catch((error: unknown) => {
            // The server never answered: this connection is stuck behind a statement that will not
            // end. Ending it makes the pool discard it on release instead of handing it out again.
            if ((error as Error)?.message === 'Query read timeout') void client.end().catch(() => {});
            throw unavailable(error);
          });
        }) as unknown as PostgresPoolClient['query'],
      };
      guarded.set(client, wrapper);
    }
    return wrapper;
  };

  return {
    pool: {
      options: pool.options,
      connect: () =>
        pool.connect().then(
          (client) => {
            markReachable();
            return guard(client);
          },
          (error: unknown) => {
            // Whatever stops a connection from being made (refused, timed out, the server starting
            // or shutting down, too many clients, even bad credentials) leaves this process unable
            // to serve: 503.
            throw markUnavailable(new DependencyUnavailableError('database', error));
          },
        ),
      end: () => pool.end(),
    },
    stats: () => ({
      total: pool.totalCount,
      idle: pool.idleCount,
      waiting: pool.waitingCount,
      connectionErrors,
      unavailableErrors,
      reachable,
    }),
    emptied: () => {
      let left = pool.totalCount;
      return new Promise<void>((resolve) => {
        if (left === 0) resolve();
        pool.on('remove', () => {
          left -= 1;
          if (left <= 0) resolve();
        });
      });
    },
  };
}

/**
 * SQLSTATEs that say "the database cannot serve now", not "this statement is wrong": class 08
 * (connection exception), 53 (insufficient resources: too many connections, out of memory, disk
 * full), 57P01–57P03 (terminated by an administrator, a crash, or still starting), 57014 (cancelled:
 * our statement timeout), 58 (system error, I/O).
 */
const UNAVAILABLE_STATE = /^(08|53|57P0[1-3]$|57014$|58)/;
/** Socket errors of a connection that died or could not be made. */
const UNAVAILABLE_SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);
/** What `pg` itself says when a connection ended or a wait ran out (it sets no code on these). */
const UNAVAILABLE_MESSAGE =
  /^(Connection terminated|timeout exceeded when trying to connect|Query read timeout|Client has encountered a connection error|Client was closed)/;

function isConnectionFailure(error: unknown): boolean {
  if (error instanceof DependencyUnavailableError) return true;
  if (typeof error !== 'object' || error === null) return false;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (typeof code === 'string' && (UNAVAILABLE_STATE.test(code) || UNAVAILABLE_SOCKET_CODES.has(code))) return true;
  return typeof message === 'string' && UNAVAILABLE_MESSAGE.test(message);
}
