import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../support/assertions.js';
import { ManualClock } from '../support/clock.js';
import { liveSessionsApi, startLiveSessionsServer } from '../support/live-sessions.js';
import type { TestServer } from '../support/server.js';
import { openSse } from '../support/sse.js';

/**
 * A live session's Server-Sent Event streams: replay since `Last-Event-ID`, tokens of nobody, the
 * presenter's counts, and the streams after the end (the history missed, or 204 to stop).
 * Runs on PGlite, and on PostgreSQL + Redis with TEST_DATABASE_URL and TEST_REDIS_URL.
 */

let t: TestServer;
let apiKey: string;
/** The server times quiz answers by this clock: it moves only when a test advances it. */
const clock = new ManualClock();

beforeAll(async () => {
  ({ t, apiKey } = await startLiveSessionsServer(clock));
});
afterAll(() => t?.close());

const { streams, closeStreams, pollAndSession, act, join, joined, answered, participantStream, presenterStream } =
  liveSessionsApi(() => ({ t, apiKey }));
afterEach(closeStreams);

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
