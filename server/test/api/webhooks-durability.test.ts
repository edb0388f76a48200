import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ConfigInput } from '../../src/config.js';
import { sampleContent } from '../support/decks.js';
import { pollPublisher } from '../support/polls.js';
import { persistentDatabase, startTestServer, type TestServer } from '../support/server.js';
import { expectOk, expectStatus, testClient } from '../support/test-client.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';
import { createEndpoint, deliveriesOf, waitForDelivery } from '../support/webhooks.js';

/**
 * Webhook deliveries outlive the server process that queued them: the outbox and the attempt log are
 * in the database, so a server started on the same database after another stopped carries on where
 * it left off — the same event, the same `webhook-id`, the next attempt number — and judges the
 * endpoint's address by its own rules, not by those of the server that accepted the URL. Runs on
 * PGlite (kept in a folder, as `pnpm start` keeps it, so it outlives the first server) and on
 * PostgreSQL.
 */

type Env = Partial<Record<keyof ConfigInput, string>>;

interface Attempt {
  attempt: number;
  outcome: 'succeeded' | 'failed';
  responseStatus: number | null;
  error: string | null;
  startedAt: string;
}

interface DeliveryDetail {
  id: string;
  eventId: string;
  status: string;
  payload: string;
  attemptLog: Attempt[];
}

let receiver: WebhookReceiver;
/** Every server a test started: closed (and its scratch database dropped) after the test. */
const servers: TestServer[] = [];
/** The databases two servers of a test took turns on. */
const databases: Array<() => Promise<void>> = [];

beforeAll(async () => {
  receiver = await WebhookReceiver.start();
});
afterEach(async () => {
  receiver.respond = () => 200;
  for (const server of servers.splice(0)) await server.close();
  for (const drop of databases.splice(0)) await drop();
});
afterAll(async () => {
  await receiver?.close();
});

/** One database for two servers in turn (support/server.ts), dropped after the test. */
async function sharedDatabase(): Promise<Env> {
  const database = await persistentDatabase();
  databases.push(database.drop);
  return database.env;
}

async function start(env: Env): Promise<TestServer> {
  const server = await startTestServer({
    WEBHOOK_ALLOW_HTTP: 'true',
    WEBHOOK_ALLOW_LOOPBACK: 'true',
    WEBHOOK_POLL_INTERVAL_MS: '50',
    ...env,
  });
  servers.push(server);
  return server;
}

function receivedFor(eventId: string) {
  return receiver.received.filter((delivery) => delivery.id === eventId);
}

