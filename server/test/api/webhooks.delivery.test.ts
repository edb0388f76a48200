import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../support/assertions.js';
import { sampleContent } from '../support/polls.js';
import type { TestServer } from '../support/server.js';
import { expectOk, expectStatus, testClient } from '../support/test-client.js';
import type { WebhookReceiver } from '../support/webhook-receiver.js';
import { createEndpoint, waitForDelivery } from '../support/webhooks.js';
import { closeWebhookServer, startWebhookServer } from '../support/webhooks-server.js';

/**
 * Webhooks over real HTTP, the delivery machinery: retries with the same id and signature until a
 * 2xx, the delivery log, 410 Gone, a whole retry schedule of failures, signing with both secrets
 * after a rotation, one slow receiver not holding up another workspace, retention, and a deleted
 * endpoint. The endpoints API and what is delivered: webhooks.endpoints.test.ts,
 * webhooks.events.test.ts. Runs on PGlite and, in CI's second leg, on PostgreSQL.
 */

let t: TestServer;
let receiver: WebhookReceiver;
const api = testClient(() => t.api);

/** Queues a `webhook.test` event for the endpoint (`POST /webhooks/{id}/test`). */
const sendTest = (endpointId: string, apiKey: string) =>
  api.request('POST /webhooks/{id}/test', { params: { id: endpointId }, apiKey });
/** The endpoint as `GET /webhooks/{id}` answers it. */
const readEndpoint = (endpointId: string, apiKey: string) =>
  api.request('GET /webhooks/{id}', { params: { id: endpointId }, apiKey });
const redeliver = (endpointId: string, deliveryId: string, apiKey: string) =>
  api.request('POST /webhooks/{id}/deliveries/{deliveryId}/redeliver', {
    params: { id: endpointId, deliveryId },
    apiKey,
  });

beforeAll(async () => {
  ({ t, receiver } = await startWebhookServer());
});
afterAll(() => closeWebhookServer({ t, receiver }));

