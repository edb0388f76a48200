import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../support/assertions.js';
import { sampleContent } from '../support/decks.js';
import { type LooseJson, rawCall } from '../support/http.js';
import { UNLIMITED } from '../support/limits.js';
import { pollPublisher } from '../support/polls.js';
import { expectAggregatesMatchRecount } from '../support/recount.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { openSse } from '../support/sse.js';
import { expectOk, expectStatus, testClient } from '../support/test-client.js';

/**
 * Sessions as rooms (issue 28, points 1 and 2): two sessions of one poll kept apart — their Q&A
 * questions (lists, moderation, upvotes, the participants' board), results, summaries and exports —
 * while the poll's views stay the sum of both and of the answers sent through the API; and
 * `DELETE /sessions/{id}/answers` taking exactly one room's share out of the poll's results.
 */

let t: TestServer;
const api = testClient(() => t.api);
let apiKey: string;

beforeAll(async () => {
  t = await startTestServer(UNLIMITED);
  ({ apiKey } = await t.workspace('pro'));
});
afterAll(() => t?.close());

const publishedPoll = pollPublisher(() => ({ api: t.api, apiKey, title: 'Rooms', content: sampleContent() }));

interface Room {
  id: string;
  hostToken: string;
  link: string;
  questionId: string;
  participantTokens: string[];
}

/**
 * A started self-paced session in which each named participant answers every slide of
 * sampleContent(): `choice` on the vote and the quiz, a rating, an order, `word`, and one Q&A question.
 */
async function roomWithAnswers(
  pollId: string,
  people: string[],
  choice: 'pizza' | 'sushi',
  word: string,
): Promise<Room> {
  const created = await api.request('POST /sessions', { apiKey, body: { pollId, pace: 'audience' } });
  expectStatus(created, 201);
  const link = String(created.body.joinUrl).split('/').pop() as string;
  await api.request('POST /sessions/{id}/control', {
    params: { id: created.body.id },
    apiKey,
    body: { action: 'start' },
  });
  let questionId = '';
  const participantTokens: string[] = [];
  for (const [index, name] of people.entries()) {
    const joined = await api.request('POST /live/{pin}/join', { params: { pin: link }, body: { name } });
    expectStatus(joined, 200);
    participantTokens.push(joined.body.participantToken);
    const headers = { 'x-participant-token': joined.body.participantToken };
    const answers = [
      { slideId: 'lunch', optionIds: [choice] },
      { slideId: 'capital', optionIds: [choice === 'pizza' ? 'paris' : 'lyon'] },
      { slideId: 'mood', scaleValues: { work: index + 2 } },
      { slideId: 'rank', rankingOrder: choice === 'pizza' ? ['a', 'b', 'c'] : ['c', 'b', 'a'] },
      { slideId: 'words', text: `${word} day` },
      { slideId: 'ask', text: `${name} asks about ${word}?` },
    ];
    for (const answer of answers) {
      const sent = await api.request('POST /live/{pin}/answers', { params: { pin: link }, body: answer, headers });
      expectStatus(sent, 201);
      if (answer.slideId === 'ask' && questionId === '') questionId = sent.body.id;
    }
  }
  return { id: created.body.id, hostToken: created.body.hostToken, link, questionId, participantTokens };
}

/** Answers of one voter through the API: they belong to no session. */
async function apiAnswers(pollId: string, voterId: string) {
  const vote = await api.request('POST /polls/{id}/votes', {
    params: { id: pollId },
    apiKey,
    body: { voterId, slideId: 'lunch', optionIds: ['sushi'] },
  });
  expectStatus(vote, 201);
  const word = await api.request('POST /polls/{id}/responses', {
    params: { id: pollId },
    apiKey,
    body: { voterId, slideId: 'words', text: 'api day' },
  });
  expectStatus(word, 201);
  const question = await api.request('POST /polls/{id}/responses', {
    params: { id: pollId },
    apiKey,
    body: { voterId, slideId: 'ask', text: 'Asked through the API?' },
  });
  expectStatus(question, 201);
  return { questionId: question.body.id as string };
}

