import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../support/assertions.js';
import { call } from '../support/http.js';
import { issuedToken, oauthClient } from '../support/oauth.js';
import { startTestServer, type TestServer } from '../support/server.js';
import type { WebhookReceiver } from '../support/webhook-receiver.js';
import { createEndpoint } from '../support/webhooks.js';
import { closeWebhookServer, startWebhookServer } from '../support/webhooks-server.js';

/**
 * Webhooks over real HTTP, the endpoints API: create (the secret shown once), list, read, update,
 * delete; other workspaces' endpoints; URLs refused (not https, private addresses); the event
 * filter and the per-workspace cap; the scopes that read and change them. Events and deliveries:
 * webhooks.events.test.ts, webhooks.delivery.test.ts. Runs on PGlite and, in CI's second leg, on
 * PostgreSQL.
 */

let t: TestServer;
let receiver: WebhookReceiver;

beforeAll(async () => {
  ({ t, receiver } = await startWebhookServer());
});
afterAll(() => closeWebhookServer({ t, receiver }));

/** Endpoint fields the API shows (never the secret, except on create and rotate). */
const endpointFields = [
  'createdAt',
  'description',
  'disabledAt',
  'disabledReason',
  'events',
  'id',
  'previousSecretExpiresAt',
  'stats',
  'status',
  'updatedAt',
  'url',
];

