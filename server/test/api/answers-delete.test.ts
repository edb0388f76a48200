import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../support/assertions.js';
import { askMeAnythingContent } from '../support/decks.js';
import { rawCall } from '../support/http.js';
import { UNLIMITED } from '../support/limits.js';
import { pollPublisher } from '../support/polls.js';
import { expectAggregatesMatchRecount } from '../support/recount.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { expectStatus, testClient } from '../support/test-client.js';

/**
 * `DELETE /polls/{id}/votes/{voteId}` and `DELETE /polls/{id}/responses/{responseId}`: one answer
 * removed, and every aggregate — the poll's and its session's — equal afterwards to a recount from
 * the answers left (support/recount.ts). Other polls' and workspaces' answers are not found.
 */

let t: TestServer;
const api = testClient(() => t.api);
let apiKey: string;

beforeAll(async () => {
  t = await startTestServer(UNLIMITED);
  ({ apiKey } = await t.workspace('pro'));
});
afterAll(() => t?.close());

const publishedPoll = pollPublisher(() => ({ api: t.api, apiKey, title: 'Deletes', content: askMeAnythingContent() }));

async function post(path: string, body: unknown) {
  const res = await rawCall('POST', `${t.api}${path}`, { apiKey, body });
  expect(res.status, res.text).toBe(201);
  return res.body as { id: string };
}

async function results(pollId: string) {
  const res = await api.request('GET /polls/{id}/results', { params: { id: pollId }, apiKey });
  expectStatus(res, 200);
  return res.body;
}

