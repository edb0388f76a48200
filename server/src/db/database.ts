import { existsSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import {
  type DatabaseConnection,
  type Driver,
  Kysely,
  PGliteDialect,
  PostgresDialect,
  sql,
  type TransactionSettings,
} from 'kysely';
import { DEFAULT_MIGRATION_TABLE, type Migration, type MigrationProvider, Migrator } from 'kysely/migration';
import { acquireDataDirLock } from './data-dir-lock.js';
import { migrationProvider } from './migrations/index.js';
import { PGlitePreparedStatements, type PreparingConnection } from './pglite-prepared.js';
import type { PoolStats, PostgresOptions } from './postgres.js';
import type { Database } from './schema.js';

export interface DatabaseHandle {
  db: Kysely<Database>;
  /** What to print at start-up: driver and location, never credentials. */
  description: string;
  driver: 'pglite' | 'postgres';
  /** The PostgreSQL pool's state and error counts (metrics); undefined for the embedded database. */
  poolStats(): PoolStats | undefined;
  /**
   * Brings the schema up to date. On PostgreSQL on a connection of its own without the statement
   * timeout: a migration may rightly take longer than any request should.
   */
  migrate(progress?: DatabaseProgress): Promise<string[]>;
  close(): Promise<void>;
}

export interface DatabaseOptions {
  /** `postgres://…`, `memory://`, or undefined for PGlite persisted under `dataDir`. */
  databaseUrl: string | undefined;
  dataDir: string;
  poolSize?: number;
  /** PostgreSQL: the longest wait for a connection, and the longest a statement may run (db/postgres.ts). */
  connectTimeoutMs?: number;
  statementTimeoutMs?: number;
  /** PostgreSQL: told of connection trouble (every case is handled; this is for logs). */
  events?: Pick<PostgresOptions, 'onConnectionError' | 'onUnreachable' | 'onReachable'>;
  /** Told before a new embedded database is created (the slow part of a first start). */
  progress?: DatabaseProgress;
  /**
   * `memory://` only: start from this data directory (PGlite's `dumpDataDir()` of a migrated
   * database) instead of an empty one, so that `migrate()` finds nothing to do. Test servers use it
   * (server/test/support/pglite-template.ts); the server itself never does.
   */
  pgliteTemplate?: Blob;
}

/** Defaults of DATABASE_CONNECT_TIMEOUT_MS and DATABASE_STATEMENT_TIMEOUT_MS (config.ts). */
const DEFAULT_CONNECT_TIMEOUT_MS = 2_000;
const DEFAULT_STATEMENT_TIMEOUT_MS = 5_000;

/**
 * What the server prints while it prepares its database, so the seconds a first start takes are
 * not silent: creating an embedded database, then each migration as it runs.
 */
export interface DatabaseProgress {
  /** A new embedded database is about to be created in `location` (PGlite's initdb, seconds). */
  creating?(location: string): void;
  migrating?(name: string): void;
  migrated?(name: string, ms: number): void;
}

export async function openDatabase(options: DatabaseOptions): Promise<DatabaseHandle> {
  const url = options.databaseUrl;
  if (url?.startsWith('postgres://') || url?.startsWith('postgresql://')) {
    // Imported on demand, as PGlite is below: the embedded database need not load `pg`.
    const { createPostgresPool } = await import('./postgres.js');
    const connectTimeoutMs = options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
    const connector = createPostgresPool({
      url,
      poolSize: options.poolSize ?? 20,
      connectTimeoutMs,
      statementTimeoutMs: options.statementTimeoutMs ?? DEFAULT_STATEMENT_TIMEOUT_MS,
      ...options.events,
    });
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: connector.pool }) });
    const { hostname, port, pathname } = new URL(url);
    return {
      db,
      driver: 'postgres',
      description: `PostgreSQL at ${hostname}:${port || 5432}${pathname}`,
      poolStats: connector.stats,
      migrate: async (progress) => {
        const migrations = createPostgresPool({ url, poolSize: 1, connectTimeoutMs, statementTimeoutMs: 0 });
        const migrationDb = new Kysely<Database>({ dialect: new PostgresDialect({ pool: migrations.pool }) });
        try {
          return await migrateToLatest(migrationDb, progress);
        } finally {
          const emptied = migrations.emptied();
          await migrationDb.destroy();
          await emptied;
        }
      },
      close: async () => {
        const emptied = connector.emptied();
        await db.destroy();
        await emptied;
      },
    };
  }
  const inMemory = url === 'memory://';
  const dataDir = resolve(options.dataDir, 'pglite');
  // Taken before PGlite touches the folder: a second process must not even open it.
  const lock = inMemory ? undefined : acquireDataDirLock(resolve(options.dataDir));
  let pglite: PGlite;
  let serialize: ConstructorParameters<typeof PGlitePreparedStatements>[1];
  try {
    if (!inMemory) {
      // PGlite runs initdb on a folder without a cluster (PG_VERSION is its first file).
      if (!existsSync(join(dataDir, 'PG_VERSION'))) options.progress?.creating?.(dataDir);
      mkdirSync(dataDir, { recursive: true });
    }
    // Imported on demand: PGlite's module costs ~40 MB of memory a PostgreSQL deployment should
    // not carry.
    const { PGlite, protocol } = await import('@electric-sql/pglite');
    pglite = inMemory ? new PGlite({ loadDataDir: options.pgliteTemplate }) : new PGlite(dataDir);
    serialize = protocol.serialize;
  } catch (error) {
    lock?.release();
    throw error;
  }
  const db = new Kysely<Database>({
    dialect: new SerializedPGliteDialect({ pglite }, new PGlitePreparedStatements(pglite, serialize)),
  });
  return {
    db,
    driver: 'pglite',
    description: inMemory ? 'embedded PGlite (in memory)' : `embedded PGlite (${dataDir})`,
    poolStats: () => undefined,
    migrate: (progress) => migrateToLatest(db, progress),
    close: async () => {
      try {
        await db.destroy();
        // Kysely closes PGlite only if a query ever ran; the lock must outlive PGlite either way.
        if (!pglite.closed) await pglite.close();
      } finally {
        lock?.release();
      }
    },
  };
}

