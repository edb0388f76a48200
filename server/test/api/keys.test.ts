import { type Scope, scopes } from '@pollkit/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CREDENTIALS_TOPIC } from '../../src/modules/credentials/credentials-topic.js';
import { expectError } from '../support/assertions.js';
import { runCliInProcess } from '../support/cli.js';
import { rawCall } from '../support/http.js';
import { issuedToken, oauthClient } from '../support/oauth.js';
import { startTestServer, type TestServer, usingPostgres } from '../support/server.js';
import { type ApiResponse, errorDetails, expectOk, expectStatus, testClient } from '../support/test-client.js';

/** The key lifecycle through the API (`/keys`, scope `keys:manage`) and the admin CLI's `keys rotate`. */

let t: TestServer;
const api = testClient(() => t.api);

beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t?.close());

const secretPattern = /^pk_live_[A-Za-z0-9_-]{43}$/;
const recordFields = ['createdAt', 'expiresAt', 'id', 'name', 'prefix', 'revokedAt', 'scopes', 'status'];

/** Whether the key is accepted: 200 on a cheap authenticated read, else the error. */
function usePolls(apiKey: string): Promise<ApiResponse<'GET /polls'>> {
  return api.request('GET /polls', { query: { limit: 1 }, apiKey });
}

async function createKey(apiKey: string, name: string) {
  const res = await api.request('POST /keys', { apiKey, body: { name } });
  expectStatus(res, 201);
  return { id: res.body.id, secret: res.body.secret, body: res.body };
}

describe('GET /keys and POST /keys', () => {
  it('creates a key whose secret is shown once and works; lists keys newest first without secrets', async () => {
    const { apiKey } = await t.workspace('pro');
    const created = await createKey(apiKey, 'Backend');
    expect(Object.keys(created.body).sort()).toEqual([...recordFields, 'secret'].sort());
    expect(created.body).toMatchObject({ name: 'Backend', status: 'active', revokedAt: null, expiresAt: null });
    expect(created.secret).toMatch(secretPattern);
    expect(created.secret.startsWith(created.body.prefix)).toBe(true);
    expect(created.secret).not.toBe(apiKey);
    expect((await usePolls(created.secret)).status).toBe(200);

    const second = await createKey(created.secret, 'Second');
    const list = await api.request('GET /keys', { apiKey });
    expectStatus(list, 200);
    expect(list.body.nextCursor).toBeNull();
    expect(list.body.data.map((k) => k.name)).toEqual(['Second', 'Backend', 'test']);
    for (const key of list.body.data) expect(Object.keys(key).sort()).toEqual(recordFields);
    for (const secret of [apiKey, created.secret, second.secret]) expect(list.text).not.toContain(secret);

    const first = await api.request('GET /keys', { query: { limit: 2 }, apiKey });
    expectStatus(first, 200);
    expect(first.body.data.map((k) => k.id)).toEqual([second.id, created.id]);
    const rest = await api.request('GET /keys', { query: { limit: 2, cursor: first.body.nextCursor! }, apiKey });
    expectStatus(rest, 200);
    expect(rest.body.data.map((k) => k.name)).toEqual(['test']);
    expect(rest.body.nextCursor).toBeNull();
  });

  it('lists only the caller’s workspace and refuses a blank name', async () => {
    const a = await t.workspace('pro');
    const b = await t.workspace('pro');
    await createKey(b.apiKey, 'Only in B');
    const list = await api.request('GET /keys', { apiKey: a.apiKey });
    expectStatus(list, 200);
    expect(list.body.data.map((k) => k.name)).toEqual(['test']);
    const blank = await api.request('POST /keys', { apiKey: a.apiKey, body: { name: '   ' } });
    expectError(blank, 422, 'validation_failed');
    expect(errorDetails(blank).fieldErrors.name).toBeDefined();
  });
});

