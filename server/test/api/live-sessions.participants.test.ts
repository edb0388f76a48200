import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../support/assertions.js';
import { ManualClock } from '../support/clock.js';
import { postFrom, randomLoopback } from '../support/from-address.js';
import { type Json, liveSessionsApi, slideResult, startLiveSessionsServer } from '../support/live-sessions.js';
import { pollPublisher, type SlideInput, sampleContent } from '../support/polls.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { openSse } from '../support/sse.js';
import { expectOk, expectStatus, testClient } from '../support/test-client.js';

/**
 * Participants of a live session over real HTTP: joining by PIN without an API key, resuming with a
 * token, answers refused with the reason, quiz timing and scoring, idempotent answers, and the
 * per-address limit of PIN misses.
 * Runs on PGlite, and on PostgreSQL + Redis with TEST_DATABASE_URL and TEST_REDIS_URL.
 */

let t: TestServer;
let apiKey: string;
const api = testClient(() => t.api);
/** The server times quiz answers by this clock: it moves only when a test advances it. */
const clock = new ManualClock();

beforeAll(async () => {
  ({ t, apiKey } = await startLiveSessionsServer(clock));
});
afterAll(() => t?.close());

const { closeStreams, pollAndSession, act, join, joined, answer, answered, participantStream, pollResults, unusedPin } =
  liveSessionsApi(() => ({ t, apiKey }));
afterEach(closeStreams);

describe('participants', () => {
  it('join by PIN without an API key; an unknown PIN is 404', async () => {
    const { session } = await pollAndSession();
    const res = await join(session.pin, { name: '  Dana  ' });
    expectStatus(res, 200);
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
    expectStatus(anonymous, 200);
    expect(anonymous.body.participant.name).toBeNull();

    expectError(await join(unusedPin(), { name: 'Lost' }), 404, 'not_found');
    expectError(await join('12345', { name: 'Short' }), 404, 'not_found');
    const events = await openSse(`${t.api}/live/${unusedPin()}/events`);
    expect(events.status).toBe(404);
    expectError(await join(session.pin, { name: 'x'.repeat(41) }), 422, 'validation_failed');
    expect(
      expectOk(await api.request('GET /sessions/{id}', { params: { id: session.id }, apiKey })).participantCount,
    ).toBe(2);
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
    expectStatus(back, 200);
    expect(back.body.resumed).toBe(true);
    expect(back.body.participantToken).toBe(erin.token);
    expect(back.body.participant).toMatchObject({ id: erin.id, name: 'Erin' });
    // The quiz on screen keeps its points to itself until its results are shown (a score that
    // moved would say the answer was right): then the rejoin tells the whole score.
    expect(back.body.participant.score).toBe(0);
    expect(back.body.state).toMatchObject({ status: 'active', slideIndex: 1, answered: true });
    expect(back.body.state.slide?.id).toBe('capital');
    await act(session, 'showResults');
    const shown = expectOk(await join(session.pin, {}, erin.token));
    expect(shown.participant.score).toBeGreaterThanOrEqual(250);
    expect(shown.participant.score).toBeLessThanOrEqual(500);

    const other = await join(session.pin, {}, fay.token);
    expect(other.body).toMatchObject({ resumed: true, participant: { id: fay.id, score: 0 } });
    expect(expectOk(other).state.answered).toBe(false);

    // A token of another session is no resume: that caller joins this one anew.
    const elsewhere = await pollAndSession();
    const stranger = await joined(elsewhere.session.pin, 'Gil');
    const fresh = await join(session.pin, { name: 'Gil' }, stranger.token);
    expectStatus(fresh, 200);
    expect(fresh.body.resumed).toBe(false);
    expect(fresh.body.participant.id).not.toBe(stranger.id);

    const now = await api.request('GET /sessions/{id}', { params: { id: session.id }, apiKey });
    expect(expectOk(now).participantCount).toBe(3);
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
    expectStatus(ned1, 201);
    expect(ned1.headers.get('idempotent-replayed')).toBeNull();
    expect(ned1.body.participantId).toBe(ned.id);
    // Without the key, a second answer is what it is.
    expectError(await answer(session.pin, max.token, body), 409, 'already_responded');

    const lunch = slideResult(await pollResults(poll.id), 'lunch');
    expect(lunch.totalAnswers).toBe(2);
    expect(lunch.options.map((o: Json) => o.count)).toEqual([0, 2]);
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
    const created = await testClient(limited.api).request('POST /sessions', { apiKey: key, body: { pollId: poll.id } });
    expectStatus(created, 201);
    // A presenter-paced session has a PIN.
    const pin = created.body.pin as string;
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
