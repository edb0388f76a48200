import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/db/ids.js';
import { expectError } from '../support/assertions.js';
import { presenterContent } from '../support/decks.js';
import { type LooseJson, rawCall } from '../support/http.js';
import { UNLIMITED } from '../support/limits.js';
import { type ControlAction, type CreatedSession, createdSession } from '../support/live-deck.js';
import { issuedToken, oauthClient } from '../support/oauth.js';
import { pollPublisher } from '../support/polls.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { openSse, type SseStream } from '../support/sse.js';
import { type ApiResponse, errorDetails, expectOk, expectStatus, testClient } from '../support/test-client.js';

/**
 * The routes a presenter device reaches with the session's host token alone, besides control and the
 * streams (live-sessions.*.test.ts): the deck (`GET /sessions/{id}/deck`), the Q&A questions of the
 * session's poll (`GET /sessions/{id}/questions`) and their moderation
 * (`PATCH /sessions/{id}/questions/{questionId}`), which the participants' Q&A boards follow.
 * Runs on PGlite, and on PostgreSQL + Redis with TEST_DATABASE_URL and TEST_REDIS_URL.
 */

let t: TestServer;
const api = testClient(() => t.api);
let apiKey: string;

beforeAll(async () => {
  // Every request here comes from 127.0.0.1 and one key: the limits are tested on their own.
  t = await startTestServer(UNLIMITED);
  ({ apiKey } = await t.workspace('pro'));
});
afterAll(() => t?.close());

/** Streams a test opened: closed after it, whatever it asserted. */
const streams: SseStream[] = [];
afterEach(() => {
  for (const stream of streams.splice(0)) stream.close();
});

type Json = LooseJson;

/** presenterContent(): its `ask` slide, index 5, is moderated Q&A; `open`, index 7, unmoderated. */
const ASK_INDEX = 5;
const OPEN_INDEX = 7;

const publishedPoll = pollPublisher(() => ({ api: t.api, apiKey, title: 'Presented', content: presenterContent() }));

const newSession = (pollId: string, key = apiKey) => createdSession(t, key, pollId);

/** A published poll and a session of it. */
async function pollAndSession() {
  const poll = await publishedPoll();
  return { poll, session: await newSession(poll.id) };
}

/** A credential for a presenter route: the host token (a string) or a workspace credential. */
type Credential = { hostToken: string } | { apiKey: string } | Record<string, never>;

function credentialOf(credential: Credential): { apiKey?: string; headers: Record<string, string> } {
  if ('hostToken' in credential) return { headers: { 'x-host-token': credential.hostToken } };
  if ('apiKey' in credential) return { apiKey: credential.apiKey, headers: {} };
  return { headers: {} };
}

const host = (session: CreatedSession): Credential => ({ hostToken: session.hostToken });

function deck(sessionId: string, credential: Credential) {
  return api.request('GET /sessions/{id}/deck', { params: { id: sessionId }, ...credentialOf(credential) });
}

/** Unchecked: some tests send a query the route refuses. */
function questions(sessionId: string, credential: Credential, query: Record<string, unknown> = {}) {
  return api.unchecked('GET /sessions/{id}/questions', {
    params: { id: sessionId },
    query,
    ...credentialOf(credential),
  });
}

/** Unchecked: some tests send a body the route refuses. */
function moderate(sessionId: string, questionId: string, body: unknown, credential: Credential) {
  return api.unchecked('PATCH /sessions/{id}/questions/{questionId}', {
    params: { id: sessionId, questionId },
    ...credentialOf(credential),
    body,
  });
}

/** A control action by the host token that must succeed. */
async function act(session: CreatedSession, action: ControlAction, slideIndex?: number): Promise<void> {
  const body = slideIndex === undefined ? { action } : { action, slideIndex };
  const res = await api.request('POST /sessions/{id}/control', {
    params: { id: session.id },
    headers: { 'x-host-token': session.hostToken },
    body,
  });
  expect(res.status, `${action}: ${res.text}`).toBe(200);
}

/** A participant who joined `session`: its token. */
async function joined(session: CreatedSession, name: string): Promise<string> {
  const res = await api.request('POST /live/{pin}/join', { params: { pin: session.pin }, body: { name } });
  expectStatus(res, 200);
  return res.body.participantToken;
}

/** A question asked live on the Q&A slide on screen: its id. */
async function asked(session: CreatedSession, token: string, slideId: string, text: string): Promise<string> {
  const res = await api.request('POST /live/{pin}/answers', {
    params: { pin: session.pin },
    headers: { 'x-participant-token': token },
    body: { slideId, text },
  });
  expectStatus(res, 201);
  return res.body.id;
}

async function participantStream(session: CreatedSession, token: string): Promise<SseStream> {
  const stream = await openSse(`${t.api}/live/${session.pin}/events`, { 'x-participant-token': token });
  expect(stream.status).toBe(200);
  streams.push(stream);
  return stream;
}

