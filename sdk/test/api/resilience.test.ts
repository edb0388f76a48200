import { inspect } from 'node:util';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { sampleContent } from '../../../server/test/support/polls.js';
import { startTestServer, type TestServer } from '../../../server/test/support/server.js';
import { backoffDelay } from '../../src/core/retry.js';
import {
  type CommonClientOptions,
  ConflictError,
  ConnectionError,
  createClient,
  InternalServerError,
  NotFoundError,
  PollkitError,
  RateLimitError,
  type RequestLogRecord,
  TimeoutError,
  ValidationError,
} from '../../src/index.js';
import { type FaultProxy, type RecordedRequest, startFaultProxy } from '../support/fault-proxy.js';
import { rejectionOf } from '../support/rejection.js';

let t: TestServer;
let proxy: FaultProxy;

beforeAll(async () => {
  t = await startTestServer();
  proxy = await startFaultProxy(t.url);
});
afterAll(async () => {
  await proxy?.close();
  await t?.close();
});
beforeEach(() => proxy.reset());

/** Backoffs of a millisecond or so: the tests check which attempts happen, never how long they wait. */
const tinyBackoff = { retryBaseDelayMs: 1, retryMaxDelayMs: 4, rateLimitMaxDelayMs: 4 } as const;

/** A client of a new workspace that talks to the server through the fault proxy. */
async function proxiedClient(options: Partial<CommonClientOptions> = {}) {
  const { apiKey } = await t.workspace('pro');
  const client = createClient({ apiKey, baseUrl: proxy.url, ...tinyBackoff, ...options });
  const direct = createClient({ apiKey, baseUrl: t.url });
  return { apiKey, client, direct };
}

const requestsTo = (method: string, path: string): RecordedRequest[] =>
  proxy.requests.filter((r) => r.method === method && r.url === `/api/v1${path}`);
