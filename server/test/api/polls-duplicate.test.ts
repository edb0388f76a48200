import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../support/assertions.js';
import { condition, sampleContent } from '../support/decks.js';
import { UNLIMITED } from '../support/limits.js';
import { pollPublisher } from '../support/polls.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { expectOk, expectStatus, testClient } from '../support/test-client.js';

/**
 * `POST /polls/{id}/duplicate` over real HTTP (issue 28, "Templates"): a draft with the poll's content
 * and skip logic, and nothing the original collected — no answers, results or sessions. Another
 * workspace's poll is as unknown as a missing one, and a key without `polls:write` cannot copy.
 */

let t: TestServer;
const api = testClient(() => t.api);
let apiKey: string;

beforeAll(async () => {
  t = await startTestServer(UNLIMITED);
  ({ apiKey } = await t.workspace('pro'));
});
afterAll(() => t?.close());

const publishedPoll = pollPublisher(() => ({ api: t.api, apiKey, title: 'Team lunch', content: sampleContent() }));

describe('duplicating a poll', () => {
  it('copies the content and the skip logic into a draft, and nothing the original collected', async () => {
    const original = await publishedPoll();
    const branching = { conditions: [condition('pizza-skips', 'lunch', 'equals', 'pizza', 'mood')] };
    const patched = await api.request('PATCH /polls/{id}', {
      params: { id: original.id },
      apiKey,
      body: { branching },
    });
    expectStatus(patched, 200);
    const vote = await api.request('POST /polls/{id}/votes', {
      params: { id: original.id },
      apiKey,
      body: { voterId: 'ada', slideId: 'lunch', optionIds: ['pizza'] },
    });
    expectStatus(vote, 201);
    const session = await api.request('POST /sessions', { apiKey, body: { pollId: original.id } });
    expectStatus(session, 201);

    const copy = await api.request('POST /polls/{id}/duplicate', { params: { id: original.id }, apiKey });
    expectStatus(copy, 201);
    const source = expectOk(await api.request('GET /polls/{id}', { params: { id: original.id }, apiKey }));
    expect(copy.body).toMatchObject({
      title: 'Team lunch (copy)',
      status: 'draft',
      publishedAt: null,
      closedAt: null,
      content: source.content,
      branching: source.branching,
    });
    expect(copy.body.id).not.toBe(original.id);

    // Nothing it collected came with it.
    const results = await api.request('GET /polls/{id}/results', { params: { id: copy.body.id }, apiKey });
    expectStatus(results, 200);
    expect(results.body.totalVoters).toBe(0);
    const votes = await api.request('GET /polls/{id}/votes', { params: { id: copy.body.id }, apiKey });
    expectStatus(votes, 200);
    expect(votes.body.data).toEqual([]);
    const sessions = await api.request('GET /sessions', { query: { pollId: copy.body.id }, apiKey });
    expectStatus(sessions, 200);
    expect(sessions.body.data).toEqual([]);
    // The original is as it was.
    expect(
      expectOk(await api.request('GET /polls/{id}/results', { params: { id: original.id }, apiKey })).totalVoters,
    ).toBe(1);

    // The copy is a poll like any other: published, it takes answers of its own.
    const published = await api.request('PATCH /polls/{id}', {
      params: { id: copy.body.id },
      apiKey,
      body: { publish: true },
    });
    expectStatus(published, 200);
    const own = await api.request('POST /polls/{id}/votes', {
      params: { id: copy.body.id },
      apiKey,
      body: { voterId: 'ada', slideId: 'lunch', optionIds: ['sushi'] },
    });
    expectStatus(own, 201);
  });

  it('takes a title, and keeps a long one within the limit', async () => {
    const original = await publishedPoll({ title: 'x'.repeat(200) });
    const named = await api.request('POST /polls/{id}/duplicate', {
      params: { id: original.id },
      apiKey,
      body: { title: 'Lunch, second sitting' },
    });
    expectStatus(named, 201);
    expect(named.body.title).toBe('Lunch, second sitting');
    const long = await api.request('POST /polls/{id}/duplicate', { params: { id: original.id }, apiKey });
    expectStatus(long, 201);
    expect(long.body.title.endsWith(' (copy)')).toBe(true);
    expect(long.body.title.length).toBeLessThanOrEqual(200);
    expectError(
      await api.request('POST /polls/{id}/duplicate', { params: { id: original.id }, apiKey, body: { title: '' } }),
      422,
      'validation_failed',
    );
  });

  it('copies only the caller’s own polls, and only with polls:write', async () => {
    const original = await publishedPoll();
    const other = await t.workspace('pro');
    expectError(
      await api.request('POST /polls/{id}/duplicate', { params: { id: original.id }, apiKey: other.apiKey }),
      404,
      'not_found',
    );
    const readOnly = await api.request('POST /keys', { apiKey, body: { name: 'reader', scopes: ['polls:read'] } });
    expectStatus(readOnly, 201);
    expectError(
      await api.request('POST /polls/{id}/duplicate', { params: { id: original.id }, apiKey: readOnly.body.secret }),
      403,
      'insufficient_scope',
    );
    const listed = await api.request('GET /polls', { query: { limit: 100 }, apiKey: other.apiKey });
    expectStatus(listed, 200);
    expect(listed.body.data).toEqual([]);
  });
});
