import { randomInt } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RATE_LIMIT_WINDOW_MS } from '../../src/infra/rate-limit.js';
import { expectError } from '../support/assertions.js';
import { ManualClock } from '../support/clock.js';
import { sampleContent } from '../support/decks.js';
import { type HttpResponse, rawCall } from '../support/http.js';
import { UNLIMITED } from '../support/limits.js';
import { type OAuthReply, oauthClient, type TestOAuthClient } from '../support/oauth.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { errorDetails, expectStatus, testClient } from '../support/test-client.js';

/**
 * Failed authentications limited per client address (docs/rate-limits.md, "Failed
 * authentications"): wrong API keys, access tokens and host tokens on /api/v1 and wrong client
 * secrets at the token endpoint share one budget per address; past it that address's failures
 * answer 429 until the window ends, while valid credentials from the same address pass as always.
 *
 * The server believes a proxy on 127.0.0.1 (`TRUST_PROXY=127.0.0.1`), this test standing in for it:
 * each test speaks for client addresses of its own through `X-Forwarded-For`, so the tests do not
 * share a budget. Runs on PGlite, and on PostgreSQL + Redis (shared counters) with TEST_DATABASE_URL and
 * TEST_REDIS_URL.
 */

const BUDGET = 5;
/**
 * Windows are fixed minutes of the server's clock: held still here, a test's count is all in one
 * window however long the machine takes to make it.
 */
const clock = new ManualClock();
let t: TestServer;
const api = testClient(() => t.api);
let workspace: { id: string; apiKey: string };

beforeAll(async () => {
  t = await startTestServer(
    {
      ...UNLIMITED,
      AUTH_FAILURES_PER_IP_PER_MINUTE: String(BUDGET),
      TRUST_PROXY: '127.0.0.1',
    },
    { clock },
  );
  workspace = await t.workspace('pro');
});
afterAll(() => t?.close());

/**
 * A client address no other test has used, nor (with Redis, whose counters outlive a run) an earlier
 * run in the same minute: 10.x.y.n, x and y drawn once per run.
 */
const run = `10.${randomInt(256)}.${randomInt(256)}`;
let lastAddress = 0;
function newAddress(): string {
  lastAddress += 1;
  return `${run}.${lastAddress}`;
}

/** GET /polls from `address`, with `authorization` as the Authorization header (if any). */
function listPolls(
  address: string,
  authorization?: string,
  headers: Record<string, string> = {},
): Promise<HttpResponse> {
  return api.request('GET /polls', {
    query: { limit: 1 },
    headers: {
      'x-forwarded-for': address,
      ...(authorization === undefined ? {} : { authorization }),
      ...headers,
    },
  });
}

function expectLimited(res: HttpResponse): void {
  expectError(res, 429, 'rate_limited');
  expect(errorDetails(res).limit).toBe(BUDGET);
  const windowEnd = (Math.floor(clock.now() / RATE_LIMIT_WINDOW_MS) + 1) * RATE_LIMIT_WINDOW_MS;
  expect(Date.parse(errorDetails(res).resetAt as string)).toBe(windowEnd);
  expect(res.headers.get('x-ratelimit-limit')).toBe(String(BUDGET));
  expect(res.headers.get('x-ratelimit-remaining')).toBe('0');
  expect(res.headers.get('x-ratelimit-reset')).toBe(String(windowEnd / 1000));
}

/** A token request from `address`, form-encoded with the credentials in the body. */
function tokenRequest(address: string, clientId: string, clientSecret: string): Promise<HttpResponse<OAuthReply>> {
  return rawCall<OAuthReply>('POST', `${t.url}/api/oauth/token`, {
    rawBody: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: clientId,
      client_secret: clientSecret,
    }).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': address },
  });
}

