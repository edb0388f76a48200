import { scopes } from '@pollkit/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../support/assertions.js';
import { rawCall } from '../support/http.js';
import { issuedToken, oauthClient } from '../support/oauth.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { expectOk, expectStatus, testClient } from '../support/test-client.js';

/** `GET /workspace`: what the calling credential is, for an API key, a rotated key and an OAuth token. */

let t: TestServer;
const api = testClient(() => t.api);

beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t?.close());

const describeCaller = (apiKey: string) => api.request('GET /workspace', { apiKey });

describe('GET /workspace', () => {
  it('describes an API key: every scope, no expiry, the server default rate limit', async () => {
    const workspace = await t.workspace('pro');
    const keyId = expectOk(await api.request('GET /keys', { apiKey: workspace.apiKey })).data[0]!.id;
    const res = await describeCaller(workspace.apiKey);
    expectStatus(res, 200);
    expect(res.body).toEqual({
      id: workspace.id,
      name: 'test pro',
      plan: 'pro',
      rateLimitPerMinute: 120,
      credential: { kind: 'api_key', id: keyId, scopes: [...scopes], expiresAt: null },
      language: 'en',
      themeId: null,
      embedOrigins: [],
      blockedTerms: [],
      allowedTerms: [],
    });
    // The limit it reports is the one the same response's headers count against.
    expect(res.headers.get('x-ratelimit-limit')).toBe('120');
  });

  it("reports an Enterprise workspace's own rate limit", async () => {
    const workspace = await t.workspace('enterprise', { rateLimitPerMinute: 1000 });
    const res = await describeCaller(workspace.apiKey);
    expectStatus(res, 200);
    expect(res.body).toMatchObject({ plan: 'enterprise', rateLimitPerMinute: 1000 });
  });

  it("shows a rotated key's end of grace as expiresAt, and the replacement's as null", async () => {
    const { apiKey } = await t.workspace('pro');
    const old = await api.request('POST /keys', { apiKey, body: { name: 'Deploy' } });
    expectStatus(old, 201);
    const rotated = await api.request('POST /keys/{id}/rotate', {
      params: { id: old.body.id },
      apiKey,
      body: { gracePeriodSeconds: 3600 },
    });
    expectStatus(rotated, 201);

    const byOld = await describeCaller(old.body.secret);
    expectStatus(byOld, 200);
    expect(expectOk(byOld).credential).toMatchObject({ kind: 'api_key', id: old.body.id });
    expect(expectOk(byOld).credential.expiresAt).toBe(rotated.body.previousKey.expiresAt);
    expect(Date.parse(expectOk(byOld).credential.expiresAt!)).toBeGreaterThan(Date.now() + 3500_000);

    const byNew = await describeCaller(rotated.body.secret);
    expect(expectOk(byNew).credential).toMatchObject({ id: rotated.body.id, expiresAt: null });
  });

  it('describes a key created with scopes: those scopes, however narrow (it needs none itself)', async () => {
    const { apiKey } = await t.workspace('pro');
    const narrow = await api.request('POST /keys', {
      apiKey,
      body: { name: 'Exporter', scopes: ['export:read', 'polls:read'] },
    });
    expectStatus(narrow, 201);
    const res = await describeCaller(narrow.body.secret);
    expectStatus(res, 200);
    expect(expectOk(res).credential).toEqual({
      kind: 'api_key',
      id: narrow.body.id,
      scopes: ['polls:read', 'export:read'],
      expiresAt: null,
    });
    const single = await api.request('POST /keys', { apiKey, body: { name: 'Media', scopes: ['media:write'] } });
    expectStatus(single, 201);
    expect(expectOk(await describeCaller(single.body.secret)).credential.scopes).toEqual(['media:write']);
  });

  it('describes an OAuth token: its client id, narrowed scopes and expiry; it needs no scope', async () => {
    const client = await oauthClient(t, 'polls:read responses:read keys:manage', 'reporting');
    const before = Date.now();
    // Narrower than the client may have, and given in another order than the contract's.
    const token = await issuedToken(t, client, 'responses:read polls:read');

    const res = await describeCaller(token.access_token);
    expectStatus(res, 200);
    expect(res.body).toMatchObject({ id: client.workspaceId, plan: 'enterprise', rateLimitPerMinute: 120 });
    expect(expectOk(res).credential).toMatchObject({
      kind: 'oauth_token',
      id: client.clientId,
      scopes: ['polls:read', 'responses:read'],
    });
    const expiresAt = Date.parse(expectOk(res).credential.expiresAt!);
    expect(expiresAt).toBeGreaterThanOrEqual(before + token.expires_in * 1000 - 1000);
    expect(expiresAt).toBeLessThanOrEqual(Date.now() + token.expires_in * 1000 + 1000);
  });

  it('answers 401 without a valid credential, 402 on the Free plan, 422 for a query parameter', async () => {
    expectError(await api.request('GET /workspace'), 401, 'missing_authorization');
    expectError(await describeCaller('pk_live_nope'), 401, 'invalid_api_key');
    const free = await t.workspace('free');
    expectError(await describeCaller(free.apiKey), 402, 'upgrade_required');
    const { apiKey } = await t.workspace('pro');
    expectError(await rawCall('GET', `${t.api}/workspace?x=1`, { apiKey }), 422, 'validation_failed');
  });
});
