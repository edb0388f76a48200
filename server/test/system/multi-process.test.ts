import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateToLatest, openDatabase } from '../../src/db/database.js';
import { createApiKey } from '../../src/modules/api-keys/api-keys.service.js';
import { createWorkspace } from '../../src/modules/workspaces/workspaces.service.js';
import { testDatabase } from '../support/server.js';
import { type ApiResponse, errorOf, expectStatus, testClient } from '../support/test-client.js';

/**
 * Two real server processes on one PostgreSQL database and one Redis, as docs/self-hosting.md
 * ("Several processes behind a load balancer") scales out:
 * they must enforce one rate limit between them, and a key revoked through one must stop on the
 * other within a second. Needs TEST_DATABASE_URL and TEST_REDIS_URL (CI sets both).
 */

const enabled = Boolean(process.env.TEST_DATABASE_URL && process.env.TEST_REDIS_URL);
const serverDir = fileURLToPath(new URL('../../', import.meta.url));
const START_TIMEOUT_MS = 60_000;

interface ServerProcess {
  api: string;
  child: ChildProcess;
}

/** A workspace with one key, created straight in the database before the servers start. */
interface Fixture {
  workspaceId: string;
  keyId: string;
  secret: string;
}

describe.runIf(enabled)('two server processes, one PostgreSQL, one Redis', () => {
  let database: { url: string; drop(): Promise<void> };
  const servers: ServerProcess[] = [];
  /** Two limited workspaces: the second is used if the first attempt straddles a window boundary. */
  const limited: Fixture[] = [];
  let manager: Fixture;
  let target: Fixture;

  beforeAll(async () => {
    database = await testDatabase();
    const handle = await openDatabase({ databaseUrl: database.url, dataDir: '', poolSize: 2 });
    try {
      await migrateToLatest(handle.db);
      const fixture = async (plan: 'pro' | 'enterprise', rateLimitPerMinute: number | null, workspaceId?: string) => {
        const id =
          workspaceId ?? (await createWorkspace(handle.db, { name: `multi ${plan}`, plan, rateLimitPerMinute })).id;
        const { key, secret } = await createApiKey(handle.db, { workspaceId: id, name: 'multi-process' });
        return { workspaceId: id, keyId: key.id, secret };
      };
      limited.push(await fixture('enterprise', 10), await fixture('enterprise', 10));
      manager = await fixture('pro', null);
      target = await fixture('pro', null, manager.workspaceId);
    } finally {
      await handle.close();
    }
    servers.push(...(await Promise.all([startProcess(database.url), startProcess(database.url)])));
  }, START_TIMEOUT_MS);

  afterAll(async () => {
    await Promise.all(servers.map(stopProcess));
    await database?.drop();
  });

  it('enforces one rate limit across both processes', async () => {
    const [a, b] = servers as [ServerProcess, ServerProcess];
    let responses: ApiResponse<'GET /polls'>[] = [];
    let attempts = 0;
    // Windows are clock-aligned 60-second buckets: a quick sequence straddles at most one boundary,
    // so the second attempt (with a fresh key) runs wholly inside one window.
    for (const fixture of limited) {
      attempts++;
      responses = [];
      for (let i = 0; i < 14; i++) {
        const server = i % 2 === 0 ? a : b;
        responses.push(
          await testClient(server.api).request('GET /polls', { query: { limit: 1 }, apiKey: fixture.secret }),
        );
      }
      if (new Set(responses.map((r) => r.headers.get('x-ratelimit-reset'))).size === 1) break;
    }
    expect(new Set(responses.map((r) => r.headers.get('x-ratelimit-reset'))).size, `attempts: ${attempts}`).toBe(1);
    expect(responses.map((r) => r.status)).toEqual([...Array(10).fill(200), 429, 429, 429, 429]);
    // One counter: the remaining count falls by one per request whichever process served it.
    expect(responses.slice(0, 10).map((r) => r.headers.get('x-ratelimit-remaining'))).toEqual([
      '9',
      '8',
      '7',
      '6',
      '5',
      '4',
      '3',
      '2',
      '1',
      '0',
    ]);
    for (const limitedResponse of responses.slice(10)) {
      expect(errorOf(limitedResponse).code).toBe('rate_limited');
      expect(limitedResponse.headers.get('x-ratelimit-limit')).toBe('10');
      expect(limitedResponse.headers.get('retry-after')).toBeNull();
    }
  });

  it('stops a key revoked through process A on process B within a second', async () => {
    const [a, b] = servers as [ServerProcess, ServerProcess];
    // B authenticates the key and caches it (for 5 seconds, unless told otherwise).
    expect((await testClient(b.api).request('GET /polls', { query: { limit: 1 }, apiKey: target.secret })).status).toBe(
      200,
    );
    expect((await testClient(b.api).request('GET /polls', { query: { limit: 1 }, apiKey: target.secret })).status).toBe(
      200,
    );

    const revoked = await testClient(a.api).request('POST /keys/{id}/revoke', {
      params: { id: target.keyId },
      apiKey: manager.secret,
    });
    expectStatus(revoked, 200);
    expect(revoked.body.status).toBe('revoked');
    const revokedAt = Date.now();

    let answer = await testClient(b.api).request('GET /polls', { query: { limit: 1 }, apiKey: target.secret });
    while (answer.status === 200 && Date.now() - revokedAt < 1000) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      answer = await testClient(b.api).request('GET /polls', { query: { limit: 1 }, apiKey: target.secret });
    }
    expectStatus(answer, 401);
    expect(answer.body.error.code).toBe('revoked_api_key');
    expect(
      errorOf(await testClient(a.api).request('GET /polls', { query: { limit: 1 }, apiKey: target.secret })).code,
    ).toBe('revoked_api_key');
    expect(
      (await testClient(b.api).request('GET /polls', { query: { limit: 1 }, apiKey: manager.secret })).status,
    ).toBe(200);
  });
});

/**
 * `pnpm dev`'s command in a child process of its own. PORT=0 lets the system pick a free port (no
 * race between choosing one and binding it); the server prints the address it listens on.
 */
function startProcess(databaseUrl: string): Promise<ServerProcess> {
  const child = spawn('node_modules/.bin/tsx', ['--conditions=@pollkit/source', 'src/main.ts'], {
    cwd: serverDir,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      PORT: '0',
      HOST: '127.0.0.1',
      DATABASE_URL: databaseUrl,
      REDIS_URL: process.env.TEST_REDIS_URL,
      BOOTSTRAP: 'false',
      RESPONSE_VALIDATION: 'true',
      LOG_LEVEL: 'warn',
      // With Redis every test server on 127.0.0.1 shares one count of failed authentications
      // (support/server.ts): the 401s this file expects must not turn into 429s for others'.
      AUTH_FAILURES_PER_IP_PER_MINUTE: '1000000',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let output = '';
    const onData = (chunk: Buffer) => {
      output += String(chunk);
      const match = /Pollkit listening on (http:\/\/\S+)/.exec(output);
      if (match) {
        child.stdout?.off('data', onData);
        // Keep draining, so a chatty server never blocks on a full pipe.
        child.stdout?.resume();
        resolve({ api: `${match[1]}/api/v1`, child });
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (chunk: Buffer) => {
      output += String(chunk);
    });
    child.once('exit', (code) => reject(new Error(`server exited (${code}) before listening:\n${output}`)));
    child.once('error', reject);
  });
}

async function stopProcess({ child }: ServerProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}