describe('failed authentications on /api/v1', () => {
  it('past the budget an address’s failures answer 429 until the window ends; its valid keys still work', async () => {
    const address = newAddress();
    for (let i = 0; i < BUDGET; i++) {
      expectError(await listPolls(address, `Bearer pk_live_guess${i}`), 401, 'invalid_api_key');
    }
    expectLimited(await listPolls(address, 'Bearer pk_live_one_too_many'));
    // Every kind of credential, and every failure: no answer says which secrets exist any more.
    expectLimited(await listPolls(address, 'Bearer oat_guess'));
    const revoked = await api.request('POST /keys', { apiKey: workspace.apiKey, body: { name: 'Revoked' } });
    expectStatus(revoked, 201);
    await api.request('POST /keys/{id}/revoke', { params: { id: revoked.body.id }, apiKey: workspace.apiKey });
    expectLimited(await listPolls(address, `Bearer ${revoked.body.secret}`));

    // A valid key from the same address (another client behind the same NAT) is neither refused nor counted.
    for (let i = 0; i < 3; i++) {
      const ok = await listPolls(address, `Bearer ${workspace.apiKey}`);
      expect(ok.status, ok.text).toBe(200);
      expect(ok.headers.get('x-ratelimit-limit')).toBe(UNLIMITED.RATE_LIMIT_PER_MINUTE);
    }
    // No credential at all is no guess: it is told what is missing, as before.
    expectError(await listPolls(address), 401, 'missing_authorization');
    // Another address has its own budget.
    const elsewhere = newAddress();
    expectError(await listPolls(elsewhere, 'Bearer pk_live_guess'), 401, 'invalid_api_key');
    expectError(await listPolls(elsewhere, `Bearer ${revoked.body.secret}`), 401, 'revoked_api_key');
  });

  it('counts wrong host tokens with wrong keys, on the host routes; the session’s own token still works', async () => {
    const poll = await api.request('POST /polls', {
      apiKey: workspace.apiKey,
      body: { title: 'Hosted', content: sampleContent() },
    });
    expectStatus(poll, 201);
    await api.request('PATCH /polls/{id}', {
      params: { id: poll.body.id },
      apiKey: workspace.apiKey,
      body: { publish: true },
    });
    const session = await api.request('POST /sessions', { apiKey: workspace.apiKey, body: { pollId: poll.body.id } });
    expectStatus(session, 201);
    const getSession = (address: string, headers: Record<string, string>) =>
      api.request('GET /sessions/{id}', {
        params: { id: session.body.id },
        headers: { 'x-forwarded-for': address, ...headers },
      });
    const address = newAddress();
    for (let i = 0; i < BUDGET - 2; i++) {
      expectError(await getSession(address, { 'x-host-token': `pht_guess${i}` }), 401, 'invalid_host_token');
    }
    // A wrong key on a host route, or on any route, is the same budget.
    expectError(await getSession(address, { authorization: 'Bearer pk_live_guess' }), 401, 'invalid_api_key');
    expectError(await listPolls(address, 'Bearer pk_live_guess'), 401, 'invalid_api_key');
    expectLimited(await getSession(address, { 'x-host-token': 'pht_guess' }));
    expectLimited(await getSession(address, { authorization: 'Bearer pk_live_guess' }));

    const own = await getSession(address, { 'x-host-token': session.body.hostToken });
    expectStatus(own, 200);
    expect((await getSession(address, { authorization: `Bearer ${workspace.apiKey}` })).status).toBe(200);
  });
});

describe('failed client authentications at the token endpoint', () => {
  let client: TestOAuthClient;
  beforeAll(async () => {
    client = await oauthClient(t, 'polls:read');
  });

  it('count per address whatever the client_id, with the API’s failures; a valid client still gets its token', async () => {
    const address = newAddress();
    // Each guess names another client_id: each a new counter per client, the same one per address.
    for (let i = 0; i < BUDGET - 1; i++) {
      const res = await tokenRequest(address, `oac_guess${i}`, 'ocs_wrong');
      expect(res.status, res.text).toBe(401);
      expect(res.body.error).toBe('invalid_client');
    }
    expectError(await listPolls(address, 'Bearer pk_live_guess'), 401, 'invalid_api_key');
    const limited = await tokenRequest(address, 'oac_guess_next', 'ocs_wrong');
    expect(limited.status, limited.text).toBe(429);
    expect(limited.body).toEqual({
      error: 'access_denied',
      error_description: expect.stringContaining('failed authentications from this address'),
    });
    expect(limited.headers.get('cache-control')).toBe('no-store');
    // The API's side of the same budget is spent too.
    expectLimited(await listPolls(address, 'Bearer pk_live_guess'));

    // The real client, from the same address, gets its token as always.
    const issued = await tokenRequest(address, client.clientId, client.clientSecret);
    expect(issued.status, issued.text).toBe(200);
    const polls = await listPolls(address, `Bearer ${issued.body.access_token}`);
    expect(polls.status, polls.text).toBe(200);

    const elsewhere = await tokenRequest(newAddress(), client.clientId, 'ocs_wrong');
    expect(elsewhere.status).toBe(401);
  });

  it('refuses a client_id longer than any client id (invalid_request) before counting anything for it', async () => {
    const address = newAddress();
    for (const clientId of ['x'.repeat(65), 'y'.repeat(7_000)]) {
      const res = await tokenRequest(address, clientId, 'ocs_wrong');
      expect(res.status, res.text).toBe(400);
      expect(res.body).toEqual({ error: 'invalid_request', error_description: expect.stringContaining('64') });
    }
    expect(await t.server.deps.rateLimits.count(`oauth:${'y'.repeat(7_000)}`)).toBe(0);
    // Nor against the address: a malformed request guesses nothing.
    for (let i = 0; i < BUDGET; i++) expect((await tokenRequest(address, `oac_${i}`, 'ocs_wrong')).status).toBe(401);
    expect((await tokenRequest(address, 'oac_last', 'ocs_wrong')).status).toBe(429);
  });
});
