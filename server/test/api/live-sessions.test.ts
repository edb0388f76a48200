import Papa from 'papaparse';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/db/ids.js';
import { insertSession } from '../../src/modules/sessions/sessions.repository.js';
import { expectError } from '../support/assertions.js';
import { ManualClock } from '../support/clock.js';
import { postFrom, randomLoopback } from '../support/from-address.js';
import { call, type JsonResponse } from '../support/http.js';
import { issuedToken, oauthClient } from '../support/oauth.js';
import { type ContentInput, pollPublisher, type SlideInput, sampleContent } from '../support/polls.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { openSse, type SseEvent, type SseStream } from '../support/sse.js';

/**
 * Live sessions over real HTTP and Server-Sent Events: a whole session from creation to the end
 * summary (every answerable slide kind answered by three participants, a presenter watching), then
 * the sessions API, the state machine, the credentials, the answer errors, quiz timing, resuming,
 * reconnecting with `Last-Event-ID`, idempotent answers and the per-address PIN limit.
 * Runs on PGlite, and on PostgreSQL + Redis with TEST_DATABASE_URL and TEST_REDIS_URL.
 */

let t: TestServer;
let apiKey: string;
let workspaceId: string;
/** The server times quiz answers by this clock: it moves only when a test advances it. */
const clock = new ManualClock();

beforeAll(async () => {
  t = await startTestServer(
    {
      // Every request here comes from 127.0.0.1 and one key: the limits are tested on their own.
      RATE_LIMIT_PER_MINUTE: '1000000',
      LIVE_RATE_LIMIT_PER_IP_PER_MINUTE: '1000000',
      LIVE_PIN_MISSES_PER_IP_PER_MINUTE: '1000000',
      LIVE_JOINS_PER_IP_PER_MINUTE: '1000000',
      LIVE_JOIN_URL: 'https://join.example.test/{pin}',
    },
    { clock },
  );
  ({ apiKey, id: workspaceId } = await t.workspace('pro'));
});
afterAll(() => t?.close());

/** Streams a test opened: closed after it, whatever it asserted. */
const streams: SseStream[] = [];
afterEach(() => {
  for (const stream of streams.splice(0)) stream.close();
});

/** Every PIN handed out by this file's server: a PIN outside it names no session. */
const pinsSeen = new Set<string>();

const publishedPoll = pollPublisher(() => ({ api: t.api, apiKey, title: 'Live', content: sampleContent() }));

type Json = Record<string, any>;

interface CreatedSession extends Json {
  id: string;
  pin: string;
  hostToken: string;
}

async function newSession(pollId: string, key = apiKey): Promise<CreatedSession> {
  const res = await call('POST', `${t.api}/sessions`, { apiKey: key, body: { pollId } });
  expect(res.status, res.text).toBe(201);
  pinsSeen.add(res.body.pin);
  return res.body;
}

/** A published poll (sampleContent() unless said otherwise) and a session of it. */
async function pollAndSession(content: ContentInput = sampleContent()) {
  const poll = await publishedPoll({ content });
  return { poll, session: await newSession(poll.id) };
}

interface ControlOptions {
  slideIndex?: number;
  hostToken?: string;
  apiKey?: string;
  headers?: Record<string, string>;
}

function control(sessionId: string, action: string, options: ControlOptions = {}): Promise<JsonResponse> {
  const headers = { ...options.headers };
  if (options.hostToken) headers['x-host-token'] = options.hostToken;
  const body: Json = { action };
  if (options.slideIndex !== undefined) body.slideIndex = options.slideIndex;
  return call('POST', `${t.api}/sessions/${sessionId}/control`, { apiKey: options.apiKey, body, headers });
}

/** A control action by the host token that must succeed: the session as it now is. */
async function act(session: CreatedSession, action: string, slideIndex?: number): Promise<Json> {
  const res = await control(session.id, action, { hostToken: session.hostToken, slideIndex });
  expect(res.status, `${action}: ${res.text}`).toBe(200);
  return res.body;
}

function join(pin: string, body: Json = {}, token?: string): Promise<JsonResponse> {
  return call('POST', `${t.api}/live/${pin}/join`, {
    body,
    headers: token ? { 'x-participant-token': token } : {},
  });
}

interface Joined {
  id: string;
  name: string;
  token: string;
  state: Json;
}

async function joined(pin: string, name: string): Promise<Joined> {
  const res = await join(pin, { name });
  expect(res.status, res.text).toBe(200);
  return { id: res.body.participant.id, name, token: res.body.participantToken, state: res.body.state };
}

function answer(pin: string, token: string | undefined, body: Json, headers: Record<string, string> = {}) {
  return call('POST', `${t.api}/live/${pin}/answers`, {
    body,
    headers: token === undefined ? headers : { 'x-participant-token': token, ...headers },
  });
}

async function answered(pin: string, who: Joined, body: Json): Promise<Json> {
  const res = await answer(pin, who.token, body);
  expect(res.status, `${who.name} ${JSON.stringify(body)}: ${res.text}`).toBe(201);
  expect(res.body.participantId).toBe(who.id);
  expect(res.body.slideId).toBe(body.slideId);
  return res.body;
}

async function participantStream(pin: string, token?: string, lastEventId?: string): Promise<SseStream> {
  const headers: Record<string, string> = {};
  if (token) headers['x-participant-token'] = token;
  if (lastEventId !== undefined) headers['last-event-id'] = lastEventId;
  const stream = await openSse(`${t.api}/live/${pin}/events`, headers);
  streams.push(stream);
  return stream;
}

async function presenterStream(session: CreatedSession, lastEventId?: string): Promise<SseStream> {
  const headers: Record<string, string> = { 'x-host-token': session.hostToken };
  if (lastEventId !== undefined) headers['last-event-id'] = lastEventId;
  const stream = await openSse(`${t.api}/sessions/${session.id}/events`, headers);
  streams.push(stream);
  return stream;
}

async function pollResults(pollId: string): Promise<Json> {
  const res = await call('GET', `${t.api}/polls/${pollId}/results`, { apiKey });
  expect(res.status, res.text).toBe(200);
  return res.body;
}

function slideResult(results: Json, slideId: string): Json {
  const slide = results.slides.find((s: Json) => s.slideId === slideId);
  expect(slide, `results of slide ${slideId}`).toBeDefined();
  return slide;
}

/** A six-digit PIN that no session of this file's server has. */
function unusedPin(): string {
  for (;;) {
    const pin = String(Math.floor(Math.random() * 1_000_000)).padStart(6, '0');
    if (!pinsSeen.has(pin)) return pin;
  }
}

/** The ranks a leaderboard must carry: one more than the number of strictly higher scores. */
function expectRanked(top: Json[]) {
  for (const [index, entry] of top.entries()) {
    if (index > 0) expect(entry.score).toBeLessThanOrEqual(top[index - 1]?.score);
    expect(entry.rank).toBe(1 + top.filter((other) => other.score > entry.score).length);
  }
}