describe('delivery', () => {
  it('retries failures with the same id and signature scheme until a 2xx, and logs every attempt', async () => {
    const { apiKey } = await t.workspace('pro');
    const endpoint = await createEndpoint(t, apiKey, { url: receiver.urlFor('flaky') });
    receiver.secrets.push(endpoint.secret);
    const previous = receiver.respond;
    receiver.respond = (delivery, count) =>
      delivery.event?.type === 'webhook.test' && delivery.body.includes(endpoint.id) && count <= 2
        ? 503
        : previous(delivery, count);
    try {
      const queued = await sendTest(endpoint.id, apiKey);
      expectStatus(queued, 202);
      expect(queued.body).toMatchObject({
        status: 'pending',
        attempts: 0,
        eventType: 'webhook.test',
        lastAttempt: null,
      });
      const done = await waitForDelivery(t, apiKey, endpoint.id, queued.body.id, 'succeeded');
      expect(done.attemptLog.map((a) => a.responseStatus)).toEqual([503, 503, 200]);
      expect(done.attemptLog.map((a) => a.attempt)).toEqual([1, 2, 3]);
      expect(done.attemptLog[0]).toMatchObject({ outcome: 'failed', responseExcerpt: 'refused with 503', error: null });
      expect(done.attemptLog[2]).toMatchObject({ outcome: 'succeeded', responseExcerpt: 'ok' });
      const sent = receiver.received.filter((d) => d.id === queued.body.eventId);
      expect(sent).toHaveLength(3);
      for (const delivery of sent) {
        expect(delivery.verified).toBe(true);
        expect(delivery.body).toBe(done.payload);
      }
      // The waits grow: the schedule's 40 ms then 80 ms, each jittered by at most 25%.
      const gaps = [sent[1]!.receivedAt - sent[0]!.receivedAt, sent[2]!.receivedAt - sent[1]!.receivedAt];
      expect(gaps[0]).toBeGreaterThanOrEqual(30);
      expect(gaps[1]).toBeGreaterThanOrEqual(60);

      const attempts = (query: { limit: number; cursor?: string | null }) =>
        // Unchecked: the next page is asked with the cursor the last one gave, even a null one.
        api.unchecked('GET /webhooks/{id}/attempts', { params: { id: endpoint.id }, query, apiKey });
      const log = await attempts({ limit: 2 });
      expectStatus(log, 200);
      expect(log.body.data.map((a) => a.attempt)).toEqual([3, 2]);
      const rest = expectOk(await attempts({ limit: 2, cursor: log.body.nextCursor }));
      expect(rest.data.map((a) => a.attempt)).toEqual([1]);
      expect(rest.nextCursor).toBeNull();
      const stats = expectOk(await readEndpoint(endpoint.id, apiKey)).stats;
      expect(stats).toMatchObject({ attempts: 3, failedAttempts: 2, succeededDeliveries: 1, consecutiveFailures: 0 });
    } finally {
      receiver.respond = previous;
    }
  });

  it('disables an endpoint that answers 410 Gone, and gives up what it had pending', async () => {
    const { apiKey } = await t.workspace('pro');
    const endpoint = await createEndpoint(t, apiKey, { url: receiver.urlFor('gone') });
    const previous = receiver.respond;
    receiver.respond = (delivery, count) => (delivery.body.includes(endpoint.id) ? 410 : previous(delivery, count));
    try {
      const queued = expectOk(await sendTest(endpoint.id, apiKey));
      const failed = await waitForDelivery(t, apiKey, endpoint.id, queued.id, 'failed');
      expect(failed.attemptLog).toHaveLength(1);
      const read = expectOk(await readEndpoint(endpoint.id, apiKey));
      expect(read).toMatchObject({ status: 'disabled', disabledReason: 'The endpoint answered 410 Gone' });
      expect(read.disabledAt).not.toBeNull();
      expectError(await redeliver(endpoint.id, queued.id, apiKey), 409, 'webhook_endpoint_disabled');
    } finally {
      receiver.respond = previous;
    }
  });

  it('disables an endpoint after a whole retry schedule of failures, saying why', async () => {
    const { apiKey } = await t.workspace('pro');
    const endpoint = await createEndpoint(t, apiKey, { url: receiver.urlFor('down') });
    const previous = receiver.respond;
    receiver.respond = (delivery, count) => (delivery.body.includes(endpoint.id) ? 500 : previous(delivery, count));
    try {
      const queued = expectOk(await sendTest(endpoint.id, apiKey));
      const failed = await waitForDelivery(t, apiKey, endpoint.id, queued.id, 'failed');
      // One attempt plus one per wait of the schedule.
      expect(failed.attemptLog.map((a) => a.responseStatus)).toEqual([500, 500, 500]);
      const read = expectOk(await readEndpoint(endpoint.id, apiKey));
      expect(read.status).toBe('disabled');
      expect(read.disabledReason).toBe(
        'Every attempt failed for a whole retry schedule (3 failed attempts in a row; the last: HTTP 500)',
      );
      expect(read.stats).toMatchObject({
        attempts: 3,
        failedAttempts: 3,
        failedDeliveries: 1,
        consecutiveFailures: 3,
      });

      // Enabled again and redelivered: the schedule starts over, and this time the receiver takes it.
      receiver.respond = previous;
      receiver.secrets.push(endpoint.secret);
      await api.request('PATCH /webhooks/{id}', { params: { id: endpoint.id }, apiKey, body: { status: 'enabled' } });
      const again = await redeliver(endpoint.id, queued.id, apiKey);
      expect(again.status, again.text).toBe(202);
      expect(again.body).toMatchObject({ status: 'pending', attempts: 3 });
      const delivered = await waitForDelivery(t, apiKey, endpoint.id, queued.id, 'succeeded');
      expect(delivered.attemptLog.map((a) => a.attempt)).toEqual([1, 2, 3, 4]);
      expect(receiver.received.filter((d) => d.id === queued.eventId).at(-1)?.verified).toBe(true);
    } finally {
      receiver.respond = previous;
    }
  });

  it('signs with both secrets for 24 hours after a rotation', async () => {
    const { apiKey } = await t.workspace('pro');
    const endpoint = await createEndpoint(t, apiKey, { url: receiver.urlFor('rotation') });
    const rotate = () => api.request('POST /webhooks/{id}/rotate-secret', { params: { id: endpoint.id }, apiKey });
    const rotated = await rotate();
    expectStatus(rotated, 200);
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(endpoint.secret);
    const expires = Date.parse(rotated.body.previousSecretExpiresAt ?? '');
    expect(expires - Date.now()).toBeGreaterThan(86_400_000 - 60_000);
    expect(expires - Date.now()).toBeLessThanOrEqual(86_400_000);

    receiver.secrets.push(rotated.body.secret);
    const queued = expectOk(await sendTest(endpoint.id, apiKey));
    await waitForDelivery(t, apiKey, endpoint.id, queued.id, 'succeeded');
    const delivery = receiver.received.find((d) => d.id === queued.eventId);
    expect(delivery?.signature.split(' ')).toHaveLength(2);
    const { Webhook } = await import('standardwebhooks');
    const headers = {
      'webhook-id': delivery!.id,
      'webhook-timestamp': delivery!.timestamp,
      'webhook-signature': delivery!.signature,
    };
    // A receiver holding either secret alone verifies it.
    expect(() => new Webhook(endpoint.secret).verify(delivery!.body, headers)).not.toThrow();
    expect(() => new Webhook(rotated.body.secret).verify(delivery!.body, headers)).not.toThrow();

    // A second rotation retires the first secret at once: two signatures, the newest two secrets.
    const second = expectOk(await rotate());
    receiver.secrets.push(second.secret);
    const next = expectOk(await sendTest(endpoint.id, apiKey));
    await waitForDelivery(t, apiKey, endpoint.id, next.id, 'succeeded');
    const later = receiver.received.find((d) => d.id === next.eventId)!;
    const laterHeaders = {
      'webhook-id': later.id,
      'webhook-timestamp': later.timestamp,
      'webhook-signature': later.signature,
    };
    expect(later.signature.split(' ')).toHaveLength(2);
    expect(() => new Webhook(second.secret).verify(later.body, laterHeaders)).not.toThrow();
    expect(() => new Webhook(rotated.body.secret).verify(later.body, laterHeaders)).not.toThrow();
    expect(() => new Webhook(endpoint.secret).verify(later.body, laterHeaders)).toThrow();
  });

  it("does not let one slow receiver hold up another workspace's deliveries", async () => {
    const slowOwner = await t.workspace('pro');
    const fastOwner = await t.workspace('pro');
    const slow = await createEndpoint(t, slowOwner.apiKey, { url: receiver.urlFor('slow') });
    const fast = await createEndpoint(t, fastOwner.apiKey, { url: receiver.urlFor('fast') });
    receiver.delayMs = (path) => (path === '/hooks/slow' ? 1_500 : 0);
    try {
      // More deliveries for the slow receiver than the worker's per-endpoint limit (16) allows in flight.
      const backlog: string[] = [];
      for (let i = 0; i < 40; i++) {
        const res = await sendTest(slow.id, slowOwner.apiKey);
        backlog.push(expectOk(res).eventId);
      }
      const queued = expectOk(await sendTest(fast.id, fastOwner.apiKey));
      await receiver.waitFor(() => receiver.received.some((d) => d.id === queued.eventId));
      // The fast endpoint's event went through while most of the slow one's backlog still waited.
      const slowDone = receiver.received.filter((d) => backlog.includes(d.id)).length;
      expect(slowDone).toBeLessThan(backlog.length);
      const waiting = expectOk(await readEndpoint(slow.id, slowOwner.apiKey));
      expect(waiting.stats.pendingDeliveries).toBeGreaterThan(0);
      await receiver.waitFor(() => backlog.every((id) => receiver.received.some((d) => d.id === id)), 30_000);
    } finally {
      receiver.delayMs = () => 0;
    }
  });

  it('deletes finished deliveries past the retention period, with their attempts', async () => {
    const { apiKey } = await t.workspace('pro');
    const endpoint = await createEndpoint(t, apiKey, { url: receiver.urlFor('retention') });
    receiver.secrets.push(endpoint.secret);
    const done = expectOk(await sendTest(endpoint.id, apiKey));
    await waitForDelivery(t, apiKey, endpoint.id, done.id, 'succeeded');
    const { db } = t.server.deps;
    // Finished 40 days ago, by its clock.
    await db
      .updateTable('webhook_deliveries')
      .set({ updated_at: new Date(Date.now() - 40 * 86_400_000) })
      .where('id', '=', done.id)
      .execute();
    const { pruneFinishedDeliveries } = await import('../../src/modules/webhooks/delivery.repository.js');
    const pruned = await pruneFinishedDeliveries(db, new Date(Date.now() - 30 * 86_400_000), 1_000);
    expect(pruned).toBeGreaterThanOrEqual(1);
    expectError(
      await api.request('GET /webhooks/{id}/deliveries/{deliveryId}', {
        params: { id: endpoint.id, deliveryId: done.id },
        apiKey,
      }),
      404,
      'not_found',
    );
    const attempts = await db.selectFrom('webhook_attempts').select('id').where('delivery_id', '=', done.id).execute();
    expect(attempts).toEqual([]);
  });

  it('stops delivering to a deleted endpoint', async () => {
    const { apiKey } = await t.workspace('pro');
    const endpoint = await createEndpoint(t, apiKey, { url: receiver.urlFor('deleted'), events: ['poll.created'] });
    const sent = expectOk(await sendTest(endpoint.id, apiKey));
    await waitForDelivery(t, apiKey, endpoint.id, sent.id, 'succeeded');
    await api.request('DELETE /webhooks/{id}', { params: { id: endpoint.id }, apiKey });
    // Its deliveries and their attempts went with it.
    const { db } = t.server.deps;
    expect(
      await db.selectFrom('webhook_attempts').select('id').where('endpoint_id', '=', endpoint.id).execute(),
    ).toEqual([]);
    const poll = await api.request('POST /polls', {
      apiKey,
      body: { title: 'After delete', content: sampleContent() },
    });
    expect(poll.status).toBe(201);
    const rows = await t.server.deps.db
      .selectFrom('webhook_deliveries')
      .select('id')
      .where('endpoint_id', '=', endpoint.id)
      .execute();
    expect(rows).toEqual([]);
  });
});