describe('scopes of API keys', () => {
  /** Creates a key with `scopes` through the API, asserting the 201. */
  async function scopedKey(apiKey: string, name: string, keyScopes: Scope[]) {
    const res = await api.request('POST /keys', { apiKey, body: { name, scopes: keyScopes } });
    expectStatus(res, 201);
    return { id: res.body.id as string, secret: res.body.secret as string, body: res.body };
  }
  const storedScopes = async (id: string) =>
    (await t.server.deps.db.selectFrom('api_keys').select('scopes').where('id', '=', id).executeTakeFirstOrThrow())
      .scopes;
  const describeCredential = async (apiKey: string) =>
    expectOk(await api.request('GET /workspace', { apiKey })).credential;

  it('a key holds the scopes it was created with; one created without, like every key before, holds all', async () => {
    const { apiKey, id: workspaceId } = await t.workspace('pro');
    // The workspace's first key was made as every key was before keys had scopes: no list at all.
    const original = expectOk(await api.request('GET /keys', { apiKey })).data[0]!;
    expect(await storedScopes(original.id)).toBeNull();
    expect(original.scopes).toEqual([...scopes]);
    expect(await describeCredential(apiKey)).toMatchObject({ kind: 'api_key', scopes: [...scopes] });

    const full = await createKey(apiKey, 'Everything');
    expect(full.body.scopes).toEqual([...scopes]);
    expect(await storedScopes(full.id)).toBeNull();

    // Listed in the contract's order, whatever the order asked.
    const reader = await scopedKey(apiKey, 'Reader', ['keys:manage', 'polls:read']);
    expect(reader.body.scopes).toEqual(['polls:read', 'keys:manage']);
    expect(await describeCredential(reader.secret)).toMatchObject({
      kind: 'api_key',
      id: reader.id,
      scopes: ['polls:read', 'keys:manage'],
    });
    expect((await usePolls(reader.secret)).status).toBe(200);
    const write = await api.request('POST /polls', { apiKey: reader.secret, body: { title: 'Not mine to write' } });
    expectError(write, 403, 'insufficient_scope');
    expect(write.body.error.details).toEqual({ requiredScope: 'polls:write' });
    expect(expectOk(await api.request('GET /keys', { apiKey })).data.find((k) => k.id === reader.id)!.scopes).toEqual([
      'polls:read',
      'keys:manage',
    ]);
    expect(workspaceId).toMatch(/^ws_/);
  });

  it('refuses unknown, repeated or no scopes (422)', async () => {
    const { apiKey } = await t.workspace('pro');
    for (const bad of [['admin'], [], ['polls:read', 'polls:read'], 'polls:read', [42]]) {
      const res = await rawCall('POST', `${t.api}/keys`, { apiKey, body: { name: 'Bad', scopes: bad } });
      expectError(res, 422, 'validation_failed');
      expect(Object.keys(errorDetails(res).fieldErrors).some((field) => field.startsWith('scopes'))).toBe(true);
    }
    expect(expectOk(await api.request('GET /keys', { apiKey })).data).toHaveLength(1);
  });

  it('a key gives a new key only scopes it holds: asking for more is 403 insufficient_scope, and nothing is made', async () => {
    const { apiKey } = await t.workspace('pro');
    const manager = await scopedKey(apiKey, 'Manager', ['polls:read', 'keys:manage']);
    const wider = await api.request('POST /keys', {
      apiKey: manager.secret,
      body: { name: 'Wider', scopes: ['polls:read', 'polls:write'] },
    });
    expectError(wider, 403, 'insufficient_scope');
    expect(wider.body.error.details).toEqual({ requiredScope: 'polls:write', missingScopes: ['polls:write'] });
    // Without `scopes` a key holds every scope: only a credential holding every scope may ask for that.
    const everything = await api.request('POST /keys', { apiKey: manager.secret, body: { name: 'All' } });
    expectError(everything, 403, 'insufficient_scope');
    expect(errorDetails(everything).missingScopes).toEqual(
      scopes.filter((scope) => scope !== 'polls:read' && scope !== 'keys:manage'),
    );
    const names = async () => expectOk(await api.request('GET /keys', { apiKey })).data.map((k) => k.name);
    expect(await names()).toEqual(['Manager', 'test']);

    const narrower = await scopedKey(manager.secret, 'Narrower', ['polls:read']);
    expect(narrower.body.scopes).toEqual(['polls:read']);
    expectError(await api.request('GET /keys', { apiKey: narrower.secret }), 403, 'insufficient_scope');

    // A key listing every scope may make a key without a list, which gets its list: never a scope added later.
    const listsAll = await scopedKey(apiKey, 'Lists all', [...scopes]);
    const made = await createKey(listsAll.secret, 'From a list');
    expect(made.body.scopes).toEqual([...scopes]);
    expect(await storedScopes(made.id)).toEqual([...scopes]);
  });

  it('an OAuth token with keys:manage alone cannot mint a key holding polls:write, nor one holding everything', async () => {
    const client = await oauthClient(t, 'keys:manage polls:read');
    const token = (await issuedToken(t, client, 'keys:manage')).access_token;
    const refused = await api.request('POST /keys', {
      apiKey: token,
      body: { name: 'Escalation', scopes: ['polls:write'] },
    });
    expectError(refused, 403, 'insufficient_scope');
    expect(refused.body.error.details).toEqual({ requiredScope: 'polls:write', missingScopes: ['polls:write'] });
    expectError(
      await api.request('POST /keys', { apiKey: token, body: { name: 'Everything' } }),
      403,
      'insufficient_scope',
    );
    // Nor by rotating a key that holds more than it does: the answer would be that key's new secret.
    const original = expectOk(await api.request('GET /keys', { apiKey: client.apiKey })).data[0]!;
    const rotation = await api.request('POST /keys/{id}/rotate', {
      params: { id: original.id },
      apiKey: token,
      body: {},
    });
    expectError(rotation, 403, 'insufficient_scope');
    expect(errorDetails(rotation).missingScopes).toEqual(scopes.filter((scope) => scope !== 'keys:manage'));
    expect(expectOk(await api.request('GET /keys', { apiKey: client.apiKey })).data).toEqual([original]);
    expect((await usePolls(client.apiKey)).status).toBe(200);

    // Within its scopes it may.
    const own = await scopedKey(token, 'Key manager', ['keys:manage']);
    expect(own.body.scopes).toEqual(['keys:manage']);
    expectError(await usePolls(own.secret), 403, 'insufficient_scope');
  });

  it('rotation keeps the key’s scopes; the caller must hold them all', async () => {
    const { apiKey } = await t.workspace('pro');
    const reader = await scopedKey(apiKey, 'Reader', ['polls:read', 'keys:manage']);
    const rotated = await api.request('POST /keys/{id}/rotate', { params: { id: reader.id }, apiKey, body: {} });
    expectStatus(rotated, 201);
    expect(rotated.body.scopes).toEqual(['polls:read', 'keys:manage']);
    expect(rotated.body.previousKey.scopes).toEqual(['polls:read', 'keys:manage']);
    expect(await describeCredential(rotated.body.secret)).toMatchObject({ scopes: ['polls:read', 'keys:manage'] });
    expectError(
      await api.request('POST /polls', { apiKey: rotated.body.secret, body: { title: 'Still no' } }),
      403,
      'insufficient_scope',
    );

    // The reader's replacement may rotate itself, not the workspace's key that holds everything.
    const everything = expectOk(await api.request('GET /keys', { apiKey })).data.find((k) => k.name === 'test')!;
    const refused = await api.request('POST /keys/{id}/rotate', {
      params: { id: everything.id },
      apiKey: rotated.body.secret,
      body: {},
    });
    expectError(refused, 403, 'insufficient_scope');
    expect((await usePolls(apiKey)).status).toBe(200);
    const self = await api.request('POST /keys/{id}/rotate', {
      params: { id: rotated.body.id },
      apiKey: rotated.body.secret,
      body: {},
    });
    expectStatus(self, 201);
    expect(self.body.scopes).toEqual(['polls:read', 'keys:manage']);
    // A key created without a list stays without one: it keeps every scope, later ones included.
    const full = await api.request('POST /keys/{id}/rotate', { params: { id: everything.id }, apiKey, body: {} });
    expectStatus(full, 201);
    expect(await storedScopes(full.body.id)).toBeNull();
  });
});

