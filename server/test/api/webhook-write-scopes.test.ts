import type { Scope } from '@pollkit/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../support/assertions.js';
import { sampleContent } from '../support/decks.js';
import type { HttpResponse } from '../support/http.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { expectOk, expectStatus, testClient } from '../support/test-client.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';
import { createEndpoint, deliveriesOf, waitForDelivery } from '../support/webhooks.js';

/**
 * `webhooks:write` may send to a URL only data the credential may read (docs/authentication.md,
 * "Scopes"): moving an endpoint needs the scopes of what it has subscribed to and still has queued,
 * not only of its new `events`; rotating its secret (with which events can be forged) needs those
 * of its events; redelivering needs the delivery's `payloadScope`. Over real HTTP, with a loopback
 * receiver for the customer and another standing for the attacker, which must receive nothing.
 */

let t: TestServer;
const api = testClient(() => t.api);
let customer: WebhookReceiver;
let customerNewHome: WebhookReceiver;
let attacker: WebhookReceiver;

beforeAll(async () => {
  [customer, customerNewHome, attacker] = await Promise.all([
    WebhookReceiver.start(),
    WebhookReceiver.start(),
    WebhookReceiver.start(),
  ]);
  t = await startTestServer({
    WEBHOOK_ALLOW_HTTP: 'true',
    WEBHOOK_ALLOW_LOOPBACK: 'true',
    // A failed attempt waits a minute for its retry: a delivery stays queued for the whole test.
    WEBHOOK_RETRY_SCHEDULE_MS: '60000,60000',
    WEBHOOK_POLL_INTERVAL_MS: '50',
  });
});
afterAll(async () => {
  await t?.close();
  await Promise.all([customer?.close(), customerNewHome?.close(), attacker?.close()]);
});

/** A key of the workspace holding only `keyScopes`, made through the API. */
async function keyWith(apiKey: string, keyScopes: Scope[]): Promise<string> {
  const res = await api.request('POST /keys', { apiKey, body: { name: keyScopes.join(' '), scopes: keyScopes } });
  expectStatus(res, 201);
  return res.body.secret;
}

/** A published poll of the workspace with one vote by `voterId`: a `vote.created` for its endpoints. */
async function recordVote(apiKey: string, voterId: string): Promise<void> {
  const poll = await api.request('POST /polls', { apiKey, body: { title: 'Scoped', content: sampleContent() } });
  expectStatus(poll, 201);
  const published = await api.request('PATCH /polls/{id}', {
    params: { id: poll.body.id },
    apiKey,
    body: { publish: true },
  });
  expectStatus(published, 200);
  const vote = await api.request('POST /polls/{id}/votes', {
    params: { id: poll.body.id },
    apiKey,
    body: { voterId, slideId: 'lunch', optionIds: ['pizza'] },
  });
  expectStatus(vote, 201);
}

/** The endpoint's only delivery of `type`, once it has had `attempts` attempts. */
async function deliveryAfter(apiKey: string, endpointId: string, type: string, attempts: number) {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const found = (await deliveriesOf(t, apiKey, endpointId)).filter((d) => d.eventType === type);
    expect(found.length).toBeLessThanOrEqual(1);
    if (found[0] && found[0].attempts >= attempts) return found[0];
    if (Date.now() > deadline)
      throw new Error(`no ${type} delivery with ${attempts} attempts: ${JSON.stringify(found)}`);
    await new Promise((resolve) => setTimeout(resolve, 30));
  }
}

const getEndpoint = (apiKey: string, id: string) => api.request('GET /webhooks/{id}', { params: { id }, apiKey });
const patch = (apiKey: string, id: string, body: Record<string, unknown>) =>
  api.request('PATCH /webhooks/{id}', { params: { id }, apiKey, body });
const rotate = (apiKey: string, id: string) =>
  api.request('POST /webhooks/{id}/rotate-secret', { params: { id }, apiKey });
const redeliver = (apiKey: string, id: string, deliveryId: string) =>
  api.request('POST /webhooks/{id}/deliveries/{deliveryId}/redeliver', { params: { id, deliveryId }, apiKey });

function expectMissing(res: HttpResponse, missing: string[]): void {
  expectError(res, 403, 'insufficient_scope');
  expect(res.body.error.details).toEqual({ requiredScope: missing[0], missingScopes: missing });
}

