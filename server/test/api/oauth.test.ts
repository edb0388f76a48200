import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import {
  contract,
  type ErrorEnvelope,
  operationId,
  type RouteDefinition,
  requiredScopes,
  scopes,
} from '@pollkit/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AUTHENTICATION_DOC_PATH,
  scopesCell,
  scopeTableMarkdown,
  withScopeTable,
} from '../../../docs/scripts/scope-table.js';
import { hashSecret } from '../../src/core/secrets.js';
import { revokeClient } from '../../src/modules/oauth/oauth.service.js';
import { describeScope } from '../../src/modules/oauth/scope-descriptions.js';
import { setOAuthEnabled, updateWorkspace } from '../../src/modules/workspaces/workspaces.service.js';
import { runCliInProcess } from '../support/cli.js';
import { type HttpResponse, rawCall } from '../support/http.js';
import {
  oauthClient as enterpriseOAuthClient,
  issuedToken,
  type OAuthReply,
  type TestOAuthClient,
} from '../support/oauth.js';
import { startTestServer, type TestServer, usingPostgres } from '../support/server.js';
import { errorOf, expectOk, expectStatus, testClient } from '../support/test-client.js';

/**
 * OAuth 2.0 client credentials through real HTTP: every row of the spec's token-endpoint error
 * table, the token's use on /api/v1 (scopes, `invalid_oauth_token`, rate limits per client), the
 * admin CLI, and the scope table in docs/authentication.md.
 */

let t: TestServer;
const api = testClient(() => t.api);
let tokenUrl: string;

beforeAll(async () => {
  t = await startTestServer();
  tokenUrl = `${t.url}/api/oauth/token`;
});
afterAll(() => t?.close());

type TestClient = TestOAuthClient;

/** An Enterprise workspace with OAuth enabled and one client allowed `allowed`. */
function oauthClient(allowed = 'polls:read polls:write'): Promise<TestClient> {
  return enterpriseOAuthClient(t, allowed);
}

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
const JSON_TYPE = { 'content-type': 'application/json' };

function basic(clientId: string, clientSecret: string): Record<string, string> {
  return { authorization: `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}` };
}

/** `POST /api/oauth/token` with form-encoded parameters (the RFC's encoding). */
function tokenByForm(params: Record<string, string>, headers: Record<string, string> = {}) {
  return rawCall<OAuthReply>('POST', tokenUrl, {
    rawBody: new URLSearchParams(params).toString(),
    headers: { ...FORM, ...headers },
  });
}

function tokenByJson(params: Record<string, unknown>, headers: Record<string, string> = {}) {
  return rawCall<OAuthReply>('POST', tokenUrl, {
    rawBody: JSON.stringify(params),
    headers: { ...JSON_TYPE, ...headers },
  });
}

async function accessToken(client: TestClient, scope?: string): Promise<string> {
  return (await issuedToken(t, client, scope)).access_token;
}

/** An RFC 6749 §5.2 error: `{ error, error_description }` and nothing else, never cached. */
function expectOAuthError(res: HttpResponse<OAuthReply>, status: number, error: string) {
  expect(res.status, res.text).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  expect(Object.keys(res.body).sort()).toEqual(['error', 'error_description']);
  expect(res.body.error).toBe(error);
  expect(res.body.error_description).toEqual(expect.any(String));
  expect(res.body.error_description!.length).toBeGreaterThan(0);
  expect(res.headers.get('cache-control')).toBe('no-store');
  expect(res.headers.get('pragma')).toBe('no-cache');
  expect(res.headers.get('retry-after')).toBeNull();
}

/** The API's envelope error. */
function expectApiError(res: HttpResponse<unknown>, status: number, code: string) {
  expect(res.status, res.text).toBe(status);
  // Read as the envelope: a body that is not one fails the expectations.
  const body = res.body as ErrorEnvelope;
  expect(Object.keys(body)).toEqual(['error']);
  expect(body.error.code).toBe(code);
}