describe('POST /keys/{id}/revoke', () => {
  it('revokes a key, which then answers 401 revoked_api_key; revoking again changes nothing', async () => {
    const { apiKey } = await t.workspace('pro');
    const target = await createKey(apiKey, 'Leaked');
    expect((await usePolls(target.secret)).status).toBe(200);
    const revoked = await api.request('POST /keys/{id}/revoke', { params: { id: target.id }, apiKey });
    expectStatus(revoked, 200);
    expect(Object.keys(revoked.body).sort()).toEqual(recordFields);
    expect(revoked.body).toMatchObject({ id: target.id, status: 'revoked', revokedAt: expect.any(String) });
    expectError(await usePolls(target.secret), 401, 'revoked_api_key');
    const again = await api.request('POST /keys/{id}/revoke', { params: { id: target.id }, apiKey });
    expectStatus(again, 200);
    expect(again.body.revokedAt).toBe(revoked.body.revokedAt);
    expect((await usePolls(apiKey)).status).toBe(200);
  });

  it('lets a key revoke itself: that call succeeds, the next answers revoked_api_key', async () => {
    const { apiKey } = await t.workspace('pro');
    const own = expectOk(await api.request('GET /keys', { apiKey })).data[0]!;
    const revoked = await api.request('POST /keys/{id}/revoke', { params: { id: own.id }, apiKey });
    expectStatus(revoked, 200);
    expect(revoked.body.status).toBe('revoked');
    expectError(await usePolls(apiKey), 401, 'revoked_api_key');
  });

  it('answers 404 for another workspace’s key and leaves it working', async () => {
    const a = await t.workspace('pro');
    const b = await t.workspace('pro');
    const bKey = await createKey(b.apiKey, 'B');
    expectError(
      await api.request('POST /keys/{id}/revoke', { params: { id: bKey.id }, apiKey: a.apiKey }),
      404,
      'not_found',
    );
    expectError(
      await api.request('POST /keys/{id}/rotate', { params: { id: bKey.id }, apiKey: a.apiKey, body: {} }),
      404,
      'not_found',
    );
    expect((await usePolls(bKey.secret)).status).toBe(200);
    expectError(
      await api.request('POST /keys/{id}/revoke', { params: { id: 'key_nope' }, apiKey: a.apiKey }),
      404,
      'not_found',
    );
  });
});

