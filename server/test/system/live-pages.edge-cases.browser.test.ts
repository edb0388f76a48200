import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { chromiumAvailable, LAPTOP, PHONE, poll } from '../support/browser.js';
import { createLiveSession, everyKindDeck } from '../support/live-deck.js';
import {
  answerCount,
  choose,
  control,
  expectNoPageErrors,
  expectScore,
  images,
  onSlide,
  open,
  pages,
  participantCount,
  participantToken,
  rate,
  startLivePages,
  stopLivePages,
  t,
} from '../support/live-pages.js';
import { expectOk, expectStatus, testClient } from '../support/test-client.js';

const api = testClient(() => t.api);

/**
 * The audience page and the presenter screen in a real browser (Debian's Chromium through
 * playwright-core) against a real server, when something goes wrong or comes late: a participant
 * whose stream the server drops, whose answer's response is lost, who goes offline, who reloads
 * mid-session; a late joiner's countdown; a quiz slide whose time runs out; a presenter whose host
 * token reads no answers; wrong addresses; and the join link's ?rid=. Every page's console must
 * stay free of errors. The session walked through: live-pages.walkthrough.browser.test.ts.
 */

describe.skipIf(!chromiumAvailable)('the audience page and the presenter screen, in Chromium', () => {
  beforeAll(startLivePages);
  afterAll(stopLivePages);

  // A failed test leaves a picture of every screen as it was; then each test's pages close, so
  // that nothing of one test (an open stream) lives on into the next.
  afterEach(async (context) => pages.closeAll(context.task.result?.state === 'fail', 'failed'));

  it('follows the session again after the server drops its stream, and counts an answer whose response was lost once', async () => {
    const session = await createLiveSession(t, everyKindDeck(images.url));
    const ada = await open('ada-reconnect', LAPTOP);
    const streams: (string | undefined)[] = [];
    ada.page.on('request', (request) => {
      if (request.url().endsWith('/events')) streams.push(request.headers()['last-event-id']);
    });
    await ada.page.goto(session.joinUrl);
    await ada.page.getByLabel(/Your name/).fill('Ada');
    await ada.page.getByRole('button', { name: 'Join' }).click();
    await ada.page.getByTestId('waiting').waitFor();
    await control(session, 'start');
    await control(session, 'next');
    await onSlide([ada], 'lunch');
    expect(streams).toEqual([undefined]);

    await ada.expectNetworkErrors(
      /ERR_INCOMPLETE_CHUNKED_ENCODING|ERR_CONNECTION_RESET|ERR_EMPTY_RESPONSE/,
      async () => {
        // The server drops every connection, the participant's stream among them; the slide moves on
        // while the page reconnects, and reaches it all the same (replayed after Last-Event-ID).
        t.server.app.server.closeAllConnections();
        await control(session, 'next');
        await onSlide([ada], 'toppings');
      },
    );
    expect(streams.length).toBeGreaterThanOrEqual(2);
    expect(Number(streams[1])).toBeGreaterThan(0);

    // The answer reaches the server but its response is lost: the page sends it again with the
    // same Idempotency-Key, and it is counted once.
    await ada.expectNetworkErrors(/ERR_CONNECTION_RESET/, async () => {
      await ada.page.route(
        '**/api/v1/live/*/answers',
        async (route) => {
          await route.fetch();
          await route.abort('connectionreset');
        },
        { times: 1 },
      );
      await choose(ada, ['Basil']);
    });
    expect(await answerCount(session, 'toppings')).toBe(1);

    // Offline when sending: the answer waits, says so, and goes when the network is back.
    await control(session, 'next');
    await onSlide([ada], 'capital');
    await ada.expectNetworkErrors(/ERR_INTERNET_DISCONNECTED/, async () => {
      await ada.page.context().setOffline(true);
      await ada.page.getByText('Canberra', { exact: true }).click();
      await ada.page.getByRole('button', { name: 'Send' }).click();
      await ada.page.getByTestId('answer-queued').waitFor();
      await ada.screenshot('15-offline');
      await ada.page.context().setOffline(false);
      await ada.page.getByTestId('answer-received').waitFor();
    });
    expect(await answerCount(session, 'capital')).toBe(1);
    await control(session, 'next');
    await onSlide([ada], 'mood');
    expectNoPageErrors();
  });

  it('sends the join link’s ?rid= as the participant’s respondentId: found and erased by it', async () => {
    const session = await createLiveSession(t, everyKindDeck(images.url));
    const ada = await open('ada-rid', PHONE);
    await ada.page.goto(`${session.joinUrl}?rid=u-42`);
    await ada.page.getByLabel(/Your name/).fill('Ada');
    await ada.page.getByRole('button', { name: 'Join' }).click();
    await ada.page.getByTestId('waiting').waitFor();
    const records = await api.request('GET /respondents/{id}', { params: { id: 'u-42' }, apiKey: session.apiKey });
    expectStatus(records, 200);
    expect(records.body.data).toEqual([
      expect.objectContaining({ type: 'participant', name: 'Ada', respondentId: 'u-42', sessionId: session.sessionId }),
    ]);
    const erased = await api.request('DELETE /respondents/{id}', { params: { id: 'u-42' }, apiKey: session.apiKey });
    expect(expectOk(erased).erased).toMatchObject({ participants: 1 });
    expectNoPageErrors();
  });

  it('keeps a participant who reloads mid-session: same name, score and answers; a late joiner sees the time really left', async () => {
    const session = await createLiveSession(t, everyKindDeck(images.url));
    const ada = await open('ada-reload', PHONE);
    await ada.page.goto(session.joinUrl);
    await ada.page.getByLabel(/Your name/).fill('Ada');
    await ada.page.getByRole('button', { name: 'Join' }).click();
    await ada.page.getByTestId('waiting').waitFor();
    await control(session, 'start');
    await control(session, 'goto', 3);
    await onSlide([ada], 'capital');
    await choose(ada, ['Canberra']);
    await control(session, 'showResults');
    await expectScore(ada, 1000);

    await ada.page.reload();
    await ada.page.getByTestId('quiz-outcome').waitFor();
    expect(await ada.page.getByTestId('me-name').textContent()).toBe('Ada');
    await expectScore(ada, 1000);
    expect(await ada.page.locator('[data-option-id=canberra].bar-mine').count()).toBe(1);
    expect(await participantCount(session)).toBe(1);

    // The next slide answered, then a reload: the answer is still there, and not asked again.
    await control(session, 'next');
    await onSlide([ada], 'mood');
    await rate(ada, { 'At work': 3, 'In the team': 4 });
    await ada.page.reload();
    await onSlide([ada], 'mood');
    await ada.page.getByTestId('answer-received').waitFor();
    expect(await ada.page.getByRole('radio', { name: '4', exact: true }).last().isChecked()).toBe(true);
    expect(await participantCount(session)).toBe(1);

    // Back to the quiz, restarted: someone who joins later sees the seconds that are really left.
    await control(session, 'hideResults');
    await control(session, 'goto', 3);
    await onSlide([ada], 'capital');
    await ada.page.waitForTimeout(2_500);
    const grace = await open('grace-late', PHONE);
    await grace.page.goto(session.joinUrl);
    await grace.page.getByRole('button', { name: 'Join' }).click();
    await onSlide([grace], 'capital');
    const shown = Number(await grace.page.getByRole('timer').textContent());
    const current = await api.request('GET /sessions/{id}', {
      params: { id: session.sessionId },
      headers: { 'x-host-token': session.hostToken },
    });
    const reallyLeft = Math.ceil((Date.parse(expectOk(current).slideStartedAt ?? '') + 60_000 - Date.now()) / 1000);
    expect(shown).toBeLessThanOrEqual(58);
    expect(Math.abs(shown - reallyLeft)).toBeLessThanOrEqual(1);
    expectNoPageErrors();
  });

  it('tells a presenter whose host token reads no answers so, instead of showing empty counts, and lets it run the session', async () => {
    const full = await createLiveSession(t, everyKindDeck(images.url));
    const key = await api.request('POST /keys', {
      apiKey: full.apiKey,
      body: { name: 'presenter only', scopes: ['sessions:write'] },
    });
    expectStatus(key, 201);
    const session = await api.request('POST /sessions', {
      apiKey: key.body.secret,
      body: { pollId: full.pollId },
    });
    expectStatus(session, 201);
    const presenter = await open('presenter-no-answers', LAPTOP);
    const sessionId = session.body.id;
    await presenter.page.goto(`${t.url}/present/${sessionId}#hostToken=${session.body.hostToken}`);
    await presenter.page.getByRole('button', { name: /Start/ }).click();
    // The first slide is a content slide (no answers anyway); the next one takes votes. It still runs
    // the session.
    await presenter.page.getByRole('button', { name: /Next/ }).click();
    await presenter.waitFor(presenter.page.getByTestId('answers-hidden'));
    expect(await presenter.page.getByTestId('answer-count').count()).toBe(0);
    await presenter.screenshot('17-presenter-without-answers');
    await poll(
      async () =>
        expectOk(await api.request('GET /sessions/{id}', { params: { id: sessionId }, apiKey: full.apiKey }))
          .currentSlideIndex,
    ).toBe(1);
    expectNoPageErrors();
  });

  it('closes a quiz slide when its time runs out, on the server’s clock', async () => {
    const session = await createLiveSession(t, {
      questions: [
        {
          id: 'quick',
          kind: 'quiz',
          text: 'Quick: 2 + 2?',
          options: [
            { id: 'three', label: 'Three' },
            { id: 'four', label: 'Four' },
          ],
          correctOptionIds: ['four'],
          timeLimitSec: 5,
        },
      ],
    });
    const linus = await open('linus-time-up', PHONE);
    await linus.page.goto(session.joinUrl);
    await linus.page.getByRole('button', { name: 'Join' }).click();
    await linus.page.getByTestId('waiting').waitFor();
    await control(session, 'start');
    await onSlide([linus], 'quick');
    await poll(() => linus.page.getByRole('timer').textContent()).toBe('0');
    await linus.page.getByTestId('time-up').waitFor();
    expect(await linus.page.getByRole('radio', { name: 'Four' }).isDisabled()).toBe(true);
    await linus.screenshot('16-time-up');
    // The server agrees: an answer now is refused.
    const late = await api.request('POST /live/{pin}/answers', {
      params: { pin: session.pin },
      body: { slideId: 'quick', optionIds: ['four'] },
      headers: { 'x-participant-token': await participantToken(linus) },
    });
    expectStatus(late, 409);
    expect(late.body.error.code).toBe('time_up');

    // Wrong addresses get a clear word, not a blank page.
    const stranger = await open('stranger', PHONE);
    await stranger.page.goto(`${t.url}/join/12ab`);
    await stranger.page.getByText('“12ab” is not a PIN').waitFor();
    await stranger.expectNetworkErrors(/status of 401/, async () => {
      await stranger.page.goto(`${t.url}/present/${session.sessionId}#hostToken=pht_not-this-one`);
      await stranger.waitFor(stranger.page.getByRole('alert').getByText('host token'));
    });
    expectNoPageErrors();
  });
});