/** Tokens stored for a client, straight from the database. */
function storedTokens(clientId: string) {
  return t.server.deps.db.selectFrom('oauth_tokens').selectAll().where('client_id', '=', clientId).execute();
}

describe('POST /api/oauth/token: success', () => {
  it('issues a token for form-encoded parameters with the client in the body, never cached', async () => {
    const client = await oauthClient('polls:read responses:write');
    const res = await tokenByForm({
      grant_type: 'client_credentials',
      client_id: client.clientId,
      client_secret: client.clientSecret,
    });
    expect(res.status, res.text).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['access_token', 'expires_in', 'scope', 'token_type']);
    expect(res.body).toMatchObject({ token_type: 'Bearer', expires_in: 3600, scope: 'polls:read responses:write' });
    expect(res.body.access_token).toMatch(/^oat_[A-Za-z0-9_-]{43}$/);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('pragma')).toBe('no-cache');
    expect(res.headers.get('x-ratelimit-limit')).toBe('10');
    expect(res.headers.get('x-ratelimit-window')).toBe('60s');

    // Stored as a hash only, expiring with `expires_in`.
    const [stored, ...others] = await storedTokens(client.clientId);
    expect(others).toEqual([]);
    expect(stored?.token_hash).toBe(hashSecret(res.body.access_token!));
    expect(JSON.stringify(stored)).not.toContain(res.body.access_token!);
    const lifetime = (stored?.expires_at.getTime() ?? 0) - (stored?.created_at.getTime() ?? 0);
    expect(Math.abs(lifetime - 3600_000)).toBeLessThan(60_000);
  });

  it('issues a token for a JSON body with HTTP Basic client authentication', async () => {
    const client = await oauthClient('polls:read');
    const res = await tokenByJson({ grant_type: 'client_credentials' }, basic(client.clientId, client.clientSecret));
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ token_type: 'Bearer', expires_in: 3600, scope: 'polls:read' });
    expect(res.headers.get('cache-control')).toBe('no-store');
  });

  it('narrows the scope to what was asked, within the allowed set', async () => {
    const client = await oauthClient('polls:read polls:write responses:read');
    const res = await tokenByForm(
      { grant_type: 'client_credentials', scope: 'responses:read polls:read' },
      basic(client.clientId, client.clientSecret),
    );
    expect(res.status, res.text).toBe(200);
    expect(res.body.scope).toBe('responses:read polls:read');
    const [stored] = await storedTokens(client.clientId);
    expect(stored?.scopes).toEqual(['responses:read', 'polls:read']);
  });
});

