import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sampleContent } from '../support/decks.js';
import { UNLIMITED } from '../support/limits.js';
import { pollPublisher } from '../support/polls.js';
import { startTestServer, type TestServer } from '../support/server.js';
import {
  type ApiResponse,
  expectOk,
  expectStatus,
  type OutputOf,
  type RequestInput,
  type RouteKey,
  testClient,
} from '../support/test-client.js';
import { createEndpoint } from '../support/webhooks.js';

/**
 * Erasure touches only the respondent's own records (issue 35, point 1). A participant's
 * `respondentId` is typed at join and unverified: hostile participants join as the poll's id, as an
 * option id everyone sees ("a") and as one letter ("e"), answer, and are erased — by the operator
 * naming that id, and by their participant id. Every stored copy that is not theirs (webhook
 * payloads delivered and pending, event batches, the delivery log's excerpts of a receiver that
 * echoes what it gets, idempotent replies) must then be byte for byte what it was before; theirs
 * lose their ids, names and texts and nothing else.
 */

let t: TestServer;
const api = testClient(() => t.api);
let apiKey: string;
let echo: http.Server;
let refusing: http.Server;

/** A customer's endpoint that answers 200 with the body it got: the delivery log keeps an excerpt of it. */
function echoServer(status: number): Promise<http.Server> {
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => res.writeHead(status, { 'content-type': 'application/json' }).end(Buffer.concat(chunks)));
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}
const urlOf = (server: http.Server) => `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;

beforeAll(async () => {
  t = await startTestServer({
    ...UNLIMITED,
    WEBHOOK_ALLOW_HTTP: 'true',
    WEBHOOK_ALLOW_LOOPBACK: 'true',
    // The refusing endpoint's deliveries stay pending for the whole test (one retry, a day later).
    WEBHOOK_RETRY_SCHEDULE_MS: '86400000',
  });
  ({ apiKey } = await t.workspace('pro'));
  echo = await echoServer(200);
  refusing = await echoServer(503);
});
afterAll(async () => {
  await t?.close();
  await new Promise((resolve) => echo?.close(resolve));
  await new Promise((resolve) => refusing?.close(resolve));
});

const publishedPoll = pollPublisher(() => ({ api: t.api, apiKey, title: 'Bystanders', content: sampleContent() }));

/** A request with the workspace's key that must succeed (2xx): its body. */
async function ok<K extends RouteKey>(key: K, input: RequestInput<K>): Promise<OutputOf<K>> {
  const res = await (api.request as (key: RouteKey, input: object) => Promise<ApiResponse<K>>)(key, {
    apiKey,
    ...input,
  });
  return expectOk(res);
}

/** Joins the self-paced session as `respondentId`, votes "a"-ish things and writes a text. */
async function hostileParticipant(link: string, respondentId: string, name: string, text: string) {
  const pin = { pin: link };
  const joined = await ok('POST /live/{pin}/join', { params: pin, body: { name, respondentId } });
  const headers = { 'x-participant-token': joined.participantToken };
  await ok('POST /live/{pin}/answers', {
    params: pin,
    body: { slideId: 'lunch', optionIds: ['sushi'] },
    headers: { ...headers, 'idempotency-key': 'k1' },
  });
  for (const slideId of ['capital', 'mood'])
    await ok('POST /live/{pin}/advance', { params: pin, body: { slideId }, headers });
  await ok('POST /live/{pin}/answers', {
    params: pin,
    body: { slideId: 'rank', rankingOrder: ['a', 'b', 'c'] },
    headers,
  });
  await ok('POST /live/{pin}/answers', {
    params: pin,
    body: { slideId: 'words', text },
    headers: { ...headers, 'idempotency-key': 'k2' },
  });
  return joined.participant.id;
}

interface StoredCopies {
  deliveries: Map<string, string>;
  batches: Map<string, string>;
  attempts: Map<string, string>;
  replies: Map<string, string>;
}

/** Every stored copy, by row, as text. */
async function storedCopies(): Promise<StoredCopies> {
  const db = t.server.deps.db;
  const deliveries = await db.selectFrom('webhook_deliveries').select(['id', 'payload']).execute();
  const batches = await db.selectFrom('webhook_event_batches').select(['id', 'payloads']).execute();
  const attempts = await db
    .selectFrom('webhook_attempts')
    .select(['id', 'delivery_id', 'response_excerpt', 'error'])
    .execute();
  const replies = await db.selectFrom('idempotency_keys').select(['key', 'response_body']).execute();
  return {
    deliveries: new Map(deliveries.map((row) => [row.id, row.payload])),
    batches: new Map(batches.map((row) => [row.id, JSON.stringify(row.payloads)])),
    attempts: new Map(
      attempts.map((row) => [row.id, JSON.stringify([row.delivery_id, row.response_excerpt, row.error])]),
    ),
    replies: new Map(replies.map((row) => [row.key, String(row.response_body)])),
  };
}

async function waitFor(check: () => Promise<boolean>, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Whose record a stored event is: its `data.voterId` or `data.participantId`. */
function ownerOf(payload: string): string | undefined {
  const data = (JSON.parse(payload) as { data?: Record<string, unknown> }).data ?? {};
  const owner = data.voterId ?? data.participantId;
  return typeof owner === 'string' ? owner : undefined;
}

describe('erasure leaves every other respondent’s stored copies as they were', () => {
  it('erases participants named like a poll id, an option id and one letter, and changes nothing of anyone else', {
    timeout: 120_000,
  }, async () => {
    await createEndpoint(t, apiKey, { url: urlOf(echo), events: ['*'] });
    await createEndpoint(t, apiKey, { url: urlOf(refusing), events: ['*'] });

    const poll = await publishedPoll();
    const session = await ok('POST /sessions', { body: { pollId: poll.id, pace: 'audience' } });
    await ok('POST /sessions/{id}/control', { params: { id: session.id }, body: { action: 'start' } });
    const link = String(session.joinUrl).split('/').pop() as string;

    // Bystanders: an API voter with idempotent requests whose replies name the poll and option "a",
    // and an honest participant.
    const id = { id: poll.id };
    await ok('POST /polls/{id}/votes', {
      params: id,
      body: { voterId: 'bob', slideId: 'lunch', optionIds: ['pizza'] },
      headers: { 'idempotency-key': 'bob-vote' },
    });
    await ok('POST /polls/{id}/responses', {
      params: id,
      body: { voterId: 'bob', slideId: 'rank', rankingOrder: ['a', 'c', 'b'] },
      headers: { 'idempotency-key': 'bob-rank' },
    });
    await ok('POST /polls/{id}/responses', {
      params: id,
      body: { voterId: 'bob', slideId: 'words', text: 'e is for erasure' },
      headers: { 'idempotency-key': 'bob-text' },
    });
    const carol = await hostileParticipant(link, 'carol@example.com', 'Carol', 'Carol was here');

    // Hostile participants: the poll's id, an option id, one letter.
    const asPoll = await hostileParticipant(link, poll.id, 'Mallory', 'mallory text');
    const asOption = await hostileParticipant(link, 'a', 'Eve', 'eve text');
    const asLetter = await hostileParticipant(link, 'e', 'Trent', 'trent text');
    // A later poll, so that poll events exist after the participants' (created, published).
    await publishedPoll();

    // Every event delivered to the echoing endpoint, and logged; the other endpoint's still pending.
    await waitFor(async () => {
      const rows = await sql<{ pending: number; attempts: number }>`
        select (select count(*) from webhook_event_batches)::int as pending,
               (select count(*) from webhook_attempts where response_excerpt like '{%')::int as attempts`.execute(
        t.server.deps.db,
      );
      const deliveries = await t.server.deps.db
        .selectFrom('webhook_deliveries')
        .select(['status'])
        .where('status', '=', 'succeeded')
        .execute();
      return rows.rows[0]?.pending === 0 && deliveries.length > 20 && (rows.rows[0]?.attempts ?? 0) > 20;
    }, 'deliveries made and logged');
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const before = await storedCopies();

    // The operator names the poll id, the option id and the letter; and erases each hostile
    // participant by its participant id too (its respondentId is then no needle at all).
    const erasedBy = async (id: string) => {
      const res = await api.request('DELETE /respondents/{id}', { params: { id }, apiKey });
      expectStatus(res, 200);
      return res.body.erased as Record<string, number>;
    };
    // The poll's id names the participant who joined as it (and nothing else); "a" likewise.
    expect(await erasedBy(poll.id)).toMatchObject({ votes: 1, responses: 2, participants: 1 });
    expect(await erasedBy(asPoll)).toMatchObject({ votes: 0, responses: 0, participants: 0 });
    expect(await erasedBy('a')).toMatchObject({ votes: 1, responses: 2, participants: 1 });
    // By participant id: its respondentId ("e") is searched for nowhere.
    expect(await erasedBy(asLetter)).toMatchObject({ votes: 1, responses: 2, participants: 1 });
    expect(await erasedBy('e')).toMatchObject({ votes: 0, responses: 0, participants: 0 });
    // An id nobody has: nothing at all.
    expect(Object.values(await erasedBy('x'))).toEqual([0, 0, 0, 0, 0, 0]);

    const after = await storedCopies();
    const theirs = new Set([asPoll, asOption, asLetter]);
    let untouched = 0;
    let rewritten = 0;
    for (const [id, payload] of before.deliveries) {
      const owner = ownerOf(payload);
      if (owner !== undefined && theirs.has(owner)) {
        const now = after.deliveries.get(id) as string;
        expect(now).not.toBe(payload);
        const data = JSON.parse(now).data;
        // Only the person fields went: the poll, the slide and the options they chose stay.
        expect(data.pollId).toBe(poll.id);
        if (data.voterId !== undefined) expect(data.voterId).toBe('[erased]');
        if (data.text !== undefined) expect(data.text).toBe('[erased]');
        if (data.rankingOrder !== undefined) expect(data.rankingOrder).toEqual(['a', 'b', 'c']);
        rewritten++;
      } else {
        expect(after.deliveries.get(id), `delivery ${id} (${owner ?? 'no respondent'})`).toBe(payload);
        untouched++;
      }
    }
    expect(rewritten).toBeGreaterThanOrEqual(18); // 3 participants × 3 answers × 2 endpoints
    expect(untouched).toBeGreaterThan(20);

    // The delivery log: the excerpts of everyone else's deliveries are as they were.
    const deliveryOwner = new Map([...before.deliveries].map(([id, payload]) => [id, ownerOf(payload)]));
    for (const [id, attempt] of before.attempts) {
      const [deliveryId] = JSON.parse(attempt) as [string];
      const owner = deliveryOwner.get(deliveryId);
      if (owner !== undefined && theirs.has(owner)) {
        expect(after.attempts.get(id)).not.toContain(owner);
      } else {
        expect(after.attempts.get(id), `attempt ${id}`).toBe(attempt);
      }
    }
    for (const [id, payloads] of before.batches) expect(after.batches.get(id)).toBe(payloads);

    // Idempotent replies: Bob's and Carol's byte for byte; the hostile participants' rewritten.
    for (const [key, body] of before.replies) {
      const participant = /^participant:(prt_[^/]+)\//.exec(key)?.[1];
      if (participant !== undefined && theirs.has(participant)) {
        expect(after.replies.get(key)).not.toContain(participant);
        expect(after.replies.get(key)).toContain(session.id);
      } else {
        expect(after.replies.get(key), `reply ${key}`).toBe(body);
      }
    }
    expect([...before.replies.keys()].some((key) => key.startsWith(`participant:${carol}/`))).toBe(true);
    expect([...before.replies.keys()].filter((key) => key.startsWith('api_key:'))).toHaveLength(3);

    // The respondent.erased events reach the echoing receiver; its echo, kept in the delivery log,
    // keeps no erased id (the stored payload is purged once delivered, the log excerpt from the start).
    const erasedEvents = async () =>
      (
        await sql<{ payload: string; excerpt: string | null; outcome: string }>`
          select d.payload, a.response_excerpt as excerpt, a.outcome from webhook_deliveries d
          join webhook_attempts a on a.delivery_id = d.id
          where d.event_type = 'respondent.erased'`.execute(t.server.deps.db)
      ).rows;
    const delivered = async () => (await erasedEvents()).filter((attempt) => attempt.outcome === 'succeeded');
    await waitFor(async () => (await delivered()).length === 3, 'three respondent.erased events delivered');
    for (const { payload } of await delivered()) expect(JSON.parse(payload).data.id).toBe('[erased]');
    // Both receivers echo: the one that answers 503 leaves failed attempts with the same excerpt.
    expect((await erasedEvents()).length).toBeGreaterThan(3);
    for (const { excerpt } of await erasedEvents()) {
      expect(excerpt).toContain('"type":"respondent.erased"');
      expect(JSON.parse(excerpt as string).data.id).toBe('[erased]');
      for (const id of [poll.id, asLetter]) expect(excerpt).not.toContain(id);
    }

    // The honest participant's records and Bob's are still readable, unchanged.
    const bob = await api.request('GET /respondents/{id}', { params: { id: 'bob' }, apiKey });
    expectStatus(bob, 200);
    expect(bob.body.data.map((record) => record.type)).toEqual(['vote', 'response', 'response']);
    const carolRecords = await api.request('GET /respondents/{id}', { params: { id: 'carol@example.com' }, apiKey });
    expect(expectOk(carolRecords).data[0]).toMatchObject({ type: 'participant', name: 'Carol' });
  });
});
