import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  chromiumAvailable,
  expectAccessible,
  LAPTOP,
  PHONE,
  poll,
  TABLET,
  type WatchedPage,
} from '../support/browser.js';
import { createLiveSession, everyKindDeck } from '../support/live-deck.js';
import {
  ask,
  choose,
  dragToTop,
  expectBar,
  expectCount,
  expectNoPageErrors,
  expectScore,
  ids,
  images,
  onSlide,
  open,
  pages,
  questionsElsewhere,
  rankingOrder,
  rate,
  say,
  startLivePages,
  stopLivePages,
  t,
} from '../support/live-pages.js';
import { expectOk, expectStatus, slideOf, testClient } from '../support/test-client.js';

const api = testClient(() => t.api);

/**
 * The audience page and the presenter screen in a real browser (Debian's Chromium through
 * playwright-core) against a real server: a presenter and three participants (one on a 360-px
 * phone) through a deck with every slide kind, and every moderation decision shown on every
 * presenter tab. Every page's console must stay free of errors. Screenshots of each step go to
 * test-artifacts/screenshots (gitignored; CI keeps them), and with POLLKIT_DOCS_SCREENSHOTS=1 the
 * ones docs/live-sessions.md shows go to docs/images. When something goes wrong or comes late:
 * live-pages.edge-cases.browser.test.ts.
 */

describe.skipIf(!chromiumAvailable)('the audience page and the presenter screen, in Chromium', () => {
  beforeAll(startLivePages);
  afterAll(stopLivePages);

  // A failed test leaves a picture of every screen as it was; then each test's pages close, so
  // that nothing of one test (an open stream) lives on into the next.
  afterEach(async (context) => pages.closeAll(context.task.result?.state === 'fail', 'failed'));

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
    const results = await api.request('GET /polls/{id}/results', {
      params: { id: session.pollId },
      apiKey: session.apiKey,
    });
    const { slides } = expectOk(results);
    expect(slideOf(slides, 'lunch', 'multiple_choice').totalAnswers).toBe(3);
    expect(slideOf(slides, 'mood', 'scale').totalAnswers).toBe(3);
    expect(slideOf(slides, 'word', 'open_ended').totalAnswers).toBe(3);

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
        await api.request('POST /sessions/{id}/control', {
          params: { id: session.sessionId },
          headers: host,
          body: { action: 'start' },
        })
      ).status,
    ).toBe(200);
    const joined = await api.request('POST /live/{pin}/join', {
      params: { pin: session.pin },
      body: { name: 'Asker' },
    });
    const texts = ['Who wrote the roadmap?', 'Is there a budget?', 'When do we ship?'] as const;
    // Filled in below, one id for each of the texts.
    const asked = {} as Record<(typeof texts)[number], string>;
    for (const text of texts) {
      const sent = await api.request('POST /live/{pin}/answers', {
        params: { pin: session.pin },
        body: { slideId: 'ask', text },
        headers: { 'x-participant-token': expectOk(joined).participantToken },
      });
      expectStatus(sent, 201);
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
    const dismissed = await api.request('PATCH /sessions/{id}/questions/{questionId}', {
      params: { id: session.sessionId, questionId: asked['Is there a budget?'] },
      headers: host,
      body: { status: 'dismissed' },
    });
    expect(dismissed.status, dismissed.text).toBe(200);
    await expectEveryTab(['When do we ship?'], ['Who wrote the roadmap?']);
    const moderateByKey = (status: 'approved' | 'pending') =>
      api.request('PATCH /polls/{id}/questions/{questionId}', {
        params: { id: session.pollId, questionId: asked['When do we ship?'] },
        apiKey: session.apiKey,
        body: { status },
      });
    const approved = await moderateByKey('approved');
    expect(approved.status, approved.text).toBe(200);
    await expectEveryTab([], ['Who wrote the roadmap?', 'When do we ship?']);
    // Sent back to the queue through the API: it is waiting again on both.
    const requeued = await moderateByKey('pending');
    expect(requeued.status, requeued.text).toBe(200);
    await expectEveryTab(['When do we ship?'], ['Who wrote the roadmap?']);
    await first.screenshot('moderation-first-tab');
    expectNoPageErrors();
  });
});
