import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHILD_TEST_TIMEOUT_MS, freePort, get, NO_STACK, probe, startChild, stop } from '../support/child.js';
import { type LooseJson, rawCall } from '../support/http.js';
import { testDatabase } from '../support/server.js';
import { expectStatus, testClient } from '../support/test-client.js';

/**
 * How Pollkit runs as a process: the real entry point (`src/main.ts`) started as a child process
 * with its start-up output, refusal of bad configuration, and graceful shutdown. The health
 * endpoints of an in-process server are in health-and-shutdown.test.ts.
 */

/** What a draining server answers every new request: the 503 envelope, on a closing connection. */
function expectServiceUnavailable(result: Awaited<ReturnType<typeof probe>>) {
  expect(result).toMatchObject({ status: 503 });
  if ('body' in result) expect(JSON.parse(result.body).error.code).toBe('service_unavailable');
}

describe('the entry point', () => {
  let database: { url: string; drop(): Promise<void> };
  let dataDir: string;
  beforeAll(async () => {
    database = await testDatabase();
    dataDir = await mkdtemp(join(tmpdir(), 'pollkit-ops-'));
  });
  afterAll(async () => {
    await database?.drop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it(
    'prints the URL, database, OpenAPI address and a working one-time key, and drains in-flight requests on SIGTERM',
    async () => {
      const port = await freePort();
      const redisUrl = process.env.TEST_REDIS_URL;
      // The address clients use differs from the bound one (a proxy in front, say).
      const publicBase = `http://localhost:${port}`;
      const child = startChild({
        PORT: String(port),
        PUBLIC_BASE_URL: `${publicBase}/`,
        DATABASE_URL: database.url,
        ...(redisUrl ? { REDIS_URL: redisUrl } : {}),
      });
      try {
        const [, apiKey] = (await child.waitFor(/export POLLKIT_API_KEY=(pk_live_[A-Za-z0-9_-]+)\n/)) as [
          string,
          string,
        ];
        const base = `http://127.0.0.1:${port}`;
        const output = child.output();
        expect(output).toContain(`Pollkit listening on ${base}\n`);
        const dbUrl = new URL(database.url);
        const expectedDatabase =
          dbUrl.protocol === 'memory:'
            ? 'embedded PGlite (in memory)'
            : `PostgreSQL at ${dbUrl.hostname}:${dbUrl.port || 5432}${dbUrl.pathname}`;
        expect(output).toContain(`database:  ${expectedDatabase}${redisUrl ? ' + Redis' : ''}\n`);
        expect(output).toContain(`OpenAPI:   ${publicBase}/api/v1/openapi.json\n`);
        expect(output).toContain(`reference: ${publicBase}/docs (`);
        expect(output).toContain(`audience:  ${publicBase}/join (`);
        // Each migration, as it runs, before the banner (a fresh database has them all to run).
        for (const name of ['0001_initial', '0002_answers', '0003_idempotency', '0004_oauth']) {
          expect(output).toMatch(new RegExp(`^migrating database: ${name} … done \\(\\d+ ms\\)$`, 'm'));
        }
        expect(output.indexOf('migrating database: 0004_oauth')).toBeLessThan(output.indexOf('Pollkit listening'));

        const openapi = await rawCall<LooseJson>('GET', `${base}/api/v1/openapi.json`);
        expect(openapi.status).toBe(200);
        expect(openapi.body.openapi).toMatch(/^3\.1\./);
        expect(openapi.body.servers).toEqual([{ url: `${publicBase}/api/v1` }]);
        const list = await rawCall('GET', `${base}/api/v1/polls`, { apiKey });
        expect(list.status).toBe(200);
        expect(list.body).toEqual({ data: [], nextCursor: null });

        // A keep-alive client, as SDKs are, whose connection sits idle when the signal comes.
        const keepAlive = new http.Agent({ keepAlive: true, maxSockets: 1 });
        const before = await get(port, '/api/v1/polls', { agent: keepAlive, apiKey });
        expect(before).toMatchObject({ status: 200, reusedSocket: false });
        // Health checks, polled by orchestrators every few seconds: no access-log line at `info`.
        expect(await probe(port, '/healthz')).toMatchObject({ status: 200 });
        expect(await probe(port, '/readyz')).toMatchObject({ status: 200 });

        // A request in flight on a connection of its own when SIGTERM comes.
        const body = JSON.stringify({ title: 'In flight' });
        const inFlight = http.request({
          host: '127.0.0.1',
          port,
          method: 'POST',
          path: '/api/v1/polls',
          agent: false,
          headers: {
            authorization: `Bearer ${apiKey}`,
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(body),
            // The server answers 100 Continue when it dispatches the request, which tells this
            // test the request is in flight, past routing and its hooks, before SIGTERM is sent.
            expect: '100-continue',
          },
        });
        const response = new Promise<{ status: number; connection: string | undefined; body: string }>(
          (resolveResponse, reject) => {
            inFlight.on('response', (res) => {
              let text = '';
              res.setEncoding('utf8');
              res.on('data', (chunk: string) => {
                text += chunk;
              });
              res.on('end', () =>
                resolveResponse({ status: res.statusCode ?? 0, connection: res.headers.connection, body: text }),
              );
            });
            inFlight.on('error', reject);
          },
        );
        const continued = new Promise<void>((resolveContinue) => inFlight.once('continue', resolveContinue));
        inFlight.flushHeaders();
        await continued;
        inFlight.write(body.slice(0, body.length / 2));

        child.process.kill('SIGTERM');
        // Poll fresh connections until the server has noticed the signal. A 200 only means the
        // signal has not arrived yet. While a request is in flight the listener stays open, so
        // the first other answer is the 503 envelope, never a refusal.
        let ready = await probe(port, '/readyz');
        for (let attempt = 0; 'status' in ready && ready.status === 200 && attempt < 2000; attempt++) {
          await new Promise((resolveTick) => setTimeout(resolveTick, 10));
          ready = await probe(port, '/readyz');
        }
        expectServiceUnavailable(ready);
        expectServiceUnavailable(await probe(port, '/api/v1/polls'));

        // The kept-alive connection, idle since before the signal, is still open: its next request
        // gets the 503 envelope and `Connection: close`, not a reset.
        const during = await get(port, '/api/v1/polls', { agent: keepAlive, apiKey });
        expect(during).toMatchObject({ reusedSocket: true, connection: 'close' });
        expectServiceUnavailable(during);

        inFlight.end(body.slice(body.length / 2));
        const completed = await response;
        expect(completed.status).toBe(201);
        expect(JSON.parse(completed.body)).toMatchObject({ title: 'In flight', status: 'draft' });
        expect(completed.connection).toBe('close');
        keepAlive.destroy();

        const { code } = await child.closed;
        expect(code, child.output()).toBe(0);
        // Logged only after the listener and the database have both been closed.
        expect(child.output()).toContain('"msg":"shutdown complete"');
        expect(child.output()).not.toMatch(NO_STACK);
        // stdout is a pipe here: JSON lines, with an access line per request but health checks.
        const accessLines = child
          .output()
          .split('\n')
          .filter((line) => line.includes('"msg":"request"'))
          .map((line) => JSON.parse(line) as { url: string; statusCode: number });
        expect(accessLines).toContainEqual(expect.objectContaining({ url: '/api/v1/polls', statusCode: 200 }));
        expect(accessLines).toContainEqual(expect.objectContaining({ url: '/api/v1/polls', statusCode: 503 }));
        expect(accessLines.filter((line) => /^\/(healthz|readyz)/.test(line.url))).toEqual([]);
      } finally {
        child.kill();
      }
    },
    CHILD_TEST_TIMEOUT_MS,
  );

  it(
    'shows the key on the first start of an on-disk database only, and keeps data across restarts',
    async () => {
      const env = { DATA_DIR: dataDir };
      const first = startChild({ ...env, PORT: String(await freePort()) });
      let apiKey: string;
      let pollId: string;
      try {
        const [, key] = (await first.waitFor(/export POLLKIT_API_KEY=(pk_live_[A-Za-z0-9_-]+)\n/)) as [string, string];
        apiKey = key;
        expect(first.output()).toContain(`database:  embedded PGlite (${join(dataDir, 'pglite')})\n`);
        // The seconds a first start spends creating the database are announced, once.
        expect(first.output()).toContain(
          `creating the embedded database in ${join(dataDir, 'pglite')} (first start only)…\nmigrating database: 0001_initial … done`,
        );
        const [, url] = (await first.waitFor(/Pollkit listening on (\S+)\n/)) as [string, string];
        const created = await testClient(`${url}/api/v1`).request('POST /polls', {
          apiKey,
          body: { title: 'Survives restarts' },
        });
        expectStatus(created, 201);
        pollId = created.body.id;
        expect((await stop(first)).code, first.output()).toBe(0);
      } finally {
        first.kill();
      }

      const second = startChild({ ...env, PORT: String(await freePort()) });
      try {
        const [, url] = (await second.waitFor(/Pollkit listening on (\S+)\n/)) as [string, string];
        await second.waitFor(/guides:.*\n/);
        const list = await testClient(`${url}/api/v1`).request('GET /polls', { apiKey });
        expectStatus(list, 200);
        expect(list.body.data.map((p) => [p.id, p.title])).toEqual([[pollId, 'Survives restarts']]);
        expect((await stop(second)).code, second.output()).toBe(0);
        expect(second.output()).not.toContain('POLLKIT_API_KEY');
        expect(second.output()).not.toMatch(/creating the embedded database|migrating database/);
        expect(second.output()).not.toContain('pk_live_');
      } finally {
        second.kill();
      }
    },
    CHILD_TEST_TIMEOUT_MS,
  );

  it.each([
    ['PORT', { PORT: 'abc', DATABASE_URL: 'memory://' }],
    ['DATABASE_URL', { DATABASE_URL: 'mysql://x' }],
    ['BODY_LIMIT_BYTES', { BODY_LIMIT_BYTES: '12', DATABASE_URL: 'memory://' }],
  ])(
    'refuses a bad %s with exit code 1 and a message naming it, without a stack trace',
    async (variable, env) => {
      const child = startChild(env);
      const { code } = await child.closed;
      expect(code).toBe(1);
      expect(child.stderr()).toContain('Invalid configuration');
      expect(child.stderr()).toMatch(new RegExp(`^\\s*${variable}: `, 'm'));
      expect(child.output()).not.toMatch(NO_STACK);
      expect(child.output()).not.toContain('listening');
    },
    CHILD_TEST_TIMEOUT_MS,
  );
});
