import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sampleContent } from '../support/decks.js';
import type { HttpResponse } from '../support/http.js';
import { UNLIMITED_WORKSPACE } from '../support/limits.js';
import { pollPublisher } from '../support/polls.js';
import { startTestServer, type TestServer } from '../support/server.js';
import {
  type ApiResponse,
  type BodyOf,
  errorOf,
  expectOk,
  expectStatus,
  type OkResponse,
  testClient,
} from '../support/test-client.js';

let t: TestServer;
const api = testClient(() => t.api);
let apiKey: string;
let workspaceId: string;

beforeAll(async () => {
  t = await startTestServer();
  ({ apiKey, id: workspaceId } = await t.workspace('enterprise', UNLIMITED_WORKSPACE));
});
afterAll(() => t?.close());

const withKey = (key: string) => ({ 'idempotency-key': key });

const createPoll = (body: BodyOf<'POST /polls'>, key?: string, credential = apiKey) =>
  api.request('POST /polls', { apiKey: credential, body, headers: key ? withKey(key) : {} });

const vote = (pollId: string, body: BodyOf<'POST /polls/{id}/votes'>, key?: string, base = t.api) =>
  testClient(base).request('POST /polls/{id}/votes', {
    params: { id: pollId },
    apiKey,
    body,
    headers: key ? withKey(key) : {},
  });

const publishedPoll = pollPublisher(() => ({ api: t.api, apiKey, title: 'Lunch', content: sampleContent() }));

async function votesOf(pollId: string): Promise<{ id: string; voterId: string }[]> {
  const listed = await api.request('GET /polls/{id}/votes', { params: { id: pollId }, apiKey });
  expectStatus(listed, 200);
  return listed.body.data;
}

async function pollTitles(credential: string): Promise<string[]> {
  const listed = await api.request('GET /polls', { query: { limit: 100 }, apiKey: credential });
  expectStatus(listed, 200);
  return listed.body.data.map((poll) => poll.title);
}

function expectReplayOf(replay: HttpResponse, original: HttpResponse): void {
  expect(replay.status).toBe(original.status);
  expect(replay.text).toBe(original.text);
  expect(replay.headers.get('idempotent-replayed')).toBe('true');
  expect(replay.headers.get('original-request')).toBe(original.headers.get('x-request-id'));
  expect(replay.headers.get('content-type')).toBe(original.headers.get('content-type'));
}

