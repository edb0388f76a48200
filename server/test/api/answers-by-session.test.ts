import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../support/assertions.js';
import { call } from '../support/http.js';
import { pollPublisher, sampleContent } from '../support/polls.js';
import { startTestServer, type TestServer } from '../support/server.js';

/**
 * `GET /polls/{id}/votes` and `/responses` filtered by `sessionId` (issue 28): one session's answers,
 * apart from another session's of the same poll and from answers sent through the API (which belong
 * to no session). Without the filter the lists are the poll's, as before.
 */

let t: TestServer;
let apiKey: string;

beforeAll(async () => {
  t = await startTestServer({ RATE_LIMIT_PER_MINUTE: '1000000', LIVE_RATE_LIMIT_PER_IP_PER_MINUTE: '1000000' });
  ({ apiKey } = await t.workspace('pro'));
});
afterAll(() => t?.close());

const publishedPoll = pollPublisher(() => ({ api: t.api, apiKey, title: 'Rooms', content: sampleContent() }));

/** A started session of the poll with one participant, who answers the first slide and the open question. */
async function sessionWithAnswers(pollId: string, option: string, word: string) {
  const created = await call('POST', `${t.api}/sessions`, { apiKey, body: { pollId, pace: 'audience' } });
  expect(created.status, created.text).toBe(201);
  const link = String(created.body.joinUrl).split('/').pop() as string;
  await call('POST', `${t.api}/sessions/${created.body.id}/control`, { apiKey, body: { action: 'start' } });
  const joined = await call('POST', `${t.api}/live/${link}/join`, { body: { name: 'Ann' } });
  const headers = { 'x-participant-token': joined.body.participantToken };
  const vote = await call('POST', `${t.api}/live/${link}/answers`, {
    body: { slideId: 'lunch', optionIds: [option] },
    headers,
  });
  expect(vote.status, vote.text).toBe(201);
  for (const slideId of ['capital', 'mood', 'rank']) {
    expect((await call('POST', `${t.api}/live/${link}/advance`, { body: { slideId }, headers })).status).toBe(200);
  }
  const response = await call('POST', `${t.api}/live/${link}/answers`, {
    body: { slideId: 'words', text: word },
    headers,
  });
  expect(response.status, response.text).toBe(201);
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
    const api = await call('POST', `${t.api}/polls/${poll.id}/votes`, {
      apiKey,
      body: { voterId: 'api-voter', slideId: 'lunch', optionIds: ['pizza'] },
    });
    expect(api.status, api.text).toBe(201);

    const ids = async (path: string) =>
      ((await call('GET', `${t.api}/polls/${poll.id}/${path}`, { apiKey })).body.data as { id: string }[]).map(
        (answer) => answer.id,
      );
    expect(await ids(`votes?sessionId=${a.sessionId}`)).toEqual([a.voteId]);
    expect(await ids(`votes?sessionId=${b.sessionId}`)).toEqual([b.voteId]);
    expect(await ids(`responses?sessionId=${a.sessionId}`)).toEqual([a.responseId]);
    expect(await ids(`responses?sessionId=${b.sessionId}&slideId=words`)).toEqual([b.responseId]);
    // Without the filter, the poll's: both sessions and the API vote, newest first.
    expect(await ids('votes')).toEqual([api.body.id, b.voteId, a.voteId]);
  });

  it('refuses a malformed session id, and finds nothing for another poll’s session', async () => {
    const poll = await publishedPoll();
    const other = await publishedPoll();
    const elsewhere = await sessionWithAnswers(other.id, 'pizza', 'windy');
    expectError(
      await call('GET', `${t.api}/polls/${poll.id}/votes?sessionId=not-a-session`, { apiKey }),
      422,
      'validation_failed',
    );
    const none = await call('GET', `${t.api}/polls/${poll.id}/votes?sessionId=${elsewhere.sessionId}`, { apiKey });
    expect(none.status, none.text).toBe(200);
    expect(none.body.data).toEqual([]);
  });
});
