import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Writable } from 'node:stream';
import type { Plan } from '@pollkit/contracts';
import pg from 'pg';
import { type ConfigInput, parseConfig } from '../../src/config.js';
import type { Clock } from '../../src/core/clock.js';
import { createApiKey } from '../../src/modules/api-keys/api-keys.service.js';
import { createWorkspace } from '../../src/modules/workspaces/workspaces.service.js';
import { type RunningServer, startServer } from '../../src/server.js';
import { pgliteTemplate, seedEmbeddedDatabase } from './pglite-template.js';

/**
 * A real Pollkit server on an ephemeral port for one test file.
 *
 * Database: PGlite in memory by default; with TEST_DATABASE_URL=postgres://… a fresh database is
 * created on that server for this file and dropped afterwards. TEST_REDIS_URL adds Redis.
 */
export interface TestServer {
  url: string;
  /** `${url}/api/v1` */
  api: string;
  /**
   * The database this server uses. A postgres URL, which a second server may be started on; or
   * `memory://` for an embedded one (in memory or on disk), which a second server cannot share: given
   * `memory://` it gets a fresh database. For one database two servers take turns on, on either leg,
   * start both on the env of `persistentDatabase()`.
   */
  databaseUrl: string;
  server: RunningServer;
  /** A new workspace with one API key (pro plan unless said otherwise). */
  workspace(plan?: Plan, options?: { rateLimitPerMinute?: number }): Promise<{ id: string; apiKey: string }>;
  close(): Promise<void>;
}

export const usingPostgres = Boolean(process.env.TEST_DATABASE_URL);

export interface TestServerOptions {
  /** The clock request handling measures by; a test moves its own (support/clock.ts) instead of sleeping. */
  clock?: Clock;
  /** Where the server's log goes (with LOG_LEVEL set in `env`): a test that reads the access log. */
  logOut?: Writable;
}

export async function startTestServer(
  env: Partial<Record<keyof ConfigInput, string>> = {},
  options: TestServerOptions = {},
): Promise<TestServer> {
  // A server on another's database (env.DATABASE_URL) makes none of its own: the other's owner drops it.
  const database = env.DATABASE_URL ? { url: env.DATABASE_URL, drop: async () => {} } : await testDatabase();
  // Files the server writes (stored media) go to a scratch folder, never into the repository.
  const dataDir = await mkdtemp(join(tmpdir(), 'pollkit-test-'));
  const config = parseConfig({
    DATA_DIR: dataDir,
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    BOOTSTRAP: 'false',
    // Every test checks every response against the contract's output schema.
    RESPONSE_VALIDATION: 'true',
    DATABASE_URL: database.url,
    REDIS_URL: process.env.TEST_REDIS_URL,
    // Every test server is 127.0.0.1 to every other, and with Redis they share each per-address
    // counter: the 401s and unknown PINs that files test would add up to 429s across files, the more
    // so the faster the suite runs. The limits' own tests (auth-failures, trust-proxy, live-abuse…)
    // set their budgets.
    AUTH_FAILURES_PER_IP_PER_MINUTE: '1000000',
    LIVE_PIN_MISSES_PER_IP_PER_MINUTE: '1000000',
    LIVE_JOINS_PER_IP_PER_MINUTE: '1000000',
    LIVE_QA_QUESTIONS_PER_IP_PER_MINUTE: '1000000',
    ...env,
  });
  const server = await startServer(config, {
    clock: options.clock,
    logOut: options.logOut,
    // In memory, a copy of a database migrated once (support/pglite-template.ts), not migrated again.
    pgliteTemplate: config.DATABASE_URL === 'memory://' ? await pgliteTemplate() : undefined,
  });
  return {
    url: server.url,
    api: `${server.url}/api/v1`,
    databaseUrl: config.DATABASE_URL ?? 'memory://',
    server,
    async workspace(plan = 'pro', options = {}) {
      const workspace = await createWorkspace(server.deps.db, {
        name: `test ${plan}`,
        plan,
        rateLimitPerMinute: options.rateLimitPerMinute ?? null,
      });
      const { secret } = await createApiKey(server.deps.db, { workspaceId: workspace.id, name: 'test' });
      return { id: workspace.id, apiKey: secret };
    },
    async close() {
      await server.close();
      await database.drop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * A database that outlives a server, for servers that take turns on it (a restart): a fresh database
 * on PostgreSQL with TEST_DATABASE_URL, else PGlite on disk, a copy of the migrated template
 * (`seedEmbeddedDatabase`). Start each server with `startTestServer({ ...database.env, … })`, close
 * one before starting the next on an embedded one (one process at a time), and `drop()` when done.
 * The empty DATABASE_URL is how: parseConfig leaves it out, and without one the server keeps PGlite
 * in DATA_DIR; DATA_DIR alone would still be `memory://`.
 */
export async function persistentDatabase(): Promise<{
  env: { DATABASE_URL: string; DATA_DIR?: string };
  drop(): Promise<void>;
}> {
  if (usingPostgres) {
    const database = await testDatabase();
    return { env: { DATABASE_URL: database.url }, drop: database.drop };
  }
  const dataDir = await mkdtemp(join(tmpdir(), 'pollkit-test-database-'));
  await seedEmbeddedDatabase(dataDir);
  return {
    env: { DATABASE_URL: '', DATA_DIR: dataDir },
    drop: () => rm(dataDir, { recursive: true, force: true }),
  };
}

/** A database for one test file: PGlite in memory, or a throw-away database on real PostgreSQL. */
export async function testDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const adminUrl = process.env.TEST_DATABASE_URL;
  if (!adminUrl) return { url: 'memory://', drop: async () => {} };
  const name = `pollkit_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`create database ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      try {
        await client.query(`drop database if exists ${name} with (force)`);
      } finally {
        await client.end();
      }
    },
  };
}

/**
 * Tests whose subject does not depend on the database — the docs site (static files), the packed SDK
 * (the same bytes on both legs), what the browser shows of the pages in other languages, in a
 * frame and in the API reference (the server sends the same page either way; the settings behind
 * them are tested on both legs by the api tests), the docs' runnable samples (they test what the pages
 * say; what the API does on PostgreSQL is the api tests' subject) — run once per CI run, on the embedded leg, as the fault tests do
 * (support/private-services.ts): on the PostgreSQL leg (TEST_DATABASE_URL) they would only repeat it.
 * What the SDK does against PostgreSQL is tested by sdk/test/api/ on that leg.
 */
export const onceOnEmbeddedLeg = usingPostgres;