describe('POST /api/oauth/token: errors (RFC 6749 §5.2)', () => {
  it('invalid_request: client authenticated both by Basic and in the body', async () => {
    const client = await oauthClient();
    const params = { grant_type: 'client_credentials', client_id: client.clientId, client_secret: client.clientSecret };
    const headers = basic(client.clientId, client.clientSecret);
    expectOAuthError(await tokenByForm(params, headers), 400, 'invalid_request');
    expectOAuthError(await tokenByJson(params, headers), 400, 'invalid_request');
    expect(await storedTokens(client.clientId)).toEqual([]);
  });

  it('invalid_request: grant_type missing, repeated, not a string; half the client credentials', async () => {
    const client = await oauthClient();
    const creds = { client_id: client.clientId, client_secret: client.clientSecret };
    expectOAuthError(await tokenByForm(creds), 400, 'invalid_request');
    expectOAuthError(await tokenByJson(creds), 400, 'invalid_request');
    expectOAuthError(await tokenByJson({ ...creds, grant_type: ['client_credentials'] }), 400, 'invalid_request');
    const repeated = `grant_type=client_credentials&grant_type=client_credentials&client_id=${client.clientId}&client_secret=${client.clientSecret}`;
    expectOAuthError(await rawCall('POST', tokenUrl, { rawBody: repeated, headers: FORM }), 400, 'invalid_request');
    expectOAuthError(
      await tokenByForm({ grant_type: 'client_credentials', client_id: client.clientId }),
      400,
      'invalid_request',
    );
    expectOAuthError(
      await tokenByForm({ ...creds, grant_type: 'client_credentials', scope: 'polls:read  polls:write' }),
      400,
      'invalid_request',
    );
    expect(await storedTokens(client.clientId)).toEqual([]);
  });

  it('invalid_request: malformed JSON, a JSON array, another content type, no body', async () => {
    const headers = { ...JSON_TYPE };
    expectOAuthError(await rawCall('POST', tokenUrl, { rawBody: '{"grant_type":', headers }), 400, 'invalid_request');
    expectOAuthError(
      await rawCall('POST', tokenUrl, { rawBody: '["client_credentials"]', headers }),
      400,
      'invalid_request',
    );
    expectOAuthError(
      await rawCall('POST', tokenUrl, {
        rawBody: 'grant_type=client_credentials',
        headers: { 'content-type': 'text/plain' },
      }),
      400,
      'invalid_request',
    );
    expectOAuthError(await rawCall('POST', tokenUrl), 400, 'invalid_request');
    const deep = `${'['.repeat(100)}${']'.repeat(100)}`;
    expectOAuthError(await rawCall('POST', tokenUrl, { rawBody: deep, headers }), 400, 'invalid_request');
    const huge = JSON.stringify({ grant_type: 'client_credentials', scope: 'x'.repeat(20_000) });
    expectOAuthError(await rawCall('POST', tokenUrl, { rawBody: huge, headers }), 400, 'invalid_request');
  });

  it('unsupported_grant_type: any grant but client_credentials', async () => {
    const client = await oauthClient();
    for (const grant_type of ['password', 'authorization_code', 'refresh_token', 'CLIENT_CREDENTIALS']) {
      const res = await tokenByForm({ grant_type }, basic(client.clientId, client.clientSecret));
      expectOAuthError(res, 400, 'unsupported_grant_type');
    }
  });

  it('invalid_client: unknown client or wrong secret; 401 with WWW-Authenticate when Basic was used', async () => {
    const client = await oauthClient();
    const wrongSecret = `ocs_${randomBytes(32).toString('base64url')}`;
    const unknownId = 'oac_01AAAAAAAAAAAAAAAAAAAAAAAA';
    for (const [clientId, clientSecret] of [
      [client.clientId, wrongSecret],
      [unknownId, client.clientSecret],
    ] as const) {
      const inBody = await tokenByForm({
        grant_type: 'client_credentials',
        client_id: clientId,
        client_secret: clientSecret,
      });
      expectOAuthError(inBody, 401, 'invalid_client');
      expect(inBody.headers.get('www-authenticate')).toBeNull();

      const byBasic = await tokenByJson({ grant_type: 'client_credentials' }, basic(clientId, clientSecret));
      expectOAuthError(byBasic, 401, 'invalid_client');
      expect(byBasic.headers.get('www-authenticate')).toBe('Basic realm="pollkit"');
    }
    // No client authentication at all, and a Basic header that is not base64(id:secret).
    expectOAuthError(await tokenByForm({ grant_type: 'client_credentials' }), 401, 'invalid_client');
    const garbled = await tokenByForm({ grant_type: 'client_credentials' }, { authorization: 'Basic !!!' });
    expectOAuthError(garbled, 401, 'invalid_client');
    expect(garbled.headers.get('www-authenticate')).toBe('Basic realm="pollkit"');
    expect(await storedTokens(client.clientId)).toEqual([]);
  });

  it('access_denied: a revoked client', async () => {
    const client = await oauthClient();
    await revokeClient(t.server.deps, client.clientId);
    const res = await tokenByForm({
      grant_type: 'client_credentials',
      client_id: client.clientId,
      client_secret: client.clientSecret,
    });
    expectOAuthError(res, 400, 'access_denied');
    expect(await storedTokens(client.clientId)).toEqual([]);
  });

  it('access_denied: a workspace with OAuth disabled, or no longer on the Enterprise plan', async () => {
    const disabled = await oauthClient();
    await setOAuthEnabled(t.server.deps.db, disabled.workspaceId, false);
    const downgraded = await oauthClient();
    await updateWorkspace(t.server.deps.db, downgraded.workspaceId, { plan: 'pro' });
    for (const client of [disabled, downgraded]) {
      const res = await tokenByJson({ grant_type: 'client_credentials' }, basic(client.clientId, client.clientSecret));
      expectOAuthError(res, 400, 'access_denied');
    }
  });

  it('invalid_scope: a scope outside the allowed set, or no scope at all', async () => {
    const client = await oauthClient('polls:read');
    for (const scope of ['polls:write', 'polls:read polls:write', 'admin', 'keys:manage']) {
      const res = await tokenByForm(
        { grant_type: 'client_credentials', scope },
        basic(client.clientId, client.clientSecret),
      );
      expectOAuthError(res, 400, 'invalid_scope');
      expect(res.body.error_description).toContain(scope.split(' ').at(-1));
    }
    expect(await storedTokens(client.clientId)).toEqual([]);
  });

  it('access_denied for the 11th request of a minute per client_id (429), other clients unaffected', async () => {
    for (let attempt = 0; attempt < 2; attempt++) {
      const client = await oauthClient();
      const responses: HttpResponse<OAuthReply>[] = [];
      for (let i = 0; i < 11; i++) {
        // A wrong secret counts too: the limit also bounds guessing.
        const secret = i === 0 ? 'ocs_wrong' : client.clientSecret;
        responses.push(
          await tokenByForm({ grant_type: 'client_credentials', client_id: client.clientId, client_secret: secret }),
        );
      }
      const resets = new Set(responses.map((r) => r.headers.get('x-ratelimit-reset')));
      // Requests that straddled a window boundary prove nothing: try again with a fresh client.
      if (resets.size !== 1) continue;
      expect(responses.map((r) => r.status)).toEqual([401, 200, 200, 200, 200, 200, 200, 200, 200, 200, 429]);
      expect(responses.map((r) => r.headers.get('x-ratelimit-remaining'))).toEqual([
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
        '0',
      ]);
      const limited = responses[10] as HttpResponse<OAuthReply>;
      expectOAuthError(limited, 429, 'access_denied');
      expect(limited.headers.get('x-ratelimit-limit')).toBe('10');
      expect(Number(limited.headers.get('x-ratelimit-reset')) * 1000).toBeLessThanOrEqual(Date.now() + 61_000);

      const other = await oauthClient();
      expect(
        (await tokenByJson({ grant_type: 'client_credentials' }, basic(other.clientId, other.clientSecret))).status,
      ).toBe(200);
      return;
    }
    throw new Error('two attempts straddled a rate-limit window boundary');
  });
});