describe('deleting one answer', () => {
  it('deletes a vote and takes it out of the results; the voter may vote again', async () => {
    const poll = await publishedPoll();
    const vote = await post(`/polls/${poll.id}/votes`, { voterId: 'ann', slideId: 'lunch', optionIds: ['pizza'] });
    await post(`/polls/${poll.id}/votes`, { voterId: 'bob', slideId: 'lunch', optionIds: ['pizza'] });
    await post(`/polls/${poll.id}/responses`, { voterId: 'ann', slideId: 'words', text: 'sunny day' });

    const deleted = await api.request('DELETE /polls/{id}/votes/{voteId}', {
      params: { id: poll.id, voteId: vote.id },
      apiKey,
    });
    expectStatus(deleted, 200);
    expect(deleted.body).toEqual({ id: vote.id, pollId: poll.id, deleted: true });
    await expectAggregatesMatchRecount(t.server.deps.db);
    const votes = await api.request('GET /polls/{id}/votes', { params: { id: poll.id }, apiKey });
    expectStatus(votes, 200);
    expect(votes.body.data.map((v: { voterId: string }) => v.voterId)).toEqual(['bob']);
    // Still a voter of the poll (an open-ended answer is left): the poll counts two voters.
    const stats = await t.server.deps.db
      .selectFrom('poll_stats')
      .selectAll()
      .where('poll_id', '=', poll.id)
      .executeTakeFirstOrThrow();
    expect(Number(stats.voters)).toBe(2);

    // Gone is gone: a second delete is a 404; the voter may vote on the slide again.
    expectError(
      await api.request('DELETE /polls/{id}/votes/{voteId}', { params: { id: poll.id, voteId: vote.id }, apiKey }),
      404,
      'not_found',
    );
    await post(`/polls/${poll.id}/votes`, { voterId: 'ann', slideId: 'lunch', optionIds: ['sushi'] });
    await expectAggregatesMatchRecount(t.server.deps.db);
  });

  it('deletes responses of every kind, and a question with its upvotes', async () => {
    const poll = await publishedPoll();
    const ids = [
      await post(`/polls/${poll.id}/responses`, { voterId: 'ann', slideId: 'capital', optionIds: ['paris'] }),
      await post(`/polls/${poll.id}/responses`, { voterId: 'ann', slideId: 'mood', scaleValues: { work: 4 } }),
      await post(`/polls/${poll.id}/responses`, { voterId: 'ann', slideId: 'rank', rankingOrder: ['b', 'a', 'c'] }),
      await post(`/polls/${poll.id}/responses`, { voterId: 'ann', slideId: 'words', text: 'tacos tonight' }),
    ];
    await post(`/polls/${poll.id}/responses`, { voterId: 'bob', slideId: 'words', text: 'tacos tonight' });
    const question = await post(`/polls/${poll.id}/responses`, { voterId: 'ann', slideId: 'ama', text: 'Why?' });
    await post(`/polls/${poll.id}/questions/${question.id}/upvotes`, { voterId: 'bob' });
    ids.push(question);

    for (const { id } of ids) {
      const res = await api.request('DELETE /polls/{id}/responses/{responseId}', {
        params: { id: poll.id, responseId: id },
        apiKey,
      });
      expectStatus(res, 200);
      await expectAggregatesMatchRecount(t.server.deps.db);
    }
    const upvotes = await t.server.deps.db
      .selectFrom('question_upvotes')
      .selectAll()
      .where('question_id', '=', question.id)
      .execute();
    expect(upvotes).toEqual([]);
    // Bob's answer is all that is left, and the poll counts him alone.
    const left = await api.request('GET /polls/{id}/responses', { params: { id: poll.id }, apiKey });
    expectStatus(left, 200);
    expect(left.body.data.map((r: { voterId: string }) => r.voterId)).toEqual(['bob']);
    const stats = await t.server.deps.db
      .selectFrom('poll_stats')
      .selectAll()
      .where('poll_id', '=', poll.id)
      .executeTakeFirstOrThrow();
    expect([Number(stats.voters), Number(stats.answers)]).toEqual([1, 1]);
    const words = (await results(poll.id)).slides.find((s: { slideId: string }) => s.slideId === 'words');
    expect(JSON.stringify(words)).toContain('tacos');
  });

  it('takes a live answer out of its session’s aggregates too', async () => {
    const poll = await publishedPoll();
    const created = await api.request('POST /sessions', { apiKey, body: { pollId: poll.id, pace: 'audience' } });
    expectStatus(created, 201);
    const link = String(created.body.joinUrl).split('/').pop() as string;
    await api.request('POST /sessions/{id}/control', {
      params: { id: created.body.id },
      apiKey,
      body: { action: 'start' },
    });
    const joined = await api.request('POST /live/{pin}/join', { params: { pin: link }, body: { name: 'Ann' } });
    expectStatus(joined, 200);
    const headers = { 'x-participant-token': joined.body.participantToken };
    const vote = await api.request('POST /live/{pin}/answers', {
      params: { pin: link },
      body: { slideId: 'lunch', optionIds: ['pizza'] },
      headers,
    });
    expectStatus(vote, 201);
    const before = await t.server.deps.db
      .selectFrom('session_tallies')
      .selectAll()
      .where('session_id', '=', created.body.id)
      .execute();
    expect(before.length).toBeGreaterThan(0);

    const res = await api.request('DELETE /polls/{id}/votes/{voteId}', {
      params: { id: poll.id, voteId: vote.body.id },
      apiKey,
    });
    expectStatus(res, 200);
    await expectAggregatesMatchRecount(t.server.deps.db);
    for (const table of ['session_tallies', 'session_voters', 'session_stats'] as const) {
      const rows = await t.server.deps.db
        .selectFrom(table)
        .selectAll()
        .where('session_id', '=', created.body.id)
        .execute();
      expect({ table, rows }).toEqual({ table, rows: [] });
    }
  });

  it('answers 404 in the envelope for another poll’s, another workspace’s or an unknown answer', async () => {
    const poll = await publishedPoll();
    const other = await publishedPoll();
    const vote = await post(`/polls/${other.id}/votes`, { voterId: 'ann', slideId: 'lunch', optionIds: ['pizza'] });
    const response = await post(`/polls/${other.id}/responses`, { voterId: 'ann', slideId: 'words', text: 'hi' });
    expectError(
      await api.request('DELETE /polls/{id}/votes/{voteId}', { params: { id: poll.id, voteId: vote.id }, apiKey }),
      404,
      'not_found',
    );
    expectError(
      await api.request('DELETE /polls/{id}/responses/{responseId}', {
        params: { id: poll.id, responseId: response.id },
        apiKey,
      }),
      404,
      'not_found',
    );
    // A response id on the votes path names no vote (a malformed path id is a 404, as on every route).
    expectError(
      await api.request('DELETE /polls/{id}/votes/{voteId}', { params: { id: other.id, voteId: response.id }, apiKey }),
      404,
      'not_found',
    );
    const stranger = await t.workspace('pro');
    expectError(
      await api.request('DELETE /polls/{id}/votes/{voteId}', {
        params: { id: other.id, voteId: vote.id },
        apiKey: stranger.apiKey,
      }),
      404,
      'not_found',
    );
    expectError(
      await api.request('DELETE /polls/{id}/votes/{voteId}', {
        params: { id: other.id, voteId: 'vote_01JF3Z8Q6M4W9Y2K7T5R0B1C3D' },
        apiKey,
      }),
      404,
      'not_found',
    );
    // Nothing was deleted by any of these.
    const votes = await api.request('GET /polls/{id}/votes', { params: { id: other.id }, apiKey });
    expectStatus(votes, 200);
    expect(votes.body.data).toHaveLength(1);
    await expectAggregatesMatchRecount(t.server.deps.db);
  });
});