describe('the endpoints API', () => {
  it('creates an endpoint whose secret is shown once, then lists, reads, updates and deletes it', async () => {
    const { apiKey } = await t.workspace('pro');
    const created = await call('POST', `${t.api}/webhooks`, {
      apiKey,
      body: { url: receiver.urlFor('crud'), events: ['vote.created', 'poll.closed'], description: 'CRM sync' },
    });
    expect(created.status, created.text).toBe(201);
    expect(Object.keys(created.body).sort()).toEqual([...endpointFields, 'secret'].sort());
    expect(created.body.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(created.body).toMatchObject({
      url: receiver.urlFor('crud'),
      events: ['vote.created', 'poll.closed'],
      description: 'CRM sync',
      status: 'enabled',
      disabledReason: null,
      stats: { pendingDeliveries: 0, succeededDeliveries: 0, failedDeliveries: 0, attempts: 0, failedAttempts: 0 },
    });
    const id = created.body.id;
    expect(id).toMatch(/^whk_[0-9A-HJKMNP-TV-Z]{26}$/);

    const list = await call('GET', `${t.api}/webhooks`, { apiKey });
    expect(list.status).toBe(200);
    expect(list.body.data.map((e: { id: string }) => e.id)).toEqual([id]);
    const read = await call('GET', `${t.api}/webhooks/${id}`, { apiKey });
    expect(Object.keys(read.body).sort()).toEqual(endpointFields);
    for (const res of [list, read]) expect(res.text).not.toContain(created.body.secret);

    // The secret is stored sealed: the database never holds it in the clear.
    const stored = await t.server.deps.db
      .selectFrom('webhook_endpoints')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirst();
    expect(JSON.stringify(stored)).not.toContain(created.body.secret.slice(6));

    const updated = await call('PATCH', `${t.api}/webhooks/${id}`, {
      apiKey,
      body: { events: ['*', 'vote.created'], description: 'All of it' },
    });
    expect(updated.status, updated.text).toBe(200);
    expect(updated.body).toMatchObject({ events: ['*'], description: 'All of it', url: receiver.urlFor('crud') });

    const disabled = await call('PATCH', `${t.api}/webhooks/${id}`, { apiKey, body: { status: 'disabled' } });
    expect(disabled.body).toMatchObject({ status: 'disabled', disabledReason: 'Disabled through the API' });
    expectError(await call('POST', `${t.api}/webhooks/${id}/test`, { apiKey }), 409, 'webhook_endpoint_disabled');
    const enabled = await call('PATCH', `${t.api}/webhooks/${id}`, { apiKey, body: { status: 'enabled' } });
    expect(enabled.body).toMatchObject({ status: 'enabled', disabledReason: null, disabledAt: null });

    const deleted = await call('DELETE', `${t.api}/webhooks/${id}`, { apiKey });
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ id, deleted: true });
    expectError(await call('GET', `${t.api}/webhooks/${id}`, { apiKey }), 404, 'not_found');
    expectError(await call('DELETE', `${t.api}/webhooks/${id}`, { apiKey }), 404, 'not_found');
  });

  it("answers 404 for another workspace's endpoints and deliveries", async () => {
    const owner = await t.workspace('pro');
    const other = await t.workspace('pro');
    const endpoint = await createEndpoint(t, owner.apiKey, { url: receiver.urlFor('isolation') });
    const test = await call('POST', `${t.api}/webhooks/${endpoint.id}/test`, { apiKey: owner.apiKey });
    expect(test.status, test.text).toBe(202);
    for (const [method, path] of [
      ['GET', `/webhooks/${endpoint.id}`],
      ['PATCH', `/webhooks/${endpoint.id}`],
      ['DELETE', `/webhooks/${endpoint.id}`],
      ['POST', `/webhooks/${endpoint.id}/rotate-secret`],
      ['POST', `/webhooks/${endpoint.id}/test`],
      ['GET', `/webhooks/${endpoint.id}/deliveries`],
      ['GET', `/webhooks/${endpoint.id}/deliveries/${test.body.id}`],
      ['POST', `/webhooks/${endpoint.id}/deliveries/${test.body.id}/redeliver`],
      ['GET', `/webhooks/${endpoint.id}/attempts`],
    ] as const) {
      const res = await call(method, `${t.api}${path}`, {
        apiKey: other.apiKey,
        body: method === 'PATCH' ? { description: 'mine now' } : undefined,
      });
      expectError(res, 404, 'not_found');
    }
    expect((await call('GET', `${t.api}/webhooks`, { apiKey: other.apiKey })).body.data).toEqual([]);
  });

  it('refuses URLs that are not https or that resolve to private addresses, and changes nothing', async () => {
    // On PGlite its own in-memory copy (an undefined DATABASE_URL would mean PGlite on disk, migrated
    // afresh, in a folder close() removes); on PostgreSQL, t's database.
    const strict = await startTestServer(t.databaseUrl === 'memory://' ? {} : { DATABASE_URL: t.databaseUrl });
    try {
      const { apiKey } = await strict.workspace('pro');
      for (const [url, message] of [
        ['http://example.com/hooks', /must be https/],
        ['ftp://example.com/hooks', /must be https/],
        ['https://user:pass@example.com/hooks', /credentials/],
        [
          'https://127.0.0.1/hooks',
          /loopback address; the server allows loopback addresses only with WEBHOOK_ALLOW_LOOPBACK=true/,
        ],
        [
          'https://localhost:8443/hooks',
          /loopback address; the server allows loopback addresses only with WEBHOOK_ALLOW_LOOPBACK=true/,
        ],
        [
          'https://[::1]/hooks',
          /loopback address; the server allows loopback addresses only with WEBHOOK_ALLOW_LOOPBACK=true/,
        ],
        ['https://10.0.0.8/hooks', /private/],
        ['https://192.168.1.20/hooks', /private/],
        ['https://169.254.169.254/latest/meta-data', /private, link-local/],
        ['https://[fd00::1]/hooks', /private/],
        ['https://[::ffff:10.0.0.1]/hooks', /private/],
      ] as const) {
        const res = await call('POST', `${strict.api}/webhooks`, { apiKey, body: { url } });
        expectError(res, 422, 'webhook_url_not_allowed');
        expect(res.body.error.message, url).toMatch(message);
        // Only a loopback refusal names the setting: no setting allows a private address.
        if (/private/.test(String(message))) expect(res.body.error.message).not.toContain('ALLOW');
      }
      expectError(
        await call('POST', `${strict.api}/webhooks`, { apiKey, body: { url: 'not a url' } }),
        422,
        'validation_failed',
      );
      expect((await call('GET', `${strict.api}/webhooks`, { apiKey })).body.data).toEqual([]);
    } finally {
      await strict.close();
    }
    // With WEBHOOK_ALLOW_LOOPBACK, loopback is allowed; private addresses still are not.
    const { apiKey } = await t.workspace('pro');
    expectError(
      await call('POST', `${t.api}/webhooks`, { apiKey, body: { url: 'http://10.1.2.3/hooks' } }),
      422,
      'webhook_url_not_allowed',
    );
    const endpoint = await createEndpoint(t, apiKey, { url: receiver.urlFor('loopback') });
    expectError(
      await call('PATCH', `${t.api}/webhooks/${endpoint.id}`, { apiKey, body: { url: 'http://192.168.0.1/' } }),
      422,
      'webhook_url_not_allowed',
    );
    expect((await call('GET', `${t.api}/webhooks/${endpoint.id}`, { apiKey })).body.url).toBe(
      receiver.urlFor('loopback'),
    );
  });

  it('validates the event filter and allows at most 20 endpoints per workspace', async () => {
    const { apiKey } = await t.workspace('pro');
    for (const events of [[], ['vote.deleted'], ['webhook.test'], 'vote.created']) {
      const res = await call('POST', `${t.api}/webhooks`, { apiKey, body: { url: receiver.urlFor('filter'), events } });
      expectError(res, 422, 'validation_failed');
      expect(Object.keys(res.body.error.details.fieldErrors).some((field) => field.startsWith('events'))).toBe(true);
    }
    for (let i = 0; i < 20; i++)
      await createEndpoint(t, apiKey, { url: receiver.urlFor(`many-${i}`), events: ['poll.deleted'] });
    const over = await call('POST', `${t.api}/webhooks`, { apiKey, body: { url: receiver.urlFor('one-too-many') } });
    expectError(over, 409, 'webhook_endpoint_limit');
    expect(over.body.error.details).toEqual({ limit: 20 });
  });

  it('needs webhooks:read to read and webhooks:write to change', async () => {
    const client = await oauthClient(t, 'webhooks:read polls:read');
    const endpoint = await createEndpoint(t, client.apiKey, { url: receiver.urlFor('scopes') });
    const { access_token: token } = await issuedToken(t, client, 'webhooks:read');
    const auth = { headers: { authorization: `Bearer ${token}` } };
    expect((await call('GET', `${t.api}/webhooks`, auth)).status).toBe(200);
    expect((await call('GET', `${t.api}/webhooks/${endpoint.id}/attempts`, auth)).status).toBe(200);
    const refused = await call('POST', `${t.api}/webhooks`, { ...auth, body: { url: receiver.urlFor('scopes') } });
    expectError(refused, 403, 'insufficient_scope');
    expect(refused.body.error.details).toMatchObject({ requiredScope: 'webhooks:write' });
    expectError(await call('POST', `${t.api}/webhooks/${endpoint.id}/test`, auth), 403, 'insufficient_scope');
  });
});
