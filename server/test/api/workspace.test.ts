import { scopes } from '@pollkit/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../support/assertions.js';
import { call } from '../support/http.js';
import { issuedToken, oauthClient } from '../support/oauth.js';
import { startTestServer, type TestServer } from '../support/server.js';

/** `GET /workspace`: what the calling credential is, for an API key, a rotated key and an OAuth token. */

let t: TestServer;

beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t?.close());

const describeCaller = (apiKey: string) => call('GET', `${t.api}/workspace`, { apiKey });

describe('GET /workspace', () => {
  it('describes an API key: every scope, no expiry, the server default rate limit', async () => {
    const workspace = await t.workspace('pro');
    const keyId = (await call('GET', `${t.api}/keys`, { apiKey: workspace.apiKey })).body.data[0].id;
    const res = await describeCaller(workspace.apiKey);
    expect(res.status, res.text).toBe(200);
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
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ plan: 'enterprise', rateLimitPerMinute: 1000 });
  });

  it("shows a rotated key's end of grace as expiresAt, and the replacement's as null", async () => {
    const { apiKey } = await t.workspace('pro');
    const old = await call('POST', `${t.api}/keys`, { apiKey, body: { name: 'Deploy' } });
    expect(old.status, old.text).toBe(201);
    const rotated = await call('POST', `${t.api}/keys/${old.body.id}/rotate`, {
      apiKey,
      body: { gracePeriodSeconds: 3600 },
    });
    expect(rotated.status, rotated.text).toBe(201);

    const byOld = await describeCaller(old.body.secret);
    expect(byOld.status, byOld.text).toBe(200);
    expect(byOld.body.credential).toMatchObject({ kind: 'api_key', id: old.body.id });
    expect(byOld.body.credential.expiresAt).toBe(rotated.body.previousKey.expiresAt);
    expect(Date.parse(byOld.body.credential.expiresAt)).toBeGreaterThan(Date.now() + 3500_000);

    const byNew = await describeCaller(rotated.body.secret);
    expect(byNew.body.credential).toMatchObject({ id: rotated.body.id, expiresAt: null });
  });

  it('describes a key created with scopes: those scopes, however narrow (it needs none itself)', async () => {
    const { apiKey } = await t.workspace('pro');
    const narrow = await call('POST', `${t.api}/keys`, {
      apiKey,
      body: { name: 'Exporter', scopes: ['export:read', 'polls:read'] },
    });
    expect(narrow.status, narrow.text).toBe(201);
    const res = await describeCaller(narrow.body.secret);
    expect(res.status, res.text).toBe(200);
    expect(res.body.credential).toEqual({
      kind: 'api_key',
      id: narrow.body.id,
      scopes: ['polls:read', 'export:read'],
      expiresAt: null,
    });
    const single = await call('POST', `${t.api}/keys`, { apiKey, body: { name: 'Media', scopes: ['media:write'] } });
    expect((await describeCaller(single.body.secret)).body.credential.scopes).toEqual(['media:write']);
  });

  it('describes an OAuth token: its client id, narrowed scopes and expiry; it needs no scope', async () => {
    const client = await oauthClient(t, 'polls:read responses:read keys:manage', 'reporting');
    const before = Date.now();
    // Narrower than the client may have, and given in another order than the contract's.
    const token = await issuedToken(t, client, 'responses:read polls:read');

    const res = await describeCaller(token.access_token);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ id: client.workspaceId, plan: 'enterprise', rateLimitPerMinute: 120 });
    expect(res.body.credential).toMatchObject({
      kind: 'oauth_token',
      id: client.clientId,
      scopes: ['polls:read', 'responses:read'],
    });
    const expiresAt = Date.parse(res.body.credential.expiresAt);
    expect(expiresAt).toBeGreaterThanOrEqual(before + token.expires_in * 1000 - 1000);
    expect(expiresAt).toBeLessThanOrEqual(Date.now() + token.expires_in * 1000 + 1000);
  });

  it('answers 401 without a valid credential, 402 on the Free plan, 422 for a query parameter', async () => {
    expectError(await call('GET', `${t.api}/workspace`), 401, 'missing_authorization');
    expectError(await describeCaller('pk_live_nope'), 401, 'invalid_api_key');
    const free = await t.workspace('free');
    expectError(await describeCaller(free.apiKey), 402, 'upgrade_required');
    const { apiKey } = await t.workspace('pro');
    expectError(await call('GET', `${t.api}/workspace?x=1`, { apiKey }), 422, 'validation_failed');
  });
});