describe('POST /keys/{id}/rotate', () => {
  it('issues a new key; the old one works during the grace period, then answers expired_api_key', async () => {
    const { apiKey } = await t.workspace('pro');
    const old = await createKey(apiKey, 'Deploy');
    expect((await usePolls(old.secret)).status).toBe(200);
    const before = Date.now();
    const rotated = await api.request('POST /keys/{id}/rotate', {
      params: { id: old.id },
      apiKey,
      body: { gracePeriodSeconds: 3600 },
    });
    expectStatus(rotated, 201);
    expect(Object.keys(rotated.body).sort()).toEqual([...recordFields, 'previousKey', 'secret'].sort());
    expect(rotated.body).toMatchObject({ name: 'Deploy', status: 'active', expiresAt: null });
    // The old key as it now is, with the end of its grace period: the same record the list shows.
    expect(Object.keys(rotated.body.previousKey).sort()).toEqual(recordFields);
    expect(rotated.body.previousKey).toMatchObject({ id: old.id, name: 'Deploy', status: 'expiring' });
    expect(rotated.body.id).not.toBe(old.id);
    expect(rotated.body.secret).toMatch(secretPattern);

    expect((await usePolls(old.secret)).status).toBe(200);
    expect((await usePolls(rotated.body.secret)).status).toBe(200);
    const listed = expectOk(await api.request('GET /keys', { apiKey })).data.find((k) => k.id === old.id)!;
    expect(listed.status).toBe('expiring');
    expect(rotated.body.previousKey).toEqual(listed);
    const expiresAt = Date.parse(listed.expiresAt!);
    expect(expiresAt).toBeGreaterThanOrEqual(before + 3600_000 - 1000);
    expect(expiresAt).toBeLessThanOrEqual(Date.now() + 3600_000 + 1000);

    // The grace period ends: moved into the past in the database, then announced as a rotation would be.
    await t.server.deps.db
      .updateTable('api_keys')
      .set({ expires_at: new Date(Date.now() - 1000) })
      .where('id', '=', old.id)
      .execute();
    await t.server.deps.invalidation.publish(CREDENTIALS_TOPIC, old.id);
    expectError(await usePolls(old.secret), 401, 'expired_api_key');
    expect((await usePolls(rotated.body.secret)).status).toBe(200);
    const expired = expectOk(await api.request('GET /keys', { apiKey })).data.find((k) => k.id === old.id)!;
    expect(expired.status).toBe('expired');
  });

  it('with gracePeriodSeconds 0 stops the old key at once, even the one making the call', async () => {
    const { apiKey } = await t.workspace('pro');
    const own = expectOk(await api.request('GET /keys', { apiKey })).data[0]!;
    const rotated = await api.request('POST /keys/{id}/rotate', {
      params: { id: own.id },
      apiKey,
      body: { gracePeriodSeconds: 0 },
    });
    expectStatus(rotated, 201);
    expect(rotated.body.previousKey).toMatchObject({ id: own.id, status: 'expired' });
    expect(Date.parse(rotated.body.previousKey.expiresAt!)).toBeLessThanOrEqual(Date.now());
    expectError(await usePolls(apiKey), 401, 'expired_api_key');
    expect((await usePolls(rotated.body.secret)).status).toBe(200);
  });

  it('defaults to one day of grace and refuses a grace period over seven days or below zero', async () => {
    const { apiKey } = await t.workspace('pro');
    const target = await createKey(apiKey, 'Default grace');
    for (const gracePeriodSeconds of [7 * 86_400 + 1, -1, 1.5]) {
      const refused = await api.request('POST /keys/{id}/rotate', {
        params: { id: target.id },
        apiKey,
        body: { gracePeriodSeconds },
      });
      expectError(refused, 422, 'validation_failed');
      expect(errorDetails(refused).fieldErrors.gracePeriodSeconds).toBeDefined();
    }
    const before = Date.now();
    expect((await api.request('POST /keys/{id}/rotate', { params: { id: target.id }, apiKey, body: {} })).status).toBe(
      201,
    );
    const old = expectOk(await api.request('GET /keys', { apiKey })).data.find((k) => k.id === target.id)!;
    expect(Date.parse(old.expiresAt!)).toBeGreaterThanOrEqual(before + 86_400_000 - 1000);
    expect(Date.parse(old.expiresAt!)).toBeLessThanOrEqual(Date.now() + 86_400_000 + 1000);
  });

  it('answers 409 key_not_active for a revoked or already rotated key', async () => {
    const { apiKey } = await t.workspace('pro');
    const revoked = await createKey(apiKey, 'Revoked');
    await api.request('POST /keys/{id}/revoke', { params: { id: revoked.id }, apiKey });
    expectError(
      await api.request('POST /keys/{id}/rotate', { params: { id: revoked.id }, apiKey, body: {} }),
      409,
      'key_not_active',
    );

    const rotatedOnce = await createKey(apiKey, 'Rotated');
    expect(
      (await api.request('POST /keys/{id}/rotate', { params: { id: rotatedOnce.id }, apiKey, body: {} })).status,
    ).toBe(201);
    const twice = await api.request('POST /keys/{id}/rotate', { params: { id: rotatedOnce.id }, apiKey, body: {} });
    expectError(twice, 409, 'key_not_active');
    expect(expectOk(await api.request('GET /keys', { apiKey })).data.map((k) => k.name)).toEqual([
      'Rotated',
      'Rotated',
      'Revoked',
      'test',
    ]);
  });
});