describe('Idempotency-Key', () => {
  it('replays a vote: the same key and body answer the original 201 and vote once', async () => {
    const { id: pollId } = await publishedPoll();
    const body = { voterId: 'ada', slideId: 'lunch', optionIds: ['pizza'] };
    const key = randomUUID();

    const first = await vote(pollId, body, key);
    expectStatus(first, 201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    // Key order does not make a different request.
    const second = await vote(pollId, { optionIds: ['pizza'], slideId: 'lunch', voterId: 'ada' }, key);
    expectReplayOf(second, first);
    expect(expectOk(second).id).toBe(first.body.id);
    // A replay still counts against the rate limit, like any authenticated request.
    expect(Number(second.headers.get('x-ratelimit-remaining'))).toBeLessThan(
      Number(first.headers.get('x-ratelimit-remaining')),
    );

    expect((await votesOf(pollId)).map((v) => v.id)).toEqual([first.body.id]);

    // Without the header nothing changes: the same vote again is the usual 409.
    const unkeyed = await vote(pollId, body);
    expectStatus(unkeyed, 409);
    expect(unkeyed.body.error.code).toBe('already_responded');
    expect(unkeyed.headers.get('idempotent-replayed')).toBeNull();
  });

  it('creates one poll for repeated creates with one key', async () => {
    const { apiKey: fresh } = await t.workspace('pro');
    const key = randomUUID();
    const first = await createPoll({ title: 'Once', content: sampleContent() }, key, fresh);
    const second = await createPoll({ title: 'Once', content: sampleContent() }, key, fresh);
    expectStatus(first, 201);
    expectReplayOf(second, first);
    expect(await pollTitles(fresh)).toEqual(['Once']);
  });

  it('refuses the key with another body, another path or another route: 422 idempotency_key_reused', async () => {
    const { id: pollId } = await publishedPoll();
    const { id: otherPollId } = await publishedPoll();
    const key = randomUUID();
    const body = { voterId: 'bob', slideId: 'lunch', optionIds: ['pizza'] };
    expect((await vote(pollId, body, key)).status).toBe(201);

    const otherBody = await vote(pollId, { ...body, optionIds: ['sushi'] }, key);
    const otherPath = await vote(otherPollId, body, key);
    const otherRoute = await createPoll({ title: 'Reused', content: sampleContent() }, key);
    for (const res of [otherBody, otherPath, otherRoute]) {
      expectStatus(res, 422);
      expect(res.body.error.code).toBe('idempotency_key_reused');
      expect(res.headers.get('idempotent-replayed')).toBeNull();
    }
    // None of them did any work.
    expect((await votesOf(pollId)).map((v) => v.voterId)).toEqual(['bob']);
    expect(await votesOf(otherPollId)).toEqual([]);
    expect(await pollTitles(apiKey)).not.toContain('Reused');
  });

  it('scopes keys per workspace: two workspaces use one key independently', async () => {
    const a = await t.workspace('pro');
    const b = await t.workspace('pro');
    const key = 'shared-key-1';
    const inA = await createPoll({ title: 'A', content: sampleContent() }, key, a.apiKey);
    const inB = await createPoll({ title: 'B', content: sampleContent() }, key, b.apiKey);
    expectStatus(inA, 201);
    expectStatus(inB, 201);
    expect(inB.headers.get('idempotent-replayed')).toBeNull();
    expect(expectOk(inB).id).not.toBe(expectOk(inA).id);
    expect(await pollTitles(a.apiKey)).toEqual(['A']);
    expect(await pollTitles(b.apiKey)).toEqual(['B']);
  });

  it('replays a 4xx outcome as it was first answered', async () => {
    const { id: pollId } = await publishedPoll();
    const key = randomUUID();
    const body = { voterId: 'cy', slideId: 'lunch', optionIds: ['tacos'] };
    const first = await vote(pollId, body, key);
    expectStatus(first, 422);
    expect(first.body.error.code).toBe('validation_failed');
    expectReplayOf(await vote(pollId, body, key), first);

    // A 409 is an outcome too: it is kept, not re-evaluated.
    const conflictKey = randomUUID();
    const taken = { voterId: 'dee', slideId: 'lunch', optionIds: ['sushi'] };
    expect((await vote(pollId, taken)).status).toBe(201);
    const conflict = await vote(pollId, taken, conflictKey);
    expect(errorOf(conflict).code).toBe('already_responded');
    expectReplayOf(await vote(pollId, taken, conflictKey), conflict);
  });

  it('does the work once for concurrent identical requests; the others replay or get 409 idempotency_key_in_use', async () => {
    const { id: pollId } = await publishedPoll();
    const key = randomUUID();
    const body = { voterId: 'eve', slideId: 'lunch', optionIds: ['sushi'] };
    const answers = await Promise.all(Array.from({ length: 8 }, () => vote(pollId, body, key)));

    const originals = answers.filter((res) => res.status === 201 && res.headers.get('idempotent-replayed') === null);
    expect(originals).toHaveLength(1);
    const [original] = originals as [OkResponse<'POST /polls/{id}/votes'>];
    for (const res of answers) {
      if (res === original) continue;
      if (res.status === 409) {
        expect(res.body.error.code).toBe('idempotency_key_in_use');
      } else {
        expectReplayOf(res, original);
      }
    }
    expect((await votesOf(pollId)).map((v) => v.id)).toEqual([original.body.id]);
  });

  it('answers a retry after a lost response with the original 201', async () => {
    const { id: pollId } = await publishedPoll();
    const proxy = await responseDroppingProxy(t.url);
    try {
      const key = randomUUID();
      const body = { voterId: 'fay', slideId: 'lunch', optionIds: ['pizza'] };
      await expect(vote(pollId, body, key, `${proxy.url}/api/v1`)).rejects.toThrow();
      expect(proxy.dropped).toHaveLength(1);
      const lost = proxy.dropped[0] as { status: number; body: string };
      expect(lost.status).toBe(201);

      const retry = await vote(pollId, body, key);
      expectStatus(retry, 201);
      expect(retry.headers.get('idempotent-replayed')).toBe('true');
      expect(retry.text).toBe(lost.body);
      expect((await votesOf(pollId)).map((v) => v.id)).toEqual([retry.body.id]);
    } finally {
      await proxy.close();
    }
  });

  it('runs the work again once the key has expired', async () => {
    const { apiKey: fresh, id } = await t.workspace('pro');
    const key = randomUUID();
    const body = { title: 'Twice', content: sampleContent() };
    const first = await createPoll(body, key, fresh);
    expectStatus(first, 201);

    await t.server.deps.db
      .updateTable('idempotency_keys')
      .set({ expires_at: new Date(Date.now() - 1000) })
      .where('workspace_id', '=', id)
      .where('key', 'like', `%/${key}`)
      .execute();

    const again = await createPoll(body, key, fresh);
    expectStatus(again, 201);
    expect(again.headers.get('idempotent-replayed')).toBeNull();
    expect(expectOk(again).id).not.toBe(expectOk(first).id);
    expect(await pollTitles(fresh)).toEqual(['Twice', 'Twice']);
    // And the new outcome is the one replayed from now on.
    expectReplayOf(await createPoll(body, key, fresh), again);
  });

  it('releases the key when the work fails on our side, so a retry runs again', async () => {
    const { apiKey: fresh, id } = await t.workspace('pro');
    const key = randomUUID();
    const body = { title: 'After the outage', content: sampleContent() };
    const db = t.server.deps.db;
    // A real failure of the database: the table the work writes to is briefly missing.
    await sql`alter table polls rename to polls_offline`.execute(db);
    let failed: ApiResponse<'POST /polls'>;
    try {
      failed = await createPoll(body, key, fresh);
    } finally {
      await sql`alter table polls_offline rename to polls`.execute(db);
    }
    expectStatus(failed, 500);
    expect(failed.body.error.code).toBe('internal_error');
    const rows = await db.selectFrom('idempotency_keys').select('key').where('workspace_id', '=', id).execute();
    expect(rows).toEqual([]);

    const retry = await createPoll(body, key, fresh);
    expectStatus(retry, 201);
    expect(retry.headers.get('idempotent-replayed')).toBeNull();
    expect(await pollTitles(fresh)).toEqual(['After the outage']);
  });

  it('checks the key only after authentication, and refuses a malformed key with 400 bad_request', async () => {
    const body = { title: 'Malformed', content: sampleContent() };
    const unauthenticated = await api.request('POST /polls', { body, headers: withKey('x'.repeat(300)) });
    expectStatus(unauthenticated, 401);
    expect(unauthenticated.body.error.code).toBe('missing_authorization');

    for (const key of ['x'.repeat(256), 'caf\u00e9']) {
      const res = await createPoll(body, key);
      expectStatus(res, 400);
      expect(res.body.error.code).toBe('bad_request');
      expect(res.body.error.message).toMatch(/Idempotency-Key/);
    }
    const longest = await createPoll(body, 'k'.repeat(255));
    expectStatus(longest, 201);
    expect((await pollTitles(apiKey)).filter((title) => title === 'Malformed')).toHaveLength(1);
  });

  it('keeps one row per key and workspace with the fingerprint and the stored response', async () => {
    const key = randomUUID();
    const created = await createPoll({ title: 'Stored', content: sampleContent() }, key);
    const row = await t.server.deps.db
      .selectFrom('idempotency_keys')
      .selectAll()
      .where('workspace_id', '=', workspaceId)
      .where('key', 'like', `%/${key}`)
      .executeTakeFirstOrThrow();
    // Kept in the namespace of the API key that sent it (api/idempotency.ts).
    expect(row.key).toMatch(new RegExp(`^api_key:key_[0-9A-Z]+/${key}$`));
    expect(row.state).toBe('completed');
    expect(row.response_status).toBe(201);
    expect(row.response_body).toBe(created.text);
    expect(row.fingerprint).toMatch(/^[0-9a-f]{64}$/);
    expect(row.expires_at.getTime() - row.created_at.getTime()).toBe(24 * 60 * 60 * 1000);
  });
});

/**
 * A loopback HTTP proxy that forwards each request to the real server, reads the whole answer, then
 * destroys the client's connection instead of answering: the work is done, the response is lost.
 */
async function responseDroppingProxy(target: string) {
  const dropped: { status: number; body: string }[] = [];
  const server = http.createServer((request, response) => {
    const upstream = http.request(
      new URL(request.url ?? '/', target),
      { method: request.method, headers: request.headers },
      (answer) => {
        const chunks: Buffer[] = [];
        answer.on('data', (chunk: Buffer) => chunks.push(chunk));
        answer.on('end', () => {
          dropped.push({ status: answer.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') });
          response.socket?.destroy();
        });
      },
    );
    upstream.on('error', () => response.socket?.destroy());
    request.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    dropped,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
