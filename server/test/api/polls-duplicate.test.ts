import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../support/assertions.js';
import { condition } from '../support/branching-deck.js';
import { call } from '../support/http.js';
import { pollPublisher, sampleContent } from '../support/polls.js';
import { startTestServer, type TestServer } from '../support/server.js';

/**
 * `POST /polls/{id}/duplicate` over real HTTP (issue 28, "Templates"): a draft with the poll's content
 * and skip logic, and nothing the original collected — no answers, results or sessions. Another
 * workspace's poll is as unknown as a missing one, and a key without `polls:write` cannot copy.
 */

let t: TestServer;
let apiKey: string;

beforeAll(async () => {
  t = await startTestServer({ RATE_LIMIT_PER_MINUTE: '1000000' });
  ({ apiKey } = await t.workspace('pro'));
});
afterAll(() => t?.close());

const publishedPoll = pollPublisher(() => ({ api: t.api, apiKey, title: 'Team lunch', content: sampleContent() }));

describe('duplicating a poll', () => {
  it('copies the content and the skip logic into a draft, and nothing the original collected', async () => {
    const original = await publishedPoll();
    const branching = { conditions: [condition('pizza-skips', 'lunch', 'equals', 'pizza', 'mood')] };
    const patched = await call('PATCH', `${t.api}/polls/${original.id}`, { apiKey, body: { branching } });
    expect(patched.status, patched.text).toBe(200);
    const vote = await call('POST', `${t.api}/polls/${original.id}/votes`, {
      apiKey,
      body: { voterId: 'ada', slideId: 'lunch', optionIds: ['pizza'] },
    });
    expect(vote.status, vote.text).toBe(201);
    const session = await call('POST', `${t.api}/sessions`, { apiKey, body: { pollId: original.id } });
    expect(session.status, session.text).toBe(201);

    const copy = await call('POST', `${t.api}/polls/${original.id}/duplicate`, { apiKey });
    expect(copy.status, copy.text).toBe(201);
    const source = (await call('GET', `${t.api}/polls/${original.id}`, { apiKey })).body;
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
    const results = await call('GET', `${t.api}/polls/${copy.body.id}/results`, { apiKey });
    expect(results.body.totalVoters).toBe(0);
    const votes = await call('GET', `${t.api}/polls/${copy.body.id}/votes`, { apiKey });
    expect(votes.body.data).toEqual([]);
    const sessions = await call('GET', `${t.api}/sessions?pollId=${copy.body.id}`, { apiKey });
    expect(sessions.body.data).toEqual([]);
    // The original is as it was.
    expect((await call('GET', `${t.api}/polls/${original.id}/results`, { apiKey })).body.totalVoters).toBe(1);

    // The copy is a poll like any other: published, it takes answers of its own.
    const published = await call('PATCH', `${t.api}/polls/${copy.body.id}`, { apiKey, body: { publish: true } });
    expect(published.status, published.text).toBe(200);
    const own = await call('POST', `${t.api}/polls/${copy.body.id}/votes`, {
      apiKey,
      body: { voterId: 'ada', slideId: 'lunch', optionIds: ['sushi'] },
    });
    expect(own.status, own.text).toBe(201);
  });

  it('takes a title, and keeps a long one within the limit', async () => {
    const original = await publishedPoll({ title: 'x'.repeat(200) });
    const named = await call('POST', `${t.api}/polls/${original.id}/duplicate`, {
      apiKey,
      body: { title: 'Lunch, second sitting' },
    });
    expect(named.body.title).toBe('Lunch, second sitting');
    const long = await call('POST', `${t.api}/polls/${original.id}/duplicate`, { apiKey });
    expect(long.status, long.text).toBe(201);
    expect(long.body.title.endsWith(' (copy)')).toBe(true);
    expect(long.body.title.length).toBeLessThanOrEqual(200);
    expectError(
      await call('POST', `${t.api}/polls/${original.id}/duplicate`, { apiKey, body: { title: '' } }),
      422,
      'validation_failed',
    );
  });

  it('copies only the caller’s own polls, and only with polls:write', async () => {
    const original = await publishedPoll();
    const other = await t.workspace('pro');
    expectError(
      await call('POST', `${t.api}/polls/${original.id}/duplicate`, { apiKey: other.apiKey }),
      404,
      'not_found',
    );
    const readOnly = await call('POST', `${t.api}/keys`, { apiKey, body: { name: 'reader', scopes: ['polls:read'] } });
    expect(readOnly.status, readOnly.text).toBe(201);
    expectError(
      await call('POST', `${t.api}/polls/${original.id}/duplicate`, { apiKey: readOnly.body.secret }),
      403,
      'insufficient_scope',
    );
    const listed = await call('GET', `${t.api}/polls?limit=100`, { apiKey: other.apiKey });
    expect(listed.body.data).toEqual([]);
  });
});