/** Results read slide by slide across kinds (and a summary event's, which carries the same). */
type Results = { totalVoters: number; slides: LooseJson[] };

const slideOf = (results: Results, slideId: string) => results.slides.find((slide) => slide.slideId === slideId)!;
const optionCount = (results: Results, slideId: string, optionId: string) =>
  slideOf(results, slideId).options.find((option: { id: string }) => option.id === optionId).count as number;
const wordCount = (results: Results, word: string) =>
  (slideOf(results, 'words').words.find((entry: { word: string }) => entry.word === word)?.count ?? 0) as number;

async function approve(room: Room, questionId: string) {
  return api.request('PATCH /sessions/{id}/questions/{questionId}', {
    params: { id: room.id, questionId },
    body: { status: 'approved' },
    headers: { 'x-host-token': room.hostToken },
  });
}

describe('sessions as rooms', () => {
  it('keeps two sessions’ results, questions and exports apart; the poll’s are the sum', async () => {
    const poll = await publishedPoll();
    const a = await roomWithAnswers(poll.id, ['Ann', 'Abe'], 'pizza', 'sunny');
    const b = await roomWithAnswers(poll.id, ['Bea'], 'sushi', 'rainy');
    const viaApi = await apiAnswers(poll.id, 'api-voter');

    const read = async (path: string, headers: Record<string, string> = {}) => {
      const response = await rawCall('GET', `${t.api}${path}`, Object.keys(headers).length ? { headers } : { apiKey });
      expect(response.status, response.text).toBe(200);
      return response.body as Results;
    };
    // A host token reads its own room's results; the workspace's key reads any room's.
    const ra = await read(`/sessions/${a.id}/results`, { 'x-host-token': a.hostToken });
    const rb = await read(`/sessions/${b.id}/results`);
    const whole = await read(`/polls/${poll.id}/results`);

    expect(ra.totalVoters).toBe(2);
    expect(rb.totalVoters).toBe(1);
    expect(whole.totalVoters).toBe(4);
    expect([optionCount(ra, 'lunch', 'pizza'), optionCount(ra, 'lunch', 'sushi')]).toEqual([2, 0]);
    expect([optionCount(rb, 'lunch', 'pizza'), optionCount(rb, 'lunch', 'sushi')]).toEqual([0, 1]);
    expect([optionCount(whole, 'lunch', 'pizza'), optionCount(whole, 'lunch', 'sushi')]).toEqual([2, 2]);
    expect(slideOf(ra, 'capital').correctAnswers).toBe(2);
    expect(slideOf(rb, 'capital').correctAnswers).toBe(0);
    expect([wordCount(ra, 'sunny'), wordCount(ra, 'rainy'), wordCount(ra, 'api')]).toEqual([2, 0, 0]);
    expect([wordCount(rb, 'sunny'), wordCount(rb, 'rainy')]).toEqual([0, 1]);
    expect([wordCount(whole, 'sunny'), wordCount(whole, 'rainy'), wordCount(whole, 'api')]).toEqual([2, 1, 1]);
    expect(
      slideOf(ra, 'words')
        .recent.map((answer: { text: string }) => answer.text)
        .sort(),
    ).toEqual(['sunny day', 'sunny day']);
    // Every counted figure of the poll is the sum of the rooms' and the API's.
    for (const slideId of ['lunch', 'capital', 'mood', 'rank', 'words']) {
      expect(slideOf(whole, slideId).totalAnswers).toBe(
        slideOf(ra, slideId).totalAnswers +
          slideOf(rb, slideId).totalAnswers +
          (slideId === 'lunch' || slideId === 'words' ? 1 : 0),
      );
    }
    expect(slideOf(ra, 'ask').totalQuestions).toBe(2);
    expect(slideOf(rb, 'ask').totalQuestions).toBe(1);
    expect(slideOf(whole, 'ask').totalQuestions).toBe(4);

    // The moderation queue of a room holds its own questions: not the other room's, not the API's.
    const queue = async (room: Room) =>
      expectOk(
        await api.request('GET /sessions/{id}/questions', {
          params: { id: room.id },
          query: { status: 'pending' },
          headers: { 'x-host-token': room.hostToken },
        }),
      )
        .data.map((question) => question.text)
        .sort();
    expect(await queue(a)).toEqual(['Abe asks about sunny?', 'Ann asks about sunny?']);
    expect(await queue(b)).toEqual(['Bea asks about rainy?']);
    const everything = await api.request('GET /polls/{id}/questions', { params: { id: poll.id }, apiKey });
    expectStatus(everything, 200);
    expect(everything.body.data).toHaveLength(4);

    // Moderation applies to the room the question was asked in: another room's, or the API's, is a 404.
    expectError(await approve(a, b.questionId), 404, 'not_found');
    expectError(await approve(a, viaApi.questionId), 404, 'not_found');
    expect((await approve(a, a.questionId)).status).toBe(200);
    expect((await approve(b, b.questionId)).status).toBe(200);
    expect(
      (
        await api.request('PATCH /polls/{id}/questions/{questionId}', {
          params: { id: poll.id, questionId: viaApi.questionId },
          apiKey,
          body: { status: 'approved' },
        })
      ).status,
    ).toBe(200);
    const boardOf = async (room: Room) =>
      slideOf(await read(`/sessions/${room.id}/results`), 'ask').questions.map((q: { id: string }) => q.id);
    expect(await boardOf(a)).toEqual([a.questionId]);
    expect(await boardOf(b)).toEqual([b.questionId]);
    expect(slideOf(await read(`/polls/${poll.id}/results`), 'ask').questions).toHaveLength(3);

    // A participant's stream on the Q&A slide shows its own room's approved questions only.
    const stream = await openSse(`${t.api}/live/${a.link}/events`, {
      'x-participant-token': a.participantTokens[0] as string,
    });
    expect(stream.status).toBe(200);
    const board = await stream.waitFor((event) => event.type === 'questions');
    expect(board.data.questions.map((q: { id: string }) => q.id)).toEqual([a.questionId]);
    await stream.close();

    // A participant upvotes a question of their own room only.
    const upvote = (room: Room, questionId: string) =>
      api.request('POST /live/{pin}/questions/{questionId}/upvotes', {
        params: { pin: room.link, questionId },
        headers: { 'x-participant-token': room.participantTokens[0] as string },
      });
    expectError(await upvote(a, b.questionId), 404, 'not_found');
    expectError(await upvote(a, viaApi.questionId), 404, 'not_found');
    expect((await upvote(a, a.questionId)).status).toBe(201);

    // Each room's export holds its own rows; the poll's, all of them.
    const csv = async (path: string) => {
      const response = await fetch(`${t.api}${path}`, { headers: { authorization: `Bearer ${apiKey}` } });
      expect(response.status).toBe(200);
      return { text: await response.text(), disposition: response.headers.get('content-disposition') };
    };
    const exportA = await csv(`/sessions/${a.id}/export`);
    expect(exportA.disposition).toContain(`session-${a.id}-results.csv`);
    expect(exportA.text).toContain('Ann asks about sunny?');
    expect(exportA.text).toContain('sunny day,2');
    expect(exportA.text).not.toContain('rainy');
    expect(exportA.text).not.toContain('Asked through the API');
    const exportB = await csv(`/sessions/${b.id}/export`);
    expect(exportB.text).toContain('rainy day,1');
    expect(exportB.text).not.toContain('sunny');
    const exportAll = await csv(`/polls/${poll.id}/export`);
    for (const text of ['sunny day,2', 'rainy day,1', 'api day,1', 'Asked through the API?']) {
      expect(exportAll.text).toContain(text);
    }

    // Each room's end summary is its own.
    const ended = await api.request('POST /sessions/{id}/control', {
      params: { id: b.id },
      apiKey,
      body: { action: 'end' },
    });
    expectStatus(ended, 200);
    const presenter = await openSse(`${t.api}/sessions/${b.id}/events`, { 'x-host-token': b.hostToken });
    const summary = (await presenter.next('ended')).data as Results & { participantCount: number };
    expect(summary.participantCount).toBe(1);
    expect([optionCount(summary, 'lunch', 'pizza'), optionCount(summary, 'lunch', 'sushi')]).toEqual([0, 1]);
    expect(slideOf(summary, 'ask').questions.map((q: { id: string }) => q.id)).toEqual([b.questionId]);
    await presenter.close();
  });

  it('refuses another session’s host token, a key without the scope, and unknown sessions', async () => {
    const poll = await publishedPoll();
    const a = await roomWithAnswers(poll.id, ['Ann'], 'pizza', 'sunny');
    const b = await roomWithAnswers(poll.id, ['Bea'], 'sushi', 'rainy');
    const asHost = (room: Room, token: string) =>
      api.request('GET /sessions/{id}/results', { params: { id: room.id }, headers: { 'x-host-token': token } });
    expect((await asHost(a, b.hostToken)).status).toBe(401);
    // A host token exports nothing and resets nothing: those need a workspace credential.
    expect(
      (
        await api.request('GET /sessions/{id}/export', {
          params: { id: a.id },
          headers: { 'x-host-token': a.hostToken },
        })
      ).status,
    ).toBe(401);
    expect(
      (
        await api.request('DELETE /sessions/{id}/answers', {
          params: { id: a.id },
          headers: { 'x-host-token': a.hostToken },
        })
      ).status,
    ).toBe(401);

    const narrow = await api.request('POST /keys', {
      apiKey,
      body: { name: 'sessions only', scopes: ['sessions:read'] },
    });
    expectStatus(narrow, 201);
    expectError(
      await api.request('GET /sessions/{id}/results', { params: { id: a.id }, apiKey: narrow.body.secret }),
      403,
      'insufficient_scope',
    );
    expectError(
      await api.request('DELETE /sessions/{id}/answers', { params: { id: a.id }, apiKey: narrow.body.secret }),
      403,
      'insufficient_scope',
    );
    expectError(
      await api.request('GET /sessions/{id}/results', { params: { id: 'ses_unknown00000000000000' }, apiKey }),
      404,
      'not_found',
    );
    const { apiKey: otherWorkspace } = await t.workspace('pro');
    expectError(
      await api.request('GET /sessions/{id}/results', { params: { id: a.id }, apiKey: otherWorkspace }),
      404,
      'not_found',
    );
    expectError(
      await api.request('DELETE /sessions/{id}/answers', { params: { id: a.id }, apiKey: otherWorkspace }),
      404,
      'not_found',
    );
  });

  it('resets one room: its results start again, the poll’s lose exactly its share, other rooms keep theirs', async () => {
    const poll = await publishedPoll();
    const b = await roomWithAnswers(poll.id, ['Bea', 'Bob'], 'sushi', 'rainy');
    await apiAnswers(poll.id, 'api-voter');
    const before = await api.request('GET /polls/{id}/results', { params: { id: poll.id }, apiKey });
    const roomB = await api.request('GET /sessions/{id}/results', { params: { id: b.id }, apiKey });

    // Room A adds to the poll, including an upvote and a voter who also answers through the API.
    const a = await roomWithAnswers(poll.id, ['Ann', 'Abe', 'Amy'], 'pizza', 'sunny');
    expect((await approve(a, a.questionId)).status).toBe(200);
    const upvoted = await api.request('POST /live/{pin}/questions/{questionId}/upvotes', {
      params: { pin: a.link, questionId: a.questionId },
      headers: { 'x-participant-token': a.participantTokens[1] as string },
    });
    expectStatus(upvoted, 201);
    const during = await api.request('GET /polls/{id}/results', { params: { id: poll.id }, apiKey });
    expect(during.body).not.toEqual(before.body);

    const reset = await api.request('DELETE /sessions/{id}/answers', { params: { id: a.id }, apiKey });
    expectStatus(reset, 200);
    expect(reset.body).toEqual({
      sessionId: a.id,
      pollId: poll.id,
      deleted: { votes: 3, responses: 12, questions: 3, upvotes: 1 },
    });

    // The poll's results are exactly what they were before room A: every counter, word, voter.
    const after = await api.request('GET /polls/{id}/results', { params: { id: poll.id }, apiKey });
    expect(after.body).toEqual(before.body);
    expect((await api.request('GET /sessions/{id}/results', { params: { id: b.id }, apiKey })).body).toEqual(
      roomB.body,
    );
    const emptied = (await api.request('GET /sessions/{id}/results', { params: { id: a.id }, apiKey })).body as Results;
    expect(emptied.totalVoters).toBe(0);
    expect(slideOf(emptied, 'lunch').totalAnswers).toBe(0);
    expect(slideOf(emptied, 'ask').questions).toEqual([]);
    const listed = await api.request('GET /polls/{id}/votes', {
      params: { id: poll.id },
      query: { sessionId: a.id },
      apiKey,
    });
    expectStatus(listed, 200);
    expect(listed.body.data).toEqual([]);
    await expectAggregatesMatchRecount(t.server.deps.db);

    // The room's participants may answer again; a second reset finds nothing more than that.
    // (each stands on the Q&A slide, the last they answered).
    const again = await api.request('POST /live/{pin}/answers', {
      params: { pin: a.link },
      body: { slideId: 'ask', text: 'Once more?' },
      headers: { 'x-participant-token': a.participantTokens[0] as string },
    });
    expectStatus(again, 201);
    const second = await api.request('DELETE /sessions/{id}/answers', { params: { id: a.id }, apiKey });
    expectStatus(second, 200);
    expect(second.body.deleted).toEqual({ votes: 0, responses: 0, questions: 1, upvotes: 0 });
    expect((await api.request('GET /polls/{id}/results', { params: { id: poll.id }, apiKey })).body).toEqual(
      before.body,
    );
  });

  it('keeps every aggregate equal to a recount when answers race a room’s reset', async () => {
    const poll = await publishedPoll();
    const other = await roomWithAnswers(poll.id, ['Bea'], 'sushi', 'rainy');
    const created = await api.request('POST /sessions', { apiKey, body: { pollId: poll.id } });
    expectStatus(created, 201);
    const pin = created.body.pin as string;
    await api.request('POST /sessions/{id}/control', {
      params: { id: created.body.id },
      apiKey,
      body: { action: 'start' },
    });
    const tokens: string[] = [];
    for (let i = 0; i < 40; i++) {
      tokens.push(
        expectOk(await api.request('POST /live/{pin}/join', { params: { pin }, body: { name: `P${i}` } }))
          .participantToken,
      );
    }
    const answer = (token: string, i: number) =>
      api.request('POST /live/{pin}/answers', {
        params: { pin },
        body: { slideId: 'lunch', optionIds: [i % 2 ? 'pizza' : 'sushi'] },
        headers: { 'x-participant-token': token },
      });
    const [first, reset, second] = await Promise.all([
      Promise.all(tokens.slice(0, 20).map(answer)),
      api.request('DELETE /sessions/{id}/answers', { params: { id: created.body.id }, apiKey }),
      Promise.all(tokens.slice(20).map((token, i) => answer(token, i + 20))),
    ]);
    expectStatus(reset, 200);
    const accepted = [...first, ...second].filter((response) => response.status === 201).length;
    expect(accepted).toBe(40);
    // Each accepted answer was either deleted by the reset or is still there, counted once.
    const left = await api.request('GET /polls/{id}/votes', {
      params: { id: poll.id },
      query: { sessionId: created.body.id, limit: 100 },
      apiKey,
    });
    expectStatus(left, 200);
    expect(reset.body.deleted.votes + left.body.data.length).toBe(40);
    // The poll's and every session's aggregates (the other room's, untouched, among them) equal a recount.
    expect(
      expectOk(await api.request('GET /sessions/{id}/results', { params: { id: other.id }, apiKey })).totalVoters,
    ).toBe(1);
    await expectAggregatesMatchRecount(t.server.deps.db);
  });
});