describe('OAuth access tokens on /api/v1', () => {
  it('work for routes within their scopes and answer 403 insufficient_scope outside them', async () => {
    const client = await oauthClient('polls:read polls:write responses:read');
    const token = await accessToken(client, 'polls:read');
    const listed = await api.request('GET /polls', { apiKey: token });
    expectStatus(listed, 200);

    const created = await api.request('POST /polls', { apiKey: token, body: { title: 'Nope' } });
    expectApiError(created, 403, 'insufficient_scope');
    expect(errorOf(created).details).toEqual({ requiredScope: 'polls:write' });

    // A poll made with the workspace's API key is visible to the token: same workspace.
    const poll = await api.request('POST /polls', { apiKey: client.apiKey, body: { title: 'Shared' } });
    expectStatus(poll, 201);
    expect(expectOk(await api.request('GET /polls/{id}', { params: { id: poll.body.id }, apiKey: token })).title).toBe(
      'Shared',
    );
    const votes = await api.request('GET /polls/{id}/votes', { params: { id: poll.body.id }, apiKey: token });
    expectApiError(votes, 403, 'insufficient_scope');
    expect(errorOf(votes).details).toEqual({ requiredScope: 'responses:read' });

    const writer = await accessToken(client, 'polls:write');
    const made = await api.request('POST /polls', { apiKey: writer, body: { title: 'By OAuth' } });
    expectStatus(made, 201);
  });

  it('answers 401 invalid_oauth_token for unknown tokens and expired ones', async () => {
    for (const garbage of ['oat_garbage', `oat_${randomBytes(32).toString('base64url')}`]) {
      expectApiError(await api.request('GET /polls', { apiKey: garbage }), 401, 'invalid_oauth_token');
    }
    const client = await oauthClient();
    const token = await accessToken(client);
    await t.server.deps.db
      .updateTable('oauth_tokens')
      .set({ expires_at: new Date(Date.now() - 1000) })
      .where('token_hash', '=', hashSecret(token))
      .execute();
    const expired = await api.request('GET /polls', { apiKey: token });
    expectApiError(expired, 401, 'invalid_oauth_token');
    expect(errorOf(expired).message).toMatch(/expired/);
  });

  it('answers 401 invalid_oauth_token once the client is revoked, though the token was in use', async () => {
    const client = await oauthClient();
    const token = await accessToken(client);
    expect((await api.request('GET /polls', { apiKey: token })).status).toBe(200);
    // Revocation is published on the credentials topic, which evicts every process's cache.
    await revokeClient(t.server.deps, client.clientId);
    const revoked = await api.request('GET /polls', { apiKey: token });
    expectApiError(revoked, 401, 'invalid_oauth_token');
    expect(errorOf(revoked).message).toMatch(/revoked/);
  });

  it('counts the rate limit per OAuth client: its tokens share one counter, API keys have their own', async () => {
    for (let attempt = 0; attempt < 2; attempt++) {
      const client = await oauthClient();
      const first = await accessToken(client);
      const second = await accessToken(client);
      const responses = [
        await api.request('GET /polls', { apiKey: first }),
        await api.request('GET /polls', { apiKey: second }),
        await api.request('GET /polls', { apiKey: first }),
        await api.request('GET /polls', { apiKey: client.apiKey }),
      ];
      if (new Set(responses.map((r) => r.headers.get('x-ratelimit-reset'))).size !== 1) continue;
      expect(responses.map((r) => r.status)).toEqual([200, 200, 200, 200]);
      expect(responses.map((r) => r.headers.get('x-ratelimit-limit'))).toEqual(['120', '120', '120', '120']);
      expect(responses.map((r) => r.headers.get('x-ratelimit-remaining'))).toEqual(['119', '118', '117', '119']);
      return;
    }
    throw new Error('two attempts straddled a rate-limit window boundary');
  });
});