describe('webhook deliveries across a restart', () => {
  it('deliveries survive a restart in the middle of retries', async () => {
    const database = await sharedDatabase();
    // Long enough a schedule that server A cannot use it up in the moment it takes to stop.
    const schedule = { WEBHOOK_RETRY_SCHEDULE_MS: '300,300,300,300,300,300' };
    let refusing = true;
    receiver.respond = () => (refusing ? 500 : 200);

    const a = await start({ ...database, ...schedule });
    const { apiKey } = await a.workspace('pro');
    const endpoint = await createEndpoint(a, apiKey, { url: receiver.urlFor('restart'), events: ['vote.created'] });
    receiver.secrets.push(endpoint.secret);
    const poll = await pollPublisher(() => ({ api: a.api, apiKey, title: 'Restart', content: sampleContent() }))();
    for (const voterId of ['ada', 'bo', 'cy']) {
      const vote = await testClient(a.api).request('POST /polls/{id}/votes', {
        params: { id: poll.id },
        apiKey,
        body: { voterId, slideId: 'lunch', optionIds: ['pizza'] },
      });
      expectStatus(vote, 201);
    }
    // The outbox is written in the vote's transaction: the deliveries exist once the votes are answered.
    const queued = await deliveriesOf(a, apiKey, endpoint.id);
    expect(queued).toHaveLength(3);
    const eventIds = queued.map((delivery) => delivery.eventId);
    await receiver.waitFor(
      () => eventIds.every((id) => receivedFor(id).length >= 1),
      15_000,
      'a failed attempt of every event',
    );

    // Stopped mid-schedule: its last attempts in flight end (refused) before close resolves.
    await a.server.close();
    const aStoppedAt = Date.now();
    const seenByA = new Map(eventIds.map((id) => [id, receivedFor(id).length]));
    refusing = false;

    const b = await start({ ...database, ...schedule });
    for (const { id: deliveryId, eventId } of queued) {
      const done = await waitForDelivery<DeliveryDetail>(b, apiKey, endpoint.id, deliveryId, 'succeeded');
      const failedOnA = seenByA.get(eventId) ?? 0;
      expect(failedOnA).toBeGreaterThanOrEqual(1);
      const log = done.attemptLog;
      // Numbered 1, 2, 3, …: the attempts of both servers in one sequence, none missing or repeated.
      expect(log.map((attempt) => attempt.attempt)).toEqual(Array.from({ length: failedOnA + 1 }, (_, i) => i + 1));
      for (const attempt of log.slice(0, -1)) {
        expect(attempt).toMatchObject({ outcome: 'failed', responseStatus: 500, error: null });
        expect(Date.parse(attempt.startedAt)).toBeLessThanOrEqual(aStoppedAt);
      }
      expect(log.at(-1)).toMatchObject({ outcome: 'succeeded', responseStatus: 200 });
      expect(Date.parse(log.at(-1)?.startedAt ?? '')).toBeGreaterThanOrEqual(aStoppedAt);

      // The receiver saw exactly the logged attempts: A's refusals, then B's one success, all of the
      // same event with the same id and body, each verified by the independent library.
      const sent = receivedFor(eventId);
      expect(sent.map((delivery) => delivery.answered)).toEqual([...Array(failedOnA).fill(500), 200]);
      for (const delivery of sent) {
        expect(delivery.verified, delivery.body).toBe(true);
        expect(delivery.event?.id).toBe(eventId);
        expect(delivery.body).toBe(done.payload);
      }
      expect(sent.at(-1)?.receivedAt).toBeGreaterThanOrEqual(aStoppedAt);
    }
    const stats = expectOk(
      await testClient(b.api).request('GET /webhooks/{id}', { params: { id: endpoint.id }, apiKey }),
    ).stats;
    const attempts = [...seenByA.values()].reduce((sum, n) => sum + n, 0) + 3;
    expect(stats).toMatchObject({
      pendingDeliveries: 0,
      succeededDeliveries: 3,
      failedDeliveries: 0,
      attempts,
      failedAttempts: attempts - 3,
    });
  });

  it('the address is checked again at delivery time', async () => {
    const database = await sharedDatabase();
    const a = await start(database);
    const { apiKey } = await a.workspace('pro');
    // Accepted by a server that allows loopback: an IP literal, and a name that resolves to loopback.
    const literal = await createEndpoint(a, apiKey, { url: receiver.urlFor('literal') });
    const named = await createEndpoint(a, apiKey, { url: receiver.urlFor('named').replace('127.0.0.1', 'localhost') });
    receiver.secrets.push(literal.secret, named.secret);
    const allowed = await testClient(a.api).request('POST /webhooks/{id}/test', { params: { id: literal.id }, apiKey });
    expectStatus(allowed, 202);
    await waitForDelivery<DeliveryDetail>(a, apiKey, literal.id, allowed.body.id, 'succeeded');
    expect(receivedFor(allowed.body.eventId).map((delivery) => delivery.verified)).toEqual([true]);
    await a.server.close();

    const b = await start({ ...database, WEBHOOK_ALLOW_LOOPBACK: 'false', WEBHOOK_RETRY_SCHEDULE_MS: '30' });
    const bStartedAt = Date.now();
    for (const [endpoint, refusal] of [
      [literal, "The endpoint's address is a loopback address"],
      [named, 'The host localhost resolves to a loopback address'],
    ] as const) {
      const queued = await testClient(b.api).request('POST /webhooks/{id}/test', {
        params: { id: endpoint.id },
        apiKey,
      });
      expectStatus(queued, 202);
      const failed = await waitForDelivery<DeliveryDetail>(b, apiKey, endpoint.id, queued.body.id, 'failed');
      // One attempt plus one per wait of the schedule, each refused before anything was sent.
      expect(failed.attemptLog).toHaveLength(2);
      for (const [index, attempt] of failed.attemptLog.entries()) {
        expect(attempt).toMatchObject({ attempt: index + 1, outcome: 'failed', responseStatus: null, error: refusal });
      }
      const read = await testClient(b.api).request('GET /webhooks/{id}', { params: { id: endpoint.id }, apiKey });
      expectStatus(read, 200);
      expect(read.body).toMatchObject({
        status: 'disabled',
        disabledReason: `Every attempt failed for a whole retry schedule (2 failed attempts in a row; the last: ${refusal})`,
      });
      expect(read.body.disabledAt).not.toBeNull();
      expect(receivedFor(queued.body.eventId)).toEqual([]);
    }
    expect(receiver.received.filter((delivery) => delivery.receivedAt >= bStartedAt)).toEqual([]);
  });

  it('a stopping server interrupts attempts still in flight after half its shutdown deadline, and hands them back due at once', async () => {
    const database = await sharedDatabase();
    // A long attempt deadline, a short shutdown: the grace (1 s) ends long before the attempt would.
    const settings = { WEBHOOK_TIMEOUT_MS: '30000', SHUTDOWN_TIMEOUT_MS: '2000', WEBHOOK_RETRY_SCHEDULE_MS: '60000' };
    const a = await start({ ...database, ...settings });
    const { apiKey } = await a.workspace('pro');
    const endpoint = await createEndpoint(a, apiKey, { url: receiver.urlFor('interrupted') });
    receiver.secrets.push(endpoint.secret);
    receiver.respond = (_delivery, count) => (count === 1 ? 'no answer' : 200);

    const queued = await testClient(a.api).request('POST /webhooks/{id}/test', { params: { id: endpoint.id }, apiKey });
    expectStatus(queued, 202);
    const eventId: string = queued.body.eventId;
    await receiver.waitFor(() => receivedFor(eventId).length === 1, 15_000, 'the first attempt');
    const stopping = Date.now();
    await a.server.close();
    // Not the attempt's 30 s deadline, nor the 60 s wait of the schedule: the next server sends it at once.
    expect(Date.now() - stopping).toBeLessThan(15_000);

    const b = await start({ ...database, ...settings });
    const done = await waitForDelivery<DeliveryDetail>(b, apiKey, endpoint.id, queued.body.id, 'succeeded');
    expect(done.attemptLog).toMatchObject([
      {
        attempt: 1,
        outcome: 'failed',
        responseStatus: null,
        error: 'Interrupted: the server shut down before an answer came',
      },
      { attempt: 2, outcome: 'succeeded', responseStatus: 200 },
    ]);
    expect(receivedFor(eventId).map((delivery) => delivery.answered)).toEqual([null, 200]);
  });

  it('a stopping server ends its attempts in flight by their deadline and leaves the retry to the next one', async () => {
    const database = await sharedDatabase();
    const settings = { WEBHOOK_TIMEOUT_MS: '3000', WEBHOOK_RETRY_SCHEDULE_MS: '200' };
    const a = await start({ ...database, ...settings });
    const { apiKey } = await a.workspace('pro');
    const endpoint = await createEndpoint(a, apiKey, { url: receiver.urlFor('in-flight') });
    receiver.secrets.push(endpoint.secret);
    // The first request hangs: the receiver reads it and never answers.
    receiver.respond = (_delivery, count) => (count === 1 ? 'no answer' : 200);

    const queued = await testClient(a.api).request('POST /webhooks/{id}/test', { params: { id: endpoint.id }, apiKey });
    expectStatus(queued, 202);
    const eventId: string = queued.body.eventId;
    await receiver.waitFor(() => receivedFor(eventId).length === 1, 15_000, 'the first attempt');
    const stopping = Date.now();
    await a.server.close();
    // Close waited for the attempt, which ended at its deadline (3 s after it started).
    expect(Date.now() - stopping).toBeGreaterThanOrEqual(2000);
    const aStoppedAt = Date.now();

    const b = await start({ ...database, ...settings });
    const done = await waitForDelivery<DeliveryDetail>(b, apiKey, endpoint.id, queued.body.id, 'succeeded');
    expect(done.attemptLog).toMatchObject([
      { attempt: 1, outcome: 'failed', responseStatus: null, error: 'No answer within 3000 ms' },
      { attempt: 2, outcome: 'succeeded', responseStatus: 200, error: null },
    ]);
    const sent = receivedFor(eventId);
    expect(sent.map((delivery) => delivery.answered)).toEqual([null, 200]);
    for (const delivery of sent) {
      expect(delivery.verified).toBe(true);
      expect(delivery.body).toBe(done.payload);
    }
    expect(sent[1]?.receivedAt).toBeGreaterThanOrEqual(aStoppedAt);
  });
});
