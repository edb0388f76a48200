import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../support/assertions.js';
import { sampleContent } from '../support/decks.js';
import { rawCall } from '../support/http.js';
import { UNLIMITED } from '../support/limits.js';
import { pollPublisher } from '../support/polls.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { expectStatus, testClient } from '../support/test-client.js';

/**
 * `GET /polls/{id}/votes` and `/responses` filtered by `sessionId` (issue 28): one session's answers,
 * apart from another session's of the same poll and from answers sent through the API (which belong
 * to no session). Without the filter the lists are the poll's, as before.
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

/** A started session of the poll with one participant, who answers the first slide and the open question. */
async function sessionWithAnswers(pollId: string, option: string, word: string) {
  const created = await api.request('POST /sessions', { apiKey, body: { pollId, pace: 'audience' } });
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
    body: { slideId: 'lunch', optionIds: [option] },
    headers,
  });
  expectStatus(vote, 201);
  for (const slideId of ['capital', 'mood', 'rank']) {
    expect(
      (await api.request('POST /live/{pin}/advance', { params: { pin: link }, body: { slideId }, headers })).status,
    ).toBe(200);
  }
  const response = await api.request('POST /live/{pin}/answers', {
    params: { pin: link },
    body: { slideId: 'words', text: word },
    headers,
  });
  expectStatus(response, 201);
  return {
    sessionId: created.body.id as string,
    voteId: vote.body.id as string,
    responseId: response.body.id as string,
  };
}

describe('answers listed by session', () => {
  it('lists one session’s votes and responses, apart from another session’s and from API answers', async () => {
    const poll = await publishedPoll();
    const a = await sessionWithAnswers(poll.id, 'pizza', 'sunny');
    const b = await sessionWithAnswers(poll.id, 'sushi', 'rainy');
    const viaApi = await api.request('POST /polls/{id}/votes', {
      params: { id: poll.id },
      apiKey,
      body: { voterId: 'api-voter', slideId: 'lunch', optionIds: ['pizza'] },
    });
    expectStatus(viaApi, 201);

    const ids = async (path: string) =>
      (await rawCall<{ data: { id: string }[] }>('GET', `${t.api}/polls/${poll.id}/${path}`, { apiKey })).body.data.map(
        (answer) => answer.id,
      );
    expect(await ids(`votes?sessionId=${a.sessionId}`)).toEqual([a.voteId]);
    expect(await ids(`votes?sessionId=${b.sessionId}`)).toEqual([b.voteId]);
    expect(await ids(`responses?sessionId=${a.sessionId}`)).toEqual([a.responseId]);
    expect(await ids(`responses?sessionId=${b.sessionId}&slideId=words`)).toEqual([b.responseId]);
    // Without the filter, the poll's: both sessions and the API vote, newest first.
    expect(await ids('votes')).toEqual([viaApi.body.id, b.voteId, a.voteId]);
  });

  it('refuses a malformed session id, and finds nothing for another poll’s session', async () => {
    const poll = await publishedPoll();
    const other = await publishedPoll();
    const elsewhere = await sessionWithAnswers(other.id, 'pizza', 'windy');
    expectError(
      await api.request('GET /polls/{id}/votes', {
        params: { id: poll.id },
        query: { sessionId: 'not-a-session' },
        apiKey,
      }),
      422,
      'validation_failed',
    );
    const none = await api.request('GET /polls/{id}/votes', {
      params: { id: poll.id },
      query: { sessionId: elsewhere.sessionId },
      apiKey,
    });
    expectStatus(none, 200);
    expect(none.body.data).toEqual([]);
  });
});