describe('pollkit keys rotate', () => {
  const cli = (args: string[], env: Record<string, string | undefined> = {}) => runCliInProcess(args, env);

  it('documents itself and refuses a grace period it cannot honour', async () => {
    const help = await cli(['keys', 'rotate', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage: pollkit keys rotate [options] <keyId>');
    expect(help.stdout).toContain('--grace <seconds>');
    expect(help.stdout).toContain('expired_api_key');
    for (const grace of ['lots', '604801']) {
      const refused = await cli(['keys', 'rotate', 'key_x', '--grace', grace]);
      expect(refused.code, grace).toBe(1);
      expect(refused.stderr).toContain('Expected a whole number of seconds from 0 to 604800');
    }
    expect((await cli(['keys', 'rotate'])).code).toBe(2);
  });

  // The CLI opens the server's database itself: an in-memory PGlite cannot be shared with it.
  it.runIf(usingPostgres)(
    'rotates a key in the server’s database: the new secret works, the old key expires after --grace',
    async () => {
      const { apiKey } = await t.workspace('pro');
      const old = await createKey(apiKey, 'From the CLI');
      const env = { DATABASE_URL: t.databaseUrl, REDIS_URL: process.env.TEST_REDIS_URL };
      // Warm this server's credential cache: with Redis the CLI's announcement must clear it.
      if (env.REDIS_URL) expect((await usePolls(old.secret)).status).toBe(200);
      const rotated = await cli(['keys', 'rotate', old.id, '--grace', '0', '--json'], env);
      expect(rotated.code, rotated.stderr).toBe(0);
      const result = JSON.parse(rotated.stdout);
      expect(result).toMatchObject({
        name: 'From the CLI',
        status: 'active',
        reachedServers: Boolean(env.REDIS_URL),
        previous: { id: old.id, status: 'expired' },
      });
      expect(result.secret).toMatch(secretPattern);
      // Redis delivers the announcement asynchronously: it must arrive within a second.
      let answer = await usePolls(old.secret);
      for (let waited = 0; answer.status === 200 && waited < 1000; waited += 50) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        answer = await usePolls(old.secret);
      }
      expectError(answer, 401, 'expired_api_key');
      expect((await usePolls(result.secret)).status).toBe(200);

      const again = await cli(['keys', 'rotate', old.id], env);
      expect(again.code).toBe(1);
      expect(again.stderr).toContain('only an active key can be rotated');
      const unknown = await cli(['keys', 'rotate', 'key_01JAAAAAAAAAAAAAAAAAAAAAAA', '--json'], env);
      expect(unknown.code).toBe(1);
      expect(JSON.parse(unknown.stderr).error.code).toBe('not_found');
    },
  );
  it.runIf(usingPostgres && Boolean(process.env.TEST_REDIS_URL))(
    'revoke through the CLI with REDIS_URL tells the running server at once',
    async () => {
      const { apiKey } = await t.workspace('pro');
      const target = await createKey(apiKey, 'Revoked from the CLI');
      expect((await usePolls(target.secret)).status).toBe(200);
      const env = { DATABASE_URL: t.databaseUrl, REDIS_URL: process.env.TEST_REDIS_URL };
      const revoked = await cli(['keys', 'revoke', target.id, '--json'], env);
      expect(revoked.code, revoked.stderr).toBe(0);
      expect(JSON.parse(revoked.stdout)).toMatchObject({ id: target.id, status: 'revoked', reachedServers: true });
      let answer = await usePolls(target.secret);
      for (let waited = 0; answer.status === 200 && waited < 1000; waited += 50) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        answer = await usePolls(target.secret);
      }
      expectError(answer, 401, 'revoked_api_key');
    },
  );
  it.runIf(usingPostgres)('revokes anyway when REDIS_URL cannot be reached, with a warning', async () => {
    const { apiKey } = await t.workspace('pro');
    const target = await createKey(apiKey, 'Redis down');
    const env = { DATABASE_URL: t.databaseUrl, REDIS_URL: 'redis://127.0.0.1:1' };
    const revoked = await cli(['keys', 'revoke', target.id, '--json'], env);
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(revoked.stderr).toContain('warning: cannot reach Redis');
    expect(JSON.parse(revoked.stdout)).toMatchObject({ id: target.id, status: 'revoked', reachedServers: false });
    expectError(await usePolls(target.secret), 401, 'revoked_api_key');
  });
});
