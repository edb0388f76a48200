import type { Browser, Locator } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  chromiumAvailable,
  expectAccessible,
  LAPTOP,
  launchChromium,
  PagePool,
  PHONE,
  poll,
  TABLET,
  type WatchedPage,
} from '../support/browser.js';
import { call } from '../support/http.js';
import { createLiveSession, everyKindDeck, type LiveSessionFixture, startImageHost } from '../support/live-deck.js';
import { startTestServer, type TestServer } from '../support/server.js';

/**
 * The audience page and the presenter screen in a real browser (Debian's Chromium through
 * playwright-core) against a real server: a presenter and three participants (one on a 360-px
 * phone) through a deck with every slide kind; a participant whose stream the server drops; a
 * participant who reloads mid-session. Every page's console must stay free of errors. Screenshots
 * of each step go to test-artifacts/screenshots (gitignored; CI keeps them), and with
 * POLLKIT_DOCS_SCREENSHOTS=1 the ones docs/live-sessions.md shows go to docs/images.
 */

let t: TestServer;
let images: Awaited<ReturnType<typeof startImageHost>>;
let browser: Browser;
const pages = new PagePool(() => browser);
const open = pages.open;

describe.skipIf(!chromiumAvailable)('the audience page and the presenter screen, in Chromium', () => {
  beforeAll(async () => {
    images = await startImageHost();
    t = await startTestServer({
      MEDIA_ALLOW_LOOPBACK: 'true',
      // Every page here comes from 127.0.0.1: one address for four people. With a shared Redis
      // (TEST_REDIS_URL), every test file's requests from 127.0.0.1 count against that address too,
      // the PIN-miss tests' unknown PINs among them.
      LIVE_RATE_LIMIT_PER_IP_PER_MINUTE: '100000',
      LIVE_RATE_LIMIT_PER_PARTICIPANT_PER_MINUTE: '100000',
      LIVE_PIN_MISSES_PER_IP_PER_MINUTE: '100000',
      LIVE_JOINS_PER_IP_PER_MINUTE: '100000',
    });
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await images?.close();
  });

  // A failed test leaves a picture of every screen as it was; then each test's pages close, so
  // that nothing of one test (an open stream) lives on into the next.
  afterEach(async (context) => pages.closeAll(context.task.result?.state === 'fail', 'failed'));

  // Checked at the end of each test: a page that logged an error failed, whatever it showed.
  function expectNoPageErrors() {
    pages.expectNoErrors();
  }

  it('runs a session through every slide kind with a presenter and three participants, one on a phone', async () => {
    const session = await createLiveSession(t, everyKindDeck(images.url));
    const presenter = await open('presenter', LAPTOP);
    const ada = await open('ada', LAPTOP);
    const grace = await open('grace', TABLET);
    const phone = await open('phone', PHONE);
    const all = [ada, grace, phone];
    const p = presenter.page;
    const openStreams = new Map<WatchedPage, Set<object>>();
    for (const screen of [presenter, ...all]) {
      const open = new Set<object>();
      openStreams.set(screen, open);
      screen.page.on('request', (request) => {
        if (request.url().endsWith('/events')) open.add(request);
      });
      const done = (request: object) => open.delete(request);
      screen.page.on('requestfinished', done);
      screen.page.on('requestfailed', done);
    }

    // The presenter screen: the PIN, the QR code, and the token gone from the address bar.
    await p.goto(session.presenterUrl);
    await p.getByTestId('waiting').waitFor();
    expect(p.url()).not.toContain('hostToken');
    expect(await p.getByTestId('pin').textContent()).toBe(`${session.pin.slice(0, 3)} ${session.pin.slice(3)}`);
    const qr = await p.getByTestId('qr').getAttribute('src');
    expect(decodeURIComponent(qr ?? '')).toContain('<svg');
    await presenter.screenshot('01-pending', { docs: 'presenter-pending.png' });
    await expectAccessible(p, 'the presenter screen before the start');

    // Ada types the PIN at /join; Grace and the phone come from the QR code's address.
    await ada.page.goto(`${t.url}/join`);
    await ada.page.getByLabel('PIN').fill(session.pin);
    await ada.page.getByLabel(/Your name/).fill('Ada');
    await ada.page.getByRole('button', { name: 'Join' }).click();
    await grace.page.goto(session.joinUrl);
    await phone.page.goto(session.joinUrl);
    expect(await phone.page.getByLabel('PIN').inputValue()).toBe(session.pin);
    await phone.screenshot('02-join', { docs: 'audience-join.png' });
    await grace.page.getByLabel(/Your name/).fill('Grace');
    await grace.page.getByRole('button', { name: 'Join' }).click();
    await phone.page.getByLabel(/Your name/).fill('Linus');
    // The keyboard alone: Enter in the form joins.
    await phone.page.getByLabel(/Your name/).press('Enter');
    for (const participant of all) await participant.page.getByTestId('waiting').waitFor();
    expect(ada.page.url()).toBe(session.joinUrl);
    await expectCount(p.getByTestId('participant-count'), 3);

    // Start: the content slide, its image re-hosted by the server as WebP.
    await p.getByRole('button', { name: /Start/ }).click();
    for (const participant of all) {
      const image = participant.page.locator('[data-kind=content] img.media');
      await image.waitFor();
      expect(await image.getAttribute('src')).toMatch(/\/media\/files\/[0-9a-f]{64}\.webp$/);
      // Loaded, however long the machine takes to fetch and decode it: in the DOM is not yet loaded.
      const naturalWidth = await image.evaluate(
        (img) =>
          new Promise<number>((resolve) => {
            const element = img as unknown as {
              complete: boolean;
              naturalWidth: number;
              addEventListener(type: string, listener: () => void, options: { once: boolean }): void;
            };
            if (element.complete) resolve(element.naturalWidth);
            else {
              element.addEventListener('load', () => resolve(element.naturalWidth), { once: true });
              element.addEventListener('error', () => resolve(0), { once: true });
            }
          }),
      );
      expect(naturalWidth).toBeGreaterThan(0);
    }
    await phone.screenshot('03-content');
    await expectAccessible(p, 'the presenter screen on a content slide');
    // A content slide takes no answers: no results to show, nothing to lock.
    const toolbar = p.getByRole('toolbar', { name: 'Session controls' });
    expect(await toolbar.getByRole('button', { name: /Show results|Lock/ }).count()).toBe(0);
    await toolbar.getByRole('button', { name: /Next/ }).waitFor();

    // Multiple choice, single: answers by click, by tap and by keyboard.
    await p.keyboard.press('ArrowRight');
    await onSlide(all, 'lunch');
    await choose(ada, ['Pizza']);
    // Grace with the keyboard alone: arrows move the choice within the group, Tab leaves it for Send.
    await grace.page.getByRole('radio', { name: 'Pizza' }).focus();
    await grace.page.keyboard.press('ArrowDown');
    expect(await grace.page.getByRole('radio', { name: 'Sushi' }).isChecked()).toBe(true);
    await grace.page.keyboard.press('Tab');
    await grace.page.keyboard.press('Enter');
    await phone.page.getByText('Sushi').tap();
    await phone.page.getByRole('button', { name: 'Send' }).tap();
    for (const participant of all) await participant.page.getByTestId('answer-received').waitFor();
    await expectCount(p.getByTestId('answer-count'), 3);
    await expectBar(p, 'pizza', 1);
    await expectBar(p, 'sushi', 2);
    await expectBar(p, 'tacos', 0);
    await presenter.screenshot('04-choice-live', { docs: 'presenter-live-results.png' });
    await p.keyboard.press('r');
    for (const participant of all) await participant.page.getByTestId('results').waitFor();
    await expectBar(phone.page, 'sushi', 2);
    expect(await phone.page.locator('[data-option-id=sushi].bar-mine').count()).toBe(1);
    await phone.screenshot('05-choice-results', { docs: 'audience-results.png' });

    // Multiple choice, several options.
    await p.keyboard.press('ArrowRight');
    await onSlide(all, 'toppings');
    await choose(ada, ['Olives', 'Basil']);
    await choose(grace, ['Basil']);
    await choose(phone, ['Chili']);
    await expectCount(p.getByTestId('answer-count'), 3);
    await expectBar(p, 'olives', 1);
    await expectBar(p, 'basil', 2);
    await expectBar(p, 'chili', 1);

    // Quiz: a countdown of whole seconds on every screen; answers stay hidden until shown.
    await p.keyboard.press('ArrowRight');
    await onSlide(all, 'capital');
    for (const screen of [presenter, ...all]) {
      const seconds = Number(await screen.page.getByRole('timer').textContent());
      expect(seconds).toBeGreaterThan(0);
      expect(seconds).toBeLessThanOrEqual(60);
    }
    await phone.screenshot('06-quiz', { docs: 'audience-quiz.png' });
    await choose(ada, ['Canberra']);
    await choose(grace, ['Sydney']);
    await choose(phone, ['Canberra']);
    await expectCount(p.getByTestId('answer-count'), 3);
    expect(await p.locator('.tag-correct').count()).toBe(0);
    // Hidden results read as hidden: the count and the choices, no bars at 0.
    expect(await p.getByTestId('answer-count').textContent()).toBe('3 answers · results hidden');
    expect(await p.getByTestId('quiz-options').locator('li').allTextContents()).toEqual([
      'Sydney',
      'Canberra',
      'Melbourne',
    ]);
    expect(await p.locator('.bar').count()).toBe(0);
    await presenter.screenshot('06-quiz-hidden');
    await expectAccessible(p, 'the presenter screen on a quiz before its results');
    await expectAccessible(phone.page, 'the audience page on a quiz');
    await p.keyboard.press('r');
    for (const participant of all) await participant.page.getByTestId('quiz-outcome').waitFor();
    expect(await ada.page.getByTestId('quiz-outcome').textContent()).toBe('Correct!');
    expect(await grace.page.getByTestId('quiz-outcome').textContent()).toBe('Not this time.');
    expect(await phone.page.getByTestId('quiz-outcome').textContent()).toBe('Correct!');
    await expectScore(ada, 1000);
    await expectScore(grace, 0);
    await expectBar(p, 'canberra', 2);
    expect(await p.locator('[data-option-id=canberra].bar-correct').count()).toBe(1);
    await presenter.screenshot('07-quiz-results', { docs: 'presenter-quiz-results.png' });
    await expectAccessible(p, 'the presenter screen with quiz results and the leaderboard');
    await phone.screenshot('07-quiz-results');

    // Scale per statement; the phone meets a locked slide first.
    await p.keyboard.press('ArrowRight');
    await onSlide(all, 'mood');
    await p.keyboard.press('l');
    await phone.page.getByTestId('locked').waitFor();
    expect(await phone.page.getByRole('radio').first().isDisabled()).toBe(true);
    await phone.screenshot('08-locked');
    await p.keyboard.press('l');
    await phone.page.getByTestId('locked').waitFor({ state: 'detached' });
    await rate(ada, { 'At work': 4, 'In the team': 5 });
    await rate(grace, { 'At work': 2, 'In the team': 3 });
    await rate(phone, { 'At work': 5, 'In the team': 5 });
    await expectCount(p.getByTestId('answer-count'), 3);
    expect(await p.locator('[data-statement-id=work] .statement-average').textContent()).toBe('3.7');
    expect(await p.locator('[data-statement-id=team] .statement-average').textContent()).toBe('4.3');
    await presenter.screenshot('09-scale');

    // Ranking: by buttons (Ada), by dragging (Grace), as it stands (the phone).
    await p.keyboard.press('ArrowRight');
    await onSlide(all, 'priorities');
    await ada.page.getByRole('button', { name: 'Move Price up' }).click();
    await ada.page.getByRole('button', { name: 'Move Price up' }).click();
    expect(await rankingOrder(ada)).toEqual(['price', 'speed', 'quality']);
    await dragToTop(grace, 'quality');
    expect(await rankingOrder(grace)).toEqual(['quality', 'speed', 'price']);
    for (const participant of all) await participant.page.getByRole('button', { name: 'Send' }).click();
    for (const participant of all) await participant.page.getByTestId('answer-received').waitFor();
    await expectCount(p.getByTestId('answer-count'), 3);
    // Borda scores: speed 1+1+2, quality 0+2+1, price 2+0+0.
    await poll(() => p.locator('.ranking-result li').evaluateAll(ids)).toEqual(['speed', 'quality', 'price']);
    await phone.screenshot('10-ranking');

    // Open-ended, shown as a word cloud.
    await p.keyboard.press('ArrowRight');
    await onSlide(all, 'word');
    await say(ada, 'Growth');
    await say(grace, 'growth');
    await say(phone, 'Focus');
    await expectCount(p.getByTestId('answer-count'), 3);
    await poll(() => p.locator('.cloud li').allTextContents()).toEqual(['growth', 'focus']);
    // A cloud is a cloud: the answers are not listed beside it as well.
    expect(await p.locator('.screen .recent').count()).toBe(0);
    await presenter.screenshot('11-word-cloud', { docs: 'presenter-word-cloud.png' });
    await expectAccessible(p, 'the presenter screen with a word cloud');

    // Q&A, moderated: two questions asked, one approved, one dismissed, then upvoted. Another
    // session of the same poll and the API ask theirs too, approved there: this room never shows them.
    await p.keyboard.press('ArrowRight');
    await onSlide(all, 'ask');
    const elsewhere = await questionsElsewhere(session, 'From the other room?', 'Through the API?');
    await ask(ada, 'Will there be bonuses this year?');
    await ask(phone, 'When is the next offsite?');
    await expectCount(p.getByTestId('answer-count'), 2);
    const queue = p.locator('.moderation li');
    // The queue is closed: the room sees how many wait, not what they say, until the presenter opens it.
    await poll(() => p.getByTestId('moderation').locator('summary').textContent()).toContain(
      'Waiting for approval (2)',
    );
    expect(await queue.first().isVisible()).toBe(false);
    await presenter.screenshot('12-moderation-closed');
    await p.getByTestId('moderation').locator('summary').click();
    await poll(() => queue.count()).toBe(2);
    expect(await queue.filter({ hasText: /other room|API/ }).count()).toBe(0);
    await elsewhere.approve();
    await presenter.screenshot('12-moderation');
    await expectAccessible(p, 'the presenter screen with the moderation queue open');
    await queue.filter({ hasText: 'bonuses' }).getByRole('button', { name: 'Approve' }).click();
    await queue.filter({ hasText: 'offsite' }).getByRole('button', { name: 'Dismiss' }).click();
    await poll(() => queue.count()).toBe(0);
    for (const participant of all) {
      await participant.page.locator('.questions li', { hasText: 'bonuses' }).waitFor();
      expect(await participant.page.locator('.questions li', { hasText: 'offsite' }).count()).toBe(0);
      expect(await participant.page.locator('.questions li', { hasText: /other room|API/ }).count()).toBe(0);
    }
    expect(await p.locator('.questions li').allTextContents()).toEqual([expect.stringContaining('bonuses')]);
    await grace.page.getByRole('button', { name: 'Upvote' }).click();
    await grace.page.getByRole('button', { name: 'Upvoted' }).waitFor();
    await p.locator('.questions li', { hasText: 'bonuses' }).getByText('▲ 1', { exact: true }).waitFor();
    await phone.page.locator('.questions li', { hasText: 'bonuses' }).getByText('▲ 1', { exact: true }).waitFor();
    await phone.screenshot('13-qa', { docs: 'audience-qa.png' });

    // "Go to" back to a slide answered earlier, then "show results": the presenter counts what the
    // audience is shown at once, without waiting for another answer.
    await p.getByRole('combobox').selectOption({ index: 1 });
    await onSlide(all, 'lunch');
    await expectCount(p.getByTestId('answer-count'), 3);
    await p.keyboard.press('r');
    for (const participant of all) await participant.page.getByTestId('results').waitFor();
    await poll(() => phone.page.locator('.total').getAttribute('data-total')).toBe('3');
    expect(await p.getByTestId('answer-count').getAttribute('data-count')).toBe('3');

    // "Go to" jumps back to the first slide.
    await p.getByRole('combobox').selectOption({ index: 0 });
    await onSlide(all, 'welcome');

    // The end: a summary with each participant's score and rank (equal scores share one).
    // End asks first: "Keep going" leaves the session as it was.
    await p.getByRole('button', { name: 'End…' }).click();
    await p.getByRole('button', { name: 'Keep going' }).click();
    await p.getByRole('button', { name: 'End…' }).click();
    await expectAccessible(p, 'the presenter screen asking to confirm the end');
    await p.getByRole('button', { name: 'End now' }).click();
    for (const participant of all) await participant.page.getByTestId('ended').waitFor();
    expect(await ada.page.getByTestId('final-score').textContent()).toBe('Your score: 1000 · rank #1');
    expect(await phone.page.getByTestId('final-score').textContent()).toBe('Your score: 1000 · rank #1');
    expect(await grace.page.getByTestId('final-score').textContent()).toBe('Your score: 0 · rank #3');
    await p.getByTestId('ended').waitFor();
    // The PIN is released: no PIN, no QR code; and no slide controls left to press.
    await p.getByTestId('ended-controls').waitFor();
    expect(await p.getByTestId('pin').count()).toBe(0);
    expect(await p.getByTestId('qr').count()).toBe(0);
    expect(await p.locator('footer button:enabled, footer select:enabled').count()).toBe(0);
    await presenter.screenshot('14-ended');
    await expectAccessible(p, 'the presenter screen after the end');
    // After `ended`, every page has closed its event stream.
    for (const [screen, open] of openStreams) await poll(() => open.size, screen.name).toBe(0);
    await phone.screenshot('14-ended', { docs: 'audience-ended.png' });

    // What the pages showed is what the API recorded.
    const results = await call('GET', `${t.api}/polls/${session.pollId}/results`, { apiKey: session.apiKey });
    const bySlide = Object.fromEntries(results.body.slides.map((slide: any) => [slide.slideId, slide]));
    expect(bySlide.lunch.totalAnswers).toBe(3);
    expect(bySlide.mood.totalAnswers).toBe(3);
    expect(bySlide.word.totalAnswers).toBe(3);

    // After the end, a stream request for the session answers 204, and a reloaded presenter
    // screen shows the end instead of reconnecting.
    const stream = await fetch(`${t.api}/sessions/${session.sessionId}/events`, {
      headers: { 'x-host-token': session.hostToken, 'last-event-id': '1000000' },
    });
    expect(stream.status).toBe(204);
    await p.reload();
    await p.getByTestId('ended').waitFor();
    // The host token of an ended session reads the session and its stream only: the summary, no deck.
    await p.getByText('3 participants took part').waitFor();
    await presenter.screenshot('14-ended-reloaded');
    expectNoPageErrors();
  });

  it('shows every moderation decision on every presenter tab: made on a screen, in another tab or through the API', async () => {
    const session = await createLiveSession(t, {
      questions: [{ id: 'ask', kind: 'qa', text: 'Questions for the panel?', moderated: true, allowUpvotes: true }],
    });
    const tabs = [await open('presenter-a', LAPTOP), await open('presenter-b', LAPTOP)];
    for (const tab of tabs) {
      await tab.page.goto(session.presenterUrl);
      await tab.page.getByTestId('waiting').waitFor();
    }
    const host = { 'x-host-token': session.hostToken };
    expect(
      (
        await call('POST', `${t.api}/sessions/${session.sessionId}/control`, {
          headers: host,
          body: { action: 'start' },
        })
      ).status,
    ).toBe(200);
    const joined = await call('POST', `${t.api}/live/${session.pin}/join`, { body: { name: 'Asker' } });
    const asked: Record<string, string> = {};
    for (const text of ['Who wrote the roadmap?', 'Is there a budget?', 'When do we ship?']) {
      const sent = await call('POST', `${t.api}/live/${session.pin}/answers`, {
        body: { slideId: 'ask', text },
        headers: { 'x-participant-token': joined.body.participantToken },
      });
      expect(sent.status, sent.text).toBe(201);
      asked[text] = sent.body.id;
    }
    for (const tab of tabs) await tab.page.getByTestId('moderation').locator('summary').click();
    const queueOf = (tab: WatchedPage) => tab.page.locator('.moderation li');
    const boardOf = (tab: WatchedPage) => tab.page.locator('.screen > .slide > .questions li .question-text');
    const expectEveryTab = async (pending: string[], approved: string[]) => {
      for (const tab of tabs) {
        await poll(() => queueOf(tab).locator('.question-text').allTextContents(), tab.name).toEqual(pending);
        await poll(() => tab.page.getByTestId('moderation').locator('summary').textContent(), tab.name).toContain(
          `Waiting for approval (${pending.length})`,
        );
        await poll(async () => (await boardOf(tab).allTextContents()).sort(), tab.name).toEqual([...approved].sort());
      }
    };
    await expectEveryTab(['When do we ship?', 'Is there a budget?', 'Who wrote the roadmap?'], []);

    // Approved on the first tab: the second follows without a reload.
    const [first, second] = tabs as [WatchedPage, WatchedPage];
    await queueOf(first).filter({ hasText: 'roadmap' }).getByRole('button', { name: 'Approve' }).click();
    await expectEveryTab(['When do we ship?', 'Is there a budget?'], ['Who wrote the roadmap?']);
    await second.screenshot('moderation-second-tab');

    // Dismissed with the host token through the API, approved with the API key: both tabs follow.
    const dismissed = await call(
      'PATCH',
      `${t.api}/sessions/${session.sessionId}/questions/${asked['Is there a budget?']}`,
      {
        headers: host,
        body: { status: 'dismissed' },
      },
    );
    expect(dismissed.status, dismissed.text).toBe(200);
    await expectEveryTab(['When do we ship?'], ['Who wrote the roadmap?']);
    const approved = await call('PATCH', `${t.api}/polls/${session.pollId}/questions/${asked['When do we ship?']}`, {
      apiKey: session.apiKey,
      body: { status: 'approved' },
    });
    expect(approved.status, approved.text).toBe(200);
    await expectEveryTab([], ['Who wrote the roadmap?', 'When do we ship?']);
    // Sent back to the queue through the API: it is waiting again on both.
    const requeued = await call('PATCH', `${t.api}/polls/${session.pollId}/questions/${asked['When do we ship?']}`, {
      apiKey: session.apiKey,
      body: { status: 'pending' },
    });
    expect(requeued.status, requeued.text).toBe(200);
    await expectEveryTab(['When do we ship?'], ['Who wrote the roadmap?']);
    await first.screenshot('moderation-first-tab');
    expectNoPageErrors();
  });

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
    const records = await call('GET', `${t.api}/respondents/u-42`, { apiKey: session.apiKey });
    expect(records.status, records.text).toBe(200);
    expect(records.body.data).toEqual([
      expect.objectContaining({ type: 'participant', name: 'Ada', respondentId: 'u-42', sessionId: session.sessionId }),
    ]);
    const erased = await call('DELETE', `${t.api}/respondents/u-42`, { apiKey: session.apiKey });
    expect(erased.body.erased).toMatchObject({ participants: 1 });
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
    const current = await call('GET', `${t.api}/sessions/${session.sessionId}`, {
      headers: { 'x-host-token': session.hostToken },
    });
    const reallyLeft = Math.ceil((Date.parse(current.body.slideStartedAt) + 60_000 - Date.now()) / 1000);
    expect(shown).toBeLessThanOrEqual(58);
    expect(Math.abs(shown - reallyLeft)).toBeLessThanOrEqual(1);
    expectNoPageErrors();
  });

  it('tells a presenter whose host token reads no answers so, instead of showing empty counts, and lets it run the session', async () => {
    const full = await createLiveSession(t, everyKindDeck(images.url));
    const key = await call('POST', `${t.api}/keys`, {
      apiKey: full.apiKey,
      body: { name: 'presenter only', scopes: ['sessions:write'] },
    });
    expect(key.status, key.text).toBe(201);
    const session = await call('POST', `${t.api}/sessions`, {
      apiKey: key.body.secret,
      body: { pollId: full.pollId },
    });
    expect(session.status, session.text).toBe(201);
    const presenter = await open('presenter-no-answers', LAPTOP);
    await presenter.page.goto(`${t.url}/present/${session.body.id}#hostToken=${session.body.hostToken}`);
    await presenter.page.getByRole('button', { name: /Start/ }).click();
    // The first slide is a content slide (no answers anyway); the next one takes votes. It still runs
    // the session.
    await presenter.page.getByRole('button', { name: /Next/ }).click();
    await presenter.waitFor(presenter.page.getByTestId('answers-hidden'));
    expect(await presenter.page.getByTestId('answer-count').count()).toBe(0);
    await presenter.screenshot('17-presenter-without-answers');
    await poll(
      async () =>
        (await call('GET', `${t.api}/sessions/${session.body.id}`, { apiKey: full.apiKey })).body.currentSlideIndex,
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
    const late = await call('POST', `${t.api}/live/${session.pin}/answers`, {
      body: { slideId: 'quick', optionIds: ['four'] },
      headers: { 'x-participant-token': await participantToken(linus) },
    });
    expect(late.status).toBe(409);
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

/** The participant token the page keeps in its storage. */
async function participantToken(participant: WatchedPage): Promise<string> {
  const stored = await participant.page.evaluate(() => {
    const storage = (
      globalThis as unknown as {
        localStorage: { key(i: number): string | null; getItem(k: string): string | null; length: number };
      }
    ).localStorage;
    for (let i = 0; i < storage.length; i++) {
      const key = storage.key(i);
      if (key?.startsWith('pollkit.participant.')) return storage.getItem(key);
    }
    return null;
  });
  return (JSON.parse(stored ?? '{}') as { token: string }).token;
}

async function control(session: LiveSessionFixture, action: string, slideIndex?: number): Promise<void> {
  // Sent on a new connection: the test's own kept-alive one may be among those the server dropped.
  const res = await call('POST', `${t.api}/sessions/${session.sessionId}/control`, {
    headers: { 'x-host-token': session.hostToken, connection: 'close' },
    body: slideIndex === undefined ? { action } : { action, slideIndex },
  });
  expect(res.status, res.text).toBe(200);
}

async function participantCount(session: LiveSessionFixture): Promise<number> {
  const res = await call('GET', `${t.api}/sessions/${session.sessionId}`, {
    headers: { 'x-host-token': session.hostToken },
  });
  return res.body.participantCount;
}

async function answerCount(session: LiveSessionFixture, slideId: string): Promise<number> {
  const res = await call('GET', `${t.api}/polls/${session.pollId}/results`, { apiKey: session.apiKey });
  return res.body.slides.find((slide: { slideId: string }) => slide.slideId === slideId).totalAnswers;
}

/** The `data-option-id` of each element (run in the page). */
function ids(items: { getAttribute(name: string): string | null }[]): (string | null)[] {
  return items.map((item) => item.getAttribute('data-option-id'));
}

async function expectCount(locator: Locator, count: number): Promise<void> {
  await poll(() => locator.getAttribute('data-count')).toBe(String(count));
}

async function expectBar(page: WatchedPage['page'], optionId: string, count: number): Promise<void> {
  await poll(() => page.locator(`[data-option-id=${optionId}] .bar-count`).getAttribute('data-count')).toBe(
    String(count),
  );
}

async function expectScore(participant: WatchedPage, score: number): Promise<void> {
  await poll(() => participant.page.getByTestId('score').getAttribute('data-score')).toBe(String(score));
}

async function onSlide(participants: WatchedPage[], slideId: string): Promise<void> {
  for (const participant of participants) await participant.page.locator(`[data-slide-id=${slideId}]`).waitFor();
}

async function choose(participant: WatchedPage, labels: string[]): Promise<void> {
  for (const label of labels) await participant.page.getByText(label, { exact: true }).click();
  await participant.page.getByRole('button', { name: 'Send' }).click();
  await participant.page.getByTestId('answer-received').waitFor();
}

async function rate(participant: WatchedPage, ratings: Record<string, number>): Promise<void> {
  for (const [statement, value] of Object.entries(ratings)) {
    await participant.page
      .getByRole('radiogroup', { name: statement })
      .getByRole('radio', { name: String(value), exact: true })
      .check();
  }
  await participant.page.getByRole('button', { name: 'Send' }).click();
  await participant.page.getByTestId('answer-received').waitFor();
}

async function rankingOrder(participant: WatchedPage): Promise<(string | null)[]> {
  return participant.page.locator('ol.ranking li').evaluateAll(ids);
}

/** Drags an item by its handle above the first one, with the mouse (pointer events). */
async function dragToTop(participant: WatchedPage, optionId: string): Promise<void> {
  const page = participant.page;
  const handle = page.locator(`ol.ranking li[data-option-id=${optionId}] .handle`);
  const first = page.locator('ol.ranking li').first();
  const from = (await handle.boundingBox())!;
  const to = (await first.boundingBox())!;
  await page.mouse.move(from.x + from.width / 2, from.y + from.height / 2);
  await page.mouse.down();
  for (let step = 1; step <= 8; step++) {
    const y = from.y + from.height / 2 + ((to.y + 4 - (from.y + from.height / 2)) * step) / 8;
    await page.mouse.move(from.x + from.width / 2, y);
  }
  await page.mouse.up();
}

async function say(participant: WatchedPage, text: string): Promise<void> {
  await participant.page.getByLabel('Your answer').fill(text);
  await participant.page.getByRole('button', { name: 'Send' }).click();
  await participant.page.getByTestId('answer-received').waitFor();
}

/**
 * A question asked in another session of the fixture's poll (over HTTP, by a participant there) and
 * one asked through the API: `approve()` approves both where they were asked.
 */
async function questionsElsewhere(session: LiveSessionFixture, inRoom: string, throughApi: string) {
  const auth = { apiKey: session.apiKey };
  const other = await call('POST', `${t.api}/sessions`, { ...auth, body: { pollId: session.pollId } });
  const poll = await call('GET', `${t.api}/polls/${session.pollId}`, auth);
  const askIndex = (poll.body.content.questions as { id: string }[]).findIndex((slide) => slide.id === 'ask');
  for (const body of [{ action: 'start' }, { action: 'goto', slideIndex: askIndex }]) {
    const moved = await call('POST', `${t.api}/sessions/${other.body.id}/control`, { ...auth, body });
    expect(moved.status, moved.text).toBe(200);
  }
  const joined = await call('POST', `${t.api}/live/${other.body.pin}/join`, { body: { name: 'Elsewhere' } });
  const asked = await call('POST', `${t.api}/live/${other.body.pin}/answers`, {
    body: { slideId: 'ask', text: inRoom },
    headers: { 'x-participant-token': joined.body.participantToken },
  });
  expect(asked.status, asked.text).toBe(201);
  const viaApi = await call('POST', `${t.api}/polls/${session.pollId}/responses`, {
    ...auth,
    body: { voterId: 'api-voter', slideId: 'ask', text: throughApi },
  });
  expect(viaApi.status, viaApi.text).toBe(201);
  return {
    approve: async () => {
      for (const [path, id] of [
        [`sessions/${other.body.id}`, asked.body.id],
        [`polls/${session.pollId}`, viaApi.body.id],
      ]) {
        const approved = await call('PATCH', `${t.api}/${path}/questions/${id}`, {
          ...auth,
          body: { status: 'approved' },
        });
        expect(approved.status, approved.text).toBe(200);
      }
    },
  };
}

async function ask(participant: WatchedPage, text: string): Promise<void> {
  await participant.page.getByLabel('Your question').fill(text);
  await participant.page.getByRole('button', { name: 'Ask' }).click();
  await participant.page.getByTestId('answer-received').waitFor();
}