const ids = (res: ApiResponse<'GET /sessions/{id}/questions'>): string[] => expectOk(res).data.map((q) => q.id);

describe('GET /sessions/{id}/deck', () => {
  it('answers the poll’s title and slides, quiz answers included, to the host token and to an API key', async () => {
    const { poll, session } = await pollAndSession();
    const byHost = await deck(session.id, host(session));
    expectStatus(byHost, 200);
    expect(byHost.body).toEqual({
      sessionId: session.id,
      pollId: poll.id,
      title: 'Presented',
      slides: poll.slides,
      answersVisible: true,
    });
    // What a participant never sees before the results, the presenter has from the start.
    const quiz = byHost.body.slides.find((slide: Json) => slide.id === 'capital');
    expect(quiz).toMatchObject({ kind: 'quiz', correctOptionIds: ['paris'], points: 500 });
    expect(byHost.body.slides.map((slide: Json) => slide.id)).toEqual([
      'lunch',
      'capital',
      'mood',
      'rank',
      'words',
      'ask',
      'intro',
      'open',
    ]);

    const byKey = await deck(session.id, { apiKey });
    expectStatus(byKey, 200);
    expect(byKey.body).toEqual(byHost.body);
  });

  it('is the poll as it is now: a renamed poll is renamed in the deck', async () => {
    const { poll, session } = await pollAndSession();
    const renamed = await api.request('PATCH /polls/{id}', {
      params: { id: poll.id },
      apiKey,
      body: { title: 'Renamed' },
    });
    expectStatus(renamed, 200);
    const res = await deck(session.id, host(session));
    expectStatus(res, 200);
    expect(res.body.title).toBe('Renamed');
  });

  it('refuses a wrong host token, another session’s token and no credential; 404s unknown and foreign sessions', async () => {
    const { session } = await pollAndSession();
    const other = await newSession((await publishedPoll()).id);

    expectError(await deck(session.id, { hostToken: 'pht_not-a-token' }), 401, 'invalid_host_token');
    expectError(await deck(session.id, host(other)), 401, 'invalid_host_token');
    expectError(await deck(other.id, host(session)), 401, 'invalid_host_token');
    expectError(await deck(session.id, {}), 401, 'missing_authorization');

    const unknown = newId('session');
    expectError(await deck(unknown, { apiKey }), 404, 'not_found');
    // An unknown session has no host token, so any token is the wrong one.
    expectError(await deck(unknown, host(session)), 401, 'invalid_host_token');
    const stranger = await t.workspace('pro');
    expectError(await deck(session.id, { apiKey: stranger.apiKey }), 404, 'not_found');
  });
});

describe('GET /sessions/{id}/questions', () => {
  it('lists the questions of the session’s poll newest first, across pages, filtered by slide and status', async () => {
    const { poll, session } = await pollAndSession();
    const [ada, bob] = [await joined(session, 'Ada'), await joined(session, 'Bob')];
    await act(session, 'start');
    await act(session, 'goto', ASK_INDEX);
    const held = [
      await asked(session, ada, 'ask', 'When is lunch?'),
      await asked(session, bob, 'ask', 'Is there dessert?'),
      await asked(session, ada, 'ask', 'Who pays?'),
    ];
    await act(session, 'goto', OPEN_INDEX);
    const open = [await asked(session, bob, 'open', 'Any news?'), await asked(session, ada, 'open', 'Next time?')];

    const all = await questions(session.id, host(session));
    expectStatus(all, 200);
    expect(ids(all)).toEqual([...held, ...open].reverse());
    expect(all.body.nextCursor).toBeNull();
    // The same list as the poll's own route, which needs a workspace credential.
    const ofPoll = await api.request('GET /polls/{id}/questions', { params: { id: poll.id }, apiKey });
    expect(all.body).toEqual(ofPoll.body);

    // The moderation queue: the moderated slide's questions, pending, two to a page.
    const first = await questions(session.id, host(session), { status: 'pending', limit: 2 });
    expectStatus(first, 200);
    expect(ids(first)).toEqual([held[2], held[1]]);
    expect(first.body.data[0]).toMatchObject({ pollId: poll.id, slideId: 'ask', text: 'Who pays?', status: 'pending' });
    expect(first.body.nextCursor).toEqual(expect.any(String));
    const second = await questions(session.id, host(session), {
      status: 'pending',
      limit: 2,
      cursor: first.body.nextCursor,
    });
    expect(ids(second)).toEqual([held[0]]);
    expect(expectOk(second).nextCursor).toBeNull();

    const onOpen = await questions(session.id, host(session), { slideId: 'open' });
    expect(ids(onOpen)).toEqual([...open].reverse());
    for (const question of expectOk(onOpen).data) expect(question.status).toBe('approved');
    expect(ids(await questions(session.id, host(session), { slideId: 'open', status: 'pending' }))).toEqual([]);
    expect(ids(await questions(session.id, host(session), { status: 'dismissed' }))).toEqual([]);

    const byKey = await questions(session.id, { apiKey }, { status: 'pending' });
    expect(ids(byKey)).toEqual([...held].reverse());

    // Another poll's session lists that poll's questions: none.
    const elsewhere = await pollAndSession();
    const theirs = await questions(elsewhere.session.id, host(elsewhere.session));
    expect(theirs.body).toEqual({ data: [], nextCursor: null });
  });

  it('refuses bad filters (422), another session’s token (401), and another workspace (404)', async () => {
    const { session } = await pollAndSession();
    const other = await newSession((await publishedPoll()).id);

    const badStatus = await questions(session.id, host(session), { status: 'hidden' });
    expectError(badStatus, 422, 'validation_failed');
    expect(errorDetails(badStatus).fieldErrors.status).toBeDefined();
    expectError(await questions(session.id, host(session), { limit: 0 }), 422, 'validation_failed');
    const forged = await questions(session.id, host(session), { cursor: Buffer.from('poll_x').toString('base64url') });
    expectError(forged, 422, 'validation_failed');

    expectError(await questions(session.id, host(other)), 401, 'invalid_host_token');
    expectError(await questions(session.id, {}), 401, 'missing_authorization');
    const stranger = await t.workspace('pro');
    expectError(await questions(session.id, { apiKey: stranger.apiKey }), 404, 'not_found');
    expectError(await questions(newId('session'), { apiKey }), 404, 'not_found');
  });
});

