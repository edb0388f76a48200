import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../support/assertions.js';
import type { ContentInput } from '../support/decks.js';
import { rawCall } from '../support/http.js';
import { UNLIMITED } from '../support/limits.js';
import { type ControlAction, createdSession } from '../support/live-deck.js';
import { pollPublisher } from '../support/polls.js';
import { startTestServer, type TestServer } from '../support/server.js';
import {
  errorDetails,
  expectStatus,
  type OutputOf,
  type RequestInput,
  type RouteKey,
  testClient,
  type UncheckedInput,
} from '../support/test-client.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';
import { createEndpoint } from '../support/webhooks.js';

/**
 * A finished session's outcome, readable after the fact (issue 36, point 1): the participants by
 * rank (`GET /sessions/{id}/participants`), the participant count and leaderboard in
 * `GET /sessions/{id}/results`, and the same leaderboard in the `session.ended` webhook.
 */

let t: TestServer;
const api = testClient(() => t.api);
let receiver: WebhookReceiver;
let apiKey: string;

beforeAll(async () => {
  receiver = await WebhookReceiver.start();
  t = await startTestServer({
    ...UNLIMITED,
    WEBHOOK_ALLOW_HTTP: 'true',
    WEBHOOK_ALLOW_LOOPBACK: 'true',
    WEBHOOK_POLL_INTERVAL_MS: '50',
  });
  ({ apiKey } = await t.workspace('pro'));
});
afterAll(async () => {
  await t?.close();
  await receiver?.close();
});

/** A vote: it scores nothing. */
const SNACK = {
  id: 'snack',
  kind: 'multiple_choice' as const,
  text: 'Snack?',
  type: 'single' as const,
  options: [
    { id: 'crisps', label: 'Crisps' },
    { id: 'fruit', label: 'Fruit' },
  ],
};

/** Two quiz slides without a speed bonus (points are exact), and a vote that scores nothing. */
function quizNight(): ContentInput {
  const quiz = (id: string, points: number) => ({
    id,
    kind: 'quiz' as const,
    text: `Question ${id}`,
    options: [
      { id: 'right', label: 'Right' },
      { id: 'wrong', label: 'Wrong' },
    ],
    correctOptionIds: ['right'],
    timeLimitSec: 60,
    points,
    speedBonus: false,
  });
  return {
    questions: [quiz('q1', 1000), quiz('q2', 500), SNACK],
  };
}

const publish = pollPublisher(() => ({ api: t.api, apiKey, title: 'Quiz night', content: quizNight() }));

interface Player {
  id: string;
  name: string;
  token: string;
}

async function control(sessionId: string, action: ControlAction) {
  const res = await api.request('POST /sessions/{id}/control', { params: { id: sessionId }, apiKey, body: { action } });
  expectStatus(res, 200);
}

async function join(pin: string, name: string): Promise<Player> {
  const res = await api.request('POST /live/{pin}/join', { params: { pin }, body: { name } });
  expectStatus(res, 200);
  return { id: res.body.participant.id, name, token: res.body.participantToken };
}

async function answer(pin: string, player: Player, slideId: string, optionId: string) {
  const res = await api.request('POST /live/{pin}/answers', {
    params: { pin },
    body: { slideId, optionIds: [optionId] },
    headers: { 'x-participant-token': player.token },
  });
  expectStatus(res, 201);
}

/** A read that must answer 200, with the workspace's key or a host token: its body. */
async function read<K extends RouteKey>(
  key: K,
  input: RequestInput<K>,
  auth: { apiKey: string } | { hostToken: string } = { apiKey },
): Promise<OutputOf<K>> {
  const credential = 'apiKey' in auth ? { apiKey: auth.apiKey } : { headers: { 'x-host-token': auth.hostToken } };
  const res = await api.unchecked(key, { ...(input as UncheckedInput), ...credential });
  expect(res.status, res.text).toBe(200);
  return res.body as OutputOf<K>;
}

/** Every page of the participants list, `limit` at a time. */
async function allParticipants(sessionId: string, limit: number) {
  const rows: OutputOf<'GET /sessions/{id}/participants'>['data'] = [];
  let cursor: string | null = null;
  do {
    const page: OutputOf<'GET /sessions/{id}/participants'> = await read('GET /sessions/{id}/participants', {
      params: { id: sessionId },
      query: { limit, cursor: cursor ?? undefined },
    });
    expect(page.data.length).toBeLessThanOrEqual(limit);
    rows.push(...page.data);
    cursor = page.nextCursor;
  } while (cursor);
  return rows;
}

