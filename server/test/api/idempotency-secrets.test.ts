import { readFileSync } from 'node:fs';
import { contract, operationId, type RouteDefinition } from '@pollkit/contracts';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SECRET_BEARING_ROUTES } from '../../src/api/idempotency.js';
import { createApiKey } from '../../src/modules/api-keys/api-keys.service.js';
import { expectError } from '../support/assertions.js';
import { sampleContent } from '../support/decks.js';
import { type LooseJson, rawCall } from '../support/http.js';
import { UNLIMITED } from '../support/limits.js';
import { issuedToken, oauthClient } from '../support/oauth.js';
import { pollPublisher } from '../support/polls.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { expectOk, expectStatus, testClient } from '../support/test-client.js';

/**
 * Idempotency belongs to a credential and keeps no secret in clear (issue 35, point 2). A reply that
 * carries a secret is replayed whole to the credential that sent the request and to no other; the
 * same key from another credential is a request of its own. After every secret-bearing request has
 * been sent with an `Idempotency-Key`, no column of the database holds one of those secrets, nor a
 * secret's prefix (but `api_keys.prefix`, which is the display prefix and never the secret).
 */

let t: TestServer;
const api = testClient(() => t.api);
let apiKey: string;
let workspaceId: string;

beforeAll(async () => {
  t = await startTestServer({
    ...UNLIMITED,
    WEBHOOK_ALLOW_HTTP: 'true',
    WEBHOOK_ALLOW_LOOPBACK: 'true',
  });
  ({ apiKey, id: workspaceId } = await t.workspace('pro'));
});
afterAll(async () => {
  await t?.close();
});

const publishedPoll = pollPublisher(() => ({ api: t.api, apiKey, title: 'Secrets', content: sampleContent() }));

/** A POST with an Idempotency-Key, to whichever route: the replies of several, read where each holds its secret. */
function post(path: string, key: string, idempotencyKey: string, body: unknown = {}) {
  return rawCall<LooseJson>('POST', `${t.api}${path}`, {
    apiKey: key,
    body,
    headers: { 'idempotency-key': idempotencyKey },
  });
}

/** Every text, JSON or array column of the database, as `[table.column, text]` rows. */
async function everyStoredText(): Promise<Array<[string, string]>> {
  const db = t.server.deps.db;
  const columns = await sql<{ table_name: string; column_name: string }>`
    select table_name, column_name from information_schema.columns
    where table_schema = current_schema() and table_name not like 'kysely_%'
      and data_type in ('text', 'json', 'jsonb', 'character varying', 'ARRAY')
    order by table_name, column_name`.execute(db);
  const found: Array<[string, string]> = [];
  for (const { table_name, column_name } of columns.rows) {
    const rows = await sql<{
      v: string | null;
    }>`select ${sql.ref(column_name)}::text as v from ${sql.table(table_name)}`.execute(db);
    for (const row of rows.rows) if (row.v !== null) found.push([`${table_name}.${column_name}`, row.v]);
  }
  return found;
}

