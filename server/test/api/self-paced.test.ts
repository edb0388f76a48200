import type { Branching } from '@pollkit/contracts';
import Papa from 'papaparse';
import { renderSVG } from 'uqr';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../support/assertions.js';
import { ManualClock } from '../support/clock.js';
import { type ContentInput, condition } from '../support/decks.js';
import type { LooseJson } from '../support/http.js';
import { UNLIMITED } from '../support/limits.js';
import type { ControlAction } from '../support/live-deck.js';
import { startTestServer, type TestServer, usingPostgres } from '../support/server.js';
import { openSse, type SseStream } from '../support/sse.js';
import { type BodyOf, errorDetails, expectOk, expectStatus, testClient } from '../support/test-client.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';
import { createEndpoint } from '../support/webhooks.js';

/**
 * Self-paced sessions (issue 26, docs/live-sessions.md "Self-paced sessions") end to end over real
 * HTTP and Server-Sent Events: joining by PIN and by link, each participant walked down their own
 * path by the poll's skip logic, skips, per-participant quiz timing, completion and its webhook,
 * scores at the end or on completion, `closesAt`, the participant cap, resuming from the database
 * (a reload, a second server on the same database), races and replays, and the presenter's progress.
 * Runs on PGlite, and on PostgreSQL + Redis with TEST_DATABASE_URL and TEST_REDIS_URL.
 */

type Json = LooseJson;

let t: TestServer;
const api = testClient(() => t.api);
let apiKey: string;
let receiver: WebhookReceiver;
/** The server times quiz answers and closes sessions by this clock: it moves only when a test moves it. */
const clock = new ManualClock();