describe('scopes in the contract', () => {
  const routes = Object.entries(contract).flatMap(([group, members]) =>
    Object.entries(members).map(([name, route]) => ({ id: operationId(group, name), route: route as RouteDefinition })),
  );

  /** Routes any credential may call, whatever its scopes: a credential describing itself. */
  const unscopedOnPurpose = ['workspaceGet'];

  it('every workspace route declares a known scope (but the deliberate exceptions)', () => {
    expect(routes.length).toBeGreaterThan(0);
    // Participant routes take no workspace credential, so no scope either.
    const missing = routes
      .filter(({ route }) => (route.auth === 'workspace' || route.auth === 'host') && !route.scope)
      .map(({ id }) => id);
    expect(missing).toEqual(unscopedOnPurpose);
    for (const { id, route } of routes) {
      for (const scope of requiredScopes(route)) expect(scopes, id).toContain(scope);
      // Additional scopes only ever come with a first one.
      if (route.additionalScopes) expect(route.scope, id).toBeDefined();
    }
  });

  it('describes every scope by what requires it: no scope is called unused while a route needs it', () => {
    for (const scope of scopes) {
      const description = describeScope(scope);
      const users = routes.filter(({ route }) => requiredScopes(route).includes(scope));
      expect(users.length, scope).toBeGreaterThan(0);
      expect(description, scope).not.toMatch(/reserved|no route/i);
      for (const { route } of users) expect(description, scope).toContain(`\`${route.method} ${route.path}\``);
    }
    expect(describeScope('responses:read')).toContain('`vote.created`');
  });

  it('docs/authentication.md holds the scope table the contract generates', async () => {
    const doc = await readFile(AUTHENTICATION_DOC_PATH, 'utf8');
    expect(doc === withScopeTable(doc), 'stale: run `npx -y pnpm@10 generate`').toBe(true);
    const table = scopeTableMarkdown();
    for (const { route } of routes) {
      const scope = route.scope
        ? scopesCell(route)
        : route.auth === 'participant'
          ? 'none: a participant route (PIN and participant token)'
          : 'none (any credential)';
      expect(table).toContain(`| \`${route.method} /api/v1${route.path}\` | ${scope} |`);
    }
  });
});