describe('Idempotency-Key per credential', () => {
  it('never replays one credential’s reply to another: a narrower key’s same request runs on its own', async () => {
    const { secret: manager } = await createApiKey(t.server.deps.db, {
      workspaceId,
      name: 'keys only',
      scopes: ['keys:manage'],
    });
    const created = await post('/keys', apiKey, 'create-ci-key', { name: 'CI' });
    expect(created.status, created.text).toBe(201);
    const fullSecret = created.body.secret as string;

    // The same request with the same key from the keys:manage-only credential: its own 403 (asking
    // for every scope), never the full key's reply.
    const stolen = await post('/keys', manager, 'create-ci-key', { name: 'CI' });
    expectError(stolen, 403, 'insufficient_scope');
    expect(stolen.headers.get('idempotent-replayed')).toBeNull();
    expect(stolen.text).not.toContain(fullSecret);
    // And again: its own outcome is what it replays.
    const again = await post('/keys', manager, 'create-ci-key', { name: 'CI' });
    expectError(again, 403, 'insufficient_scope');
    expect(again.headers.get('idempotent-replayed')).toBe('true');

    // A request a third credential may make, under the key the full one used: a new key of its own.
    const { secret: another } = await createApiKey(t.server.deps.db, {
      workspaceId,
      name: 'keys only, too',
      scopes: ['keys:manage'],
    });
    const narrow = await post('/keys', another, 'create-ci-key', { name: 'CI', scopes: ['keys:manage'] });
    expect(narrow.status, narrow.text).toBe(201);
    expect(narrow.body.secret).not.toBe(fullSecret);

    // The credential that sent it replays its reply whole, secret included.
    const replay = await post('/keys', apiKey, 'create-ci-key', { name: 'CI' });
    expect([replay.status, replay.headers.get('idempotent-replayed')]).toEqual([201, 'true']);
    expect(replay.text).toBe(created.text);
    const keys = await api.request('GET /keys', { apiKey });
    expectStatus(keys, 200);
    expect(keys.body.data.filter((key: { name: string }) => key.name === 'CI')).toHaveLength(2);
  });

  it('shares keys between the tokens of one OAuth client with the same scopes, not with a narrower token', async () => {
    const client = await oauthClient(t, 'keys:manage polls:read polls:write', 'idempotency client');
    const wide = (await issuedToken(t, client)).access_token;
    const wideAgain = (await issuedToken(t, client)).access_token;
    const narrow = (await issuedToken(t, client, 'keys:manage')).access_token;
    const body = { name: 'Made by OAuth', scopes: ['polls:read'] };
    const first = await post('/keys', wide, 'oauth-key', body);
    expect(first.status, first.text).toBe(201);
    // A fresh token of the same client and scopes: the retry a client makes after its token expired.
    const retried = await post('/keys', wideAgain, 'oauth-key', body);
    expect([retried.headers.get('idempotent-replayed'), retried.text]).toEqual(['true', first.text]);
    // A narrower token of that client: refused on its own (it lacks polls:read), never the secret.
    const other = await post('/keys', narrow, 'oauth-key', body);
    expectError(other, 403, 'insufficient_scope');
    expect(other.text).not.toContain(first.body.secret);
  });

  it('keeps a host token’s keys to that token: the next token of the session replays nothing of the one before', async () => {
    const poll = await publishedPoll();
    const session = await post('/sessions', apiKey, 'host-session', { pollId: poll.id });
    expect(session.status, session.text).toBe(201);
    const rotate = (hostToken: string) =>
      api.request('POST /sessions/{id}/host-token', {
        params: { id: session.body.id },
        body: {},
        headers: { 'x-host-token': hostToken, 'idempotency-key': 'rotate-me' },
      });
    const first = await rotate(session.body.hostToken);
    expectStatus(first, 200);
    const next = expectOk(first).hostToken as string;
    // The new token, with the same key: a request of its own (a third token), never the reply that
    // made it.
    const second = await rotate(next);
    expectStatus(second, 200);
    expect(second.headers.get('idempotent-replayed')).toBeNull();
    expect(expectOk(second).hostToken).not.toBe(next);
    // The retired token cannot retry its own rotation: it is refused, as docs/idempotency.md says.
    expectError(await rotate(session.body.hostToken), 401, 'invalid_host_token');
  });

  it('stores no secret in clear anywhere, after every secret-bearing request sent with a key, and replays each whole', async () => {
    const poll = await publishedPoll();
    const secrets: string[] = [];
    const sent: Array<[string, unknown]> = [];
    const once = async (path: string, body: unknown, pick: (reply: LooseJson) => string) => {
      const key = `secret-${sent.length}`;
      const first = await post(path, apiKey, key, body);
      expect(first.status, `${path}: ${first.text}`).toBeLessThan(300);
      secrets.push(pick(first.body));
      sent.push([path, body]);
      const replay = await post(path, apiKey, key, body);
      expect([replay.headers.get('idempotent-replayed'), replay.text], path).toEqual(['true', first.text]);
    };
    await once('/keys', { name: 'scanned' }, (reply) => reply.secret);
    const keyId = expectOk(await api.request('GET /keys', { apiKey })).data.find((key) => key.name === 'scanned')!.id;
    await once(`/keys/${keyId}/rotate`, {}, (reply) => reply.key?.secret ?? reply.secret);
    await once('/webhooks', { url: 'http://127.0.0.1:9/hooks', events: ['poll.created'] }, (reply) => reply.secret);
    const endpointId = expectOk(await api.request('GET /webhooks', { apiKey })).data[0]!.id;
    await once(`/webhooks/${endpointId}/rotate-secret`, {}, (reply) => reply.secret);
    await once('/sessions', { pollId: poll.id }, (reply) => reply.hostToken);
    const sessionId = expectOk(await api.request('GET /sessions', { apiKey })).data[0]!.id;
    await once(`/sessions/${sessionId}/host-token`, {}, (reply) => reply.hostToken);
    // A participant's join (its token) and answers, with keys too.
    const session = expectOk(await api.request('GET /sessions/{id}', { params: { id: sessionId }, apiKey }));
    const pin = session.pin!;
    await api.request('POST /sessions/{id}/control', { params: { id: sessionId }, apiKey, body: { action: 'start' } });
    const joined = await api.request('POST /live/{pin}/join', {
      params: { pin },
      body: { name: 'Scanned' },
      headers: { 'idempotency-key': 'join-once' },
    });
    expectStatus(joined, 200);
    secrets.push(joined.body.participantToken);
    const answered = await api.request('POST /live/{pin}/answers', {
      params: { pin },
      body: { slideId: 'lunch', optionIds: ['pizza'] },
      headers: { 'idempotency-key': 'answer-once', 'x-participant-token': joined.body.participantToken },
    });
    expectStatus(answered, 201);

    expect(secrets.map((secret) => secret.slice(0, 4))).toEqual([
      'pk_l',
      'pk_l',
      'whse',
      'whse',
      'pht_',
      'pht_',
      'ptk_',
    ]);
    const stored = await everyStoredText();
    expect(stored.filter(([column]) => column === 'idempotency_keys.response_body').length).toBeGreaterThanOrEqual(7);
    for (const secret of secrets) {
      const holding = stored.filter(([, text]) => text.includes(secret) || text.includes(secret.slice(8)));
      expect(
        holding.map(([column]) => column),
        `${secret.slice(0, 8)}…`,
      ).toEqual([]);
    }
    for (const prefix of ['pk_live_', 'pht_', 'ptk_', 'whsec_']) {
      const holding = stored.filter(([column, text]) => column !== 'api_keys.prefix' && text.includes(prefix));
      expect(
        holding.map(([column]) => column),
        prefix,
      ).toEqual([]);
    }
  });

  it('seals the reply of every route whose answer names a secret or a token (the list cannot fall behind the contract)', () => {
    const document = JSON.parse(readFileSync(new URL('../../../docs/openapi.json', import.meta.url), 'utf8'));
    const schemas = document.components.schemas as LooseJson;
    const namesIn = (schema: LooseJson | undefined, seen = new Set<string>()): string[] => {
      if (!schema || typeof schema !== 'object') return [];
      if (schema.$ref) {
        const name = String(schema.$ref).split('/').pop() as string;
        if (seen.has(name)) return [];
        seen.add(name);
        return namesIn(schemas[name], seen);
      }
      const nested = [...(schema.allOf ?? []), ...(schema.anyOf ?? []), ...(schema.oneOf ?? []), schema.items];
      return [
        ...Object.keys(schema.properties ?? {}),
        ...Object.values(schema.properties ?? {}).flatMap((property) => namesIn(property as LooseJson, seen)),
        ...nested.flatMap((part) => namesIn(part, seen)),
      ];
    };
    const byOperation = new Map<string, RouteDefinition>();
    for (const [group, routes] of Object.entries(contract)) {
      for (const [name, route] of Object.entries(routes)) byOperation.set(operationId(group, name), route);
    }
    const carrying: string[] = [];
    for (const operations of Object.values(document.paths) as LooseJson[]) {
      for (const operation of Object.values(operations)) {
        const route = byOperation.get(operation.operationId);
        if (route?.method !== 'POST') continue;
        const replies = Object.entries<LooseJson>(operation.responses ?? {}).filter(([status]) =>
          status.startsWith('2'),
        );
        const names = replies.flatMap(([, reply]) => namesIn(reply.content?.['application/json']?.schema));
        if (names.some((name) => /secret$|token$/i.test(name))) carrying.push(operation.operationId);
      }
    }
    // A join is the one exception: it has no participant yet, so its key is kept for nobody (nothing stored).
    expect(carrying.sort()).toEqual(
      [
        ...[...SECRET_BEARING_ROUTES].map((route) => [...byOperation].find(([, r]) => r === route)?.[0]),
        'liveJoin',
      ].sort(),
    );
  });
});
