import { type ChildProcess, execFile, execFileSync, spawn } from 'node:child_process';
import { chownSync, existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { migrateToLatest, openDatabase } from '../../src/db/database.js';
import { createApiKey } from '../../src/modules/api-keys/api-keys.service.js';
import { createWorkspace } from '../../src/modules/workspaces/workspaces.service.js';
import { freePort } from './child.js';

/**
 * A PostgreSQL cluster and a Redis server of a test's own, on spare ports, for the fault tests:
 * they stop, kill and restart them under load. The machine's shared PostgreSQL and Redis are never
 * touched. PostgreSQL is created with `initdb` in a temporary folder and run with `pg_ctl`, as the
 * `postgres` user when the tests run as root (PostgreSQL refuses to run as root).
 *
 * Fault tests run once per CI run, on the embedded leg: they bring their own instances, so the
 * PostgreSQL leg (TEST_DATABASE_URL) would only repeat them. Without the binaries (a laptop without
 * PostgreSQL or Redis installed) they are skipped, saying so; under CI a missing binary fails.
 */

const run = promisify(execFile);

/** Why the fault tests cannot run here, or undefined when they can (throws under CI instead). */
export function faultTestsSkipReason(): string | undefined {
  if (process.env.TEST_DATABASE_URL) {
    return 'fault tests run once per CI run, on the embedded leg: they start their own PostgreSQL and Redis';
  }
  const missing = [
    postgresBinary('initdb') ? undefined : 'initdb',
    postgresBinary('pg_ctl') ? undefined : 'pg_ctl',
    onPath('redis-server') ? undefined : 'redis-server',
  ].filter(Boolean);
  if (missing.length === 0) return undefined;
  const reason = `fault tests skipped: ${missing.join(', ')} not found (install PostgreSQL and Redis to run them)`;
  if (process.env.CI) throw new Error(`${reason}; CI must run them`);
  return reason;
}

/** Prints why a fault-test file is skipped, once, so a skip is never silent. */
export function announceSkip(file: string, reason: string | undefined): boolean {
  if (reason) console.warn(`⚠ ${file}: ${reason}`);
  return reason === undefined;
}

export interface PrivatePostgres {
  port: number;
  /** A `postgres://` URL of a database on this cluster (created by `createDatabase`). */
  url(database: string): string;
  createDatabase(name: string): Promise<string>;
  /** `pg_ctl stop -m fast`: every connection is terminated (57P01), new ones refused. */
  stop(): Promise<void>;
  start(): Promise<void>;
  /** SIGSTOP / SIGCONT to every process of the cluster: it accepts connections and never answers. */
  freeze(): Promise<void>;
  thaw(): Promise<void>;
  /** Terminates every backend connected to `database` (`pg_terminate_backend`), as a failover would. */
  terminateConnections(database: string): Promise<number>;
  destroy(): Promise<void>;
}

export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const dir = await mkdtemp(join(tmpdir(), 'pollkit-pg-'));
  const owner = process.getuid?.() === 0 ? postgresUser() : undefined;
  if (owner) chownSync(dir, owner.uid, owner.gid);
  const data = join(dir, 'data');
  const port = await freePort();
  const asOwner = owner ? { uid: owner.uid, gid: owner.gid } : {};
  const pgCtl = (...args: string[]) => run(postgresBinary('pg_ctl') as string, ['-D', data, ...args], asOwner);
  await run(
    postgresBinary('initdb') as string,
    ['-D', data, '-A', 'trust', '-U', 'postgres', '-E', 'UTF8', '--no-sync'],
    asOwner,
  );
  const options = [
    `-p ${port}`,
    `-k ${dir}`,
    '-c listen_addresses=127.0.0.1',
    // Nothing here needs to survive a crash of the machine: start and stop fast.
    '-c fsync=off',
    '-c synchronous_commit=off',
    '-c full_page_writes=off',
  ].join(' ');
  const start = () => pgCtl('-o', options, '-l', join(dir, 'log'), '-w', '-t', '60', 'start').then(() => {});
  await start();
  const url = (database: string) => `postgres://postgres@127.0.0.1:${port}/${database}`;
  const admin = async <T>(work: (client: pg.Client) => Promise<T>): Promise<T> => {
    const client = new pg.Client({ connectionString: url('postgres') });
    client.on('error', () => {});
    await client.connect();
    try {
      return await work(client);
    } finally {
      await client.end();
    }
  };
  const clusterPids = () => {
    const postmaster = Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
    return [postmaster, ...childrenOf(postmaster)];
  };
  return {
    port,
    url,
    async createDatabase(name) {
      await admin((client) => client.query(`create database ${name}`));
      return url(name);
    },
    stop: () => pgCtl('-m', 'fast', '-w', 'stop').then(() => {}),
    start,
    async freeze() {
      for (const pid of clusterPids()) process.kill(pid, 'SIGSTOP');
    },
    async thaw() {
      for (const pid of clusterPids()) process.kill(pid, 'SIGCONT');
    },
    terminateConnections: (database) =>
      admin(async (client) => {
        const { rowCount } = await client.query(
          'select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()',
          [database],
        );
        return rowCount ?? 0;
      }),
    async destroy() {
      await pgCtl('-m', 'immediate', '-w', 'stop').catch(() => {});
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/**
 * The database the fault tests' servers share: `pollkit` on `cluster`, migrated, with a Pro workspace
 * and an API key (its rate limit is the servers' own, which startApiChild raises out of the way).
 */
export async function seedPrivateDatabase(
  cluster: PrivatePostgres,
): Promise<{ databaseUrl: string; workspaceId: string; apiKey: string }> {
  const databaseUrl = await cluster.createDatabase('pollkit');
  const handle = await openDatabase({ databaseUrl, dataDir: '', poolSize: 1 });
  try {
    await migrateToLatest(handle.db);
    const workspace = await createWorkspace(handle.db, { name: 'faults', plan: 'pro', rateLimitPerMinute: null });
    const { secret } = await createApiKey(handle.db, { workspaceId: workspace.id, name: 'faults' });
    return { databaseUrl, workspaceId: workspace.id, apiKey: secret };
  } finally {
    await handle.close();
  }
}

export interface PrivateRedis {
  port: number;
  url: string;
  /** SIGKILL: gone at once, with everything it held (it keeps nothing on disk). */
  kill(): Promise<void>;
  /** Starts it again on the same port. */
  start(): Promise<void>;
  destroy(): Promise<void>;
}

export async function startPrivateRedis(): Promise<PrivateRedis> {
  const port = await freePort();
  let server: ChildProcess | undefined;
  const start = async () => {
    const child = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--loglevel', 'warning'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    server = child;
    // Ready once it answers a PING (redis-cli would be one more binary to need).
    const deadline = Date.now() + 30_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`redis-server on ${port} exited with ${child.exitCode}`);
      if (await pingRedis(port)) return;
      if (Date.now() > deadline) throw new Error(`redis-server on ${port} did not answer`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  const kill = async () => {
    const child = server;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  };
  await start();
  return { port, url: `redis://127.0.0.1:${port}`, kill, start, destroy: kill };
}

async function pingRedis(port: number): Promise<boolean> {
  const net = await import('node:net');
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(500, () => done(false));
    socket.on('error', () => done(false));
    socket.on('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk) => done(chunk.toString().startsWith('+PONG')));
  });
}

/** PostgreSQL's tools: on PATH, or in Debian's versioned folder. */
function postgresBinary(name: string): string | undefined {
  const found = onPath(name);
  if (found) return found;
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  for (const version of readdirSync(root).sort().reverse()) {
    const candidate = join(root, version, 'bin', name);
    if (existsSync(candidate)) return candidate;
  }
  return undefined;
}

function onPath(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(':')) {
    const candidate = join(dir, name);
    if (dir && existsSync(candidate)) return candidate;
  }
  return undefined;
}

function postgresUser(): { uid: number; gid: number } {
  const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
  const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
  return { uid, gid };
}

/** Every descendant of `pid` (the postmaster's backends and workers). */
function childrenOf(pid: number): number[] {
  let listed: string;
  try {
    listed = execFileSync('pgrep', ['-P', String(pid)], { encoding: 'utf8' });
  } catch {
    return [];
  }
  return listed
    .split('\n')
    .filter(Boolean)
    .map(Number)
    .flatMap((child) => [child, ...childrenOf(child)]);
}
