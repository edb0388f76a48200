import type { Scope } from '@pollkit/contracts';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { revokeClient } from '../../src/modules/oauth/oauth.service.js';
import { expectError } from '../support/assertions.js';
import { runCliInProcess } from '../support/cli.js';
import { presenterContent } from '../support/decks.js';
import { type HttpResponse, type LooseJson, rawCall } from '../support/http.js';
import { UNLIMITED } from '../support/limits.js';
import { type ControlAction, type CreatedSession, createdSession } from '../support/live-deck.js';
import { issuedToken, oauthClient } from '../support/oauth.js';
import { pollPublisher } from '../support/polls.js';
import { startTestServer, type TestServer, usingPostgres } from '../support/server.js';
import { openSse, type SseEvent, type SseStream } from '../support/sse.js';
import {
  type ApiResponse,
  type BodyOf,
  errorDetails,
  expectOk,
  expectStatus,
  testClient,
} from '../support/test-client.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';
import { createEndpoint, deliveriesOf } from '../support/webhooks.js';

/**
 * Scopes mean what they say for live sessions (issue 35, part 3), over real HTTP:
 * - the presenter stream (`GET /sessions/{id}/events`) of a workspace credential carries counts,
 *   results and Q&A only with `responses:read`, and quiz answer keys only with `polls:read` too;
 * - a host token carries the scopes of the credential that created it (deck answer key, results,
 *   questions, its stream), and still controls its session;
 * - `session.participant_completed` and `session.ended` payloads need `responses:read`;
 * - revoking a key needs its scopes, as rotating does;
 * - keys an OAuth client's token created are revoked with the client.
 * Runs on PGlite, and on PostgreSQL + Redis with TEST_DATABASE_URL and TEST_REDIS_URL.
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

const streams: SseStream[] = [];
afterEach(() => {
  for (const stream of streams.splice(0)) stream.close();
});

type Json = LooseJson;

/** presenterContent(): `capital`, index 1, is a quiz; `open`, index 7, unmoderated Q&A. */
const QUIZ_INDEX = 1;
const OPEN_INDEX = 7;
const publishedPoll = pollPublisher(() => ({
  api: t.api,
  apiKey,
  title: 'Scoped',
  content: presenterContent(),
}));

/** A key of the workspace holding `scopes`, made through the API by `creator`. */
async function keyWith(scopes: Scope[], creator = apiKey): Promise<{ id: string; secret: string }> {
  const res = await api.request('POST /keys', { apiKey: creator, body: { name: scopes.join(' '), scopes } });
  expectStatus(res, 201);
  return { id: res.body.id, secret: res.body.secret };
}

const newSession = (pollId: string, key = apiKey) => createdSession(t, key, pollId);

/** A workspace credential (`apiKey`) or a host token (`hostToken`). */
type Credential = { apiKey: string } | { hostToken: string };
const auth = (credential: Credential) =>
  'apiKey' in credential ? { apiKey: credential.apiKey } : { headers: { 'x-host-token': credential.hostToken } };

/** A read of any route by path, as the scope checks walk several: its body read field by field. */
function get(path: string, credential: Credential): Promise<HttpResponse<Json>> {
  return rawCall<Json>('GET', `${t.api}${path}`, auth(credential));
}

async function control(sessionId: string, credential: Credential, action: ControlAction, slideIndex?: number) {
  const body = slideIndex === undefined ? { action } : { action, slideIndex };
  const res = await api.request('POST /sessions/{id}/control', {
    params: { id: sessionId },
    ...auth(credential),
    body,
  });
  expectStatus(res, 200, action);
  return res.body;
}

async function presenterStream(sessionId: string, credential: Credential): Promise<SseStream> {
  const headers: Record<string, string> =
    'apiKey' in credential
      ? { authorization: `Bearer ${credential.apiKey}` }
      : { 'x-host-token': credential.hostToken };
  const stream = await openSse(`${t.api}/sessions/${sessionId}/events`, headers);
  expect(stream.status, JSON.stringify(stream.error)).toBe(200);
  streams.push(stream);
  return stream;
}