describe('moving an endpoint to another URL', () => {
  it('refuses the reported attack (url with narrowed events), then a redelivery to it; the endpoint is unchanged', async () => {
    const { apiKey } = await t.workspace('pro');
    const endpoint = await createEndpoint(t, apiKey, { url: customer.urlFor('votes'), events: ['vote.created'] });
    customer.secrets.push(endpoint.secret);
    await recordVote(apiKey, 'voter-attack-1');
    const delivered = await deliveryAfter(apiKey, endpoint.id, 'vote.created', 1);
    await waitForDelivery(t, apiKey, endpoint.id, delivered.id, 'succeeded');
    const narrow = await keyWith(apiKey, ['webhooks:write', 'sessions:read']);

    expectMissing(await patch(narrow, endpoint.id, { url: attacker.urlFor('steal'), events: ['session.created'] }), [
      'responses:read',
    ]);
    expectMissing(await patch(narrow, endpoint.id, { url: attacker.urlFor('steal') }), ['responses:read']);
    const now = await getEndpoint(apiKey, endpoint.id);
    expect(now.body).toMatchObject({ url: customer.urlFor('votes'), events: ['vote.created'] });
    // Nor does the key send the past vote again (to whatever URL the endpoint has).
    expectMissing(await redeliver(narrow, endpoint.id, delivered.id), ['responses:read']);
    const after = await waitForDelivery(t, apiKey, endpoint.id, delivered.id, 'succeeded');
    expect(after.attempts).toBe(1);
    expect(customer.received.filter((d) => d.body.includes('voter-attack-1'))).toHaveLength(1);
    expect(attacker.received).toEqual([]);
  });

  it('refuses a new URL while a narrowed endpoint still has queued deliveries of the old events', async () => {
    const { apiKey } = await t.workspace('pro');
    const endpoint = await createEndpoint(t, apiKey, { url: customer.urlFor('queued'), events: ['vote.created'] });
    const previous = customer.respond;
    customer.respond = (delivery, count) =>
      delivery.body.includes('voter-queued-2') ? 503 : previous(delivery, count);
    try {
      await recordVote(apiKey, 'voter-queued-2');
      // The first attempt failed: the vote waits a minute for its retry, to whatever URL the endpoint has then.
      const queued = await deliveryAfter(apiKey, endpoint.id, 'vote.created', 1);
      expect(queued.status).toBe('pending');
      const narrow = await keyWith(apiKey, ['webhooks:write', 'sessions:read']);
      // Narrowing the filter alone sends nothing new anywhere: allowed.
      const narrowed = await patch(narrow, endpoint.id, { events: ['session.created'] });
      expectStatus(narrowed, 200);
      // But the queued vote would follow a new URL.
      expectMissing(await patch(narrow, endpoint.id, { url: attacker.urlFor('steal-queued') }), ['responses:read']);
      expect((await getEndpoint(apiKey, endpoint.id)).body).toMatchObject({
        url: customer.urlFor('queued'),
        events: ['session.created'],
        stats: { pendingDeliveries: 1 },
      });
    } finally {
      customer.respond = previous;
    }
    expect(attacker.received).toEqual([]);
  });

  it('lets a key holding the scopes of the old events, the new ones and the queue move it', async () => {
    const { apiKey } = await t.workspace('pro');
    const endpoint = await createEndpoint(t, apiKey, { url: customer.urlFor('moving'), events: ['vote.created'] });
    const previous = customer.respond;
    customer.respond = (delivery, count) =>
      delivery.body.includes('voter-moving-3') ? 503 : previous(delivery, count);
    try {
      await recordVote(apiKey, 'voter-moving-3');
      const queued = await deliveryAfter(apiKey, endpoint.id, 'vote.created', 1);
      // The old events' scope alone is not enough for new events of another scope, nor theirs alone.
      const votesOnly = await keyWith(apiKey, ['webhooks:write', 'responses:read']);
      const sessionsOnly = await keyWith(apiKey, ['webhooks:write', 'sessions:read']);
      const target = { url: customerNewHome.urlFor('moved'), events: ['session.created'] };
      expectMissing(await patch(votesOnly, endpoint.id, target), ['sessions:read']);
      expectMissing(await patch(sessionsOnly, endpoint.id, target), ['responses:read']);
      expect((await getEndpoint(apiKey, endpoint.id)).body).toMatchObject({
        url: customer.urlFor('moving'),
        events: ['vote.created'],
      });

      const both = await keyWith(apiKey, ['webhooks:write', 'responses:read', 'sessions:read']);
      const moved = await patch(both, endpoint.id, target);
      expectStatus(moved, 200);
      expect(moved.body).toMatchObject(target);
      // The queued vote, redelivered, goes where the endpoint points now.
      customerNewHome.secrets.push(endpoint.secret);
      const sent = await redeliver(both, endpoint.id, queued.id);
      expectStatus(sent, 202);
      await waitForDelivery(t, apiKey, endpoint.id, queued.id, 'succeeded');
      const arrived = customerNewHome.received.filter((d) => d.body.includes('voter-moving-3'));
      expect(arrived).toHaveLength(1);
      expect(arrived[0]?.verified).toBe(true);
    } finally {
      customer.respond = previous;
    }
    expect(attacker.received).toEqual([]);
  });
});

