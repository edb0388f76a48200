import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { inspect } from 'node:util';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  createClient as createOAuthClient,
  enableOAuth,
  revokeClient,
} from '../../../server/src/modules/oauth/oauth.service.js';
import { startTestServer, type TestServer } from '../../../server/test/support/server.js';
import {
  AuthenticationError,
  type ClientOptions,
  createClient,
  PermissionDeniedError,
  PollkitError,
  RateLimitError,
  type RequestLogRecord,
} from '../../src/index.js';
import { rejectionOf } from '../support/rejection.js';

const CLIENT_ID = 'oc_test_client';
const CLIENT_SECRET = 'ocs_very-secret:value with spaces';

interface TokenRequest {
  url: string;
  authorization: string | undefined;
  contentType: string | undefined;
  body: URLSearchParams;
}

interface TokenError {
  status: number;
  error: string;
  description?: string;
}

/**
 * A loopback stand-in for a Pollkit server with OAuth: `POST /api/oauth/token` issues tokens to one
 * client (HTTP Basic, client credentials grant) and counts the requests; `GET /api/v1/polls` answers
 * an empty page to a Bearer token it issued and has not revoked, else 401 `invalid_oauth_token`.
 * Expiry is the client's business here: the fake never expires tokens on its own.
 */
class FakeOAuthServer {
  readonly tokenRequests: TokenRequest[] = [];
  /** The Bearer token of each API request, in order. */
  readonly apiTokens: string[] = [];
  expiresIn: number | undefined = 3600;
  /** Answer the next token requests with this error instead of a token. */
  tokenErrors: TokenError[] = [];
  /** Answer the next token requests with this 200 body instead of a token. */
  tokenBodies: unknown[] = [];
  /** Every API call answers 401 `invalid_oauth_token`, whatever the token. */
  rejectAllTokens = false;
  readonly #valid = new Set<string>();
  #server: Server | undefined;
  url = '';