/** A participant of the session: its token. */
async function joined(session: CreatedSession, name: string): Promise<string> {
  const res = await api.request('POST /live/{pin}/join', { params: { pin: session.pin }, body: { name } });
  expectStatus(res, 200);
  return res.body.participantToken;
}

async function answer(session: CreatedSession, token: string, body: BodyOf<'POST /live/{pin}/answers'>): Promise<void> {
  const res = await api.request('POST /live/{pin}/answers', {
    params: { pin: session.pin },
    headers: { 'x-participant-token': token },
    body,
  });
  expectStatus(res, 201);
}

/** The `counts` event whose current slide has `total` answers (questions, on a Q&A slide). */
const countsOf = (slideId: string, total: number) => (event: SseEvent) =>
  event.type === 'counts' && event.data.slideId === slideId && event.data.answerCount === total;

/** What reveals a quiz's answer key in a result. */
function answerKeyOf(result: Json): Json {
  return {
    correctAnswers: result.correctAnswers,
    correctRate: result.correctRate,
    correct: result.options.map((option: Json) => option.correct),
  };
}
const NO_KEY = { correctAnswers: undefined, correctRate: undefined, correct: [undefined, undefined] };
const FULL_KEY = { correctAnswers: 1, correctRate: 100, correct: [true, false] };

const SECRET_QUESTION = 'Who approved the budget for the offsite?';

describe('the presenter stream of a workspace credential', () => {
  it('carries counts, results and Q&A only with responses:read, and the answer key only with polls:read too', async () => {
    const poll = await publishedPoll();
    const session = await newSession(poll.id);
    const movesOnly = await keyWith(['sessions:read']);
    const unkeyed = await keyWith(['sessions:read', 'responses:read']);
    const full = await presenterStream(session.id, { apiKey });
    const noKey = await presenterStream(session.id, { apiKey: unkeyed.secret });
    const moves = await presenterStream(session.id, { apiKey: movesOnly.secret });
    // Each connects with the session; the full and unkeyed streams with its counts as well.
    for (const stream of [full, noKey, moves]) expect((await stream.next('session')).data.status).toBe('pending');
    await full.next('counts');
    await noKey.next('counts');

    const ada = await joined(session, 'Ada');
    await control(session.id, { apiKey }, 'start');
    await control(session.id, { apiKey }, 'goto', QUIZ_INDEX);
    await answer(session, ada, { slideId: 'capital', optionIds: ['paris'] });
    const fullCounts = await full.waitFor(countsOf('capital', 1));
    expect(answerKeyOf(fullCounts.data.results)).toEqual(FULL_KEY);
    const unkeyedCounts = await noKey.waitFor(countsOf('capital', 1));
    expect(unkeyedCounts.data.results.options.map((o: Json) => o.count)).toEqual([1, 0]);
    expect(answerKeyOf(unkeyedCounts.data.results)).toEqual(NO_KEY);
    expect(unkeyedCounts.rawData).not.toContain('"correct');

    await control(session.id, { apiKey }, 'showResults');
    expect(answerKeyOf((await full.next('results')).data.results)).toEqual(FULL_KEY);
    const unkeyedResults = await noKey.next('results');
    expect(unkeyedResults.data.results.totalAnswers).toBe(1);
    expect(answerKeyOf(unkeyedResults.data.results)).toEqual(NO_KEY);

    await control(session.id, { apiKey }, 'goto', OPEN_INDEX);
    await answer(session, ada, { slideId: 'open', text: SECRET_QUESTION });
    const board = (await full.waitFor(countsOf('open', 1))).data.results;
    expect(board.questions.map((q: Json) => q.text)).toEqual([SECRET_QUESTION]);
    expect((await noKey.waitFor(countsOf('open', 1))).data.results.questions[0].text).toBe(SECRET_QUESTION);

    await control(session.id, { apiKey }, 'end');
    const summary = (await full.next('ended')).data;
    expect(answerKeyOf(summary.slides[QUIZ_INDEX])).toEqual(FULL_KEY);
    const unkeyedSummary = await noKey.next('ended');
    expect(unkeyedSummary.data.slides[OPEN_INDEX].questions[0].text).toBe(SECRET_QUESTION);
    expect(answerKeyOf(unkeyedSummary.data.slides[QUIZ_INDEX])).toEqual(NO_KEY);
    for (const stream of [full, noKey, moves]) await stream.closed;
    expect(noKey.raw()).not.toContain('"correct');

    // sessions:read alone: the session's moves, every one of them, and nothing of the audience's answers.
    const types = moves.events.map((event) => event.type);
    expect(
      types.every((type) => type === 'session'),
      types.join(' '),
    ).toBe(true);
    expect(
      moves.events.map((event) => [event.data.status, event.data.currentSlideIndex, event.data.resultsVisible]),
    ).toEqual([
      ['pending', 0, false],
      ['active', 0, false],
      ['active', QUIZ_INDEX, false],
      ['active', QUIZ_INDEX, true],
      ['active', OPEN_INDEX, false],
      ['ended', OPEN_INDEX, false],
    ]);
    for (const hidden of [SECRET_QUESTION, '"correct', 'totalAnswers', '"results"']) {
      expect(moves.raw()).not.toContain(hidden);
    }
    expect(full.raw()).toContain(SECRET_QUESTION);

    // Connecting to the ended session: the summary for the full credential, the session alone for the narrow one.
    const lateFull = await presenterStream(session.id, { apiKey });
    expect((await lateFull.next()).type).toBe('ended');
    const lateMoves = await presenterStream(session.id, { apiKey: movesOnly.secret });
    await lateMoves.closed;
    expect(lateMoves.events.map((event) => [event.type, event.data.status])).toEqual([['session', 'ended']]);
  });
});