describe('a finished session’s outcome', () => {
  it('lists every participant by rank, and results and session.ended carry the top ten', async () => {
    const endpoint = await createEndpoint(t, apiKey, { url: receiver.urlFor('outcome'), events: ['session.ended'] });
    receiver.secrets.push(endpoint.secret);
    const poll = await publish();
    const session = await createdSession(t, apiKey, poll.id);
    const { pin } = session;

    // Twelve players, joined one after another (ids follow join order, which breaks ties).
    const players: Player[] = [];
    for (let index = 0; index < 12; index += 1) players.push(await join(pin, `Player ${index}`));
    await control(session.id, 'start');
    // q1 (1,000): players 0–5 right, 6–10 wrong, 11 never answers anything.
    for (const [index, player] of players.slice(0, 11).entries()) {
      await answer(pin, player, 'q1', index < 6 ? 'right' : 'wrong');
    }
    await control(session.id, 'next');
    // q2 (500): the even players right, the odd ones wrong.
    for (const [index, player] of players.slice(0, 11).entries()) {
      await answer(pin, player, 'q2', index % 2 === 0 ? 'right' : 'wrong');
    }
    await control(session.id, 'next');
    await answer(pin, players[0] as Player, 'snack', 'fruit');
    // The host removes player 9: still listed, with when.
    const removed = await api.request('DELETE /sessions/{id}/participants/{participantId}', {
      params: { id: session.id, participantId: players[9]!.id },
      apiKey,
    });
    expectStatus(removed, 200);
    // The host token, created by a full key, reads both while the session runs.
    const host = { hostToken: session.hostToken };
    const whileRunning = {
      participants: (
        await read('GET /sessions/{id}/participants', { params: { id: session.id }, query: { limit: 100 } }, host)
      ).data,
      leaderboard: (await read('GET /sessions/{id}/results', { params: { id: session.id } }, host)).leaderboard,
    };
    await control(session.id, 'end');

    // Scores: 1,500 for 0, 2, 4; 1,000 for 1, 3, 5; 500 for 6, 8, 10; 0 for 7, 9, 11.
    const expectedOrder = [0, 2, 4, 1, 3, 5, 6, 8, 10, 7, 9, 11];
    const scoreOf = (index: number) => (index < 6 ? 1000 : 0) + (index % 2 === 0 && index < 11 ? 500 : 0);
    const rankOf = (index: number) => ({ 1500: 1, 1000: 4, 500: 7, 0: 10 })[scoreOf(index)];

    const everyone = await read('GET /sessions/{id}/participants', {
      params: { id: session.id },
      query: { limit: 100 },
    });
    expect(everyone.nextCursor).toBeNull();
    expect(everyone.data.map((row: { id: string }) => row.id)).toEqual(expectedOrder.map((i) => players[i]?.id));
    for (const row of everyone.data) {
      const index = players.findIndex((player) => player.id === row.id);
      expect(row).toEqual({
        id: players[index]?.id,
        name: `Player ${index}`,
        score: scoreOf(index),
        rank: rankOf(index),
        answerCount: index === 11 ? 0 : index === 0 ? 3 : 2,
        joinedAt: expect.any(String),
        completedAt: null,
        removedAt: index === 9 ? removed.body.removedAt : null,
        flagged: false,
      });
    }

    // Page by page, the same list: ranks are the whole session's, not the page's.
    expect(await allParticipants(session.id, 5)).toEqual(everyone.data);
    expect(await allParticipants(session.id, 1)).toEqual(everyone.data);

    // The results: the session's answers, how many joined, the ten highest scores.
    const top10 = everyone.data.slice(0, 10).map((row) => ({
      rank: row.rank,
      participantId: row.id,
      name: row.name,
      score: row.score,
    }));
    const results = await read('GET /sessions/{id}/results', { params: { id: session.id } });
    expect(results).toMatchObject({ pollId: poll.id, totalVoters: 11, participantCount: 12, leaderboard: top10 });
    expect(results.slides.map((slide: { slideId: string }) => slide.slideId)).toEqual(['q1', 'q2', 'snack']);
    // The host token read both while the session ran (above); once it has ended, only the session.
    expect(whileRunning).toEqual({ participants: everyone.data, leaderboard: top10 });
    expectError(
      await api.request('GET /sessions/{id}/participants', {
        params: { id: session.id },
        headers: { 'x-host-token': session.hostToken },
      }),
      401,
      'invalid_host_token',
    );

    // session.ended: the session as it ended and the same leaderboard.
    await receiver.waitFor(() =>
      receiver.received.some((delivery) => delivery.event?.type === 'session.ended' && delivery.verified),
    );
    const ended = receiver.received.find((delivery) => delivery.event?.type === 'session.ended');
    expect(ended?.event?.data).toMatchObject({
      id: session.id,
      status: 'ended',
      participantCount: 12,
      leaderboard: top10,
    });
  });

  it('has no leaderboard without a quiz slide, and a self-paced walk’s completion', async () => {
    const poll = await publish({
      content: {
        questions: [SNACK],
      },
    });
    const created = await api.request('POST /sessions', { apiKey, body: { pollId: poll.id, pace: 'audience' } });
    expectStatus(created, 201);
    const link = String(created.body.joinUrl).split('/').pop() as string;
    await control(created.body.id, 'start');
    const walker = await join(link, 'Wanda');
    await answer(link, walker, 'snack', 'crisps');
    const idle = await join(link, 'Ida');

    const results = await read('GET /sessions/{id}/results', { params: { id: created.body.id } });
    expect(results).toMatchObject({ participantCount: 2, leaderboard: null, totalVoters: 1 });
    const list = await read('GET /sessions/{id}/participants', { params: { id: created.body.id } });
    expect(list.data).toEqual([
      expect.objectContaining({ id: walker.id, rank: 1, score: 0, answerCount: 1, completedAt: expect.any(String) }),
      expect.objectContaining({ id: idle.id, rank: 1, score: 0, answerCount: 0, completedAt: null }),
    ]);
  });

  it('refuses a cursor it did not give, another workspace, and a caller without responses:read', async () => {
    const poll = await publish();
    const session = await createdSession(t, apiKey, poll.id);
    await join(session.pin, 'Solo');

    for (const cursor of ['nope', Buffer.from('1:prt_nope').toString('base64url'), 'MTox']) {
      const res = await api.request('GET /sessions/{id}/participants', {
        params: { id: session.id },
        query: { cursor },
        apiKey,
      });
      expectError(res, 422, 'validation_failed');
      expect(errorDetails(res).fieldErrors.cursor).toBeDefined();
    }
    // Another list's cursor (the sessions list orders by id alone) is not this one's.
    await createdSession(t, apiKey, poll.id);
    const sessions = await read('GET /sessions', { query: { limit: 1 } });
    expect(sessions.nextCursor).not.toBeNull();
    expectError(
      await api.request('GET /sessions/{id}/participants', {
        params: { id: session.id },
        query: { cursor: sessions.nextCursor! },
        apiKey,
      }),
      422,
      'validation_failed',
    );

    const stranger = (await t.workspace('pro')).apiKey;
    for (const path of ['participants', 'results']) {
      expectError(
        await rawCall('GET', `${t.api}/sessions/${session.id}/${path}`, { apiKey: stranger }),
        404,
        'not_found',
      );
    }

    const sessionsOnly = await api.request('POST /keys', {
      apiKey,
      body: { name: 'Sessions only', scopes: ['sessions:read', 'sessions:write'] },
    });
    expectStatus(sessionsOnly, 201);
    const narrow = sessionsOnly.body.secret;
    const refused = await api.request('GET /sessions/{id}/participants', {
      params: { id: session.id },
      apiKey: narrow,
    });
    expectError(refused, 403, 'insufficient_scope');
    expect(refused.body.error.details).toEqual({ requiredScope: 'responses:read' });
    // Its host token carries no more than it: the names and scores stay out of reach.
    const narrowSession = await createdSession(t, narrow, poll.id);
    const byToken = await api.request('GET /sessions/{id}/participants', {
      params: { id: narrowSession.id },
      headers: { 'x-host-token': narrowSession.hostToken },
    });
    expectError(byToken, 403, 'insufficient_scope');
    // One session's host token reads nothing of another's.
    expectError(
      await api.request('GET /sessions/{id}/participants', {
        params: { id: session.id },
        headers: { 'x-host-token': narrowSession.hostToken },
      }),
      401,
      'invalid_host_token',
    );
  });
});