const isPost = (r: RecordedRequest) => r.method === 'POST';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('retries', () => {
  it('retries a 503 and succeeds, resending the same body with the same Idempotency-Key', async () => {
    const { client, direct } = await proxiedClient();
    proxy.inject({ kind: 'status', status: 503, code: 'service_unavailable' }, 2);
    const poll = await client.polls.create({ title: 'Survives a restart' });
    expect(poll.title).toBe('Survives a restart');

    const attempts = requestsTo('POST', '/polls');
    expect(attempts).toHaveLength(3);
    const [first] = attempts;
    expect(first?.headers['idempotency-key']).toMatch(UUID);
    for (const attempt of attempts) {
      expect(attempt.headers['idempotency-key']).toBe(first?.headers['idempotency-key']);
      expect(attempt.body).toBe('{"title":"Survives a restart"}');
    }
    // The two 503s never reached the server: one poll exists.
    expect((await direct.polls.list()).data.map((p) => p.id)).toEqual([poll.id]);
  });

  it('retries the one 409 that asks for it: idempotency_key_in_use, the first attempt still running', async () => {
    const { client } = await proxiedClient();
    proxy.inject({ kind: 'status', status: 409, code: 'idempotency_key_in_use' }, 1, isPost);
    expect((await client.polls.create({ title: 'Patient' })).title).toBe('Patient');
    const attempts = requestsTo('POST', '/polls');
    expect(attempts).toHaveLength(2);
    expect(attempts[1]?.headers['idempotency-key']).toBe(attempts[0]?.headers['idempotency-key']);
  });

  it('never retries a 404, a 422 or another 409', async () => {
    const { client } = await proxiedClient({ maxRetries: 5 });
    expect(await rejectionOf(client.polls.get({ id: 'poll_01AAAAAAAAAAAAAAAAAAAAAAAA' }))).toBeInstanceOf(
      NotFoundError,
    );
    expect(await rejectionOf(client.polls.create({ title: '' }))).toBeInstanceOf(ValidationError);
    const poll = await client.polls.create({ title: 'Once', content: sampleContent() });
    await client.polls.update({ id: poll.id, publish: true });
    const vote = { id: poll.id, voterId: 'ada', slideId: 'lunch', optionIds: ['pizza'] };
    await client.votes.cast(vote);
    expect(await rejectionOf(client.votes.cast(vote))).toBeInstanceOf(ConflictError);

    expect(proxy.requests.map((r) => `${r.method} ${r.url.replace(poll.id, ':id')}`)).toEqual([
      'GET /api/v1/polls/poll_01AAAAAAAAAAAAAAAAAAAAAAAA',
      'POST /api/v1/polls',
      'POST /api/v1/polls',
      'PATCH /api/v1/polls/:id',
      'POST /api/v1/polls/:id/votes',
      'POST /api/v1/polls/:id/votes',
    ]);
  });

  it('retries a 429 with backoff, and throws RateLimitError once maxRetries are spent', async () => {
    const waits: number[] = [];
    const { client } = await proxiedClient({
      logger: { warn: (_message, record) => waits.push(record.retryInMs ?? Number.NaN) },
    });
    proxy.inject({ kind: 'status', status: 429, code: 'rate_limited' });
    expect((await client.polls.list()).data).toEqual([]);
    expect(proxy.requests).toHaveLength(2);

    proxy.reset();
    proxy.inject({ kind: 'status', status: 429, code: 'rate_limited' }, 10);
    const error = await rejectionOf(client.polls.list());
    expect(error).toBeInstanceOf(RateLimitError);
    // The default maxRetries, 2: three attempts in all.
    expect(proxy.requests).toHaveLength(3);
    expect(waits).toHaveLength(3);
    for (const wait of waits) {
      expect(wait).toBeGreaterThanOrEqual(0);
      expect(wait).toBeLessThanOrEqual(tinyBackoff.rateLimitMaxDelayMs);
    }
  });

  it('takes maxRetries from the client, and from the call over the client', async () => {
    const { client } = await proxiedClient({ maxRetries: 0 });
    proxy.inject({ kind: 'status', status: 500, code: 'internal_error' });
    expect(await rejectionOf(client.polls.list())).toBeInstanceOf(InternalServerError);
    expect(proxy.requests).toHaveLength(1);

    proxy.reset();
    proxy.inject({ kind: 'status', status: 503, code: 'service_unavailable' }, 3);
    expect((await client.polls.list({}, { maxRetries: 3 })).data).toEqual([]);
    expect(proxy.requests).toHaveLength(4);
  });

  it('retries a request whose connection dropped before the answer', async () => {
    const { client } = await proxiedClient();
    proxy.inject({ kind: 'drop' });
    expect((await client.polls.list()).data).toEqual([]);
    expect(proxy.requests).toHaveLength(2);
  });

  it('stops on a connection failure once maxRetries are spent, as a ConnectionError', async () => {
    const { client } = await proxiedClient({ maxRetries: 1 });
    proxy.inject({ kind: 'drop' }, 2);
    const error = await rejectionOf(client.polls.list());
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error).toMatchObject({ code: 'connection_error', status: undefined });
    expect(proxy.requests).toHaveLength(2);
  });
});

describe('idempotency keys', () => {
  it('sends a new random key with every POST, the per-call one when given, and none with a GET', async () => {
    const { client } = await proxiedClient();
    await client.polls.create({ title: 'A' });
    await client.polls.create({ title: 'B' });
    await client.polls.create({ title: 'C' }, { idempotencyKey: 'order-42-poll' });
    await client.polls.list();

    const keys = proxy.requests.map((r) => r.headers['idempotency-key']);
    expect(keys[0]).toMatch(UUID);
    expect(keys[1]).toMatch(UUID);
    expect(keys[1]).not.toBe(keys[0]);
    expect(keys[2]).toBe('order-42-poll');
    expect(keys[3]).toBeUndefined();
  });

  // The replay itself is the server's (server/src/api/idempotency.ts): it stores each key's response for 24 h.
  it('a vote retried after a lost response returns its original 201, not a 409', async () => {
    const { client, direct } = await proxiedClient();
    const poll = await direct.polls.create({ title: 'Lost answers', content: sampleContent() });
    await direct.polls.update({ id: poll.id, publish: true });

    // The server records the vote, then the connection drops before its 201 reaches the client.
    proxy.inject({ kind: 'drop' }, 1, isPost);
    const receipt = await client.votes.cast({ id: poll.id, voterId: 'ada', slideId: 'lunch', optionIds: ['pizza'] });
    expect(receipt).toMatchObject({ pollId: poll.id, voterId: 'ada', slideId: 'lunch' });

    const attempts = requestsTo('POST', `/polls/${poll.id}/votes`);
    expect(attempts).toHaveLength(2);
    expect(attempts[1]?.headers['idempotency-key']).toBe(attempts[0]?.headers['idempotency-key']);
    const votes = await direct.votes.list({ id: poll.id });
    expect(votes.data.map((v) => v.id)).toEqual([receipt.id]);
  });
});