describe('a host token carries the scopes of the credential that created it', () => {
  it('made by a sessions:write key: controls the session, reads neither the answer key, nor results, nor questions', async () => {
    const poll = await publishedPoll();
    const writer = await keyWith(['sessions:write']);
    // The key itself reads no poll.
    expectError(await get(`/polls/${poll.id}`, { apiKey: writer.secret }), 403, 'insufficient_scope');
    const session = await newSession(poll.id, writer.secret);
    const host = { hostToken: session.hostToken };

    const deck = await get(`/sessions/${session.id}/deck`, host);
    expect(deck.status, deck.text).toBe(200);
    const quiz = deck.body.slides.find((slide: Json) => slide.id === 'capital');
    expect(quiz).toMatchObject({ kind: 'quiz', text: 'Capital of France?', points: 500 });
    expect(quiz).not.toHaveProperty('correctOptionIds');
    expect(deck.text).not.toContain('correctOptionIds');
    expect(deck.body.slides.map((slide: Json) => slide.id)).toEqual(poll.slides.map((slide) => slide.id));
    // The presenter screen is told it may not show answers (rather than show empty counts).
    expect(deck.body.answersVisible).toBe(false);

    const stream = await presenterStream(session.id, host);
    expect((await stream.next('session')).data.status).toBe('pending');
    const ada = await joined(session, 'Ada');
    // It controls the session as any host token does.
    expect((await control(session.id, host, 'start')).status).toBe('active');
    expect((await control(session.id, host, 'goto', QUIZ_INDEX)).currentSlideIndex).toBe(QUIZ_INDEX);
    await answer(session, ada, { slideId: 'capital', optionIds: ['paris'] });
    expect((await control(session.id, host, 'showResults')).resultsVisible).toBe(true);
    expect((await control(session.id, host, 'lock')).locked).toBe(true);
    await control(session.id, host, 'goto', OPEN_INDEX);
    await answer(session, ada, { slideId: 'open', text: SECRET_QUESTION });
    expect((await get(`/sessions/${session.id}`, host)).body).toMatchObject({ status: 'active', participantCount: 1 });

    for (const path of ['results', 'questions', 'participants']) {
      const refused = await get(`/sessions/${session.id}/${path}`, host);
      expectError(refused, 403, 'insufficient_scope');
      expect(refused.body.error.details).toEqual({ requiredScope: 'responses:read' });
    }
    // A full key reads them (the questions are there to be refused).
    expect((await get(`/sessions/${session.id}/questions`, { apiKey })).body.data).toHaveLength(1);

    // A token it gives itself carries no more; one a full key gives carries everything.
    const rotated = await api.request('POST /sessions/{id}/host-token', { params: { id: session.id }, ...auth(host) });
    expectStatus(rotated, 200);
    const narrow = { hostToken: rotated.body.hostToken };
    expect((await get(`/sessions/${session.id}/deck`, narrow)).text).not.toContain('correctOptionIds');
    expectError(await get(`/sessions/${session.id}/results`, narrow), 403, 'insufficient_scope');
    await control(session.id, narrow, 'end');
    await stream.closed;
    const types = stream.events.map((event) => event.type);
    expect(
      types.every((type) => type === 'session'),
      types.join(' '),
    ).toBe(true);
    expect(stream.events.at(-1)?.data.status).toBe('ended');
    expect(stream.raw()).not.toContain(SECRET_QUESTION);
    expect(stream.raw()).not.toContain('"correct');
  }, 30_000);

  it('made by a full key (or given one by a full key): reads the deck’s answer key, results, questions and counts as before', async () => {
    const poll = await publishedPoll();
    const writer = await keyWith(['sessions:write']);
    const narrowSession = await newSession(poll.id, writer.secret);
    const given = await api.request('POST /sessions/{id}/host-token', { params: { id: narrowSession.id }, apiKey });
    expectStatus(given, 200);
    const session = await newSession(poll.id);

    for (const hostToken of [session.hostToken, given.body.hostToken]) {
      const id = hostToken === session.hostToken ? session.id : narrowSession.id;
      const deck = await get(`/sessions/${id}/deck`, { hostToken });
      expect(deck.status, deck.text).toBe(200);
      expect(deck.body.answersVisible).toBe(true);
      expect(deck.body.slides.find((slide: Json) => slide.id === 'capital').correctOptionIds).toEqual(['paris']);
      expect((await get(`/sessions/${id}/results`, { hostToken })).status).toBe(200);
      expect((await get(`/sessions/${id}/questions`, { hostToken })).status).toBe(200);
    }

    const host = { hostToken: session.hostToken };
    const stream = await presenterStream(session.id, host);
    await stream.next('counts');
    const ada = await joined(session, 'Ada');
    await control(session.id, host, 'start');
    await control(session.id, host, 'goto', QUIZ_INDEX);
    await answer(session, ada, { slideId: 'capital', optionIds: ['paris'] });
    expect(answerKeyOf((await stream.waitFor(countsOf('capital', 1))).data.results)).toEqual(FULL_KEY);
    await control(session.id, host, 'end');
    expect(answerKeyOf((await stream.next('ended')).data.slides[QUIZ_INDEX])).toEqual(FULL_KEY);
  });
});