beforeAll(async () => {
  receiver = await WebhookReceiver.start();
  t = await startTestServer(
    {
      ...UNLIMITED,
      LIVE_JOIN_URL: 'https://join.example.test/{pin}',
      WEBHOOK_ALLOW_HTTP: 'true',
      WEBHOOK_ALLOW_LOOPBACK: 'true',
      WEBHOOK_POLL_INTERVAL_MS: '50',
      // The closer is driven by the test (`sessionCloser.tick()`), never by its timer.
      SESSION_CLOSE_CHECK_MS: '3600000',
    },
    { clock },
  );
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

/**
 * Six slides with skip logic: tea drinkers skip the coffee question; a happy respondent (4 or 5)
 * ends after the mood slide, the others are asked why.
 */
const walkDeck: ContentInput = {
  questions: [
    {
      id: 'drink',
      kind: 'multiple_choice',
      text: 'Tea or coffee?',
      type: 'single',
      options: [
        { id: 'tea', label: 'Tea' },
        { id: 'coffee', label: 'Coffee' },
      ],
    },
    {
      id: 'brew',
      kind: 'multiple_choice',
      text: 'Which coffee?',
      type: 'single',
      options: [
        { id: 'espresso', label: 'Espresso' },
        { id: 'latte', label: 'Latte' },
      ],
    },
    { id: 'intro', kind: 'content', text: 'Now a quiz' },
    {
      id: 'capital',
      kind: 'quiz',
      text: 'Capital of France?',
      options: [
        { id: 'paris', label: 'Paris' },
        { id: 'lyon', label: 'Lyon' },
      ],
      correctOptionIds: ['paris'],
      timeLimitSec: 20,
      points: 500,
      speedBonus: false,
    },
    { id: 'mood', kind: 'scale', text: 'How was it?', min: 1, max: 5 },
    { id: 'why', kind: 'open_ended', text: 'Why?', maxLength: 200 },
  ],
};
const walkRules: Branching = {
  conditions: [
    condition('tea-skips-coffee', 'drink', 'equals', 'tea', 'intro'),
    condition('happy-ends', 'mood', 'at_least', 4, 'end'),
  ],
};

async function branchingPoll(content: ContentInput = walkDeck, branching: Branching | null = walkRules) {
  const created = await api.request('POST /polls', { apiKey, body: { title: 'Self-paced', content } });
  expectStatus(created, 201);
  const id = created.body.id;
  const body = branching ? { branching, publish: true } : { publish: true };
  const published = await api.request('PATCH /polls/{id}', { params: { id }, apiKey, body });
  expectStatus(published, 200);
  return id;
}

async function selfPaced(pollId: string, extra: Partial<BodyOf<'POST /sessions'>> = {}) {
  const res = await api.request('POST /sessions', { apiKey, body: { pollId, pace: 'audience', ...extra } });
  expectStatus(res, 201);
  return res.body;
}

function linkOf(session: { joinUrl: string }): string {
  const code = String(session.joinUrl).split('/').pop() as string;
  expect(code).toMatch(/^lnk_[A-Za-z0-9_-]{43}$/);
  return code;
}

async function control(
  session: { id: string },
  action: ControlAction,
  extra: Omit<BodyOf<'POST /sessions/{id}/control'>, 'action'> = {},
) {
  return api.request('POST /sessions/{id}/control', { params: { id: session.id }, apiKey, body: { action, ...extra } });
}

async function join(code: string, name?: string, token?: string) {
  const res = await api.request('POST /live/{pin}/join', {
    params: { pin: code },
    body: name ? { name } : {},
    headers: token ? { 'x-participant-token': token } : {},
  });
  return res;
}

async function joined(code: string, name: string) {
  const res = await join(code, name);
  expectStatus(res, 200);
  return {
    id: res.body.participant.id,
    token: res.body.participantToken,
    body: res.body,
  };
}

function answer(
  code: string,
  token: string,
  body: BodyOf<'POST /live/{pin}/answers'>,
  headers: Record<string, string> = {},
) {
  return api.request('POST /live/{pin}/answers', {
    params: { pin: code },
    body,
    headers: { 'x-participant-token': token, ...headers },
  });
}

function advance(code: string, token: string, slideId: string) {
  return api.request('POST /live/{pin}/advance', {
    params: { pin: code },
    body: { slideId },
    headers: { 'x-participant-token': token },
  });
}

async function participantStream(code: string, token: string, lastEventId?: string) {
  const headers: Record<string, string> = { 'x-participant-token': token };
  if (lastEventId !== undefined) headers['last-event-id'] = lastEventId;
  const stream = await openSse(`${t.api}/live/${code}/events`, headers);
  streams.push(stream);
  expect(stream.status, JSON.stringify(stream.error)).toBe(200);
  return stream;
}

async function presenterStream(session: Json) {
  const stream = await openSse(`${t.api}/sessions/${session.id}/events`, { 'x-host-token': session.hostToken });
  streams.push(stream);
  expect(stream.status, JSON.stringify(stream.error)).toBe(200);
  return stream;
}

describe('a self-paced session', () => {
  it('walks two participants down different paths, one by PIN and one by link, with skips and per-participant quiz timing', async () => {
    const pollId = await branchingPoll();
    const endpoint = await createEndpoint(t, apiKey, {
      url: receiver.urlFor('completed'),
      events: ['session.participant_completed', 'session.ended'],
    });
    receiver.secrets.push(endpoint.secret);
    const session = await selfPaced(pollId);
    expect(session).toMatchObject({
      pace: 'audience',
      status: 'pending',
      showScores: 'at_end',
      closesAt: null,
      completedCount: 0,
      pin: expect.stringMatching(/^[0-9]{6}$/),
    });
    const link = linkOf(session);
    expect(session.joinUrl).toBe(`https://join.example.test/${link}`);
    // The QR code encodes the link, not the PIN.
    const qr = await api.request('GET /sessions/{id}/qr.svg', { params: { id: session.id }, apiKey });
    expect(qr.text).toBe(renderSVG(session.joinUrl, { ecc: 'M', border: 2 }));

    // Nothing moves a shared slide: there is none.
    for (const action of ['next', 'prev', 'lock', 'unlock', 'showResults', 'hideResults'] as const) {
      expectError(await control(session, action), 409, 'invalid_session_state');
    }
    expectError(await control(session, 'goto', { slideIndex: 1 }), 409, 'invalid_session_state');

    const ada = await joined(session.pin!, 'Ada');
    const bo = await joined(link, 'Bo');
    expect(bo.body.state).toMatchObject({ pace: 'audience', status: 'pending', slide: null, completed: false });
    expectError(await answer(link, bo.token, { slideId: 'drink', optionIds: ['coffee'] }), 409, 'session_not_active');

    const presenter = await presenterStream(session);
    expect((await presenter.next('session')).data.pace).toBe('audience');
    expect((await presenter.next('progress')).data).toMatchObject({ participantCount: 2, completedCount: 0 });

    const adaStream = await participantStream(session.pin!, ada.token);
    expect((await adaStream.next('slide')).data).toMatchObject({ status: 'pending', slide: null });
    const started = await control(session, 'start');
    expectStatus(started, 200);
    const first = (await adaStream.next('slide')).data;
    expect(first).toMatchObject({ status: 'active', slideIndex: 0, progress: { step: 1, of: 6 }, completed: false });
    expect(first.slide.id).toBe('drink');

    // Ada drinks tea: the skip logic sends her past the coffee question. Bo drinks coffee.
    const adaTea = await answer(session.pin!, ada.token, { slideId: 'drink', optionIds: ['tea'] });
    expectStatus(adaTea, 201);
    expect(expectOk(adaTea).progress!.state).toMatchObject({ slideIndex: 2, progress: { step: 2, of: 5 } });
    expect(expectOk(adaTea).progress!.state.slide!.id).toBe('intro');
    expect(expectOk(adaTea).progress!.completion).toBeNull();
    expect((await adaStream.next('slide')).data.slide.id).toBe('intro');
    const boCoffee = await answer(link, bo.token, { slideId: 'drink', optionIds: ['coffee'] });
    expect(expectOk(boCoffee).progress!.state).toMatchObject({ slideIndex: 1, progress: { step: 2, of: 6 } });

    // Each answers only their own slide.
    const wrong = await answer(session.pin!, ada.token, { slideId: 'brew', optionIds: ['latte'] });
    expectError(wrong, 409, 'slide_not_active');
    expect(errorDetails(wrong).currentSlideId).toBe('intro');
    expectError(await answer(link, bo.token, { slideId: 'drink', optionIds: ['tea'] }), 409, 'slide_not_active');

    // Ada moves past the content slide; Bo skips the coffee question (a skip is not an answer).
    const adaIntro = await advance(session.pin!, ada.token, 'intro');
    expectStatus(adaIntro, 200);
    expect(expectOk(adaIntro).state).toMatchObject({ slideIndex: 3, progress: { step: 3, of: 5 } });
    const adaOnQuizAt = clock.now();
    const boSkip = await advance(link, bo.token, 'brew');
    expect(expectOk(boSkip).state).toMatchObject({ slideIndex: 2, progress: { step: 3, of: 6 } });

    // The quiz's 20 seconds run from when each participant reached it.
    clock.advance(25_000);
    expectError(await answer(session.pin!, ada.token, { slideId: 'capital', optionIds: ['paris'] }), 409, 'time_up');
    expect((await advance(link, bo.token, 'intro')).status).toBe(200);
    clock.advance(5_000);
    const boQuiz = await answer(link, bo.token, { slideId: 'capital', optionIds: ['paris'] });
    expectStatus(boQuiz, 201);
    expect(clock.now() - adaOnQuizAt).toBeGreaterThan(20_000);
    // Nothing in the receipt tells whether the answer was right.
    expect(JSON.stringify(boQuiz.body)).not.toMatch(/points|score|correct/i);
    const adaSkipsQuiz = await advance(session.pin!, ada.token, 'capital');
    expect(expectOk(adaSkipsQuiz).state.slide!.id).toBe('mood');

    // Ada is happy: the walk ends there. Bo is not: one more slide.
    const adaMood = await answer(session.pin!, ada.token, { slideId: 'mood', scaleValue: 5 });
    expect(expectOk(adaMood).progress!.state).toMatchObject({
      completed: true,
      slide: null,
      progress: { step: 4, of: 4 },
    });
    expect(expectOk(adaMood).progress!.completion).toMatchObject({
      participantId: ada.id,
      answerCount: 2,
      skippedCount: 1,
      score: null,
      rank: null,
      quiz: null,
    });
    expect((await adaStream.next('completed')).data).toMatchObject({ answerCount: 2, score: null });
    const boMood = await answer(link, bo.token, { slideId: 'mood', scaleValue: 2 });
    expect(expectOk(boMood).progress!.state.slide!.id).toBe('why');
    const boWhy = await answer(link, bo.token, { slideId: 'why', text: 'Too much coffee' });
    expect(expectOk(boWhy).progress!.completion).toMatchObject({ answerCount: 4, skippedCount: 1, score: null });
    expectError(await advance(link, bo.token, 'why'), 409, 'slide_not_active');

    // The presenter sees everybody done; the session says so too.
    await presenter.waitFor((event) => event.type === 'progress' && event.data.completedCount === 2);
    const got = await api.request('GET /sessions/{id}', { params: { id: session.id }, apiKey });
    expect(got.body).toMatchObject({ completedCount: 2, participantCount: 2, currentSlideIndex: 0 });
    // A rejoin before the end shows no score yet (`at_end`).
    expect(expectOk(await join(link, undefined, bo.token)).participant.score).toBe(0);

    // Results and the CSV export count self-paced answers as any others.
    const results = await api.request('GET /polls/{id}/results', { params: { id: pollId }, apiKey });
    expectStatus(results, 200);
    const totals = Object.fromEntries(
      results.body.slides.map((slide: Json) => [slide.slideId, slide.totalAnswers ?? null]),
    );
    expect(totals).toMatchObject({ drink: 2, brew: 0, capital: 1, mood: 2, why: 1 });
    const csv = await api.request('GET /polls/{id}/export', { params: { id: pollId }, apiKey });
    const rows = Papa.parse<string[]>(csv.text, { skipEmptyLines: true }).data;
    const row = (slide: string, label: string) => rows.find((r) => r[0] === slide && r[3] === label)?.[4];
    expect([
      row('1', 'Tea'),
      row('1', 'Coffee'),
      row('2', 'Espresso'),
      row('4', 'Paris'),
      row('6', 'Too much coffee'),
    ]).toEqual(['1', '1', '0', '1', '1']);

    // The end shows everybody the scores and the leaderboard.
    const boStream = await participantStream(link, bo.token);
    expect((await boStream.next('completed')).data.score).toBeNull();
    expect((await control(session, 'end')).status).toBe(200);
    const summary = (await boStream.next('ended')).data;
    expect(summary.leaderboard.you).toMatchObject({ participantId: bo.id, score: 500, rank: 1 });
    expect(summary.leaderboard.top.map((entry: Json) => entry.participantId)).toEqual([bo.id, ada.id]);

    // One completion webhook per participant, signed and valid against the contract.
    await receiver.waitFor(() => receiver.ofType('session.participant_completed').length >= 2);
    const completions = receiver.ofType('session.participant_completed');
    expect(completions.every((delivery) => delivery.verified)).toBe(true);
    expect((completions.map((delivery) => delivery.event?.data) as Json[]).sort((a, b) => a.score - b.score)).toEqual([
      { sessionId: session.id, pollId, participantId: ada.id, name: 'Ada', answerCount: 2, score: 0 },
      { sessionId: session.id, pollId, participantId: bo.id, name: 'Bo', answerCount: 4, score: 500 },
    ]);
  });

  it('shows each participant their score, rank and correct answers on completion with showScores on_completion', async () => {
    const pollId = await branchingPoll();
    const session = await selfPaced(pollId, { showScores: 'on_completion', pin: false });
    expect(session).toMatchObject({ pin: null, showScores: 'on_completion' });
    const link = linkOf(session);
    await control(session, 'start');
    const cy = await joined(link, 'Cy');
    await answer(link, cy.token, { slideId: 'drink', optionIds: ['tea'] });
    await advance(link, cy.token, 'intro');
    const quiz = await answer(link, cy.token, { slideId: 'capital', optionIds: ['lyon'] });
    expect(JSON.stringify(quiz.body)).not.toMatch(/points|score|correct/i);
    // Mid-walk, nothing reveals the score.
    expect(expectOk(await join(link, undefined, cy.token)).participant.score).toBe(0);
    const done = await answer(link, cy.token, { slideId: 'mood', scaleValue: 4 });
    expect(expectOk(done).progress!.completion).toMatchObject({
      score: 0,
      rank: 1,
      quiz: [{ slideId: 'capital', optionIds: ['lyon'], correctOptionIds: ['paris'], points: 0 }],
    });
    const stream = await participantStream(link, cy.token);
    expect((await stream.next('completed')).data.quiz[0].correctOptionIds).toEqual(['paris']);
  });

  it('resumes each participant exactly where they were: a reload, a reconnecting stream, a second server', async () => {
    const pollId = await branchingPoll();
    const session = await selfPaced(pollId);
    const link = linkOf(session);
    await control(session, 'start');
    const di = await joined(link, 'Di');
    await answer(link, di.token, { slideId: 'drink', optionIds: ['coffee'] });
    await answer(link, di.token, { slideId: 'brew', optionIds: ['latte'] });

    // A reload: the token joins again and lands on the same slide, with the same progress.
    const again = await join(link, undefined, di.token);
    expect(expectOk(again).resumed).toBe(true);
    expect(expectOk(again).state).toMatchObject({ slideIndex: 2, progress: { step: 3, of: 6 } });

    // A stream reconnecting with Last-Event-ID first says where the participant is.
    const first = await participantStream(link, di.token);
    await first.next('slide');
    first.close();
    const resumed = await participantStream(link, di.token, first.lastEventId);
    const place = (await resumed.next()).data;
    expect(place).toMatchObject({ slideIndex: 2, slide: { id: 'intro' } });

    // Another server on the same database knows the place (it is stored, not kept in memory).
    if (!usingPostgres) return;
    const other = await startTestServer({ ...UNLIMITED, DATABASE_URL: t.databaseUrl }, { clock });
    try {
      const onOther = testClient(other.api);
      const elsewhere = await onOther.request('POST /live/{pin}/join', {
        params: { pin: link },
        body: {},
        headers: { 'x-participant-token': di.token },
      });
      expect(expectOk(elsewhere).state).toMatchObject({ slideIndex: 2, progress: { step: 3, of: 6 } });
      const moved = await onOther.request('POST /live/{pin}/advance', {
        params: { pin: link },
        body: { slideId: 'intro' },
        headers: { 'x-participant-token': di.token },
      });
      expect(expectOk(moved).state.slide!.id).toBe('capital');
      // …and the stream connected to the first server follows the move made on the second.
      expect((await resumed.next('slide')).data.slide.id).toBe('capital');
    } finally {
      await other.close();
    }
  });

  it('moves a participant once, whatever repeats: a replayed answer, racing skips, a lost response', async () => {
    const pollId = await branchingPoll();
    const session = await selfPaced(pollId);
    const link = linkOf(session);
    await control(session, 'start');
    const ed = await joined(link, 'Ed');
    const key = { 'idempotency-key': 'ed-drink-1' };
    const sent = await answer(link, ed.token, { slideId: 'drink', optionIds: ['coffee'] }, key);
    const replayed = await answer(link, ed.token, { slideId: 'drink', optionIds: ['coffee'] }, key);
    expectStatus(replayed, 201);
    expect(replayed.body).toEqual(sent.body);
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
    // Without the key, the answer is refused rather than counted or moved twice.
    expectError(await answer(link, ed.token, { slideId: 'drink', optionIds: ['coffee'] }), 409, 'slide_not_active');

    const racing = await Promise.all([advance(link, ed.token, 'brew'), advance(link, ed.token, 'brew')]);
    expect(racing.map((res) => res.status).sort()).toEqual([200, 409]);
    const back = await join(link, undefined, ed.token);
    expect(expectOk(back).state).toMatchObject({ slideIndex: 2, progress: { step: 3, of: 6 } });
  });

  it('ends itself at closesAt, once, with its ended event and webhook', async () => {
    const pollId = await branchingPoll();
    expectError(
      await api.request('POST /sessions', {
        apiKey,
        body: { pollId, pace: 'audience', closesAt: new Date(clock.now() - 1000).toISOString() },
      }),
      422,
      'validation_failed',
    );
    const endpoint = await createEndpoint(t, apiKey, { url: receiver.urlFor('closing'), events: ['session.ended'] });
    receiver.secrets.push(endpoint.secret);
    const session = await selfPaced(pollId, { closesAt: new Date(clock.now() + 60_000).toISOString() });
    expect(session.closesAt).toBe(new Date(clock.now() + 60_000).toISOString());
    const link = linkOf(session);
    await control(session, 'start');
    const fay = await joined(link, 'Fay');
    const stream = await participantStream(link, fay.token);
    await stream.next('slide');
    expect(await t.server.sessionCloser.tick()).toBe(0);

    clock.advance(61_000);
    // Past the time, no answer counts even before the closer has run.
    const late = await answer(link, fay.token, { slideId: 'drink', optionIds: ['tea'] });
    expectError(late, 409, 'session_not_active');
    expect(errorDetails(late).status).toBe('ended');
    expectError(await join(link, 'Latecomer'), 404, 'not_found');
    // Nor can the closing time be moved once it has passed: the session is over.
    const reopen = await api.request('PATCH /sessions/{id}', {
      params: { id: session.id },
      apiKey,
      body: { closesAt: null },
    });
    expectError(reopen, 409, 'invalid_session_state');
    expect(await t.server.sessionCloser.tick()).toBe(1);
    expect(await t.server.sessionCloser.tick()).toBe(0);
    expect((await stream.next('ended')).data.sessionId).toBe(session.id);
    // A stream coming back from before the start gets the end, not the first slide again.
    const replay = await participantStream(link, fay.token, '0');
    expect((await replay.next()).type).toBe('ended');
    const got = await api.request('GET /sessions/{id}', { params: { id: session.id }, apiKey });
    expect(got.body).toMatchObject({ status: 'ended', endedAt: new Date(clock.now()).toISOString() });
    const endedHere = () =>
      receiver
        .ofType('session.ended')
        .filter((delivery) => (delivery.event?.data as Json | undefined)?.id === session.id);
    await receiver.waitFor(() => endedHere().length > 0);
    // One event (delivered to each endpoint subscribed to it: this test's, and the first test's).
    const ended = endedHere();
    expect(new Set(ended.map((delivery) => delivery.event?.id)).size).toBe(1);
  });

  it('moves the closing time with PATCH, or clears it', async () => {
    const session = await selfPaced(await branchingPoll(), { closesAt: new Date(clock.now() + 60_000).toISOString() });
    const later = new Date(clock.now() + 7 * 86_400_000).toISOString();
    const moved = await api.request('PATCH /sessions/{id}', {
      params: { id: session.id },
      apiKey,
      body: { closesAt: later },
    });
    expectStatus(moved, 200);
    expect(moved.body.closesAt).toBe(later);
    clock.advance(61_000);
    expect(await t.server.sessionCloser.tick()).toBe(0);
    const cleared = await api.request('PATCH /sessions/{id}', {
      params: { id: session.id },
      apiKey,
      body: { closesAt: null },
    });
    expectStatus(cleared, 200);
    expect(cleared.body.closesAt).toBeNull();
  });

  it('takes at most maxParticipants', async () => {
    const session = await selfPaced(await branchingPoll(), { maxParticipants: 1 });
    const link = linkOf(session);
    await joined(link, 'Gil');
    expectError(await join(link, 'Hal'), 409, 'session_full');
    expectError(await join(session.pin!, 'Hal'), 409, 'session_full');
  });

  it('refuses what the mode does not take, and a link or token of another session', async () => {
    const pollId = await branchingPoll();
    expectError(
      await api.request('POST /sessions', { apiKey, body: { pollId, pin: false } }),
      422,
      'validation_failed',
    );
    expectError(
      await api.request('POST /sessions', { apiKey, body: { pollId, showScores: 'on_completion' } }),
      422,
      'validation_failed',
    );
    // `advance` is for self-paced sessions.
    const live = await api.request('POST /sessions', { apiKey, body: { pollId } });
    expectStatus(live, 201);
    expect(live.body).toMatchObject({ pace: 'presenter', showScores: null, completedCount: 0 });
    await control(live.body, 'start');
    const ivy = await joined(live.body.pin!, 'Ivy');
    expectError(await advance(live.body.pin!, ivy.token, 'drink'), 409, 'invalid_session_state');

    // A participant of one self-paced session acts in no other.
    const one = await selfPaced(pollId);
    const two = await selfPaced(pollId);
    await control(one, 'start');
    await control(two, 'start');
    const jo = await joined(linkOf(one), 'Jo');
    expectError(
      await answer(linkOf(two), jo.token, { slideId: 'drink', optionIds: ['tea'] }),
      401,
      'invalid_participant_token',
    );
    // A link that names no session is as unknown as a wrong PIN; a malformed one is refused alike.
    expectError(await join(`lnk_${'A'.repeat(43)}`, 'Kay'), 404, 'not_found');
    expectError(await join('lnk_short', 'Kay'), 404, 'not_found');
  });

  it('keeps the board of the Q&A slide a participant stands on up to date, and lets them move on when done', async () => {
    const pollId = await branchingPoll(
      {
        questions: [
          { id: 'ask', kind: 'qa', text: 'Questions?', moderated: false, allowUpvotes: true },
          { id: 'bye', kind: 'content', text: 'Thanks' },
        ],
      },
      null,
    );
    const session = await selfPaced(pollId);
    const link = linkOf(session);
    await control(session, 'start');
    const [asker, voter] = await Promise.all([joined(link, 'Ola'), joined(link, 'Pip')]);
    const watching = await participantStream(link, voter.token);
    expect((await watching.next('questions')).data).toEqual({ slideId: 'ask', questions: [] });
    const asked = await answer(link, asker.token, { slideId: 'ask', text: 'Is there coffee?' });
    expectStatus(asked, 201);
    // A Q&A slide takes several questions: the asker stays until they move on.
    expect(expectOk(asked).progress!.state.slide!.id).toBe('ask');
    const board = await watching.waitFor((event) => event.type === 'questions' && event.data.questions.length === 1);
    expect(board.data.questions[0]).toMatchObject({ text: 'Is there coffee?', upvotes: 0 });
    const upvoted = await api.request('POST /live/{pin}/questions/{questionId}/upvotes', {
      params: { pin: link, questionId: expectOk(asked).id },
      headers: { 'x-participant-token': voter.token },
    });
    expectStatus(upvoted, 201);
    await watching.waitFor((event) => event.type === 'questions' && event.data.questions[0]?.upvotes === 1);
    const onward = await advance(link, asker.token, 'ask');
    expect(expectOk(onward).state.slide!.id).toBe('bye');
    // Moving past a Q&A slide one asked on is not a skip.
    const done = await advance(link, asker.token, 'bye');
    expect(expectOk(done).completion).toMatchObject({ answerCount: 1, skippedCount: 0 });
  });

  it('shows the presenter how many stand on each slide and every slide’s results', async () => {
    const pollId = await branchingPoll();
    const session = await selfPaced(pollId);
    const link = linkOf(session);
    await control(session, 'start');
    const presenter = await presenterStream(session);
    await presenter.next('progress');
    const people = await Promise.all(['Lu', 'Mo', 'Ny'].map((name) => joined(link, name)));
    await answer(link, (people[0] as { token: string }).token, { slideId: 'drink', optionIds: ['tea'] });
    await answer(link, (people[1] as { token: string }).token, { slideId: 'drink', optionIds: ['coffee'] });
    const progress = await presenter.waitFor(
      (event) =>
        event.type === 'progress' &&
        event.data.participantCount === 3 &&
        event.data.slides.find((slide: Json) => slide.slideId === 'intro')?.participants === 1,
    );
    const bySlide = Object.fromEntries(progress.data.slides.map((slide: Json) => [slide.slideId, slide]));
    expect(bySlide.drink).toMatchObject({ participants: 1, answerCount: 2 });
    expect(bySlide.brew).toMatchObject({ participants: 1, answerCount: 0 });
    expect(bySlide.intro.participants).toBe(1);
    expect(progress.data.results).toHaveLength(6);
    expect(progress.data.results[0]).toMatchObject({ slideId: 'drink', totalAnswers: 2 });
  });
});