describe('timeouts and cancellation', () => {
  it('throws TimeoutError when no answer comes in time, after retrying like a connection failure', async () => {
    const { client } = await proxiedClient({ timeout: 50, maxRetries: 1 });
    proxy.inject({ kind: 'delay', ms: 1_000 }, 2);
    const error = await rejectionOf(client.polls.list());
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error).toMatchObject({ code: 'timeout', status: undefined });
    expect((error as Error).message).toMatch(/within 50 ms/);
    expect(proxy.requests).toHaveLength(2);
  });

  it('takes a per-call timeout over the client one', async () => {
    const { client } = await proxiedClient({ timeout: 50, maxRetries: 0 });
    proxy.inject({ kind: 'delay', ms: 150 });
    expect((await client.polls.list({}, { timeout: 20_000 })).data).toEqual([]);
    expect(proxy.requests).toHaveLength(1);
  });

  it("rejects with the caller's abort reason mid-request, and does not retry", async () => {
    const { client } = await proxiedClient({ maxRetries: 3 });
    proxy.inject({ kind: 'delay', ms: 1_000 });
    const controller = new AbortController();
    const reason = new Error('the user navigated away');
    const call = rejectionOf(client.polls.list({}, { signal: controller.signal }));
    await vi.waitFor(() => expect(proxy.requests).toHaveLength(1));
    controller.abort(reason);
    expect(await call).toBe(reason);
    expect(proxy.requests).toHaveLength(1);
  });

  it("rejects with the caller's abort reason while waiting to retry", async () => {
    const controller = new AbortController();
    const reason = new Error('shutting down');
    // A backoff long enough that only the abort can end the wait.
    const { client } = await proxiedClient({
      retryBaseDelayMs: 60_000,
      retryMaxDelayMs: 60_000,
      logger: { warn: () => setTimeout(() => controller.abort(reason), 1) },
    });
    proxy.inject({ kind: 'status', status: 503, code: 'service_unavailable' });
    expect(await rejectionOf(client.polls.list({}, { signal: controller.signal }))).toBe(reason);
    expect(proxy.requests).toHaveLength(1);
  });
});

describe('logger', () => {
  it('reports method, URL, status, attempt and duration, and never the API key', async () => {
    const lines: Array<{ level: string; message: string; record: RequestLogRecord }> = [];
    const logger = Object.fromEntries(
      (['debug', 'info', 'warn'] as const).map((level) => [
        level,
        (message: string, record: RequestLogRecord) => lines.push({ level, message, record }),
      ]),
    );
    const { client, apiKey } = await proxiedClient({ logger });
    proxy.inject({ kind: 'status', status: 503, code: 'service_unavailable' });
    await client.polls.create({ title: 'Logged' });

    expect(inspect(lines, { depth: Number.POSITIVE_INFINITY })).not.toContain(apiKey);
    expect(JSON.stringify(lines)).not.toContain(apiKey.slice(8));
    const url = `${proxy.url}/api/v1/polls`;
    expect(lines.map((l) => [l.level, l.record.attempt, l.record.status])).toEqual([
      ['debug', 1, undefined],
      ['info', 1, 503],
      ['warn', 1, 503],
      ['debug', 2, undefined],
      ['info', 2, 201],
    ]);
    for (const { record } of lines) expect(record).toMatchObject({ method: 'POST', url });
    const sent = lines.filter((l) => l.level === 'debug').map((l) => l.record.headers);
    for (const headers of sent) {
      expect(headers?.authorization).toBe('Bearer [redacted]');
      expect(headers?.['idempotency-key']).toMatch(UUID);
    }
    for (const { record } of lines.filter((l) => l.level === 'info')) {
      expect(record.durationMs).toBeGreaterThanOrEqual(0);
    }
    // The server's request id (the proxy's injected 503 has none).
    expect(lines[4]?.record.requestId).toEqual(expect.any(String));
    expect(lines[2]?.record.retryInMs).toBeLessThanOrEqual(tinyBackoff.retryMaxDelayMs);
  });
});

