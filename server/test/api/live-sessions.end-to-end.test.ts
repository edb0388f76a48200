import Papa from 'papaparse';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../support/assertions.js';
import { ManualClock } from '../support/clock.js';
import type { ControlAction } from '../support/live-deck.js';
import {
  expectRanked,
  type Joined,
  type Json,
  liveSessionsApi,
  slideResult,
  startLiveSessionsServer,
} from '../support/live-sessions.js';
import type { TestServer } from '../support/server.js';
import type { SseEvent } from '../support/sse.js';
import { expectStatus, testClient } from '../support/test-client.js';

/**
 * A whole live session over real HTTP and Server-Sent Events, from creation to the end summary:
 * every answerable slide kind answered by three participants, a presenter watching, the answers
 * landing in results and export. Each part on its own: live-sessions.hosting.test.ts,
 * live-sessions.participants.test.ts, live-sessions.streams.test.ts.
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

const {
  closeStreams,
  pollAndSession,
  control,
  act,
  join,
  joined,
  answer,
  answered,
  participantStream,
  presenterStream,
  pollResults,
} = liveSessionsApi(() => ({ t, apiKey }));
afterEach(closeStreams);

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
    const move = async (action: ControlAction, slideId: string, slideIndex?: number) => {
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
    expectStatus(resumed, 200);
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
      api.request('POST /live/{pin}/questions/{questionId}/upvotes', {
        params: { pin: session.pin, questionId },
        headers: { 'x-participant-token': who.token },
      });
    expectError(await upvote(bob, asked.id), 404, 'not_found');
    const approved = await api.request('PATCH /polls/{id}/questions/{questionId}', {
      params: { id: poll.id, questionId: asked.id },
      apiKey,
      body: { status: 'approved' },
    });
    expect(approved.status, approved.text).toBe(200);
    const upvoted = await upvote(bob, asked.id);
    expectStatus(upvoted, 201);
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
    const after = await api.request('GET /sessions/{id}', { params: { id: session.id }, apiKey });
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