describe('results read without polls:read', () => {
  it('carry the counts without the quiz answer key, for a key and for a host token it made', async () => {
    const poll = await publishedPoll();
    const session = await newSession(poll.id);
    await control(session.id, { apiKey }, 'start');
    await control(session.id, { apiKey }, 'goto', QUIZ_INDEX);
    await answer(session, await joined(session, 'Quizzer'), { slideId: 'capital', optionIds: ['paris'] });
    const quizOf = (res: HttpResponse<Json>) => {
      expect(res.status, res.text).toBe(200);
      return res.body.slides.find((slide: Json) => slide.slideId === 'capital');
    };
    const counts = { options: [expect.objectContaining({ id: 'paris', count: 1 }), expect.anything()] };

    // A full key: the answer key, as before.
    const full = quizOf(await get(`/sessions/${session.id}/results`, { apiKey }));
    expect(full).toMatchObject({ ...counts, correctAnswers: 1 });
    expect(full.options[0].correct).toBe(true);
    expect(quizOf(await get(`/polls/${poll.id}/results`, { apiKey })).correctRate).toBe(100);

    // responses:read (and sessions:read) alone: the same counts, no answer key anywhere.
    const reader = await keyWith(['responses:read', 'sessions:read', 'sessions:write']);
    for (const path of [`/sessions/${session.id}/results`, `/polls/${poll.id}/results`]) {
      const res = await get(path, { apiKey: reader.secret });
      const quiz = quizOf(res);
      expect(quiz).toMatchObject(counts);
      expect(res.text).not.toMatch(/"correct(Answers|Rate)?"/);
    }
    // The host token such a key makes reads the session's results the same way.
    const narrow = await newSession(poll.id, reader.secret);
    const hostRes = await get(`/sessions/${narrow.id}/results`, { hostToken: narrow.hostToken });
    expect(hostRes.status, hostRes.text).toBe(200);
    expect(hostRes.text).not.toMatch(/"correct(Answers|Rate)?"/);
    expect(hostRes.text).toContain('"kind":"quiz"');
  });
});