describe('rotating the signing secret', () => {
  it('is refused to a key without the scopes of the endpoint’s events, and allowed to one holding them', async () => {
    const { apiKey } = await t.workspace('pro');
    const votes = await createEndpoint(t, apiKey, { url: customer.urlFor('rotate-votes'), events: ['vote.created'] });
    const everything = await createEndpoint(t, apiKey, { url: customer.urlFor('rotate-all'), events: ['*'] });
    const narrow = await keyWith(apiKey, ['webhooks:write', 'sessions:read']);
    const votesKey = await keyWith(apiKey, ['webhooks:write', 'responses:read']);

    const refused = await rotate(narrow, votes.id);
    expectMissing(refused, ['responses:read']);
    expect(refused.text).not.toContain('whsec_');
    expectMissing(await rotate(narrow, everything.id), ['polls:read', 'responses:read']);
    expectMissing(await rotate(votesKey, everything.id), ['polls:read', 'sessions:read']);
    // Nothing rotated: no previous secret signs alongside.
    for (const id of [votes.id, everything.id]) {
      expect(expectOk(await getEndpoint(apiKey, id)).previousSecretExpiresAt).toBeNull();
    }

    const rotated = await rotate(votesKey, votes.id);
    expectStatus(rotated, 200);
    expect(expectOk(rotated).secret).toMatch(/^whsec_/);
    expect(expectOk(rotated).secret).not.toBe(votes.secret);
    const allKey = await keyWith(apiKey, ['webhooks:write', 'polls:read', 'responses:read', 'sessions:read']);
    const rotatedAll = await rotate(allKey, everything.id);
    expectStatus(rotatedAll, 200);
    expect(expectOk(rotatedAll).secret).toMatch(/^whsec_/);
    expect(expectOk(rotatedAll).previousSecretExpiresAt).not.toBeNull();
  });
});

describe('redelivering', () => {
  it('needs the delivery’s payloadScope (none for webhook.test)', async () => {
    const { apiKey } = await t.workspace('pro');
    const endpoint = await createEndpoint(t, apiKey, { url: customer.urlFor('redeliver'), events: ['vote.created'] });
    customer.secrets.push(endpoint.secret);
    await recordVote(apiKey, 'voter-redeliver-4');
    const vote = await deliveryAfter(apiKey, endpoint.id, 'vote.created', 1);
    await waitForDelivery(t, apiKey, endpoint.id, vote.id, 'succeeded');
    const test = await api.request('POST /webhooks/{id}/test', { params: { id: endpoint.id }, apiKey });
    expectStatus(test, 202);
    await waitForDelivery(t, apiKey, endpoint.id, test.body.id, 'succeeded');
    const writeOnly = await keyWith(apiKey, ['webhooks:write']);
    const withResponses = await keyWith(apiKey, ['webhooks:write', 'responses:read']);
    const received = () => customer.received.filter((d) => d.body.includes('voter-redeliver-4')).length;
    expect(received()).toBe(1);

    expectMissing(await redeliver(writeOnly, endpoint.id, vote.id), ['responses:read']);
    const untouched = await waitForDelivery(t, apiKey, endpoint.id, vote.id, 'succeeded');
    expect(untouched.attempts).toBe(1);

    const sentTest = await redeliver(writeOnly, endpoint.id, test.body.id);
    expectStatus(sentTest, 202);
    const sent = await redeliver(withResponses, endpoint.id, vote.id);
    expectStatus(sent, 202);
    expect(sent.body).toMatchObject({ id: vote.id, status: 'pending', payloadScope: 'responses:read' });
    await customer.waitFor(() => received() === 2, 20_000, 'the redelivered vote');
    expect((await waitForDelivery(t, apiKey, endpoint.id, vote.id, 'succeeded')).attempts).toBe(2);
    expect((await waitForDelivery(t, apiKey, endpoint.id, test.body.id, 'succeeded')).attempts).toBe(2);
    expect(attacker.received).toEqual([]);
  });
});

describe('the attacker’s receiver', () => {
  it('received nothing in this file', () => {
    expect(attacker.received).toEqual([]);
  });
});