describe('logger failures', () => {
  it('never fail the call being reported on', async () => {
    const { client } = await proxiedClient({
      logger: {
        info: () => {
          throw new Error('log sink is down');
        },
      },
    });
    expect((await client.polls.list()).data).toEqual([]);
    expect(proxy.requests).toHaveLength(1);
  });
});

describe('withOptions', () => {
  it('derives a client with other options, leaving the original as it was', async () => {
    const fetched: string[] = [];
    const { client } = await proxiedClient({ maxRetries: 0, headers: { 'x-team': 'base' } });
    const derived = client.withOptions({
      maxRetries: 2,
      headers: { 'x-trace': 'derived' },
      fetch: (url, init) => {
        fetched.push(url);
        return fetch(url, init);
      },
    });

    proxy.inject({ kind: 'status', status: 503, code: 'service_unavailable' });
    expect((await derived.polls.list()).data).toEqual([]);
    expect(proxy.requests).toHaveLength(2);
    expect(fetched).toHaveLength(2);
    // Headers are merged into the original's.
    expect(proxy.requests[1]?.headers).toMatchObject({ 'x-team': 'base', 'x-trace': 'derived' });

    proxy.reset();
    proxy.inject({ kind: 'status', status: 503, code: 'service_unavailable' });
    expect(await rejectionOf(client.polls.list())).toBeInstanceOf(InternalServerError);
    expect(proxy.requests).toHaveLength(1);
    expect(proxy.requests[0]?.headers['x-trace']).toBeUndefined();
    expect(fetched).toHaveLength(2);

    const impatient = client.withOptions({ timeout: 50 });
    proxy.inject({ kind: 'delay', ms: 1_000 });
    expect(await rejectionOf(impatient.polls.list())).toBeInstanceOf(TimeoutError);
  });
});

describe('response validation', () => {
  it('is off by default; on, a body that does not match the schema throws invalid_response', async () => {
    const { client, direct } = await proxiedClient();
    const { id } = await direct.polls.create({ title: 'Validated' });
    const fromTheFuture = (body: string) => JSON.stringify({ ...JSON.parse(body), status: 'archived', colour: 'red' });

    proxy.inject({ kind: 'rewrite', rewrite: fromTheFuture });
    const unchecked = await client.polls.get({ id });
    expect(unchecked).toMatchObject({ id, status: 'archived', colour: 'red' });

    const validating = client.withOptions({ validateResponses: true });
    proxy.inject({ kind: 'rewrite', rewrite: fromTheFuture });
    const error = await rejectionOf(validating.polls.get({ id }));
    expect(error).toBeInstanceOf(PollkitError);
    expect(error).toMatchObject({ code: 'invalid_response', status: 200 });
    expect((error as PollkitError).details?.fieldErrors?.status).toEqual([expect.any(String)]);
    // Not retried: the server answered, and would answer the same.
    expect(requestsTo('GET', `/polls/${id}`)).toHaveLength(2);

    // Per call too; and a body that matches passes, parsed by the schema.
    proxy.inject({ kind: 'rewrite', rewrite: fromTheFuture });
    expect(await rejectionOf(client.polls.get({ id }, { validateResponse: true }))).toMatchObject({
      code: 'invalid_response',
    });
    expect(await validating.polls.get({ id })).toEqual(await direct.polls.get({ id }));
  });
});

describe('backoff', () => {
  const options = { retryBaseDelayMs: 100, retryMaxDelayMs: 1_000, rateLimitMaxDelayMs: 60_000 };

  it('after a 429: full jitter, from 0 up to the doubling ceiling, capped at the 60 s window', () => {
    expect(backoffDelay('rate_limited', 0, options, () => 0)).toBe(0);
    expect(backoffDelay('rate_limited', 0, options, () => 0.999)).toBe(99);
    expect(backoffDelay('rate_limited', 3, options, () => 0.5)).toBe(400);
    expect(backoffDelay('rate_limited', 20, options, () => 0.999)).toBe(59_940);
  });

  it('after a 5xx or a connection failure: doubling, capped, with up to a quarter of jitter', () => {
    expect(backoffDelay('server_error', 0, options, () => 0)).toBe(100);
    expect(backoffDelay('server_error', 2, options, () => 1)).toBe(300);
    expect(backoffDelay('connection_error', 20, options, () => 0)).toBe(1_000);
    expect(backoffDelay('connection_error', 20, options, () => 0.5)).toBe(875);
  });
});
