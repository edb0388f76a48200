import { execFile, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import { parseConfig } from '../../src/config.js';
import { migrateToLatest, openDatabase } from '../../src/db/database.js';
import { type RunningServer, startServer } from '../../src/server.js';
import { lock } from './build-cache.js';
import { runCliInProcess } from './cli.js';
import { seedEmbeddedDatabase } from './pglite-template.js';
import { testDatabase, usingPostgres } from './server.js';

/**
 * What the admin CLI's test files (server/test/system/cli.*.test.ts) share: a scratch folder, the
 * database under test when a file needs one, server/dist built, and the CLI run as an operator runs
 * it: a separate Node process on the same database as the server (an on-disk PGlite DATA_DIR, or
 * PostgreSQL with TEST_DATABASE_URL). A process start costs one to three seconds on a busy machine,
 * so the main flows are spawned and the many help, usage and refusal cases call the same `runCli`
 * in this process. The main flows spawn the bundle that `pnpm pollkit` and `pnpm start` run
 * (server/dist, rebuilt first when its sources changed, as they do): through tsx, every start
 * compiled the CLI or the server from source again, which cost each process one to three seconds
 * more. The help case still spawns the sources through tsx.
 *
 * The state below is the one file's: `setUpCliFile` in its beforeAll sets it, the file reads it.
 */

export const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export let scratch: string;
let database: { url: string; drop(): Promise<void> } | undefined;
/** Where the CLI and the server find the database under test. */
export let databaseEnv: { DATA_DIR: string } | { DATABASE_URL: string };

/** Settles once the database under test exists with its schema; the first test to use it waits. */
export let databaseReady: Promise<void>;

/**
 * Settles once server/dist is built from the current sources: what `pnpm pollkit` and `pnpm start`
 * run first (scripts/ensure-built.mjs). Every spawn of the bundle waits for it.
 */
export let builtReady: Promise<void>;

/**
 * The file's beforeAll: a scratch folder; with `database`, the database under test (created in the
 * background, `databaseReady`); with `build`, server/dist brought up to date (`builtReady`).
 */
export async function setUpCliFile({ database: withDatabase = false, build = false } = {}): Promise<void> {
  scratch = mkdtempSync(join(tmpdir(), 'pollkit-cli-'));
  if (!withDatabase) {
    // No database: a DATA_DIR that is never created.
    databaseEnv = { DATA_DIR: join(scratch, 'no-database') };
  } else if (usingPostgres) {
    database = await testDatabase();
    databaseEnv = { DATABASE_URL: database.url };
  } else {
    databaseEnv = { DATA_DIR: join(scratch, 'data') };
  }
  if (withDatabase) {
    // Creating an embedded database takes seconds; it runs here while the tests that need no
    // database spawn their processes.
    databaseReady = createSchema();
    databaseReady.catch(() => {});
  }
  if (build) {
    builtReady = buildServer();
    builtReady.catch(() => {});
  }
}

/** The file's afterAll. */
export async function tearDownCliFile(): Promise<void> {
  await database?.drop();
  rmSync(scratch, { recursive: true, force: true });
}

/**
 * scripts/ensure-built.mjs, as `pnpm pollkit` runs it first. Several CLI test files run at once, and
 * two builds at once would write server/dist over each other: a lock file (per checkout) lets one
 * build while the other waits, then finds the build current.
 */
async function buildServer(): Promise<void> {
  const hash = createHash('sha256').update(repoRoot).digest('hex').slice(0, 16);
  const release = await lock(join(tmpdir(), `pollkit-server-dist-${hash}.lock`));
  try {
    await new Promise<void>((resolve, reject) => {
      execFile(process.execPath, ['server/scripts/ensure-built.mjs'], { cwd: repoRoot }, (error) =>
        error ? reject(error) : resolve(),
      );
    });
  } finally {
    await release();
  }
}

/** The CLI from its sources (through tsx), as the help case spawns it. */
export const sourceCli = ['--import', 'tsx', '--conditions=@pollkit/source', 'server/src/cli/main.ts'];
/** The bundle `pnpm pollkit` runs, as the main flows spawn it. */
export const builtCli = ['server/dist/cli.js'];

/** Runs `pollkit <args>` in its own process with only the environment given here. */
export async function cli(
  args: string[],
  env: Record<string, string> = databaseEnv,
  entry = builtCli,
): Promise<CliResult> {
  if (entry === builtCli) await builtReady;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...entry, ...args], {
      cwd: repoRoot,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? scratch, TMPDIR: tmpdir(), ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

export function json(result: CliResult) {
  expect(result, result.stderr).toMatchObject({ code: 0 });
  return JSON.parse(result.stdout);
}

async function createSchema(): Promise<void> {
  // A copy of the migrated database the in-memory test servers start from, laid where openDatabase
  // keeps an embedded one: initdb and every migration on disk took ~12 s of the CLI tests. Were it
  // laid anywhere else, the migration below would make the schema as before.
  if ('DATA_DIR' in databaseEnv) await seedEmbeddedDatabase(databaseEnv.DATA_DIR);
  const handle = await openDatabase({
    databaseUrl: 'DATABASE_URL' in databaseEnv ? databaseEnv.DATABASE_URL : undefined,
    dataDir: 'DATA_DIR' in databaseEnv ? databaseEnv.DATA_DIR : scratch,
  });
  try {
    await migrateToLatest(handle.db);
  } finally {
    await handle.close();
  }
}

export function startServerOnTestDatabase(): Promise<RunningServer> {
  return startServer(
    parseConfig({
      ...databaseEnv,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'silent',
      BOOTSTRAP: 'false',
      REDIS_URL: process.env.TEST_REDIS_URL,
      // With Redis every test server on 127.0.0.1 shares one count of failed authentications
      // (support/server.ts): the 401s the CLI tests expect must not turn into 429s for others'.
      AUTH_FAILURES_PER_IP_PER_MINUTE: '1000000',
    }),
  );
}

/**
 * The same entry as main.ts (which only adds `process.exitCode =`), in this process. The spawned
 * cases check that exit codes and output reach the shell the same way.
 */
export function cliInProcess(
  args: string[],
  env: Record<string, string> = { DATA_DIR: join(scratch, 'never-created') },
): Promise<CliResult> {
  return runCliInProcess(args, env);
}
