import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fanOutEventBatches } from '../../src/modules/webhooks/outbox.repository.js';
import { sampleContent } from '../support/decks.js';
import { pollPublisher } from '../support/polls.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { expectStatus, testClient } from '../support/test-client.js';
import { createEndpoint, deliveriesOf } from '../support/webhooks.js';

/**
 * Answers' events reach the outbox as batches: the answer writer's statement writes one
 * webhook_event_batches row per subscribed endpoint and flush, and the workers (or any read of the
 * endpoint's deliveries) fan it out into deliveries (outbox.repository.ts). These tests hold the
 * server's worker off (WEBHOOK_DELIVERY=false) and look at the tables, so what is asserted is the
 * outbox itself: every answer's event in exactly one batch, fanned out exactly once, however many
 * fan-outs run at a time. On PGlite and on PostgreSQL.
 */

let t: TestServer;
const api = testClient(() => t.api);

beforeAll(async () => {
  t = await startTestServer({ WEBHOOK_DELIVERY: 'false', WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_LOOPBACK: 'true' });
});
afterAll(async () => {
  await t?.close();
});

/** A workspace with an endpoint subscribed to `vote.created` and a published poll with `votes` votes, cast concurrently. */
async function votedPoll(votes: number) {
  const { apiKey } = await t.workspace('pro');
  // Never delivered: no worker runs.
  const endpoint = await createEndpoint(t, apiKey, { url: 'https://127.0.0.1/hook', events: ['vote.created'] });
  const poll = await pollPublisher(() => ({ api: t.api, apiKey, title: 'Batches', content: sampleContent() }))();
  const results = await Promise.all(
    Array.from({ length: votes }, (_, i) =>
      api.request('POST /polls/{id}/votes', {
        params: { id: poll.id },
        apiKey,
        body: { voterId: `voter-${i}`, slideId: 'lunch', optionIds: ['pizza'] },
      }),
    ),
  );
  for (const result of results) expectStatus(result, 201);
  return { apiKey, endpointId: endpoint.id };
}

function batchesOf(endpointId: string) {
  return t.server.deps.db
    .selectFrom('webhook_event_batches')
    .selectAll()
    .where('endpoint_id', '=', endpointId)
    .execute();
}

function deliveryRows(endpointId: string) {
  return t.server.deps.db
    .selectFrom('webhook_deliveries')
    .select(['id', 'event_id', 'status', 'payload'])
    .where('endpoint_id', '=', endpointId)
    .execute();
}

describe("answers' events in the outbox", () => {
  it('are written as batches (one row per flush and endpoint), every event in exactly one', async () => {
    const { endpointId } = await votedPoll(60);
    const batches = await batchesOf(endpointId);
    const eventIds = batches.flatMap((batch) => batch.event_ids);
    expect(eventIds).toHaveLength(60);
    expect(new Set(eventIds).size).toBe(60);
    for (const batch of batches) {
      expect(batch.event_types).toEqual(batch.event_ids.map(() => 'vote.created'));
      batch.payloads.forEach((payload, i) => {
        expect(JSON.parse(payload)).toMatchObject({ id: batch.event_ids[i], type: 'vote.created' });
      });
    }
    // Nothing fanned out yet: no worker runs, and nothing has read the endpoint's deliveries.
    expect(await deliveryRows(endpointId)).toHaveLength(0);
  });

  it('are fanned out by a read of the deliveries: the API shows every event recorded', async () => {
    const { apiKey, endpointId } = await votedPoll(25);
    const listed = await deliveriesOf(t, apiKey, endpointId);
    expect(listed).toHaveLength(25);
    expect(listed.every((delivery) => delivery.status === 'pending' && delivery.eventType === 'vote.created')).toBe(
      true,
    );
    expect(await batchesOf(endpointId)).toHaveLength(0);
    const read = await api.request('GET /webhooks/{id}', { params: { id: endpointId }, apiKey });
    expectStatus(read, 200);
    expect(read.body.stats.pendingDeliveries).toBe(25);
  });

  it('are fanned out exactly once, however many fan-outs run at once, and a second fan-out of the same events adds nothing', async () => {
    const { endpointId } = await votedPoll(40);
    const before = await batchesOf(endpointId);
    const { db } = t.server.deps;
    const written = await Promise.all(
      Array.from({ length: 4 }, () =>
        fanOutEventBatches(db, { endpointIds: [endpointId], limit: 1, skipLocked: true }),
      ),
    );
    let total = written.reduce((sum, count) => sum + count, 0);
    while ((await batchesOf(endpointId)).length > 0) {
      total += await fanOutEventBatches(db, { endpointIds: [endpointId], skipLocked: true });
    }
    expect(total).toBe(40);
    const rows = await deliveryRows(endpointId);
    expect(rows).toHaveLength(40);
    expect(new Set(rows.map((row) => row.event_id)).size).toBe(40);

    // The same batches again (as if a fan-out's delete were lost): the same delivery ids, nothing new.
    for (const batch of before) {
      await db
        .insertInto('webhook_event_batches')
        .values({
          id: batch.id,
          endpoint_id: batch.endpoint_id,
          event_ids: batch.event_ids,
          event_types: batch.event_types,
          payloads: batch.payloads,
        })
        .execute();
    }
    expect(await fanOutEventBatches(db, { endpointIds: [endpointId], skipLocked: false })).toBe(0);
    expect(await deliveryRows(endpointId)).toHaveLength(40);
    expect(await batchesOf(endpointId)).toHaveLength(0);
  });

  it('still in batches when their endpoint is disabled are given up with the rest', async () => {
    const { apiKey, endpointId } = await votedPoll(12);
    expect((await batchesOf(endpointId)).length).toBeGreaterThan(0);
    const disabled = await api.request('PATCH /webhooks/{id}', {
      params: { id: endpointId },
      apiKey,
      body: { status: 'disabled' },
    });
    expectStatus(disabled, 200);
    expect(disabled.body.stats).toMatchObject({ pendingDeliveries: 0, failedDeliveries: 12 });
    const rows = await deliveryRows(endpointId);
    expect(rows).toHaveLength(12);
    expect(rows.every((row) => row.status === 'failed')).toBe(true);
  });

  it('go with their endpoint when it is deleted', async () => {
    const { apiKey, endpointId } = await votedPoll(5);
    expect((await batchesOf(endpointId)).length).toBeGreaterThan(0);
    const deleted = await api.request('DELETE /webhooks/{id}', { params: { id: endpointId }, apiKey });
    expectStatus(deleted, 200);
    expect(await batchesOf(endpointId)).toHaveLength(0);
    const left = await sql<{
      n: number;
    }>`select count(*)::int as n from webhook_deliveries where endpoint_id = ${endpointId}`.execute(t.server.deps.db);
    expect(left.rows[0]?.n).toBe(0);
  });
});
