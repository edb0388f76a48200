import type { ErrorEnvelope } from '@pollkit/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sampleContent } from '../support/decks.js';
import { rawCall } from '../support/http.js';
import { parseMetrics, scrapeMetrics } from '../support/metrics.js';
import { pollPublisher } from '../support/polls.js';
import { startTestServer, type TestServer, usingPostgres } from '../support/server.js';
import { openSse } from '../support/sse.js';
import { expectStatus, testClient } from '../support/test-client.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';
import { createEndpoint } from '../support/webhooks.js';

/**
 * `GET /metrics` (Prometheus text, prom-client): off unless METRICS_TOKEN is set, readable only
 * with that token, and saying what an operator needs — requests by route template (never a raw
 * URL), group-commit batches, the database pool, Redis, open streams, webhook attempts and backlog,
 * and the process's own figures. On both databases (CI runs the file on each).
 */

const TOKEN = 'metrics-test-token-0123456789abcdef';

describe('GET /metrics', () => {
  let t: TestServer;
  const api = testClient(() => t.api);
  let plain: TestServer;
  let apiKey: string;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    [t, plain] = await Promise.all([
      startTestServer({
        METRICS_TOKEN: TOKEN,
        WEBHOOK_ALLOW_HTTP: 'true',
        WEBHOOK_ALLOW_LOOPBACK: 'true',
        WEBHOOK_POLL_INTERVAL_MS: '50',
      }),
      startTestServer(),
    ]);
    apiKey = (await t.workspace('pro')).apiKey;
  });

  afterAll(async () => {
    await Promise.all([t?.close(), plain?.close()]);
    await receiver?.close();
  });

  const publish = pollPublisher(() => ({ api: t.api, apiKey, title: 'Metrics', content: sampleContent() }));

  it('is not there without METRICS_TOKEN: a 404 in the envelope, like any unknown path', async () => {
    const res = await rawCall<ErrorEnvelope>('GET', `${plain.url}/metrics`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('not_found');
  });

  it('answers only the token: 401 invalid_metrics_token without it or with another', async () => {
    const attempts: Record<string, string>[] = [
      {},
      { authorization: 'Bearer not-the-token-at-all-000' },
      { authorization: TOKEN },
    ];
    for (const headers of attempts) {
      const res = await rawCall<ErrorEnvelope>('GET', `${t.url}/metrics`, { headers });
      expect(res.status, JSON.stringify(headers)).toBe(401);
      expect(res.body.error.code).toBe('invalid_metrics_token');
      expect(res.headers.get('www-authenticate')).toBe('Bearer');
      expect(res.text).not.toContain('pollkit_');
    }
    const res = await rawCall('GET', `${t.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(res.headers.get('cache-control')).toBe('no-store');
  });

  it('counts requests by route template, method and status, never by raw URL', async () => {
    const poll = await publish();
    for (let i = 0; i < 3; i++)
      expect((await api.request('GET /polls/{id}', { params: { id: poll.id }, apiKey })).status).toBe(200);
    expect(
      (await api.request('GET /polls/{id}', { params: { id: 'poll_01AAAAAAAAAAAAAAAAAAAAAAAA' }, apiKey })).status,
    ).toBe(404);
    expect((await rawCall('GET', `${t.url}/no/such/path/${poll.id}`)).status).toBe(404);

    const text = await (await fetch(`${t.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })).text();
    const samples = parseMetrics(text);
    const get = '{route="/api/v1/polls/{id}",method="GET"';
    expect(samples.get(`pollkit_http_requests_total${get},status="200"}`)).toBeGreaterThanOrEqual(3);
    expect(samples.get(`pollkit_http_requests_total${get},status="404"}`)).toBe(1);
    expect(samples.get('pollkit_http_requests_total{route="unmatched",method="GET",status="404"}')).toBe(1);
    expect(samples.get(`pollkit_http_request_duration_seconds_count${get},status="200"}`)).toBeGreaterThanOrEqual(3);
    expect(
      samples.get(
        `pollkit_http_request_duration_seconds_bucket{le="+Inf",route="/api/v1/polls/{id}",method="GET",status="200"}`,
      ),
    ).toBeGreaterThanOrEqual(3);
    // No id, path or query a client sent ends up in a label.
    expect(text).not.toContain(poll.id);
    expect(text).not.toContain('no/such/path');
  });

  it('shows the answer writer’s batches, open streams and live sessions, and the process', async () => {
    const poll = await publish();
    const votes = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        api.request('POST /polls/{id}/votes', {
          params: { id: poll.id },
          apiKey,
          body: { voterId: `m${i}`, slideId: 'lunch', optionIds: ['pizza'] },
        }),
      ),
    );
    expect(votes.every((v) => v.status === 201)).toBe(true);
    const created = await api.request('POST /sessions', { apiKey, body: { pollId: poll.id } });
    expectStatus(created, 201);
    const stream = await openSse(`${t.api}/sessions/${created.body.id}/events`, {
      'x-host-token': created.body.hostToken,
    });
    try {
      await stream.next('session');
      const open = await scrapeMetrics(t.url, TOKEN);
      expect(open.get('pollkit_answer_batch_size_sum')).toBeGreaterThanOrEqual(20);
      expect(open.get('pollkit_answer_batch_size_count')).toBeGreaterThanOrEqual(1);
      expect(open.get('pollkit_answer_batch_flush_seconds_count')).toBe(open.get('pollkit_answer_batch_size_count'));
      expect(open.get('pollkit_answer_batch_failures_total')).toBe(0);
      expect(open.get('pollkit_sse_streams_open')).toBe(1);
      expect(open.get('pollkit_live_sessions_active')).toBe(1);
      // The cap the process logged at start (its descriptor limit less the reserve), and no refusal at it.
      expect(open.get('pollkit_sse_streams_cap')).toBe(t.server.deps.liveHub.streamCap.cap);
      expect(open.get('pollkit_sse_streams_cap')).toBeGreaterThan(0);
      expect(open.get('pollkit_sse_streams_refused_total')).toBe(0);
      for (const name of [
        'process_resident_memory_bytes',
        'nodejs_heap_size_used_bytes',
        'nodejs_eventloop_lag_seconds',
        'nodejs_eventloop_lag_p99_seconds',
        'process_cpu_seconds_total',
      ]) {
        expect(open.get(name), name).toBeGreaterThanOrEqual(0);
      }
    } finally {
      stream.close();
    }
    const deadline = Date.now() + 10_000;
    while ((await scrapeMetrics(t.url, TOKEN)).get('pollkit_sse_streams_open') !== 0) {
      if (Date.now() > deadline) throw new Error('the closed stream is still counted');
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  });

  it('shows the database pool and Redis when the server has them', async () => {
    const samples = await scrapeMetrics(t.url, TOKEN);
    expect(samples.get('pollkit_db_reachable')).toBe(1);
    if (usingPostgres) {
      expect(samples.get('pollkit_db_pool_connections{state="total"}')).toBeGreaterThanOrEqual(1);
      expect(samples.get('pollkit_db_pool_connections{state="idle"}')).toBeGreaterThanOrEqual(0);
      expect(samples.get('pollkit_db_pool_waiting')).toBe(0);
      expect(samples.get('pollkit_db_unavailable_errors_total')).toBe(0);
    } else {
      // The embedded database has no pool.
      expect(samples.has('pollkit_db_pool_connections{state="total"}')).toBe(false);
    }
    if (process.env.TEST_REDIS_URL) {
      expect(samples.get('pollkit_redis_connected')).toBe(1);
      expect(samples.get('pollkit_rate_limit_fallback')).toBe(0);
    } else {
      expect(samples.has('pollkit_redis_connected')).toBe(false);
    }
  });

  it('counts webhook attempts by outcome, and how long the oldest due delivery has waited', async () => {
    let answer = 500;
    receiver.respond = () => answer;
    const endpoint = await createEndpoint(t, apiKey, { url: receiver.urlFor('metrics'), events: ['poll.published'] });
    receiver.secrets = [endpoint.secret];
    await publish();
    await receiver.waitFor(() => receiver.received.some((d) => d.answered === 500));
    answer = 200;
    const failed = await scrapeMetrics(t.url, TOKEN);
    expect(failed.get('pollkit_webhook_attempts_total{outcome="failed"}')).toBeGreaterThanOrEqual(1);
    expect(failed.get('pollkit_webhook_oldest_due_seconds')).toBeGreaterThanOrEqual(0);
    await publish();
    await receiver.waitFor(() => receiver.received.some((d) => d.answered === 200));
    const succeeded = await scrapeMetrics(t.url, TOKEN);
    expect(succeeded.get('pollkit_webhook_attempts_total{outcome="succeeded"}')).toBeGreaterThanOrEqual(1);
  });
});