  async start(): Promise<void> {
    this.#server = createServer((request, response) => {
      this.#handle(request, response).catch((error: unknown) => {
        response.writeHead(500).end(String(error));
      });
    });
    this.#server.listen(0, '127.0.0.1');
    await once(this.#server, 'listening');
    this.url = `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  close(): Promise<void> {
    return new Promise((resolve) => (this.#server ? this.#server.close(() => resolve()) : resolve()));
  }

  reset(): void {
    this.tokenRequests.length = 0;
    this.apiTokens.length = 0;
    this.expiresIn = 3600;
    this.tokenErrors = [];
    this.tokenBodies = [];
    this.rejectAllTokens = false;
    this.#valid.clear();
  }

  /** The API stops taking every token issued so far (as after a revocation). */
  revokeAll(): void {
    this.#valid.clear();
  }

  get issued(): number {
    return this.tokenRequests.length;
  }

  async #handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString();
    const url = request.url ?? '';
    const json = (status: number, value: unknown) =>
      response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));

    if (request.method === 'POST' && url.endsWith('/api/oauth/token')) {
      const form = new URLSearchParams(body);
      this.tokenRequests.push({
        url,
        authorization: request.headers.authorization,
        contentType: request.headers['content-type'],
        body: form,
      });
      const failure = this.tokenErrors.shift();
      if (failure) {
        json(failure.status, { error: failure.error, error_description: failure.description });
        return;
      }
      if (this.tokenBodies.length > 0) {
        json(200, this.tokenBodies.shift());
        return;
      }
      const expected = `Basic ${Buffer.from(`${encodeURIComponent(CLIENT_ID)}:${new URLSearchParams({ s: CLIENT_SECRET }).toString().slice(2)}`).toString('base64')}`;
      if (request.headers.authorization !== expected) {
        json(401, { error: 'invalid_client', error_description: 'Client authentication failed.' });
        return;
      }
      if (form.get('grant_type') !== 'client_credentials') {
        json(400, { error: 'unsupported_grant_type', error_description: 'Only client_credentials.' });
        return;
      }
      const accessToken = `at_${this.tokenRequests.length}_${Math.random().toString(36).slice(2)}`;
      this.#valid.add(accessToken);
      json(200, {
        access_token: accessToken,
        token_type: 'Bearer',
        ...(this.expiresIn === undefined ? {} : { expires_in: this.expiresIn }),
        scope: form.get('scope') ?? 'polls:read polls:write',
      });
      return;
    }

    if (request.method === 'GET' && url.startsWith('/api/v1/polls')) {
      const token = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1] ?? '';
      this.apiTokens.push(token);
      if (this.rejectAllTokens || !this.#valid.has(token)) {
        json(401, { error: { code: 'invalid_oauth_token', message: 'The OAuth access token is invalid or expired.' } });
        return;
      }
      json(200, { data: [], nextCursor: null });
      return;
    }
    json(404, { error: { code: 'not_found', message: 'Not found' } });
  }
}

const fake = new FakeOAuthServer();
beforeAll(() => fake.start());
afterAll(() => fake.close());
beforeEach(() => fake.reset());

/** A clock the test moves by hand. */
function manualClock(start = 1_700_000_000_000) {
  let time = start;
  return {
    now: () => time,
    advanceSeconds(seconds: number) {
      time += seconds * 1000;
    },
  };
}

function oauthClient(options: Partial<ClientOptions> = {}) {
  return createClient({
    clientId: CLIENT_ID,
    clientSecret: CLIENT_SECRET,
    baseUrl: fake.url,
    retryBaseDelayMs: 1,
    retryMaxDelayMs: 4,
    ...(options as object),
  } as ClientOptions);
}

describe('the token request', () => {
  it('posts the client credentials grant to /api/oauth/token with HTTP Basic, beside /api/v1', async () => {
    const client = oauthClient({ baseUrl: `${fake.url}/api/v1`, scope: ['polls:read', 'polls:write'] });
    await expect(client.polls.list()).resolves.toMatchObject({ data: [] });
    expect(fake.issued).toBe(1);
    const [sent] = fake.tokenRequests;
    expect(sent?.url).toBe('/api/oauth/token');
    expect(sent?.contentType).toBe('application/x-www-form-urlencoded');
    expect(Object.fromEntries(sent?.body ?? [])).toEqual({
      grant_type: 'client_credentials',
      scope: 'polls:read polls:write',
    });
    // RFC 6749 §2.3.1: id and secret form-encoded, then Basic.
    const decoded = Buffer.from(sent?.authorization?.replace(/^Basic /, '') ?? '', 'base64').toString();
    expect(decoded).toBe(`${CLIENT_ID}:ocs_very-secret%3Avalue+with+spaces`);
    expect(fake.apiTokens).toHaveLength(1);
    expect(fake.apiTokens[0]).toMatch(/^at_1_/);
  });

  it('leaves scope out when none is asked for', async () => {
    await oauthClient().polls.list();
    expect(Object.fromEntries(fake.tokenRequests[0]?.body ?? [])).toEqual({ grant_type: 'client_credentials' });
  });
});

describe('the token cache', () => {
  it('makes one token request for 20 concurrent calls, which all use that token', async () => {
    const client = oauthClient();
    const pages = await Promise.all(Array.from({ length: 20 }, () => client.polls.list()));
    expect(pages.map((page) => page.data)).toEqual(Array.from({ length: 20 }, () => []));
    expect(fake.issued).toBe(1);
    expect(fake.apiTokens).toHaveLength(20);
    expect(new Set(fake.apiTokens).size).toBe(1);

    await client.polls.list();
    expect(fake.issued).toBe(1);
  });

  it('gets a new token once less than 10 % of a short lifetime is left', async () => {
    const clock = manualClock();
    fake.expiresIn = 100;
    const client = oauthClient({ now: clock.now });
    await client.polls.list();
    clock.advanceSeconds(89);
    await client.polls.list();
    expect(fake.issued).toBe(1);
    clock.advanceSeconds(2); // 9 s left of 100
    await client.polls.list();
    expect(fake.issued).toBe(2);
    expect(fake.apiTokens[2]).not.toBe(fake.apiTokens[1]);
    expect(fake.apiTokens[2]).toMatch(/^at_2_/);
  });

  it('gets a new token once less than 60 s of a long lifetime is left', async () => {
    const clock = manualClock();
    fake.expiresIn = 3600;
    const client = oauthClient({ now: clock.now });
    await client.polls.list();
    clock.advanceSeconds(3539);
    await client.polls.list();
    expect(fake.issued).toBe(1);
    clock.advanceSeconds(2);
    await Promise.all([client.polls.list(), client.polls.list(), client.polls.list()]);
    expect(fake.issued).toBe(2);
  });

  it('keeps a token without expires_in until the API rejects it', async () => {
    const clock = manualClock();
    fake.expiresIn = undefined;
    const client = oauthClient({ now: clock.now });
    await client.polls.list();
    clock.advanceSeconds(365 * 24 * 3600);
    await client.polls.list();
    expect(fake.issued).toBe(1);
  });

  it('shares the token with withOptions() clients of the same credentials, not with others', async () => {
    const client = oauthClient({ scope: 'polls:read' });
    await client.polls.list();
    await client.withOptions({ timeout: 5_000, headers: { 'x-trace': '1' } }).polls.list();
    await client.withOptions({ maxRetries: 0 }).withOptions({ clientSecret: CLIENT_SECRET }).polls.list();
    expect(fake.issued).toBe(1);

    await client.withOptions({ scope: 'polls:read polls:write' }).polls.list();
    expect(fake.issued).toBe(2);
    expect(fake.tokenRequests[1]?.body.get('scope')).toBe('polls:read polls:write');

    const wrongSecret = await rejectionOf(client.withOptions({ clientSecret: 'another secret' }).polls.list());
    expect(wrongSecret).toBeInstanceOf(AuthenticationError);
    expect(fake.issued).toBe(3);
  });
});

describe('cancellation', () => {
  it('lets one caller stop waiting for the shared token request without failing the others', async () => {
    const client = oauthClient();
    const controller = new AbortController();
    const aborted = client.polls.list({}, { signal: controller.signal });
    const others = Array.from({ length: 3 }, () => client.polls.list());
    controller.abort();
    const reason = await rejectionOf(aborted);
    expect(reason).toMatchObject({ name: 'AbortError' });
    await expect(Promise.all(others)).resolves.toHaveLength(3);
    expect(fake.issued).toBe(1);
    expect(fake.apiTokens).toHaveLength(3);
  });
});

describe('a token the API rejects', () => {
  it('is replaced once and the call retried once', async () => {
    const client = oauthClient();
    await client.polls.list();
    fake.revokeAll();
    await expect(client.polls.list()).resolves.toMatchObject({ data: [] });
    expect(fake.issued).toBe(2);
    expect(fake.apiTokens).toHaveLength(3);
    expect(fake.apiTokens[1]).toBe(fake.apiTokens[0]);
    expect(fake.apiTokens[2]).not.toBe(fake.apiTokens[1]);
  });

  it('is replaced by one token request when several calls are rejected together', async () => {
    const client = oauthClient();
    await client.polls.list();
    fake.revokeAll();
    await Promise.all(Array.from({ length: 5 }, () => client.polls.list()));
    expect(fake.issued).toBe(2);
    expect(fake.apiTokens).toHaveLength(11);
    expect(new Set(fake.apiTokens.slice(6)).size).toBe(1);
  });

  it('throws the second rejection instead of looping', async () => {
    fake.rejectAllTokens = true;
    const client = oauthClient();
    const error = await rejectionOf(client.polls.list());
    expect(error).toBeInstanceOf(AuthenticationError);
    expect((error as PollkitError).status).toBe(401);
    expect((error as PollkitError).code).toBe('invalid_oauth_token');
    expect(fake.apiTokens).toHaveLength(2);
    expect(fake.issued).toBe(2);
  });
});

describe('token endpoint errors', () => {
  it.each([
    { status: 401, error: 'invalid_client', ErrorClass: AuthenticationError },
    { status: 400, error: 'access_denied', ErrorClass: PermissionDeniedError },
    { status: 400, error: 'invalid_request', ErrorClass: PollkitError },
    { status: 400, error: 'unsupported_grant_type', ErrorClass: PollkitError },
    { status: 400, error: 'invalid_scope', ErrorClass: PollkitError },
  ])('$error ($status) is thrown as $ErrorClass.name with the OAuth code', async ({ status, error, ErrorClass }) => {
    fake.tokenErrors.push({ status, error, description: `Refused: ${error}` });
    const client = oauthClient();
    const thrown = await rejectionOf(client.polls.list());
    expect(thrown).toBeInstanceOf(ErrorClass);
    expect(thrown).toMatchObject({ status, code: error, details: { errorDescription: `Refused: ${error}` } });
    expect((thrown as Error).message).toContain(error);
    // Not a retried failure, and the API was never called without a token.
    expect(fake.issued).toBe(1);
    expect(fake.apiTokens).toHaveLength(0);
  });

  it('does not cache a failed token request: the next call asks again', async () => {
    fake.tokenErrors.push({ status: 400, error: 'access_denied', description: 'Too many token requests.' });
    const client = oauthClient();
    await rejectionOf(client.polls.list());
    await expect(client.polls.list()).resolves.toMatchObject({ data: [] });
    expect(fake.issued).toBe(2);
  });

  it('rejects every waiting call with the one failure, and retries nothing', async () => {
    fake.tokenErrors.push({ status: 401, error: 'invalid_client' });
    const client = oauthClient();
    const results = await Promise.allSettled(Array.from({ length: 5 }, () => client.polls.list()));
    expect(results.map((result) => result.status)).toEqual(Array(5).fill('rejected'));
    expect(fake.issued).toBe(1);
  });

  it('retries a token endpoint 429 (too many token requests) with backoff, as a RateLimitError', async () => {
    fake.tokenErrors.push(
      { status: 429, error: 'access_denied', description: 'Too many token requests' },
      { status: 429, error: 'access_denied', description: 'Too many token requests' },
    );
    const thrown = await rejectionOf(oauthClient({ maxRetries: 1, rateLimitMaxDelayMs: 4 }).polls.list());
    expect(thrown).toBeInstanceOf(RateLimitError);
    expect(thrown).toMatchObject({ status: 429, code: 'access_denied' });
    expect(fake.issued).toBe(2);
    await expect(oauthClient().polls.list()).resolves.toMatchObject({ data: [] });
  });

  it('retries a token endpoint 5xx like any call', async () => {
    fake.tokenErrors.push({ status: 503, error: 'temporarily_unavailable' });
    const client = oauthClient();
    await expect(client.polls.list()).resolves.toMatchObject({ data: [] });
    expect(fake.issued).toBe(2);
  });

  it('refuses a token response it cannot use, without quoting it', async () => {
    fake.tokenBodies.push({ access_token: 'at_leaky_token', token_type: 'mac', expires_in: 60 });
    const thrown = await rejectionOf(oauthClient({ maxRetries: 0 }).polls.list());
    expect(thrown).toMatchObject({ code: 'invalid_response' });
    expect(inspect(thrown, { depth: Number.POSITIVE_INFINITY, showHidden: true })).not.toContain('at_leaky_token');
    expect(fake.apiTokens).toHaveLength(0);
  });

  it('never shows the secret, even when the server echoes it', async () => {
    fake.tokenErrors.push({ status: 401, error: 'invalid_client', description: `bad secret ${CLIENT_SECRET}` });
    const thrown = await rejectionOf(oauthClient().polls.list());
    expect((thrown as Error).message).not.toContain(CLIENT_SECRET);
    expect(inspect(thrown, { depth: Number.POSITIVE_INFINITY, showHidden: true })).not.toContain(CLIENT_SECRET);
    expect(JSON.stringify(thrown)).not.toContain(CLIENT_SECRET);
    expect((thrown as PollkitError).response?.text).not.toContain(CLIENT_SECRET);
  });
});

describe('secrecy', () => {
  it('keeps the secret and the tokens out of the logger, the printed client and errors', async () => {
    const lines: Array<{ level: string; message: string; record: RequestLogRecord }> = [];
    const logger = {
      debug: (message: string, record: RequestLogRecord) => lines.push({ level: 'debug', message, record }),
      info: (message: string, record: RequestLogRecord) => lines.push({ level: 'info', message, record }),
      warn: (message: string, record: RequestLogRecord) => lines.push({ level: 'warn', message, record }),
    };
    const client = oauthClient({ logger });
    await client.polls.list();
    fake.revokeAll();
    await client.polls.list();
    fake.rejectAllTokens = true;
    const rejected = await rejectionOf(client.polls.list());

    const basic = fake.tokenRequests[0]?.authorization?.replace(/^Basic /, '') ?? '';
    const secrets = [CLIENT_SECRET, basic, ...new Set(fake.apiTokens)];
    expect(secrets.length).toBeGreaterThan(3);
    const logged = JSON.stringify(lines);
    const printed = [
      inspect(client, { depth: Number.POSITIVE_INFINITY, showHidden: true }),
      JSON.stringify(client) ?? '',
      String(client),
      inspect(rejected, { depth: Number.POSITIVE_INFINITY, showHidden: true }),
      JSON.stringify(rejected),
    ];
    for (const secret of secrets) {
      expect(logged).not.toContain(secret);
      for (const text of printed) expect(text).not.toContain(secret);
    }
    // The token requests are logged, with the scheme of what was redacted.
    const tokenLine = lines.find((line) => line.level === 'debug' && line.record.url.endsWith('/api/oauth/token'));
    expect(tokenLine?.record.headers?.authorization).toBe('Basic [redacted]');
    const apiLine = lines.find((line) => line.level === 'debug' && line.record.url.includes('/api/v1/polls'));
    expect(apiLine?.record.headers?.authorization).toBe('Bearer [redacted]');
  });
});

describe('options', () => {
  it('takes exactly one credential', () => {
    const baseUrl = fake.url;
    const both = () =>
      // @ts-expect-error an API key and client credentials together
      createClient({ apiKey: 'pk_x', clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, baseUrl });
    expect(both).toThrow(TypeError);
    expect(both).toThrow(/either apiKey or clientId and clientSecret/);
    // @ts-expect-error a client id without its secret
    expect(() => createClient({ clientId: CLIENT_ID, baseUrl })).toThrow(/clientSecret is required/);
    // @ts-expect-error a secret without its client id
    expect(() => createClient({ clientSecret: CLIENT_SECRET, baseUrl })).toThrow(/clientId/);
    // No credential at all, and none in the environment (sdk/test/api/env.test.ts has the rest).
    vi.stubEnv('POLLKIT_API_KEY', '');
    expect(() => createClient({ baseUrl })).toThrow(/apiKey is required/);
    vi.unstubAllEnvs();
    // @ts-expect-error scope belongs to client credentials
    expect(() => createClient({ apiKey: 'pk_x', scope: 'polls:read', baseUrl })).toThrow(/scope/);
    expect(() => createClient({ clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, scope: 'a "b"', baseUrl })).toThrow(
      /scope must be/,
    );
    for (const attempt of [both]) {
      try {
        attempt();
      } catch (error) {
        expect((error as Error).message).not.toContain(CLIENT_SECRET);
      }
    }
  });

  it('switches credential kind through withOptions()', async () => {
    const keyClient = createClient({ apiKey: 'pk_not_used', baseUrl: fake.url });
    const oauth = keyClient.withOptions({ clientId: CLIENT_ID, clientSecret: CLIENT_SECRET });
    await expect(oauth.polls.list()).resolves.toMatchObject({ data: [] });
    expect(fake.issued).toBe(1);
    const backToKey = oauth.withOptions({ apiKey: 'pk_other' });
    const error = await rejectionOf(backToKey.polls.list());
    expect(error).toMatchObject({ status: 401 });
    expect(fake.apiTokens.at(-1)).toBe('pk_other');
    expect(fake.issued).toBe(1);
  });
});

describe('against a real Pollkit server', () => {
  let t: TestServer;
  let apiKey: string;
  let workspaceId: string;

  beforeAll(async () => {
    t = await startTestServer();
    ({ id: workspaceId, apiKey } = await t.workspace('enterprise'));
    await enableOAuth(t.server.deps.db, workspaceId);
  });
  afterAll(() => t?.close());

  /** A new OAuth client of the workspace, and an SDK client using it that counts its token requests. */
  async function realOAuthClient(scopes: string, options: { scope?: string } = {}) {
    const { client: row, secret } = await createOAuthClient(t.server.deps.db, { workspaceId, name: 'sdk', scopes });
    const counts = { token: 0, api: 0 };
    const client = createClient({
      clientId: row.id,
      clientSecret: secret,
      baseUrl: t.url,
      ...options,
      fetch: (url, init) => {
        if (new URL(url).pathname === '/api/oauth/token') counts.token++;
        else counts.api++;
        return fetch(url, init);
      },
    });
    return { client, counts, clientId: row.id, secret };
  }

  it('lists and creates polls with client credentials, one token for many concurrent calls', async () => {
    const { client, counts } = await realOAuthClient('polls:read polls:write');
    const created = await client.polls.create({ title: 'Made with OAuth' });
    const pages = await Promise.all(Array.from({ length: 10 }, () => client.polls.list()));
    for (const page of pages) expect(page.data.map((poll) => poll.id)).toContain(created.id);
    expect(counts).toEqual({ token: 1, api: 11 });

    // The same workspace sees it through an API key.
    const byKey = await createClient({ apiKey, baseUrl: t.url }).polls.get({ id: created.id });
    expect(byKey.title).toBe('Made with OAuth');
  });

  it('asks for a narrower scope, and the API enforces it', async () => {
    const { client } = await realOAuthClient('polls:read polls:write', { scope: 'polls:read' });
    await expect(client.polls.list()).resolves.toHaveProperty('data');
    const refused = await rejectionOf(client.polls.create({ title: 'No write scope' }));
    expect(refused).toBeInstanceOf(PermissionDeniedError);
    expect(refused).toMatchObject({ status: 403, code: 'insufficient_scope' });
  });

  it('maps the token endpoint errors of the real server', async () => {
    const { clientId, secret } = await realOAuthClient('polls:read');
    const wrongSecret = createClient({ clientId, clientSecret: `${secret}x`, baseUrl: t.url });
    const invalidClient = await rejectionOf(wrongSecret.polls.list());
    expect(invalidClient).toBeInstanceOf(AuthenticationError);
    expect(invalidClient).toMatchObject({ status: 401, code: 'invalid_client' });
    expect(inspect(invalidClient, { depth: Number.POSITIVE_INFINITY, showHidden: true })).not.toContain(secret);

    const tooWide = createClient({ clientId, clientSecret: secret, baseUrl: t.url, scope: 'polls:write' });
    expect(await rejectionOf(tooWide.polls.list())).toMatchObject({ status: 400, code: 'invalid_scope' });
  });

  it('after the client is revoked, renews the rejected token once and throws access_denied', async () => {
    const { client, counts, clientId } = await realOAuthClient('polls:read');
    await client.polls.list();
    await revokeClient(t.server.deps, clientId);
    const error = await rejectionOf(client.polls.list());
    expect(error).toBeInstanceOf(PermissionDeniedError);
    expect(error).toMatchObject({ code: 'access_denied' });
    // The first token, its 401 `invalid_oauth_token`, one renewal refused: no loop.
    expect(counts).toEqual({ token: 2, api: 2 });
  });
});