describe('PATCH /sessions/{id}/questions/{questionId}', () => {
  it('approves and dismisses with the host token; the participants’ Q&A board follows', async () => {
    const { session } = await pollAndSession();
    const ada = await joined(session, 'Ada');
    await act(session, 'start');
    await act(session, 'goto', ASK_INDEX);
    const feed = await participantStream(session, ada);
    expect((await feed.next('slide')).data.slide.id).toBe('ask');
    expect((await feed.next('questions')).data).toEqual({ slideId: 'ask', questions: [] });

    const cake = await asked(session, ada, 'ask', 'Will there be cake?');
    const other = await asked(session, ada, 'ask', 'And coffee?');
    const approved = await moderate(session.id, cake, { status: 'approved' }, host(session));
    expectStatus(approved, 200);
    expect(approved.body).toMatchObject({
      id: cake,
      slideId: 'ask',
      text: 'Will there be cake?',
      status: 'approved',
      upvotes: 0,
    });

    const board = await feed.waitFor((e) => e.type === 'questions' && e.data.questions.length > 0);
    expect(board.data.slideId).toBe('ask');
    // Only the approved question reaches the audience.
    expect(board.data.questions.map((q: Json) => [q.id, q.text, q.upvotes])).toEqual([
      [cake, 'Will there be cake?', 0],
    ]);
    expect(feed.raw()).not.toContain('And coffee?');
    // What the audience may now do with it: upvote it.
    const upvoted = await api.request('POST /live/{pin}/questions/{questionId}/upvotes', {
      params: { pin: session.pin, questionId: cake },
      headers: { 'x-participant-token': ada },
    });
    expectStatus(upvoted, 201);
    expect(ids(await questions(session.id, host(session), { status: 'pending' }))).toEqual([other]);

    const dismissed = await moderate(session.id, cake, { status: 'dismissed' }, host(session));
    expectStatus(dismissed, 200);
    expect(dismissed.body).toMatchObject({ id: cake, status: 'dismissed', upvotes: 1 });
    const emptied = await feed.waitFor((e) => e.type === 'questions' && e.data.questions.length === 0);
    expect(emptied.data).toEqual({ slideId: 'ask', questions: [] });

    // An API key moderates through the same route.
    const byKey = await moderate(session.id, other, { status: 'approved' }, { apiKey });
    expectStatus(byKey, 200);
    expect(byKey.body.status).toBe('approved');
    const shown = await feed.waitFor((e) => e.type === 'questions' && e.data.questions.length > 0);
    expect(shown.data.questions.map((q: Json) => q.id)).toEqual([other]);
  });

  it('404s a question of another poll or none, 422s a bad status, 401s a wrong token; none changes a thing', async () => {
    const { session } = await pollAndSession();
    const elsewhere = await pollAndSession();
    const ivy = await joined(elsewhere.session, 'Ivy');
    await act(elsewhere.session, 'start');
    await act(elsewhere.session, 'goto', ASK_INDEX);
    const foreign = await asked(elsewhere.session, ivy, 'ask', 'Asked in another session');
    const own = await joined(session, 'Jo');
    await act(session, 'start');
    await act(session, 'goto', ASK_INDEX);
    const mine = await asked(session, own, 'ask', 'Asked here');

    const notOurs = await moderate(session.id, foreign, { status: 'approved' }, host(session));
    expectError(notOurs, 404, 'not_found');
    expect(notOurs.body.error.message).toBe('Question not found');
    expectError(await moderate(session.id, newId('response'), { status: 'approved' }, host(session)), 404, 'not_found');
    // A vote's id names no question.
    expectError(
      await moderate(session.id, 'vote_01AAAAAAAAAAAAAAAAAAAAAAAA', { status: 'approved' }, host(session)),
      404,
      'not_found',
    );

    const badStatus = await moderate(session.id, mine, { status: 'deleted' }, host(session));
    expectError(badStatus, 422, 'validation_failed');
    expect(errorDetails(badStatus).fieldErrors.status).toBeDefined();
    const noStatus = await moderate(session.id, mine, {}, host(session));
    expectError(noStatus, 422, 'validation_failed');
    expect(errorDetails(noStatus).fieldErrors.status).toBeDefined();
    const extra = await moderate(session.id, mine, { status: 'approved', pinned: true }, host(session));
    expectError(extra, 422, 'validation_failed');
    expect(errorDetails(extra).fieldErrors.pinned).toBeDefined();

    expectError(
      await moderate(session.id, mine, { status: 'approved' }, host(elsewhere.session)),
      401,
      'invalid_host_token',
    );
    // The other session's token on its own session cannot reach this session's question either.
    expectError(
      await moderate(elsewhere.session.id, mine, { status: 'approved' }, host(elsewhere.session)),
      404,
      'not_found',
    );
    const stranger = await t.workspace('pro');
    expectError(
      await moderate(session.id, mine, { status: 'approved' }, { apiKey: stranger.apiKey }),
      404,
      'not_found',
    );

    expect(ids(await questions(session.id, host(session), { status: 'pending' }))).toEqual([mine]);
    expect(ids(await questions(elsewhere.session.id, host(elsewhere.session), { status: 'pending' }))).toEqual([
      foreign,
    ]);
  });

  it('needs sessions:write of an OAuth token to moderate; the deck also polls:read, the questions responses:read', async () => {
    const client = await oauthClient(t, 'polls:read polls:write responses:read sessions:read sessions:write');
    const poll = await pollPublisher(() => ({
      api: t.api,
      apiKey: client.apiKey,
      title: 'OAuth',
      content: presenterContent(),
    }))();
    const session = await newSession(poll.id, client.apiKey);
    const kim = await joined(session, 'Kim');
    await act(session, 'start');
    await act(session, 'goto', ASK_INDEX);
    const question = await asked(session, kim, 'ask', 'Scoped?');
    const token = async (scope: string) => ({ apiKey: (await issuedToken(t, client, scope)).access_token });
    const reader = await token('sessions:read');
    const writer = await token('sessions:read sessions:write');

    // sessions:read alone reads the session, not the poll's quiz answers nor the audience's questions.
    expect((await rawCall('GET', `${t.api}/sessions/${session.id}`, credentialOf(reader))).status).toBe(200);
    const deckRefused = await deck(session.id, reader);
    expectError(deckRefused, 403, 'insufficient_scope');
    expect(deckRefused.body.error.details).toEqual({ requiredScope: 'polls:read' });
    expect(deckRefused.text).not.toContain('correctOptionIds');
    const questionsRefused = await questions(session.id, reader);
    expectError(questionsRefused, 403, 'insufficient_scope');
    expect(questionsRefused.body.error.details).toEqual({ requiredScope: 'responses:read' });
    expect(questionsRefused.text).not.toContain('Scoped?');
    // Each with the scope that guards its data; neither with the other's.
    const deckReader = await token('sessions:read polls:read');
    const questionReader = await token('sessions:read responses:read');
    const slides = await deck(session.id, deckReader);
    expectStatus(slides, 200);
    expect(slides.body.slides.some((slide: Json) => Array.isArray(slide.correctOptionIds))).toBe(true);
    expect(ids(await questions(session.id, questionReader))).toEqual([question]);
    expectError(await deck(session.id, questionReader), 403, 'insufficient_scope');
    expectError(await questions(session.id, deckReader), 403, 'insufficient_scope');
    // The host token acts for its own session: it reads both, as it always has.
    expect((await deck(session.id, host(session))).status).toBe(200);
    expect(ids(await questions(session.id, host(session)))).toEqual([question]);

    expectError(await moderate(session.id, question, { status: 'approved' }, reader), 403, 'insufficient_scope');
    const approved = await moderate(session.id, question, { status: 'approved' }, writer);
    expectStatus(approved, 200);
    expect(approved.body.status).toBe('approved');
  });
});
