import { randomInt } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '../../src/config.js';
import { RATE_LIMIT_WINDOW_MS } from '../../src/infra/rate-limit.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { testClient } from '../support/test-client.js';

/**
 * `TRUST_PROXY`: whose `X-Forwarded-For` the server believes for the client address every
 * per-address limit counts by (docs/self-hosting.md). `true` is refused at start-up: it believed the
 * header a client writes itself. A hop count believes that many proxies; addresses believe only
 * those proxies. What the server takes for the address is observed through the failed-
 * authentication limit (a budget of 2 per address).
 */

const servers: TestServer[] = [];
afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()));
});

async function serverTrusting(trustProxy: string | undefined): Promise<TestServer> {
  const server = await startTestServer({
    AUTH_FAILURES_PER_IP_PER_MINUTE: '2',
    ...(trustProxy === undefined ? {} : { TRUST_PROXY: trustProxy }),
  });
  servers.push(server);
  return server;
}

/** Waits for a fresh window when the current one has too little left for a test's count. */
async function atWindowStart(): Promise<void> {
  const left = RATE_LIMIT_WINDOW_MS - (Date.now() % RATE_LIMIT_WINDOW_MS);
  if (left < 15_000) await new Promise((resolve) => setTimeout(resolve, left + 50));
}

/** The status of a request with a wrong key and this `X-Forwarded-For` (if any). */
async function failedFrom(server: TestServer, forwardedFor?: string): Promise<number> {
  const headers: Record<string, string> = { authorization: 'Bearer pk_live_wrong' };
  if (forwardedFor !== undefined) headers['x-forwarded-for'] = forwardedFor;
  return (await testClient(server.api).request('GET /polls', { headers })).status;
}

describe('TRUST_PROXY values', () => {
  it('refuses `true`, saying why and what to set instead', () => {
    let error: unknown;
    try {
      parseConfig({ TRUST_PROXY: 'true' });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as Error).message;
    expect(message).toMatch(/^\s*TRUST_PROXY: `true` is not offered/m);
    expect(message).toContain('X-Forwarded-For a client writes itself');
    expect(message).toContain('number of proxies');
    expect(message).toContain('addresses/CIDRs');
  });

  it('takes `false` (the default), a hop count, or proxy addresses and CIDRs; refuses anything else', () => {
    expect(parseConfig({}).TRUST_PROXY).toBe(false);
    expect(parseConfig({ TRUST_PROXY: 'false' }).TRUST_PROXY).toBe(false);
    const hops = parseConfig({ TRUST_PROXY: '2' }).TRUST_PROXY;
    expect(typeof hops).toBe('function');
    if (typeof hops !== 'function') throw new Error('unreachable');
    // Fastify's trust function: hop 0 is the peer, 1 the proxy before it, 2 the client.
    expect([0, 1, 2].map((hop) => hops('10.0.0.1', hop))).toEqual([true, true, false]);
    expect(parseConfig({ TRUST_PROXY: '10.0.0.0/8, 192.168.1.7,::1,fd00::/8,loopback' }).TRUST_PROXY).toEqual([
      '10.0.0.0/8',
      '192.168.1.7',
      '::1',
      'fd00::/8',
      'loopback',
    ]);
    for (const bad of ['yes', 'TRUE', '10.0.0.0/33', '300.1.1.1', '10.0.0.1,', '::1/129', '10.0.0.0/8/8', '-1']) {
      expect(() => parseConfig({ TRUST_PROXY: bad }), bad).toThrow(/TRUST_PROXY: /);
    }
  });
});

describe('the client address the limits count by', () => {
  /** Addresses of this run only (with Redis, counters outlive a run): 10.x.y.n, x and y drawn once. */
  const run = `10.${randomInt(256)}.${randomInt(256)}`;
  const address = (n: number) => `${run}.${n}`;
  /** Failures counted so far this window for `ip`, on the server's own store. */
  const failures = (server: TestServer, ip: string) => server.server.deps.rateLimits.count(`auth-fail:${ip}`);

  it('without TRUST_PROXY is the peer’s: a client’s own X-Forwarded-For changes nothing', async () => {
    const server = await serverTrusting(undefined);
    await atWindowStart();
    // Other test files' servers share the peer's counter through Redis: count what this test adds.
    const before = await failures(server, '127.0.0.1');
    for (const n of [1, 2, 3]) expect([401, 429]).toContain(await failedFrom(server, address(n)));
    expect(await failures(server, '127.0.0.1')).toBeGreaterThanOrEqual(before + 3);
    for (const n of [1, 2, 3]) expect(await failures(server, address(n))).toBe(0);
    expect(await failedFrom(server, address(4))).toBe(429);
  });

  it('with a hop count is the one the last proxy saw: what the client wrote before it is ignored', async () => {
    const server = await serverTrusting('1');
    await atWindowStart();
    // The proxy (this test) appends the address it saw; the client wrote the rest itself.
    expect(await failedFrom(server, `${address(11)}, ${address(10)}`)).toBe(401);
    expect(await failedFrom(server, `${address(12)}, ${address(10)}`)).toBe(401);
    expect(await failedFrom(server, address(10))).toBe(429);
    expect(await failures(server, address(11))).toBe(0);
    // Another client behind the same proxy has a budget of its own.
    expect(await failedFrom(server, address(13))).toBe(401);
  });

  it('with proxy addresses is the one the first untrusted sender saw; an untrusted peer’s header is ignored', async () => {
    const trusted = await serverTrusting('127.0.0.1');
    const untrusted = await serverTrusting('10.0.0.0/8');
    await atWindowStart();
    expect(await failedFrom(trusted, `${address(21)}, ${address(20)}`)).toBe(401);
    expect(await failedFrom(trusted, address(20))).toBe(401);
    expect(await failedFrom(trusted, `${address(22)}, ${address(20)}`)).toBe(429);
    expect(await failedFrom(trusted, address(23))).toBe(401);

    // This test's address is not among the proxies: its X-Forwarded-For is a client's own, unread.
    const before = await failures(untrusted, '127.0.0.1');
    for (const n of [30, 31]) expect([401, 429]).toContain(await failedFrom(untrusted, address(n)));
    expect(await failures(untrusted, '127.0.0.1')).toBeGreaterThanOrEqual(before + 2);
    for (const n of [30, 31]) expect(await failures(untrusted, address(n))).toBe(0);
  });
});