describe('webhook payloads of a session’s end and its participants’ completions', () => {
  it('need responses:read: sessions:read and webhooks:read see that they happened, not what they carry', async () => {
    const poll = await publishedPoll();
    const endpoint = await createEndpoint(t, apiKey, {
      url: receiver.urlFor('session-scopes'),
      events: ['session.started', 'session.ended', 'session.participant_completed'],
    });
    receiver.secrets.push(endpoint.secret);
    const walk = await api.request('POST /sessions', {
      apiKey,
      body: { pollId: poll.id, pace: 'audience', pin: false },
    });
    expectStatus(walk, 201);
    await control(walk.body.id, { apiKey }, 'start');
    const link = String(walk.body.joinUrl).split('/').pop()!;
    const walker = await api.request('POST /live/{pin}/join', {
      params: { pin: link },
      body: { name: 'Wanda Walker' },
    });
    expectStatus(walker, 200);
    for (const slide of poll.slides) {
      const moved: ApiResponse<'POST /live/{pin}/advance'> = await api.request('POST /live/{pin}/advance', {
        params: { pin: link },
        headers: { 'x-participant-token': walker.body.participantToken },
        body: { slideId: slide.id },
      });
      expectStatus(moved, 200);
    }
    await control(walk.body.id, { apiKey }, 'end');

    const deadline = Date.now() + 20_000;
    let deliveries = await deliveriesOf(t, apiKey, endpoint.id);
    while (deliveries.length < 3 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      deliveries = await deliveriesOf(t, apiKey, endpoint.id);
    }
    const delivery = (type: string) => {
      const found = deliveries.find((d) => d.eventType === type);
      if (!found) throw new Error(`no ${type} delivery among ${deliveries.map((d) => d.eventType).join(', ')}`);
      return `/webhooks/${endpoint.id}/deliveries/${found.id}`;
    };

    const narrow = await keyWith(['sessions:read', 'webhooks:read']);
    for (const type of ['session.participant_completed', 'session.ended']) {
      const hidden = await get(delivery(type), { apiKey: narrow.secret });
      expect(hidden.status, hidden.text).toBe(200);
      expect(hidden.body).toMatchObject({ eventType: type, payloadScope: 'responses:read', payload: null });
      expect(hidden.text).not.toContain('Wanda Walker');
    }
    // The other session events stay sessions:read's.
    const started = await get(delivery('session.started'), { apiKey: narrow.secret });
    expect(started.body).toMatchObject({
      payloadScope: 'sessions:read',
      payload: expect.stringContaining(walk.body.id),
    });

    const reader = await keyWith(['sessions:read', 'webhooks:read', 'responses:read']);
    const shown = await get(delivery('session.participant_completed'), { apiKey: reader.secret });
    expect(JSON.parse(shown.body.payload).data).toMatchObject({ name: 'Wanda Walker', sessionId: walk.body.id });
    expect((await get(delivery('session.ended'), { apiKey: reader.secret })).body.payload).toContain('"session.ended"');

    // Subscribing an endpoint to them likewise needs responses:read.
    const writer = await keyWith(['sessions:read', 'webhooks:write']);
    const subscribe = await api.request('POST /webhooks', {
      apiKey: writer.secret,
      body: { url: receiver.urlFor('elsewhere'), events: ['session.participant_completed'] },
    });
    expectError(subscribe, 403, 'insufficient_scope');
    expect(subscribe.body.error.details).toEqual({
      requiredScope: 'responses:read',
      missingScopes: ['responses:read'],
    });
  });
});