describe('a whole live session, end to end', () => {
  it('runs every slide with three participants and a presenter, and the answers land in results and export', async () => {
    const { poll, session } = await pollAndSession();
    const presenter = await presenterStream(session);
    expect(presenter.status).toBe(200);
    expect(presenter.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const first = await presenter.next('session');
    expect(first.data).toMatchObject({ id: session.id, status: 'pending', participantCount: 0 });
    expect((await presenter.next('counts')).data).toMatchObject({ slideId: null, participantCount: 0 });

    const alice = await joined(session.pin, 'Alice');
    const bob = await joined(session.pin, 'Bob');
    const carol = await joined(session.pin, 'Carol');
    expect(alice.state).toMatchObject({ status: 'pending', slide: null, answered: false });
    expect(alice.token).toMatch(/^ptk_/);
    expect(new Set([alice.id, bob.id, carol.id]).size).toBe(3);
    await presenter.waitFor((e) => e.type === 'counts' && e.data.participantCount === 3);

    const people = [alice, bob, carol];
    const feeds = await Promise.all(people.map((p) => participantStream(session.pin, p.token)));
    for (const feed of feeds) {
      expect((await feed.next('slide')).data).toMatchObject({ status: 'pending', slide: null, sessionId: session.id });
    }

    // Nothing is taken before the presenter starts.
    expectError(
      await answer(session.pin, alice.token, { slideId: 'lunch', optionIds: ['pizza'] }),
      409,
      'session_not_active',
    );

    /** A control action, then the `slide` every participant receives for it (and the presenter's `session`). */
    const move = async (action: string, slideId: string, slideIndex?: number) => {
      const now = await act(session, action, slideIndex);
      expect(now.status).toBe('active');
      const slides: SseEvent[] = [];
      for (const feed of feeds) {
        const event = await feed.next('slide');
        expect(event.data.slide.id).toBe(slideId);
        expect(event.data.slideIndex).toBe(now.currentSlideIndex);
        expect(event.data).toMatchObject({ status: 'active', locked: false, resultsVisible: false });
        slides.push(event);
      }
      // One history event per action: every stream is sent the same id.
      expect(new Set(slides.map((s) => s.id)).size).toBe(1);
      const echoed = await presenter.waitFor((e) => e.type === 'session' && e.id === slides[0]?.id);
      expect(echoed.data).toMatchObject({ currentSlideIndex: now.currentSlideIndex, status: 'active' });
      return slides;
    };

    // ---- Multiple choice ------------------------------------------------------------------------
    const started = await move('start', 'lunch');
    expect(started[0]?.data.slideStartedAt).toEqual(expect.any(String));
    const vote = await answered(session.pin, alice, { slideId: 'lunch', optionIds: ['pizza'] });
    expect(vote.id).toMatch(/^vote_/);
    expect(vote.sessionId).toBe(session.id);
    await answered(session.pin, bob, { slideId: 'lunch', optionIds: ['pizza'] });
    await answered(session.pin, carol, { slideId: 'lunch', optionIds: ['sushi'] });
    const counted = await presenter.waitFor((e) => e.type === 'counts' && e.data.answerCount === 3);
    expect(counted.data).toMatchObject({ slideId: 'lunch', participantCount: 3 });
    expect(counted.data.results.options.map((o: Json) => [o.id, o.count])).toEqual([
      ['pizza', 2],
      ['sushi', 1],
    ]);

    await act(session, 'showResults');
    for (const feed of feeds) {
      const shown = await feed.next('results');
      expect(shown.data.slideId).toBe('lunch');
      expect(shown.data.leaderboard).toBeNull();
      expect(shown.data.results.options.map((o: Json) => o.count)).toEqual([2, 1]);
    }
    expect((await presenter.next('results')).data.slideId).toBe('lunch');
    await act(session, 'hideResults');
    for (const feed of feeds) expect((await feed.next('results_hidden')).data).toEqual({ slideId: 'lunch' });

    // ---- Quiz: no correct answer reaches a participant before the results ------------------------
    const quiz = await move('next', 'capital');
    expect(quiz[0]?.data.slide).toMatchObject({ kind: 'quiz', points: 500, speedBonus: true });
    expect(quiz[0]?.data.slide).not.toHaveProperty('correctOptionIds');
    await answered(session.pin, alice, { slideId: 'capital', optionIds: ['paris'] });
    await answered(session.pin, bob, { slideId: 'capital', optionIds: ['paris'] });

    await act(session, 'lock');
    for (const feed of feeds) expect((await feed.next('locked')).data).toEqual({ slideId: 'capital' });
    expectError(
      await answer(session.pin, carol.token, { slideId: 'capital', optionIds: ['lyon'] }),
      409,
      'slide_locked',
    );
    await act(session, 'unlock');
    for (const feed of feeds) expect((await feed.next('unlocked')).data).toEqual({ slideId: 'capital' });
    await answered(session.pin, carol, { slideId: 'capital', optionIds: ['lyon'] });

    // Resuming on the quiz: the state is the participant's own, and still hides the answer.
    const resumed = await join(session.pin, {}, alice.token);
    expect(resumed.status, resumed.text).toBe(200);
    expect(resumed.body.state).toMatchObject({ answered: true, slideIndex: 1 });
    expect(resumed.body.state.slide).not.toHaveProperty('correctOptionIds');
    expect(resumed.text).not.toContain('correctOptionIds');
    for (const feed of feeds) {
      expect(feed.raw()).toContain('"capital"');
      expect(feed.raw()).not.toContain('correctOptionIds');
    }

    await act(session, 'showResults');
    const boards: Json[] = [];
    for (const [index, feed] of feeds.entries()) {
      const shown = await feed.next('results');
      expect(shown.data.slideId).toBe('capital');
      expect(shown.data.results).toMatchObject({ kind: 'quiz', totalAnswers: 3, correctAnswers: 2 });
      expect(shown.data.results.options.map((o: Json) => [o.id, o.correct, o.count])).toEqual([
        ['paris', true, 2],
        ['lyon', false, 1],
      ]);
      const board = shown.data.leaderboard;
      expect(board.top.map((e: Json) => e.participantId)).toEqual([alice.id, bob.id, carol.id]);
      expect(board.you.participantId).toBe(people[index]?.id);
      expect(board.you).toEqual(board.top[index]);
      boards.push(board);
    }
    const quizTop: Json[] = boards[0]?.top ?? [];
    const [aliceEntry, bobEntry, carolEntry] = quizTop;
    // Correct and fast: between half the points (at the time limit) and all of them.
    for (const entry of [aliceEntry, bobEntry]) {
      expect(entry?.score).toBeGreaterThanOrEqual(250);
      expect(entry?.score).toBeLessThanOrEqual(500);
    }
    // Alice answered before Bob, so her bonus is at least his.
    expect(aliceEntry?.score).toBeGreaterThanOrEqual(bobEntry?.score);
    expect(carolEntry).toMatchObject({ name: 'Carol', score: 0, rank: 3 });
    expectRanked(quizTop);
    const presenterResults = await presenter.next('results');
    expect(presenterResults.data.leaderboard.you).toBeNull();
    expect(presenterResults.data.leaderboard.top).toEqual(quizTop);

    // ---- Scale with statements ---------------------------------------------------------------------
    await move('next', 'mood');
    expectError(await answer(session.pin, alice.token, { slideId: 'mood', scaleValue: 4 }), 422, 'validation_failed');
    expectError(
      await answer(session.pin, alice.token, { slideId: 'mood', scaleValues: { work: 9 } }),
      422,
      'validation_failed',
    );
    expectError(
      await answer(session.pin, alice.token, { slideId: 'mood', scaleValues: { home: 3 } }),
      422,
      'validation_failed',
    );
    await answered(session.pin, alice, { slideId: 'mood', scaleValues: { work: 4 } });
    await answered(session.pin, bob, { slideId: 'mood', scaleValues: { work: 2 } });
    await answered(session.pin, carol, { slideId: 'mood', scaleValues: { work: 5 } });

    // ---- Ranking -------------------------------------------------------------------------------------
    await move('next', 'rank');
    expectError(
      await answer(session.pin, alice.token, { slideId: 'rank', rankingOrder: ['a', 'b'] }),
      422,
      'validation_failed',
    );
    await answered(session.pin, alice, { slideId: 'rank', rankingOrder: ['a', 'b', 'c'] });
    await answered(session.pin, bob, { slideId: 'rank', rankingOrder: ['b', 'a', 'c'] });
    await answered(session.pin, carol, { slideId: 'rank', rankingOrder: ['a', 'c', 'b'] });

    // ---- Open-ended ----------------------------------------------------------------------------------
    await move('next', 'words');
    expectError(
      await answer(session.pin, alice.token, { slideId: 'words', text: 'x'.repeat(41) }),
      422,
      'validation_failed',
    );
    await answered(session.pin, alice, { slideId: 'words', text: 'pizza' });
    await answered(session.pin, bob, { slideId: 'words', text: 'tacos' });
    await answered(session.pin, carol, { slideId: 'words', text: 'pizza' });

    // ---- Moderated Q&A: a question needs approval before the audience can upvote it -------------------
    await move('next', 'ask');
    const asked = await answered(session.pin, alice, { slideId: 'ask', text: 'When is lunch?' });
    expect(asked.id).toMatch(/^rsp_/);
    // Q&A takes several questions from one participant.
    const second = await answered(session.pin, alice, { slideId: 'ask', text: 'Is there dessert?' });
    const upvote = (who: Joined, questionId: string) =>
      call('POST', `${t.api}/live/${session.pin}/questions/${questionId}/upvotes`, {
        headers: { 'x-participant-token': who.token },
      });
    expectError(await upvote(bob, asked.id), 404, 'not_found');
    const approved = await call('PATCH', `${t.api}/polls/${poll.id}/questions/${asked.id}`, {
      apiKey,
      body: { status: 'approved' },
    });
    expect(approved.status, approved.text).toBe(200);
    const upvoted = await upvote(bob, asked.id);
    expect(upvoted.status, upvoted.text).toBe(201);
    expect(upvoted.body).toMatchObject({ id: asked.id, upvotes: 1, status: 'approved' });
    expectError(await upvote(bob, asked.id), 409, 'already_upvoted');
    const board = await feeds[2]?.waitFor(
      (e) => e.type === 'questions' && e.data.questions.some((q: Json) => q.upvotes === 1),
    );
    // Only the approved question is on the audience's board.
    expect(board?.data.questions.map((q: Json) => [q.id, q.text, q.upvotes])).toEqual([
      [asked.id, 'When is lunch?', 1],
    ]);
    expect(JSON.stringify(board?.data)).not.toContain(second.id);

    // ---- Content, then back: a slide already answered says so -------------------------------------------
    await move('next', 'intro');
    await move('prev', 'ask');
    const back = await move('goto', 'lunch', 0);
    for (const event of back) expect(event.data.answered).toBe(true);
    expectError(
      await answer(session.pin, alice.token, { slideId: 'lunch', optionIds: ['sushi'] }),
      409,
      'already_responded',
    );

    // ---- The end: a summary for everyone, then the streams close -----------------------------------------
    const ended = await act(session, 'end');
    expect(ended).toMatchObject({ status: 'ended', endedAt: expect.any(String) });
    for (const [index, feed] of feeds.entries()) {
      const summary = await feed.next('ended');
      expect(summary.data).toMatchObject({ sessionId: session.id, participantCount: 3 });
      expect(summary.data.slides.map((s: Json) => s.slideId)).toEqual([
        'lunch',
        'capital',
        'mood',
        'rank',
        'words',
        'ask',
        'intro',
      ]);
      expect(summary.data.leaderboard.top).toEqual(quizTop);
      expect(summary.data.leaderboard.you.participantId).toBe(people[index]?.id);
      await feed.closed;
      expect(feed.ended).toBe(true);
      expect(feed.drain()).toEqual([]);
    }
    await presenter.waitFor((e) => e.type === 'session' && e.data.status === 'ended');
    const presenterSummary = await presenter.next('ended');
    expect(presenterSummary.data.leaderboard.you).toBeNull();
    await presenter.closed;

    // After the end: no more control (the host token only reads the session now; a workspace
    // credential is told the state); the PIN names no session any more (it is free for another).
    expectError(await control(session.id, 'next', { hostToken: session.hostToken }), 401, 'invalid_host_token');
    expectError(await control(session.id, 'next', { apiKey }), 409, 'invalid_session_state');
    expectError(await answer(session.pin, alice.token, { slideId: 'lunch', optionIds: ['pizza'] }), 404, 'not_found');
    expectError(await join(session.pin, { name: 'Late' }), 404, 'not_found');
    const after = await call('GET', `${t.api}/sessions/${session.id}`, { apiKey });
    expect(after.body).toMatchObject({ status: 'ended', participantCount: 3 });

    // ---- Everything answered live is in the poll's results and its CSV export ---------------------------
    const results = await pollResults(poll.id);
    expect(results.totalVoters).toBe(3);
    expect(slideResult(results, 'lunch').options.map((o: Json) => o.count)).toEqual([2, 1]);
    expect(slideResult(results, 'capital')).toMatchObject({ totalAnswers: 3, correctAnswers: 2 });
    const mood = slideResult(results, 'mood');
    expect(mood.statements[0]).toMatchObject({ id: 'work', totalAnswers: 3 });
    expect(mood.statements[0].average).toBeCloseTo(11 / 3, 2);
    const rank = slideResult(results, 'rank');
    expect(rank.totalAnswers).toBe(3);
    expect(rank.options.map((o: Json) => [o.id, o.averageRank])).toEqual([
      ['a', expect.closeTo(4 / 3, 2)],
      ['b', expect.closeTo(2, 2)],
      ['c', expect.closeTo(8 / 3, 2)],
    ]);
    const words = slideResult(results, 'words');
    expect(words.totalAnswers).toBe(3);
    expect(words.words).toEqual(expect.arrayContaining([{ word: 'pizza', count: 2 }]));
    expect(slideResult(results, 'ask')).toMatchObject({ totalQuestions: 2 });
    expect(slideResult(results, 'ask').questions.map((q: Json) => [q.id, q.upvotes])).toEqual([[asked.id, 1]]);
    // The end summary's slides are these results.
    expect(feeds[0]?.events.find((e) => e.type === 'ended')?.data.slides).toEqual(results.slides);

    const exported = await fetch(`${t.api}/polls/${poll.id}/export`, {
      headers: { authorization: `Bearer ${apiKey}` },
    });
    expect(exported.status).toBe(200);
    const rows = Papa.parse<string[]>((await exported.text()).trim(), { newline: '\r\n' }).data;
    const row = (slide: number, label: string) => rows.find((r) => r[0] === String(slide) && r[3] === label)?.[4];
    expect(row(1, 'Pizza')).toBe('2');
    expect(row(1, 'Sushi')).toBe('1');
    expect(row(2, 'Paris')).toBe('2');
    expect(row(2, 'Lyon')).toBe('1');
    expect(row(3, 'About work: Average')).toBe('3.67');
    expect(row(4, 'A')).toBe('1.33');
    expect(row(4, 'C')).toBe('2.67');
    expect(row(5, 'pizza')).toBe('2');
    expect(row(5, 'tacos')).toBe('1');
    expect(row(6, 'When is lunch?')).toBe('1');
    expect(row(6, 'Is there dessert?')).toBeUndefined();
  });
});

describe('sessions API', () => {
  it('creates a pending session with a PIN and a host token shown once, and gets it without the token', async () => {
    const poll = await publishedPoll();
    const created = await call('POST', `${t.api}/sessions`, { apiKey, body: { pollId: poll.id } });
    expect(created.status, created.text).toBe(201);
    pinsSeen.add(created.body.pin);
    expect(created.body).toMatchObject({
      pollId: poll.id,
      status: 'pending',
      currentSlideIndex: 0,
      slideCount: 7,
      resultsVisible: false,
      locked: false,
      participantCount: 0,
      startedAt: null,
      endedAt: null,
    });
    expect(created.body.id).toMatch(/^ses_/);
    expect(created.body.pin).toMatch(/^[0-9]{6}$/);
    expect(created.body.hostToken).toMatch(/^pht_/);
    expect(created.body.joinUrl).toBe(`https://join.example.test/${created.body.pin}`);

    const { hostToken, ...session } = created.body;
    const got = await call('GET', `${t.api}/sessions/${session.id}`, { apiKey });
    expect(got.status).toBe(200);
    expect(got.body).toEqual(session);
    expect(got.text).not.toContain(hostToken);
    const byHost = await call('GET', `${t.api}/sessions/${session.id}`, { headers: { 'x-host-token': hostToken } });
    expect(byHost.status, byHost.text).toBe(200);
    expect(byHost.body).toEqual(session);
    const listed = await call('GET', `${t.api}/sessions?pollId=${poll.id}`, { apiKey });
    expect(listed.body.data).toEqual([session]);
    expect(listed.text).not.toContain('hostToken');
  });

  it('refuses draft, closed and unknown polls', async () => {
    const draft = await call('POST', `${t.api}/polls`, { apiKey, body: { title: 'Draft', content: sampleContent() } });
    expect(draft.status).toBe(201);
    expectError(
      await call('POST', `${t.api}/sessions`, { apiKey, body: { pollId: draft.body.id } }),
      409,
      'poll_not_published',
    );

    const closed = await publishedPoll();
    const closing = await call('PATCH', `${t.api}/polls/${closed.id}`, { apiKey, body: { closed: true } });
    expect(closing.status, closing.text).toBe(200);
    expectError(await call('POST', `${t.api}/sessions`, { apiKey, body: { pollId: closed.id } }), 409, 'poll_closed');

    expectError(await call('POST', `${t.api}/sessions`, { apiKey, body: { pollId: newId('poll') } }), 404, 'not_found');
    // Another workspace's poll is unknown too.
    const other = await t.workspace('pro');
    const published = await publishedPoll();
    expectError(
      await call('POST', `${t.api}/sessions`, { apiKey: other.apiKey, body: { pollId: published.id } }),
      404,
      'not_found',
    );
    expectError(
      await call('POST', `${t.api}/sessions`, { apiKey, body: { pollId: published.id, pin: '123456' } }),
      422,
      'validation_failed',
    );
    expectError(await call('GET', `${t.api}/sessions/${newId('session')}`, { apiKey }), 404, 'not_found');
  });

  it('lists newest first with cursor pagination and the pollId and status filters', async () => {
    const own = await t.workspace('pro');
    const publish = pollPublisher(() => ({
      api: t.api,
      apiKey: own.apiKey,
      title: 'Listed',
      content: sampleContent(),
    }));
    const [pollA, pollB] = [await publish(), await publish()];
    const a1 = await newSession(pollA.id, own.apiKey);
    const a2 = await newSession(pollA.id, own.apiKey);
    const a3 = await newSession(pollA.id, own.apiKey);
    const b1 = await newSession(pollB.id, own.apiKey);
    expect((await control(a2.id, 'end', { apiKey: own.apiKey })).status).toBe(200);
    expect((await control(a3.id, 'start', { apiKey: own.apiKey })).status).toBe(200);

    const list = (query: string) => call('GET', `${t.api}/sessions${query}`, { apiKey: own.apiKey });
    const ids = (res: JsonResponse) => res.body.data.map((s: Json) => s.id);

    const page1 = await list('?limit=3');
    expect(page1.status, page1.text).toBe(200);
    expect(ids(page1)).toEqual([b1.id, a3.id, a2.id]);
    expect(page1.body.nextCursor).toEqual(expect.any(String));
    const page2 = await list(`?limit=3&cursor=${encodeURIComponent(page1.body.nextCursor)}`);
    expect(ids(page2)).toEqual([a1.id]);
    expect(page2.body.nextCursor).toBeNull();

    const ofA = await list(`?pollId=${pollA.id}&limit=2`);
    expect(ids(ofA)).toEqual([a3.id, a2.id]);
    const ofA2 = await list(`?pollId=${pollA.id}&limit=2&cursor=${encodeURIComponent(ofA.body.nextCursor)}`);
    expect(ids(ofA2)).toEqual([a1.id]);

    expect(ids(await list('?status=ended'))).toEqual([a2.id]);
    expect(ids(await list('?status=active'))).toEqual([a3.id]);
    expect(ids(await list('?status=pending'))).toEqual([b1.id, a1.id]);
    expect(ids(await list(`?status=pending&pollId=${pollA.id}`))).toEqual([a1.id]);
    const [active] = (await list('?status=active')).body.data;
    expect(active).toMatchObject({ status: 'active', startedAt: expect.any(String), slideCount: 7 });

    expectError(await list('?status=paused'), 422, 'validation_failed');
    // The file's own workspace sees none of these.
    const mine = await call('GET', `${t.api}/sessions?pollId=${pollA.id}`, { apiKey });
    expect(mine.body.data).toEqual([]);
  });

  it('gives each open session its own six-digit PIN; the database refuses a second open session on a PIN', async () => {
    const poll = await publishedPoll();
    const created = await Promise.all(Array.from({ length: 25 }, () => newSession(poll.id)));
    const pins = created.map((s) => s.pin);
    for (const pin of pins) expect(pin).toMatch(/^[0-9]{6}$/);
    expect(new Set(pins).size).toBe(pins.length);

    // What makes the PIN unique is a partial unique index over sessions that have not ended.
    const [taken] = created as [CreatedSession];
    const row = (pin: string) => ({
      id: newId('session'),
      workspace_id: workspaceId,
      poll_id: poll.id,
      pin,
      host_token_hash: 'x'.repeat(64),
      max_participants: 100,
    });
    const refused = await insertSession(t.server.deps.db, row(taken.pin)).then(
      () => undefined,
      (error: { code?: string }) => error,
    );
    expect(refused?.code).toBe('23505');
    // Once that session ends, its PIN may be given out again.
    expect((await control(taken.id, 'end', { apiKey })).status).toBe(200);
    const reused = await insertSession(t.server.deps.db, row(taken.pin));
    expect(reused.pin).toBe(taken.pin);
    const joinedReused = await joined(taken.pin, 'Second session');
    expect(joinedReused.state.sessionId).toBe(reused.id);
  });

  it('serves the join URL as a QR code', async () => {
    const { session } = await pollAndSession();
    const res = await fetch(`${t.api}/sessions/${session.id}/qr.svg`, {
      headers: { 'x-host-token': session.hostToken },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^image\/svg\+xml/);
    const svg = await res.text();
    expect(svg.startsWith('<svg')).toBe(true);
    expect(svg).toContain('</svg>');
    const byKey = await fetch(`${t.api}/sessions/${session.id}/qr.svg`, {
      headers: { authorization: `Bearer ${apiKey}` },
    });
    expect(await byKey.text()).toBe(svg);
    expectError(await call('GET', `${t.api}/sessions/${session.id}/qr.svg`), 401, 'missing_authorization');
  });
});

describe('control', () => {
  it('follows the state machine: pending, active, ended', async () => {
    const { session } = await pollAndSession();
    for (const action of ['next', 'prev', 'showResults', 'hideResults', 'lock', 'unlock']) {
      expectError(await control(session.id, action, { hostToken: session.hostToken }), 409, 'invalid_session_state');
    }
    expectError(
      await control(session.id, 'goto', { hostToken: session.hostToken, slideIndex: 1 }),
      409,
      'invalid_session_state',
    );

    const started = await act(session, 'start');
    expect(started).toMatchObject({ status: 'active', currentSlideIndex: 0, startedAt: expect.any(String) });
    expectError(await control(session.id, 'start', { hostToken: session.hostToken }), 409, 'invalid_session_state');

    expect(await act(session, 'next')).toMatchObject({ currentSlideIndex: 1 });
    expect(await act(session, 'prev')).toMatchObject({ currentSlideIndex: 0 });
    expect(await act(session, 'goto', 4)).toMatchObject({ currentSlideIndex: 4 });
    expect(await act(session, 'showResults')).toMatchObject({ resultsVisible: true, currentSlideIndex: 4 });
    expect(await act(session, 'hideResults')).toMatchObject({ resultsVisible: false });
    expect(await act(session, 'lock')).toMatchObject({ locked: true });
    expect(await act(session, 'unlock')).toMatchObject({ locked: false });
    // Moving shows the next slide unlocked with its results hidden.
    await act(session, 'lock');
    await act(session, 'showResults');
    expect(await act(session, 'next')).toMatchObject({ currentSlideIndex: 5, locked: false, resultsVisible: false });

    const ended = await act(session, 'end');
    expect(ended).toMatchObject({ status: 'ended', endedAt: expect.any(String), currentSlideIndex: 5 });
    for (const action of ['start', 'next', 'prev', 'showResults', 'lock', 'end']) {
      const res = await control(session.id, action, { apiKey });
      expectError(res, 409, 'invalid_session_state');
      expect(res.body.error.message).toMatch(/ended/);
    }
  });

  it('ends a pending session', async () => {
    const { session } = await pollAndSession();
    expect(await act(session, 'end')).toMatchObject({ status: 'ended', startedAt: null });
  });

  it('answers 422 naming the bound when a move leaves the deck', async () => {
    const { session } = await pollAndSession();
    await act(session, 'start');
    const before = await control(session.id, 'prev', { hostToken: session.hostToken });
    expectError(before, 422, 'validation_failed');
    expect(before.body.error.message).toMatch(/first slide \(index 0\)/);
    expect(before.body.error.details.fieldErrors.action).toEqual([before.body.error.message]);

    const outside = await control(session.id, 'goto', { hostToken: session.hostToken, slideIndex: 7 });
    expectError(outside, 422, 'validation_failed');
    expect(outside.body.error.message).toMatch(/between 0 and 6/);
    expect(outside.body.error.details.fieldErrors.slideIndex).toBeDefined();
    expectError(
      await control(session.id, 'goto', { hostToken: session.hostToken, slideIndex: -1 }),
      422,
      'validation_failed',
    );
    expectError(await control(session.id, 'goto', { hostToken: session.hostToken }), 422, 'validation_failed');
    expectError(
      await control(session.id, 'next', { hostToken: session.hostToken, slideIndex: 2 }),
      422,
      'validation_failed',
    );
    expectError(await control(session.id, 'pause', { hostToken: session.hostToken }), 422, 'validation_failed');

    await act(session, 'goto', 6);
    const past = await control(session.id, 'next', { hostToken: session.hostToken });
    expectError(past, 422, 'validation_failed');
    expect(past.body.error.message).toMatch(/last slide \(index 6\)/);
    // Refused moves change nothing.
    const now = await call('GET', `${t.api}/sessions/${session.id}`, { apiKey });
    expect(now.body).toMatchObject({ status: 'active', currentSlideIndex: 6 });
  });

  it('takes a workspace credential or this session’s host token, and nothing else', async () => {
    const { session } = await pollAndSession();
    const other = await newSession((await publishedPoll()).id);
    // The host token alone (no API key) is enough.
    expect((await control(session.id, 'start', { hostToken: session.hostToken })).status).toBe(200);
    expect((await control(session.id, 'next', { apiKey })).status).toBe(200);

    expectError(await control(session.id, 'next'), 401, 'missing_authorization');
    expectError(await control(session.id, 'next', { hostToken: 'pht_not-a-token' }), 401, 'invalid_host_token');
    expectError(await control(session.id, 'next', { hostToken: other.hostToken }), 401, 'invalid_host_token');
    expectError(await control(other.id, 'start', { hostToken: session.hostToken }), 401, 'invalid_host_token');
    expectError(
      await call('GET', `${t.api}/sessions/${session.id}`, { headers: { 'x-host-token': other.hostToken } }),
      401,
      'invalid_host_token',
    );
    const presenter = await openSse(`${t.api}/sessions/${session.id}/events`, { 'x-host-token': other.hostToken });
    expect(presenter.status).toBe(401);
    expect(presenter.error.error.code).toBe('invalid_host_token');
    // Another workspace's key does not see the session at all.
    const stranger = await t.workspace('pro');
    expectError(await control(session.id, 'next', { apiKey: stranger.apiKey }), 404, 'not_found');
    expectError(await control(session.id, 'next', { apiKey: 'pk_live_nonsense' }), 401, 'invalid_api_key');

    const now = await call('GET', `${t.api}/sessions/${session.id}`, { apiKey });
    expect(now.body.currentSlideIndex).toBe(1);
    expect((await call('GET', `${t.api}/sessions/${other.id}`, { apiKey })).body.status).toBe('pending');
  });

  it('needs the sessions:write scope of an OAuth token', async () => {
    const client = await oauthClient(t, 'polls:read polls:write sessions:read sessions:write');
    const publish = pollPublisher(() => ({
      api: t.api,
      apiKey: client.apiKey,
      title: 'OAuth',
      content: sampleContent(),
    }));
    const poll = await publish();
    const readOnly = (await issuedToken(t, client, 'sessions:read')).access_token;
    const writer = (await issuedToken(t, client, 'sessions:read sessions:write')).access_token;

    const denied = await call('POST', `${t.api}/sessions`, { apiKey: readOnly, body: { pollId: poll.id } });
    expectError(denied, 403, 'insufficient_scope');
    const created = await call('POST', `${t.api}/sessions`, { apiKey: writer, body: { pollId: poll.id } });
    expect(created.status, created.text).toBe(201);
    pinsSeen.add(created.body.pin);
    const id = created.body.id;
    expectError(await control(id, 'start', { apiKey: readOnly }), 403, 'insufficient_scope');
    expect((await call('GET', `${t.api}/sessions/${id}`, { apiKey: readOnly })).status).toBe(200);
    expect((await control(id, 'start', { apiKey: writer })).status).toBe(200);
  });
});

describe('participants', () => {
  it('join by PIN without an API key; an unknown PIN is 404', async () => {
    const { session } = await pollAndSession();
    const res = await join(session.pin, { name: '  Dana  ' });
    expect(res.status, res.text).toBe(200);
    expect(res.body.participant).toMatchObject({ id: expect.stringMatching(/^prt_/), name: 'Dana', score: 0 });
    expect(res.body.participantToken).toMatch(/^ptk_/);
    expect(res.body.resumed).toBe(false);
    expect(res.body.state).toMatchObject({
      sessionId: session.id,
      status: 'pending',
      slideIndex: 0,
      slideCount: 7,
      slide: null,
      locked: false,
      resultsVisible: false,
      slideStartedAt: null,
      answered: false,
    });
    const anonymous = await join(session.pin);
    expect(anonymous.status).toBe(200);
    expect(anonymous.body.participant.name).toBeNull();

    expectError(await join(unusedPin(), { name: 'Lost' }), 404, 'not_found');
    expectError(await join('12345', { name: 'Short' }), 404, 'not_found');
    const events = await openSse(`${t.api}/live/${unusedPin()}/events`);
    expect(events.status).toBe(404);
    expectError(await join(session.pin, { name: 'x'.repeat(41) }), 422, 'validation_failed');
    expect((await call('GET', `${t.api}/sessions/${session.id}`, { apiKey })).body.participantCount).toBe(2);
  });

  it('resumes a participant with its token: same id, name and score, answered state, no new participant', async () => {
    const deck = sampleContent();
    const { session } = await pollAndSession(deck);
    const erin = await joined(session.pin, 'Erin');
    const fay = await joined(session.pin, 'Fay');
    await act(session, 'start');
    await act(session, 'next');
    await answered(session.pin, erin, { slideId: 'capital', optionIds: ['paris'] });

    const back = await join(session.pin, { name: 'Someone else' }, erin.token);
    expect(back.status, back.text).toBe(200);
    expect(back.body.resumed).toBe(true);
    expect(back.body.participantToken).toBe(erin.token);
    expect(back.body.participant).toMatchObject({ id: erin.id, name: 'Erin' });
    // The quiz on screen keeps its points to itself until its results are shown (a score that
    // moved would say the answer was right): then the rejoin tells the whole score.
    expect(back.body.participant.score).toBe(0);
    expect(back.body.state).toMatchObject({ status: 'active', slideIndex: 1, answered: true });
    expect(back.body.state.slide.id).toBe('capital');
    await act(session, 'showResults');
    const shown = await join(session.pin, {}, erin.token);
    expect(shown.body.participant.score).toBeGreaterThanOrEqual(250);
    expect(shown.body.participant.score).toBeLessThanOrEqual(500);

    const other = await join(session.pin, {}, fay.token);
    expect(other.body).toMatchObject({ resumed: true, participant: { id: fay.id, score: 0 } });
    expect(other.body.state.answered).toBe(false);

    // A token of another session is no resume: that caller joins this one anew.
    const elsewhere = await pollAndSession();
    const stranger = await joined(elsewhere.session.pin, 'Gil');
    const fresh = await join(session.pin, { name: 'Gil' }, stranger.token);
    expect(fresh.status).toBe(200);
    expect(fresh.body.resumed).toBe(false);
    expect(fresh.body.participant.id).not.toBe(stranger.id);

    const now = await call('GET', `${t.api}/sessions/${session.id}`, { apiKey });
    expect(now.body.participantCount).toBe(3);
    // Erin's stream, opened with the token after answering, knows she answered.
    const stream = await participantStream(session.pin, erin.token);
    expect((await stream.next('slide')).data).toMatchObject({ answered: true, slideIndex: 1 });
    const viewer = await participantStream(session.pin);
    expect((await viewer.next('slide')).data).toMatchObject({ answered: false, slideIndex: 1 });
  });

  it('refuses answers that do not apply, with the reason', async () => {
    const { session } = await pollAndSession();
    const hal = await joined(session.pin, 'Hal');
    const lunch = { slideId: 'lunch', optionIds: ['pizza'] };
    expectError(await answer(session.pin, hal.token, lunch), 409, 'session_not_active');
    await act(session, 'start');

    expectError(await answer(session.pin, undefined, lunch), 401, 'missing_authorization');
    expectError(await answer(session.pin, 'ptk_unknown', lunch), 401, 'invalid_participant_token');
    expectError(await answer(session.pin, 'not-even-a-token', lunch), 401, 'invalid_participant_token');
    const elsewhere = await pollAndSession();
    const stranger = await joined(elsewhere.session.pin, 'Ivy');
    expectError(await answer(session.pin, stranger.token, lunch), 401, 'invalid_participant_token');

    const notNow = await answer(session.pin, hal.token, { slideId: 'capital', optionIds: ['paris'] });
    expectError(notNow, 409, 'slide_not_active');
    expect(notNow.body.error.details).toEqual({ currentSlideId: 'lunch' });
    expectError(
      await answer(session.pin, hal.token, { slideId: 'nope', optionIds: ['pizza'] }),
      409,
      'slide_not_active',
    );

    // The wrong shape for the slide, or no answer field at all, or two.
    expectError(await answer(session.pin, hal.token, { slideId: 'lunch', text: 'pizza' }), 422, 'validation_failed');
    expectError(
      await answer(session.pin, hal.token, { slideId: 'lunch', optionIds: ['tacos'] }),
      422,
      'validation_failed',
    );
    expectError(
      await answer(session.pin, hal.token, { slideId: 'lunch', optionIds: ['pizza', 'sushi'] }),
      422,
      'validation_failed',
    );
    expectError(await answer(session.pin, hal.token, { slideId: 'lunch' }), 422, 'validation_failed');
    expectError(
      await answer(session.pin, hal.token, { slideId: 'lunch', optionIds: ['pizza'], text: 'pizza' }),
      422,
      'validation_failed',
    );

    await act(session, 'lock');
    expectError(await answer(session.pin, hal.token, lunch), 409, 'slide_locked');
    await act(session, 'unlock');
    expect((await answer(session.pin, hal.token, lunch)).status).toBe(201);
    expectError(
      await answer(session.pin, hal.token, { slideId: 'lunch', optionIds: ['sushi'] }),
      409,
      'already_responded',
    );

    await act(session, 'end');
    // Once ended the PIN names no session: the answer meets the PIN gate's 404 before any session check.
    expectError(await answer(session.pin, hal.token, lunch), 404, 'not_found');
  });

  it('times quiz answers from the moment the slide went live, and scores only correct ones', async () => {
    const quick: SlideInput = {
      id: 'quick',
      kind: 'quiz',
      text: '2 + 2?',
      options: [
        { id: 'four', label: '4' },
        { id: 'five', label: '5' },
      ],
      correctOptionIds: ['four'],
      timeLimitSec: 5,
      points: 1000,
      speedBonus: true,
    };
    const { poll, session } = await pollAndSession({ questions: [quick] });
    const [jo, kim, lee] = [
      await joined(session.pin, 'Jo'),
      await joined(session.pin, 'Kim'),
      await joined(session.pin, 'Lee'),
    ];
    await act(session, 'start');
    await answered(session.pin, jo, { slideId: 'quick', optionIds: ['four'] });
    await answered(session.pin, kim, { slideId: 'quick', optionIds: ['five'] });

    // Past the five seconds (measured by the server from slideStartedAt, on the clock it was given).
    clock.advance(5500);
    const late = await answer(session.pin, lee.token, { slideId: 'quick', optionIds: ['four'] });
    expectError(late, 409, 'time_up');
    expect(late.body.error.details).toEqual({ timeLimitSec: 5 });

    const stream = await participantStream(session.pin, lee.token);
    await stream.next('slide');
    await act(session, 'showResults');
    const shown = await stream.next('results');
    const top = shown.data.leaderboard.top as Json[];
    expect(top.map((e) => e.name)).toEqual(['Jo', 'Kim', 'Lee']);
    expect(top[0]?.score).toBeGreaterThanOrEqual(500);
    expect(top[0]?.score).toBeLessThanOrEqual(1000);
    expect(top.slice(1).map((e) => [e.score, e.rank])).toEqual([
      [0, 2],
      [0, 2],
    ]);
    expect(shown.data.leaderboard.you).toMatchObject({ participantId: lee.id, rank: 2, score: 0 });
    expect(slideResult(await pollResults(poll.id), 'quick')).toMatchObject({ totalAnswers: 2, correctAnswers: 1 });
  });

  it('stores an answer once for one Idempotency-Key and replays the first answer', async () => {
    const { poll, session } = await pollAndSession();
    const max = await joined(session.pin, 'Max');
    const ned = await joined(session.pin, 'Ned');
    await act(session, 'start');
    const body = { slideId: 'lunch', optionIds: ['sushi'] };
    const first = await answer(session.pin, max.token, body, { 'idempotency-key': 'lunch-answer-1' });
    expect(first.status, first.text).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const again = await answer(session.pin, max.token, body, { 'idempotency-key': 'lunch-answer-1' });
    expect(again.status, again.text).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    // The key is Max's: Ned's answer with the same key is his own.
    const ned1 = await answer(session.pin, ned.token, body, { 'idempotency-key': 'lunch-answer-1' });
    expect(ned1.status, ned1.text).toBe(201);
    expect(ned1.headers.get('idempotent-replayed')).toBeNull();
    expect(ned1.body.participantId).toBe(ned.id);
    // Without the key, a second answer is what it is.
    expectError(await answer(session.pin, max.token, body), 409, 'already_responded');

    const lunch = slideResult(await pollResults(poll.id), 'lunch');
    expect(lunch.totalAnswers).toBe(2);
    expect(lunch.options.map((o: Json) => o.count)).toEqual([0, 2]);
  });
});

describe('streams', () => {
  it('replays exactly the history missed since Last-Event-ID, then goes on live', async () => {
    const { session } = await pollAndSession();
    const oz = await joined(session.pin, 'Oz');
    await act(session, 'start');
    const first = await participantStream(session.pin, oz.token);
    const connected = await first.next('slide');
    expect(connected.data.slide.id).toBe('lunch');
    await act(session, 'next');
    const seen = await first.next('slide');
    expect(seen.data.slide.id).toBe('capital');
    const n = Number(seen.id);
    expect(Number.isInteger(n)).toBe(true);
    expect(first.lastEventId).toBe(seen.id);
    first.close();
    await first.closed;

    // Missed while away: three actions.
    await act(session, 'next');
    await act(session, 'lock');
    await act(session, 'showResults');

    const again = await participantStream(session.pin, oz.token, String(n));
    expect(again.status).toBe(200);
    const replayed = [await again.next(), await again.next(), await again.next()];
    expect(replayed.map((e) => [e.type, e.id])).toEqual([
      ['slide', String(n + 1)],
      ['locked', String(n + 2)],
      ['results', String(n + 3)],
    ]);
    expect(replayed[0]?.data.slide.id).toBe('mood');
    expect(replayed[1]?.data).toEqual({ slideId: 'mood' });
    expect(replayed[2]?.data.slideId).toBe('mood');
    // Then live.
    await act(session, 'unlock');
    const live = await again.next();
    expect([live.type, live.id, live.data]).toEqual(['unlocked', String(n + 4), { slideId: 'mood' }]);
    expect(again.drain()).toEqual([]);

    // Without Last-Event-ID: the state as it is now, carrying the latest id.
    const fresh = await participantStream(session.pin, oz.token);
    const now = await fresh.next('slide');
    expect(now.id).toBe(String(n + 4));
    expect(now.data).toMatchObject({ slideIndex: 2, locked: false, resultsVisible: true });
    expect((await fresh.next('results')).data.slideId).toBe('mood');

    // An id from the future is no resume point: the stream starts from the state as it is.
    const future = await participantStream(session.pin, oz.token, String(n + 100));
    expect((await future.next()).type).toBe('slide');
  });

  it('refuses a stream with a token of nobody, and serves one without a token', async () => {
    const { session } = await pollAndSession();
    const refused = await openSse(`${t.api}/live/${session.pin}/events`, { 'x-participant-token': 'ptk_nobody' });
    expect(refused.status).toBe(401);
    expect(refused.error.error.code).toBe('invalid_participant_token');
    const viewer = await participantStream(session.pin);
    expect(viewer.status).toBe(200);
    expect((await viewer.next()).type).toBe('slide');
  });

  it('sends the presenter the session on connect and counts of answers and participants', async () => {
    const { session } = await pollAndSession();
    const presenter = await presenterStream(session);
    const connected = await presenter.next();
    expect(connected.type).toBe('session');
    expect(connected.data).toMatchObject({ id: session.id, status: 'pending' });
    expect(connected.data).not.toHaveProperty('hostToken');
    const pat = await joined(session.pin, 'Pat');
    const quinn = await joined(session.pin, 'Quinn');
    const joinedCounts = await presenter.waitFor((e) => e.type === 'counts' && e.data.participantCount === 2);
    expect(joinedCounts.data).toMatchObject({ slideId: null, answerCount: 0 });

    await act(session, 'start');
    await presenter.waitFor((e) => e.type === 'session' && e.data.status === 'active');
    await answered(session.pin, pat, { slideId: 'lunch', optionIds: ['pizza'] });
    await answered(session.pin, quinn, { slideId: 'lunch', optionIds: ['pizza'] });
    const counts = await presenter.waitFor((e) => e.type === 'counts' && e.data.answerCount === 2);
    expect(counts.data).toMatchObject({ slideId: 'lunch', participantCount: 2 });
    expect(counts.data.results).toMatchObject({ kind: 'multiple_choice', totalAnswers: 2 });

    // Every control action is a `session` event, counts start again for the new slide.
    await act(session, 'next');
    const onQuiz = await presenter.waitFor((e) => e.type === 'session' && e.data.currentSlideIndex === 1);
    expect(onQuiz.data).toMatchObject({ slideCount: 7, participantCount: 2 });
    await answered(session.pin, pat, { slideId: 'capital', optionIds: ['lyon'] });
    const quizCounts = await presenter.waitFor(
      (e) => e.type === 'counts' && e.data.slideId === 'capital' && e.data.answerCount === 1,
    );
    expect(quizCounts.data.results).toMatchObject({ kind: 'quiz', totalAnswers: 1, correctAnswers: 0 });
  });
});

describe('PIN enumeration', () => {
  let limited: TestServer;
  beforeAll(async () => {
    limited = await startTestServer({
      RATE_LIMIT_PER_MINUTE: '1000000',
      LIVE_RATE_LIMIT_PER_IP_PER_MINUTE: '1000000',
      LIVE_PIN_MISSES_PER_IP_PER_MINUTE: '3',
    });
  });
  afterAll(() => limited?.close());

  it('answers 429 to every PIN, valid ones too, from an address past the limit of misses', async () => {
    const { apiKey: key } = await limited.workspace('pro');
    const poll = await pollPublisher(() => ({
      api: limited.api,
      apiKey: key,
      title: 'PINs',
      content: sampleContent(),
    }))();
    const created = await call('POST', `${limited.api}/sessions`, { apiKey: key, body: { pollId: poll.id } });
    expect(created.status).toBe(201);
    const pin: string = created.body.pin;
    const wrongPin = pin === '000000' ? '000001' : '000000';
    const port = new URL(limited.url).port;

    // A loopback address of its own, so no other test's misses (on a shared Redis) count against it;
    // a second try with a new address if the four misses straddle the minute's boundary.
    let statuses: number[] = [];
    let address = '';
    for (let attempt = 0; attempt < 2; attempt++) {
      address = randomLoopback();
      const minute = Math.floor(Date.now() / 60_000);
      expect((await postFrom(address, port, `/api/v1/live/${pin}/join`, { name: 'Real' })).status).toBe(200);
      statuses = [];
      for (let i = 0; i < 4; i++) {
        statuses.push((await postFrom(address, port, `/api/v1/live/${wrongPin}/join`, {})).status);
      }
      if (Math.floor(Date.now() / 60_000) === minute) break;
    }
    expect(statuses).toEqual([404, 404, 404, 429]);
    const blocked = await postFrom(address, port, `/api/v1/live/${pin}/join`, { name: 'Real' });
    expect(blocked.status).toBe(429);
    expect(blocked.body.error.code).toBe('rate_limited');
    expect(blocked.body.error.details.limit).toBe(3);
    // Another address is not affected.
    expect((await postFrom(randomLoopback(), port, `/api/v1/live/${pin}/join`, { name: 'Other' })).status).toBe(200);
  });
});

describe('after the end', () => {
  it('a stream that missed the end gets it; one that saw it all gets 204, the SSE signal to stop', async () => {
    const { session } = await pollAndSession();
    const ada = await joined(session.pin, 'Ada');
    await act(session, 'start');
    await act(session, 'lock');
    await act(session, 'end');
    const last = '3';

    // A participant stream reconnecting from before the lock: the history it missed, `ended` last.
    const missed = await openSse(`${t.api}/live/${session.pin}/events`, {
      'x-participant-token': ada.token,
      'last-event-id': '1',
    });
    streams.push(missed);
    expect(missed.status).toBe(200);
    expect((await missed.next()).type).toBe('locked');
    const ended = await missed.next();
    expect(ended).toMatchObject({ type: 'ended', id: last, data: { sessionId: session.id } });
    await missed.closed;

    // A late viewer without Last-Event-ID is sent the summary, then the stream closes.
    const late = await openSse(`${t.api}/live/${session.pin}/events`);
    streams.push(late);
    expect((await late.next()).type).toBe('ended');
    await late.closed;

    // Everything seen: 204 for the participant and for the presenter, no body.
    for (const [url, headers] of [
      [`${t.api}/live/${session.pin}/events`, { 'x-participant-token': ada.token }],
      [`${t.api}/sessions/${session.id}/events`, { 'x-host-token': session.hostToken }],
    ] as const) {
      const res = await fetch(url, { headers: { ...headers, 'last-event-id': last } });
      expect(res.status, url).toBe(204);
      expect(await res.text()).toBe('');
    }

    // Other participant routes: the PIN names no open session.
    expectError(await join(session.pin, { name: 'Too late' }), 404, 'not_found');
  });
});
