import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../support/assertions.js';
import { issuedToken, oauthClient } from '../support/oauth.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { errorDetails, expectOk, expectStatus, type RouteKey, testClient } from '../support/test-client.js';
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
const api = testClient(() => t.api);

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
    const created = await api.request('POST /webhooks', {
      apiKey,
      body: { url: receiver.urlFor('crud'), events: ['vote.created', 'poll.closed'], description: 'CRM sync' },
    });
    expectStatus(created, 201);
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

    const list = await api.request('GET /webhooks', { apiKey });
    expectStatus(list, 200);
    expect(list.body.data.map((e) => e.id)).toEqual([id]);
    const read = await api.request('GET /webhooks/{id}', { params: { id }, apiKey });
    expect(Object.keys(read.body).sort()).toEqual(endpointFields);
    for (const res of [list, read]) expect(res.text).not.toContain(created.body.secret);

    // The secret is stored sealed: the database never holds it in the clear.
    const stored = await t.server.deps.db
      .selectFrom('webhook_endpoints')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirst();
    expect(JSON.stringify(stored)).not.toContain(created.body.secret.slice(6));

    const updated = await api.request('PATCH /webhooks/{id}', {
      params: { id },
      apiKey,
      body: { events: ['*', 'vote.created'], description: 'All of it' },
    });
    expect(updated.status, updated.text).toBe(200);
    expect(updated.body).toMatchObject({ events: ['*'], description: 'All of it', url: receiver.urlFor('crud') });

    const disabled = await api.request('PATCH /webhooks/{id}', {
      params: { id },
      apiKey,
      body: { status: 'disabled' },
    });
    expect(disabled.body).toMatchObject({ status: 'disabled', disabledReason: 'Disabled through the API' });
    expectError(
      await api.request('POST /webhooks/{id}/test', { params: { id }, apiKey }),
      409,
      'webhook_endpoint_disabled',
    );
    const enabled = await api.request('PATCH /webhooks/{id}', { params: { id }, apiKey, body: { status: 'enabled' } });
    expect(enabled.body).toMatchObject({ status: 'enabled', disabledReason: null, disabledAt: null });

    const deleted = await api.request('DELETE /webhooks/{id}', { params: { id }, apiKey });
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ id, deleted: true });
    expectError(await api.request('GET /webhooks/{id}', { params: { id }, apiKey }), 404, 'not_found');
    expectError(await api.request('DELETE /webhooks/{id}', { params: { id }, apiKey }), 404, 'not_found');
  });

  it("answers 404 for another workspace's endpoints and deliveries", async () => {
    const owner = await t.workspace('pro');
    const other = await t.workspace('pro');
    const endpoint = await createEndpoint(t, owner.apiKey, { url: receiver.urlFor('isolation') });
    const test = await api.request('POST /webhooks/{id}/test', { params: { id: endpoint.id }, apiKey: owner.apiKey });
    expectStatus(test, 202);
    const params = { id: endpoint.id, deliveryId: test.body.id };
    for (const route of [
      'GET /webhooks/{id}',
      'PATCH /webhooks/{id}',
      'DELETE /webhooks/{id}',
      'POST /webhooks/{id}/rotate-secret',
      'POST /webhooks/{id}/test',
      'GET /webhooks/{id}/deliveries',
      'GET /webhooks/{id}/deliveries/{deliveryId}',
      'POST /webhooks/{id}/deliveries/{deliveryId}/redeliver',
      'GET /webhooks/{id}/attempts',
    ] satisfies RouteKey[]) {
      // Unchecked: one loop over routes of different inputs (a route ignores the parameter it does not name).
      const res = await api.unchecked(route, {
        params,
        apiKey: other.apiKey,
        body: route.startsWith('PATCH') ? { description: 'mine now' } : undefined,
      });
      expectError(res, 404, 'not_found');
    }
    expect(expectOk(await api.request('GET /webhooks', { apiKey: other.apiKey })).data).toEqual([]);
  });

  it('refuses URLs that are not https or that resolve to private addresses, and changes nothing', async () => {
    // On PGlite its own in-memory copy (an undefined DATABASE_URL would mean PGlite on disk, migrated
    // afresh, in a folder close() removes); on PostgreSQL, t's database.
    const strict = await startTestServer(t.databaseUrl === 'memory://' ? {} : { DATABASE_URL: t.databaseUrl });
    try {
      const { apiKey } = await strict.workspace('pro');
      const strictApi = testClient(strict.api);
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
        const res = await strictApi.request('POST /webhooks', { apiKey, body: { url } });
        expectError(res, 422, 'webhook_url_not_allowed');
        expect(res.body.error.message, url).toMatch(message);
        // Only a loopback refusal names the setting: no setting allows a private address.
        if (/private/.test(String(message))) expect(res.body.error.message).not.toContain('ALLOW');
      }
      expectError(
        await strictApi.request('POST /webhooks', { apiKey, body: { url: 'not a url' } }),
        422,
        'validation_failed',
      );
      expect(expectOk(await strictApi.request('GET /webhooks', { apiKey })).data).toEqual([]);
    } finally {
      await strict.close();
    }
    // With WEBHOOK_ALLOW_LOOPBACK, loopback is allowed; private addresses still are not.
    const { apiKey } = await t.workspace('pro');
    expectError(
      await api.request('POST /webhooks', { apiKey, body: { url: 'http://10.1.2.3/hooks' } }),
      422,
      'webhook_url_not_allowed',
    );
    const endpoint = await createEndpoint(t, apiKey, { url: receiver.urlFor('loopback') });
    expectError(
      await api.request('PATCH /webhooks/{id}', {
        params: { id: endpoint.id },
        apiKey,
        body: { url: 'http://192.168.0.1/' },
      }),
      422,
      'webhook_url_not_allowed',
    );
    expect(expectOk(await api.request('GET /webhooks/{id}', { params: { id: endpoint.id }, apiKey })).url).toBe(
      receiver.urlFor('loopback'),
    );
  });

  it('validates the event filter and allows at most 20 endpoints per workspace', async () => {
    const { apiKey } = await t.workspace('pro');
    for (const events of [[], ['vote.deleted'], ['webhook.test'], 'vote.created']) {
      // Unchecked: event filters the contract refuses.
      const res = await api.unchecked('POST /webhooks', { apiKey, body: { url: receiver.urlFor('filter'), events } });
      expectError(res, 422, 'validation_failed');
      expect(Object.keys(errorDetails(res).fieldErrors).some((field) => field.startsWith('events'))).toBe(true);
    }
    for (let i = 0; i < 20; i++)
      await createEndpoint(t, apiKey, { url: receiver.urlFor(`many-${i}`), events: ['poll.deleted'] });
    const over = await api.request('POST /webhooks', { apiKey, body: { url: receiver.urlFor('one-too-many') } });
    expectError(over, 409, 'webhook_endpoint_limit');
    expect(over.body.error.details).toEqual({ limit: 20 });
  });

  it('needs webhooks:read to read and webhooks:write to change', async () => {
    const client = await oauthClient(t, 'webhooks:read polls:read');
    const endpoint = await createEndpoint(t, client.apiKey, { url: receiver.urlFor('scopes') });
    const { access_token: token } = await issuedToken(t, client, 'webhooks:read');
    const auth = { headers: { authorization: `Bearer ${token}` } };
    expect((await api.request('GET /webhooks', auth)).status).toBe(200);
    expect((await api.request('GET /webhooks/{id}/attempts', { params: { id: endpoint.id }, ...auth })).status).toBe(
      200,
    );
    const refused = await api.request('POST /webhooks', { ...auth, body: { url: receiver.urlFor('scopes') } });
    expectError(refused, 403, 'insufficient_scope');
    expect(refused.body.error.details).toMatchObject({ requiredScope: 'webhooks:write' });
    expectError(
      await api.request('POST /webhooks/{id}/test', { params: { id: endpoint.id }, ...auth }),
      403,
      'insufficient_scope',
    );
  });
});