describe('pollkit oauth (admin CLI)', () => {
  /** Runs the CLI in this process, on the test server's database when that is PostgreSQL. */
  const cli = (args: string[], env: Record<string, string | undefined>) => runCliInProcess(args, env);

  it('refuses to enable OAuth on a Pro workspace and validates scopes', async () => {
    // These refusals need no shared database: a scratch in-memory one is enough.
    const env = { DATABASE_URL: usingPostgres ? t.databaseUrl : 'memory://' };
    const refused = await cli(['oauth', 'enable', 'ws_01AAAAAAAAAAAAAAAAAAAAAAAA', '--json'], env);
    expect(refused.code).toBe(1);
    expect(JSON.parse(refused.stderr.split('\n').filter(Boolean).at(-1) ?? '{}')).toMatchObject({
      error: { code: 'not_found' },
    });
    if (!usingPostgres) return;
    const pro = await t.workspace('pro');
    const notEnterprise = await cli(['oauth', 'enable', pro.id], env);
    expect(notEnterprise.code).toBe(1);
    expect(notEnterprise.stderr).toMatch(/Enterprise feature.*pro plan/);
  });

  it.skipIf(!usingPostgres)(
    'enables, creates (secret once), lists and revokes a client the server honours',
    async () => {
      const env = { DATABASE_URL: t.databaseUrl };
      const workspace = await t.workspace('enterprise');
      const badScope = await cli(
        [
          'oauth',
          'clients',
          'create',
          '--workspace',
          workspace.id,
          '--name',
          'x',
          '--scopes',
          'polls:read polls:admin',
        ],
        env,
      );
      expect(badScope.code).toBe(1);
      expect(badScope.stderr).toMatch(/Unknown scope polls:admin/);

      expect((await cli(['oauth', 'enable', workspace.id], env)).code).toBe(0);
      const created = await cli(
        [
          'oauth',
          'clients',
          'create',
          '--workspace',
          workspace.id,
          '--name',
          'Reporting',
          '--scopes',
          'polls:read',
          '--json',
        ],
        env,
      );
      expect(created.code, created.stderr).toBe(0);
      const client = JSON.parse(created.stdout);
      expect(client).toMatchObject({ workspaceId: workspace.id, allowedScopes: ['polls:read'], status: 'active' });
      expect(client.clientSecret).toMatch(/^ocs_/);

      const token = await tokenByJson(
        { grant_type: 'client_credentials' },
        basic(client.clientId, client.clientSecret),
      );
      expect(token.status, token.text).toBe(200);

      const listed = await cli(['oauth', 'clients', 'list', '--workspace', workspace.id], env);
      expect(listed.code).toBe(0);
      expect(listed.stdout).toContain(client.clientId);
      expect(listed.stdout).not.toContain(client.clientSecret);

      const revoked = await cli(['oauth', 'clients', 'revoke', client.clientId], env);
      expect(revoked.code, revoked.stderr).toBe(0);
      expect(revoked.stdout).toContain(`Revoked OAuth client ${client.clientId}`);
      const denied = await tokenByJson(
        { grant_type: 'client_credentials' },
        basic(client.clientId, client.clientSecret),
      );
      expectOAuthError(denied, 400, 'access_denied');
    },
  );
});
