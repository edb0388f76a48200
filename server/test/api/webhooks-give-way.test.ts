import { webhookLimits } from '@pollkit/contracts';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebhookSender } from '../../src/infra/webhook-sender.js';
import { WebhookDeliveryWorker } from '../../src/modules/webhooks/delivery-worker.js';
import { sampleContent } from '../support/decks.js';
import { pollPublisher } from '../support/polls.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { expectStatus, testClient } from '../support/test-client.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';
import { createEndpoint, deliveriesOf } from '../support/webhooks.js';

/**
 * Deliveries give way to answers: while the answer writer is saturated (the worker's `busy`), the
 * worker claims once per poll interval instead of as soon as its slots free up, and catches up at
 * full speed once answers stop queueing (bench/webhooks.ts measures what this buys: RESULTS.md,
 * issue 14). The server under test delivers nothing itself (WEBHOOK_DELIVERY=false): the worker is
 * built here, on the server's database, with a `busy` the test sets, and a poll interval longer than
 * the test, so that every claim it makes is one the policy allowed.
 */

const ENDPOINT_CONCURRENCY = 16;
const VOTES = 40;

let t: TestServer;
const api = testClient(() => t.api);
let receiver: WebhookReceiver;

beforeAll(async () => {
  receiver = await WebhookReceiver.start();
  t = await startTestServer({ WEBHOOK_DELIVERY: 'false', WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_LOOPBACK: 'true' });
});
afterAll(async () => {
  await t?.close();
  await receiver?.close();
});

describe('the delivery worker while the API is saturated', () => {
  it('claims one batch per poll interval while busy, then catches up once answers stop queueing', async () => {
    const { apiKey } = await t.workspace('pro');
    const endpoint = await createEndpoint(t, apiKey, { url: receiver.urlFor('give-way'), events: ['vote.created'] });
    receiver.secrets.push(endpoint.secret);
    const poll = await pollPublisher(() => ({ api: t.api, apiKey, title: 'Give way', content: sampleContent() }))();
    for (let i = 0; i < VOTES; i++) {
      const vote = await api.request('POST /polls/{id}/votes', {
        params: { id: poll.id },
        apiKey,
        body: { voterId: `voter-${i}`, slideId: 'lunch', optionIds: ['pizza'] },
      });
      expectStatus(vote, 201);
    }
    expect(await deliveriesOf(t, apiKey, endpoint.id)).toHaveLength(VOTES);

    let busy = true;
    const worker = new WebhookDeliveryWorker(
      {
        db: t.server.deps.db,
        sender: new WebhookSender({
          timeoutMs: 5_000,
          allowHttp: true,
          allowLoopback: true,
          excerptBytes: webhookLimits.responseExcerptBytes,
          maxSocketsPerHost: ENDPOINT_CONCURRENCY,
        }),
        secretSealer: t.server.deps.secretSealer,
        log: pino({ level: 'silent' }),
        busy: () => busy,
      },
      {
        retryScheduleMs: [1_000],
        timeoutMs: 5_000,
        concurrency: 64,
        endpointConcurrency: ENDPOINT_CONCURRENCY,
        // Never during the test: while busy, the start's claim is the only one the policy allows.
        pollIntervalMs: 600_000,
        retentionMs: 86_400_000,
      },
    );
    try {
      worker.start();
      // One claim: the endpoint's share of the slots. As those attempts end, slots free up, and a
      // worker that is not giving way would claim again at once.
      await receiver.waitFor(() => receiver.received.length >= ENDPOINT_CONCURRENCY, 20_000, 'the first batch');
      const succeeded = async () =>
        (await deliveriesOf(t, apiKey, endpoint.id)).filter((delivery) => delivery.status === 'succeeded').length;
      while ((await succeeded()) < ENDPOINT_CONCURRENCY) await new Promise((resolve) => setTimeout(resolve, 20));
      // Every attempt of the batch is recorded; give a refill, if one were coming, the time to arrive.
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(receiver.received).toHaveLength(ENDPOINT_CONCURRENCY);

      busy = false;
      worker.nudge();
      await receiver.waitFor(
        () => new Set(receiver.received.map((d) => d.id)).size === VOTES,
        20_000,
        'every delivery',
      );
      while ((await succeeded()) < VOTES) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(receiver.received).toHaveLength(VOTES);
      expect(receiver.received.every((delivery) => delivery.verified)).toBe(true);
    } finally {
      await worker.stop(1_000);
    }
  });
});