export async function migrateToLatest(db: Kysely<Database>, progress?: DatabaseProgress): Promise<string[]> {
  if (await isMigrated(db)) return [];
  const provider = progress ? reportingProvider(migrationProvider, progress) : migrationProvider;
  const migrator = new Migrator({ db, provider });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error;
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

/**
 * Whether every migration has been applied (and no other), read in one query: so it is on every
 * start but the first. Kysely's Migrator would find out too, but first introspects the catalog
 * (twice), makes sure of its tables and takes its lock: about a quarter of a second start on PGlite
 * (server/bench/RESULTS.md, "Issue 25: start-up"). Anything else (no table yet, a migration
 * missing, one this code does not know) goes to the Migrator, which migrates or says what is wrong.
 */
async function isMigrated(db: Kysely<Database>): Promise<boolean> {
  const known = Object.keys(await migrationProvider.getMigrations()).sort();
  let applied: string[];
  try {
    const { rows } = await sql<{ name: string }>`select name from ${sql.table(DEFAULT_MIGRATION_TABLE)}`.execute(db);
    applied = rows.map((row) => row.name).sort();
  } catch {
    return false;
  }
  return applied.length === known.length && applied.every((name, i) => name === known[i]);
}

/** Kysely's Migrator reports only at the end; wrapping each `up` tells as each one runs. */
function reportingProvider(provider: MigrationProvider, progress: DatabaseProgress): MigrationProvider {
  return {
    getMigrations: async () => {
      const migrations = await provider.getMigrations();
      return Object.fromEntries(
        Object.entries(migrations).map(([name, migration]) => [
          name,
          {
            ...migration,
            up: async (db: Kysely<unknown>) => {
              progress.migrating?.(name);
              const started = performance.now();
              await migration.up(db);
              progress.migrated?.(name, performance.now() - started);
            },
          } satisfies Migration,
        ]),
      );
    },
  };
}

/**
 * `count(*)` and other int8 values come back as strings from `pg` and as numbers from PGlite;
 * every repository reads them through this.
 */
export function toNumber(value: string | number | bigint | null | undefined): number {
  if (value === null || value === undefined) return 0;
  return typeof value === 'number' ? value : Number(value);
}

/**
 * Kysely's PGlite driver hands the one PGlite connection to every caller at once, so a query from
 * one request can run inside another request's open transaction, and two transactions overwrite
 * each other's state. PGlite has a single connection anyway; this driver makes callers take turns
 * (as Kysely's SQLite driver does), which turns concurrent requests into a queue, not corruption.
 */
class SerializedPGliteDialect extends PGliteDialect {
  constructor(
    config: ConstructorParameters<typeof PGliteDialect>[0],
    private readonly prepared: PGlitePreparedStatements,
  ) {
    super(config);
  }

  override createDriver(): Driver {
    return new SerializedDriver(super.createDriver(), this.prepared);
  }
}

class SerializedDriver implements Driver {
  #tail: Promise<void> = Promise.resolve();
  #release: (() => void) | undefined;

  constructor(
    private readonly inner: Driver,
    private readonly prepared: PGlitePreparedStatements,
  ) {}

  init(): Promise<void> {
    return this.inner.init();
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    const previous = this.#tail;
    let release!: () => void;
    this.#tail = new Promise<void>((r) => {
      release = r;
    });
    await previous;
    this.#release = release;
    // Marked statements prepared (pglite-prepared.ts).
    return this.prepared.wrap(await this.inner.acquireConnection());
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    await this.inner.releaseConnection((connection as PreparingConnection).inner);
    const release = this.#release;
    this.#release = undefined;
    release?.();
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    const preparing = connection as PreparingConnection;
    await this.inner.beginTransaction(preparing.inner, settings);
    preparing.inTransaction = true;
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    const preparing = connection as PreparingConnection;
    preparing.inTransaction = false;
    await this.inner.commitTransaction(preparing.inner);
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    const preparing = connection as PreparingConnection;
    preparing.inTransaction = false;
    await this.inner.rollbackTransaction(preparing.inner);
  }

  destroy(): Promise<void> {
    return this.inner.destroy();
  }
}