describe('revoking a key', () => {
  it('needs every scope the key holds, as rotating it does', async () => {
    const manager = await keyWith(['keys:manage', 'polls:read']);
    const broad = await keyWith(['polls:read', 'responses:read']);
    const narrow = await keyWith(['polls:read']);
    const revoke = (id: string, key: string) => api.request('POST /keys/{id}/revoke', { params: { id }, apiKey: key });

    const refused = await revoke(broad.id, manager.secret);
    expectError(refused, 403, 'insufficient_scope');
    expect(refused.body.error.details).toEqual({ requiredScope: 'responses:read', missingScopes: ['responses:read'] });
    // A key created without scopes holds them all.
    const everything = await revoke(
      expectOk(await api.request('GET /workspace', { apiKey })).credential.id,
      manager.secret,
    );
    expectError(everything, 403, 'insufficient_scope');
    expect(errorDetails(everything).missingScopes).toContain('polls:write');
    // Nothing was revoked: both keys still work.
    expect((await api.request('GET /workspace', { apiKey: broad.secret })).status).toBe(200);
    expect((await api.request('GET /workspace', { apiKey })).status).toBe(200);

    // Within its scopes it revokes (itself included); a credential holding the broad key's scopes revokes it.
    expect(expectOk(await revoke(narrow.id, manager.secret)).status).toBe('revoked');
    expect(expectOk(await revoke(broad.id, apiKey)).status).toBe('revoked');
    expectError(await api.request('GET /workspace', { apiKey: broad.secret }), 401, 'revoked_api_key');
    expect(expectOk(await revoke(manager.id, manager.secret)).status).toBe('revoked');
  });
});

describe('keys an OAuth client created', () => {
  it('are revoked with the client, those its keys created and rotated included', async () => {
    const client = await oauthClient(t, 'keys:manage polls:read');
    const token = (await issuedToken(t, client)).access_token;
    const create = async (creator: string, scopes: Scope[]) => {
      const res = await api.request('POST /keys', { apiKey: creator, body: { name: 'by oauth', scopes } });
      expectStatus(res, 201);
      return res.body as { id: string; secret: string };
    };
    const minted = await create(token, ['polls:read']);
    const manager = await create(token, ['keys:manage', 'polls:read']);
    const grandchild = await create(manager.secret, ['polls:read']);
    const rotated = await api.request('POST /keys/{id}/rotate', {
      params: { id: grandchild.id },
      apiKey: client.apiKey,
      body: { gracePeriodSeconds: 3600 },
    });
    expectStatus(rotated, 201);
    const ownKey = await create(client.apiKey, ['polls:read']);
    const works = (key: string) => api.request('GET /polls', { apiKey: key });
    for (const key of [minted.secret, manager.secret, grandchild.secret, rotated.body.secret, ownKey.secret]) {
      expect((await works(key)).status).toBe(200);
    }

    if (usingPostgres && process.env.TEST_REDIS_URL) {
      // The operator's CLI, on the server's database, telling it through Redis.
      const env = { DATABASE_URL: t.databaseUrl, REDIS_URL: process.env.TEST_REDIS_URL };
      const revoked = await runCliInProcess(['oauth', 'clients', 'revoke', client.clientId, '--json'], env);
      expect(revoked.code, revoked.stderr).toBe(0);
      expect(JSON.parse(revoked.stdout)).toMatchObject({
        clientId: client.clientId,
        status: 'revoked',
        revokedKeys: 4,
      });
      const text = await runCliInProcess(['oauth', 'clients', 'revoke', client.clientId], env);
      expect(text.stdout).toContain('already revoked');
    } else {
      const revoked = await revokeClient(t.server.deps, client.clientId);
      expect(revoked).toMatchObject({ alreadyRevoked: false, revokedKeys: 4 });
    }

    for (const key of [minted.secret, manager.secret, grandchild.secret, rotated.body.secret]) {
      expectError(await works(key), 401, 'revoked_api_key');
    }
    expectError(await works(token), 401, 'invalid_oauth_token');
    // The workspace's own keys are not the client's.
    expect((await works(ownKey.secret)).status).toBe(200);
    expect((await works(client.apiKey)).status).toBe(200);
  });
});
