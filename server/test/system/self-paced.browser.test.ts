import { mkdir } from 'node:fs/promises';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  chromiumAvailable,
  LAPTOP,
  launchChromium,
  PagePool,
  PHONE,
  poll,
  type WatchedPage,
} from '../support/browser.js';
import { type ContentInput, condition } from '../support/decks.js';
import { UNLIMITED } from '../support/limits.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { expectStatus, testClient } from '../support/test-client.js';

/**
 * A self-paced session (`pace: "audience"`) in a real browser (Debian's Chromium through
 * playwright-core) against a real server: two participants on 360-px phones open the session's
 * link, walk the deck at their own pace down different branches (tea skips the coffee slide), one
 * skips a slide with Skip, one reloads mid-walk and resumes on the same slide, both complete; the
 * presenter screen shows where everyone is as they go. A second session shows scores on completion
 * and loses an answer's response and the network on the way. Screenshots go to
 * test-artifacts/screenshots, and the ones to look at to /work/screenshots/self-paced-*.png when that
 * folder can be made (SELF_PACED_SCREENSHOTS names another).
 */

const SHOTS = process.env.SELF_PACED_SCREENSHOTS ?? '/work/screenshots';

let t: TestServer;
const api = testClient(() => t.api);
let browser: Browser;
const pages = new PagePool(() => browser);
const open = pages.open;

/** Tea or coffee: tea jumps over the coffee question; then a content slide, a quiz and a rating for all. */
function branchingDeck(...extraSlides: ContentInput['questions']): ContentInput {
  return {
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
        id: 'coffee',
        kind: 'multiple_choice',
        text: 'Which coffee?',
        type: 'single',
        options: [
          { id: 'espresso', label: 'Espresso' },
          { id: 'latte', label: 'Latte' },
        ],
      },
      { id: 'break', kind: 'content', text: 'Thanks! Now a quick quiz.' },
      {
        id: 'capital',
        kind: 'quiz',
        text: 'What is the capital of Australia?',
        options: [
          { id: 'sydney', label: 'Sydney' },
          { id: 'canberra', label: 'Canberra' },
        ],
        correctOptionIds: ['canberra'],
        timeLimitSec: 90,
        points: 1000,
        speedBonus: false,
      },
      { id: 'rating', kind: 'scale', text: 'How was this break?', min: 1, max: 5 },
      ...extraSlides,
    ],
  };
}

interface SelfPacedFixture {
  apiKey: string;
  pollId: string;
  sessionId: string;
  pin: string | null;
  hostToken: string;
  presenterUrl: string;
  joinUrl: string;
}

/** A published, branched poll and a pending self-paced session of it, made through the API. */
async function createSelfPaced(
  options: { pin?: boolean; showScores?: 'at_end' | 'on_completion' } = {},
  content: ContentInput = branchingDeck(),
) {
  const { apiKey } = await t.workspace('pro');
  const created = await api.request('POST /polls', { apiKey, body: { title: 'Coffee break', content } });
  expectStatus(created, 201);
  const pollId: string = created.body.id;
  const published = await api.request('PATCH /polls/{id}', {
    params: { id: pollId },
    apiKey,
    body: { branching: { conditions: [condition('tea', 'drink', 'equals', 'tea', 'break')] }, publish: true },
  });
  expectStatus(published, 200);
  const session = await api.request('POST /sessions', { apiKey, body: { pollId, pace: 'audience', ...options } });
  expectStatus(session, 201);
  const { id, pin, hostToken, joinUrl } = session.body;
  return {
    apiKey,
    pollId,
    sessionId: id,
    pin,
    hostToken,
    presenterUrl: `${t.url}/present/${id}#hostToken=${hostToken}`,
    joinUrl,
  } satisfies SelfPacedFixture;
}

describe.skipIf(!chromiumAvailable)('a self-paced session on the audience page and the presenter screen', () => {
  beforeAll(async () => {
    // Every page here comes from 127.0.0.1 (see live-pages.*.browser.test.ts).
    t = await startTestServer(UNLIMITED);
    browser = await launchChromium();
    await mkdir(SHOTS, { recursive: true }).catch(() => {});
  });

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  afterEach(async (context) => pages.closeAll(context.task.result?.state === 'fail', 'self-paced-failed'));

  function expectNoPageErrors() {
    pages.expectNoErrors();
  }

  it('walks two participants down different branches at their own pace while the presenter watches', async () => {
    const session = await createSelfPaced();
    expect(session.joinUrl).toMatch(/\/join\/lnk_[A-Za-z0-9_-]{43}$/);
    // A screen tall enough for the whole progress view in one screenshot.
    const presenter = await open('sp-presenter', { viewport: { width: 1280, height: 1100 } });
    const ada = await open('sp-ada', PHONE);
    const grace = await open('sp-grace', PHONE);
    const p = presenter.page;

    // The presenter screen: the link and its QR code, the PIN beside them; Start and End only.
    await p.goto(session.presenterUrl);
    await p.getByTestId('waiting').waitFor();
    expect(await p.getByTestId('join-link').textContent()).toBe(session.joinUrl.replace(/^https?:\/\//, ''));
    expect(await p.getByTestId('pin').textContent()).toBe(`${session.pin!.slice(0, 3)} ${session.pin!.slice(3)}`);
    expect(decodeURIComponent((await p.getByTestId('qr').getAttribute('src')) ?? '')).toContain('<svg');
    expect(await p.getByRole('toolbar').getByRole('button').allTextContents()).toEqual(['Start →', 'End…']);
    await shot(p, 'self-paced-presenter-pending');

    // Both open the link: a name to give, no PIN to type.
    for (const [participant, name] of [
      [ada, 'Ada'],
      [grace, 'Grace'],
    ] as const) {
      await participant.page.goto(session.joinUrl);
      expect(await participant.page.getByLabel('PIN').count()).toBe(0);
      await participant.page.getByLabel(/Your name/).fill(name);
      await participant.page.getByRole('button', { name: 'Join' }).click();
      await participant.page.getByTestId('waiting').waitFor();
      expect(participant.page.url()).toBe(session.joinUrl);
    }
    await expectData(p.getByTestId('participant-count'), 'count', 2);

    // Start: everyone on the first slide, step 1 of the whole deck.
    await p.getByRole('button', { name: /Start/ }).click();
    await p.getByTestId('progress-view').waitFor();
    for (const participant of [ada, grace]) {
      await onSlide(participant, 'drink');
      await expectProgress(participant, 1, 5);
    }
    await expectHere(p, 'drink', 2);
    await expectNoOverflow(ada.page);
    await shot(ada.page, 'self-paced-phone-first-slide');

    // Ada chooses tea: the skip logic jumps over the coffee question, and the path is one shorter.
    await choose(ada, 'Tea');
    await onSlide(ada, 'break');
    await expectProgress(ada, 2, 4);
    expect(await ada.page.getByRole('button', { name: 'Skip' }).count()).toBe(0);
    await shot(ada.page, 'self-paced-phone-content-next');
    // Grace chooses coffee: on to the coffee question, the path as long as the deck.
    await choose(grace, 'Coffee');
    await onSlide(grace, 'coffee');
    await expectProgress(grace, 2, 5);
    await expectHere(p, 'drink', 0);
    await expectHere(p, 'coffee', 1);
    await expectHere(p, 'break', 1);
    await expectData(p.locator('[data-slide-id=drink]').first(), 'answers', 2);
    await expectBar(p, 'drink', 'tea', 1);
    await expectBar(p, 'drink', 'coffee', 1);
    await shot(grace.page, 'self-paced-phone-slide-with-progress');

    // Ada: Next past the content slide, to the quiz with her own countdown.
    await ada.page.getByRole('button', { name: 'Next' }).click();
    await onSlide(ada, 'capital');
    await expectProgress(ada, 3, 4);
    const adaSeconds = Number(await ada.page.getByRole('timer').textContent());
    expect(adaSeconds).toBeGreaterThan(80);
    expect(adaSeconds).toBeLessThanOrEqual(90);
    await shot(ada.page, 'self-paced-phone-quiz');
    await choose(ada, 'Canberra');
    await onSlide(ada, 'rating');
    await expectProgress(ada, 4, 4);
    // She skips the rating: the walk is over.
    await ada.page.getByRole('button', { name: 'Skip' }).click();
    await ada.page.getByTestId('completed').waitFor();
    expect(await ada.page.getByTestId('answered-count').textContent()).toBe('2');
    expect(await ada.page.getByTestId('skipped-count').textContent()).toBe('1');
    // Scores come at the end (the default `showScores`): none yet, and none in the top bar.
    await ada.page.getByTestId('scores-later').waitFor();
    expect(await ada.page.getByTestId('score').count()).toBe(0);
    await expectNoOverflow(ada.page);
    await shot(ada.page, 'self-paced-phone-completed');
    await expectData(p.getByTestId('completed-count'), 'count', 1);
    await expectData(p.getByTestId('done-row'), 'completed', 1);

    // Grace answers the coffee question, then reloads on the quiz: the same slide, the same step,
    // the countdown still running from when she reached it (not restarted by the reload).
    await choose(grace, 'Latte');
    await onSlide(grace, 'break');
    await expectProgress(grace, 3, 5);
    await grace.page.getByRole('button', { name: 'Next' }).click();
    await onSlide(grace, 'capital');
    await expectProgress(grace, 4, 5);
    await expectHere(p, 'capital', 1);
    await shot(p, 'self-paced-presenter-progress');
    await grace.page.waitForTimeout(2_200);
    await grace.page.reload();
    await onSlide(grace, 'capital');
    await expectProgress(grace, 4, 5);
    expect(await grace.page.getByTestId('me-name').textContent()).toBe('Grace');
    expect(Number(await grace.page.getByRole('timer').textContent())).toBeLessThanOrEqual(88);
    expect(await participantCount(session)).toBe(2);
    await choose(grace, 'Sydney');
    await onSlide(grace, 'rating');
    await expectProgress(grace, 5, 5);
    await grace.page.getByRole('radio', { name: '4', exact: true }).check();
    await grace.page.getByRole('button', { name: 'Send' }).click();
    await grace.page.getByTestId('completed').waitFor();
    expect(await grace.page.getByTestId('answered-count').textContent()).toBe('4');
    expect(await grace.page.getByTestId('skipped-count').textContent()).toBe('0');

    // The presenter saw every step: nobody left on a slide, both completed, every answer counted.
    await expectData(p.getByTestId('completed-count'), 'count', 2);
    for (const slideId of ['drink', 'coffee', 'break', 'capital', 'rating']) await expectHere(p, slideId, 0);
    await expectData(p.locator('[data-slide-id=capital]').first(), 'answers', 2);
    await expectData(p.locator('[data-slide-id=rating]').first(), 'answers', 1);
    await expectBar(p, 'coffee', 'latte', 1);
    await shot(p, 'self-paced-presenter-completed');

    // The end: both see the summary with their score and rank, and which quiz answer was right.
    await p.getByRole('button', { name: 'End…' }).click();
    await p.getByRole('button', { name: 'End now' }).click();
    for (const participant of [ada, grace]) await participant.page.getByTestId('ended').waitFor();
    expect(await ada.page.getByTestId('final-score').textContent()).toBe('Your score: 1000 · rank #1');
    expect(await grace.page.getByTestId('final-score').textContent()).toBe('Your score: 0 · rank #2');
    expect(await ada.page.getByTestId('quiz-verdict').textContent()).toBe('✓ Right');
    expect(await grace.page.getByTestId('quiz-verdict').textContent()).toBe('✗ Not this time');
    await grace.page.getByText('The answer: Canberra').waitFor();
    await expectNoOverflow(grace.page);
    await shot(grace.page, 'self-paced-phone-ended');
    await p.getByTestId('ended').waitFor();
    // The presenter's summary: every slide's results, the quiz's right answer marked now.
    await expectBar(p, 'capital', 'canberra', 1);
    expect(await p.locator('.result-card[data-slide-id=capital] [data-option-id=canberra].bar-correct').count()).toBe(
      1,
    );
    await shot(p, 'self-paced-presenter-ended');

    // What the pages showed is what the API recorded.
    const results = await api.request('GET /polls/{id}/results', {
      params: { id: session.pollId },
      apiKey: session.apiKey,
    });
    expectStatus(results, 200);
    const totals = Object.fromEntries(
      results.body.slides.map((slide) => [slide.slideId, 'totalAnswers' in slide ? slide.totalAnswers : undefined]),
    );
    expect(totals).toMatchObject({ drink: 2, coffee: 1, capital: 2, rating: 1 });
    expectNoPageErrors();
  });

  it('shows score, rank and the right answers on completion; an answer whose response was lost, or sent offline, counts once', async () => {
    const session = await createSelfPaced(
      { pin: false, showScores: 'on_completion' },
      branchingDeck({ id: 'ask', kind: 'qa', text: 'Anything to ask the organisers?', moderated: false }),
    );
    expect(session.pin).toBeNull();
    const presenter = await open('sp2-presenter', LAPTOP);
    const linus = await open('sp2-linus', PHONE);
    await presenter.page.goto(session.presenterUrl);
    await presenter.page.getByTestId('waiting').waitFor();
    // No PIN to show: the link alone.
    expect(await presenter.page.getByTestId('pin').count()).toBe(0);
    await presenter.page.getByTestId('join-link').waitFor();
    await presenter.page.keyboard.press('ArrowRight');
    await presenter.page.getByTestId('progress-view').waitFor();

    // Joining a session already under way: straight onto the first slide.
    await linus.page.goto(session.joinUrl);
    await linus.page.getByRole('button', { name: 'Join' }).click();
    await onSlide(linus, 'drink');

    // The answer reaches the server, its response does not: the page sends it again with the same
    // Idempotency-Key; it counts once and moves him on once.
    await linus.expectNetworkErrors(/ERR_CONNECTION_RESET/, async () => {
      await linus.page.route(
        '**/api/v1/live/*/answers',
        async (route) => {
          await route.fetch();
          await route.abort('connectionreset');
        },
        { times: 1 },
      );
      await choose(linus, 'Coffee');
      await onSlide(linus, 'coffee');
    });
    await expectProgress(linus, 2, 6);
    expect(await answerCount(session, 'drink')).toBe(1);

    // Offline: the Skip waits, says so, and goes when the network is back.
    await linus.expectNetworkErrors(/ERR_INTERNET_DISCONNECTED/, async () => {
      await linus.page.context().setOffline(true);
      await linus.page.getByRole('button', { name: 'Skip' }).click();
      await linus.page.getByTestId('advance-queued').waitFor();
      await linus.page.context().setOffline(false);
      await onSlide(linus, 'break');
    });
    await expectProgress(linus, 3, 6);
    await linus.page.getByRole('button', { name: 'Next' }).click();
    await onSlide(linus, 'capital');

    // Offline again, answering the quiz: "not sent yet", then sent, and on to the next slide.
    await linus.expectNetworkErrors(/ERR_INTERNET_DISCONNECTED/, async () => {
      await linus.page.context().setOffline(true);
      await linus.page.getByText('Canberra', { exact: true }).click();
      await linus.page.getByRole('button', { name: 'Send' }).click();
      await linus.page.getByTestId('answer-queued').waitFor();
      await linus.page.context().setOffline(false);
      await onSlide(linus, 'rating');
    });
    expect(await answerCount(session, 'capital')).toBe(1);
    await linus.page.getByRole('radio', { name: '5', exact: true }).check();
    await linus.page.getByRole('button', { name: 'Send' }).click();

    // Q&A: Skip until a question is asked, then Next; asking keeps him on the slide.
    await onSlide(linus, 'ask');
    await expectProgress(linus, 6, 6);
    await linus.page.getByRole('button', { name: 'Skip' }).waitFor();
    await linus.page.getByLabel('Your question').fill('Is there more coffee?');
    await linus.page.getByRole('button', { name: 'Ask' }).click();
    await linus.page.getByTestId('answer-received').waitFor();
    await shot(linus.page, 'self-paced-phone-qa-asked');
    await linus.page.getByRole('button', { name: 'Next' }).click();

    // Completed, with scores shown on completion: score, rank, and the quiz answer marked right.
    await linus.page.getByTestId('completed').waitFor();
    await poll(() => linus.page.getByTestId('final-score').textContent()).toBe('Your score: 1000 · rank #1');
    expect(await linus.page.getByTestId('quiz-verdict').textContent()).toBe('✓ Right · 1000 points');
    expect(await linus.page.getByTestId('answered-count').textContent()).toBe('4');
    expect(await linus.page.getByTestId('skipped-count').textContent()).toBe('1');
    await expectData(linus.page.getByTestId('score'), 'score', 1000);
    await expectNoOverflow(linus.page);
    await shot(linus.page, 'self-paced-phone-completed-with-score');

    // A reload after completing shows the completion again, not the first slide.
    await linus.page.reload();
    await linus.page.getByTestId('completed').waitFor();
    await poll(() => linus.page.getByTestId('final-score').textContent()).toBe('Your score: 1000 · rank #1');
    await expectData(presenter.page.getByTestId('completed-count'), 'count', 1);
    expectNoPageErrors();
  });

  it('reads the place again, without an error, when another tab of the same participant walked on', async () => {
    const session = await createSelfPaced();
    await api.request('POST /sessions/{id}/control', {
      params: { id: session.sessionId },
      headers: { 'x-host-token': session.hostToken },
      body: { action: 'start' },
    });
    const first = await open('sp3-first-tab', PHONE);
    await first.page.goto(session.joinUrl);
    await first.page.getByRole('button', { name: 'Join' }).click();
    await onSlide(first, 'drink');
    // A second tab of the same browser: the same participant (the token in local storage), whose
    // stream is cut so that it cannot hear of the first tab's steps.
    const second = await first.page.context().newPage();
    const secondTab: WatchedPage = { ...first, page: second, name: 'sp3-second-tab', errors: [] };
    second.on('pageerror', (error) => secondTab.errors.push(`uncaught: ${error.message}`));
    await second.route('**/api/v1/live/*/events', (route) => route.abort('connectionrefused'));
    await second.goto(session.joinUrl);
    await onSlide(secondTab, 'drink');

    await choose(first, 'Coffee');
    await onSlide(first, 'coffee');
    // The second tab answers the slide the participant has left: 409 slide_not_active, and the page
    // moves to where the participant really is instead of showing an error.
    await second.getByText('Tea', { exact: true }).click();
    await second.getByRole('button', { name: 'Send' }).click();
    await onSlide(secondTab, 'coffee');
    await expectProgress(secondTab, 2, 5);
    expect(await second.locator('.status-error').count()).toBe(0);
    expect(await answerCount(session, 'drink')).toBe(1);
    expect(secondTab.errors).toEqual([]);
  });
});

/** The screen as its user sees it (a sticky footer stays at the bottom, as it does in a full-page capture it would not). */
async function shot(page: Page, name: string): Promise<void> {
  // Bars grow over 0.3 s (styles.css): the picture shows where they end.
  await page.waitForTimeout(400);
  await page.screenshot({ path: `${SHOTS}/${name}.png` }).catch(() => {});
}

async function participantCount(session: SelfPacedFixture): Promise<number> {
  const res = await api.request('GET /sessions/{id}', {
    params: { id: session.sessionId },
    headers: { 'x-host-token': session.hostToken },
  });
  expectStatus(res, 200);
  return res.body.participantCount;
}

async function answerCount(session: SelfPacedFixture, slideId: string): Promise<number> {
  const res = await api.request('GET /polls/{id}/results', { params: { id: session.pollId }, apiKey: session.apiKey });
  expectStatus(res, 200);
  const slide = res.body.slides.find((s) => s.slideId === slideId);
  // An answerable slide, as every caller names: a content slide counts no answers.
  return (slide as Extract<typeof slide, { totalAnswers: number }>).totalAnswers;
}

async function expectData(locator: ReturnType<Page['locator']>, name: string, value: number | string): Promise<void> {
  await poll(() => locator.getAttribute(`data-${name}`)).toBe(String(value));
}

async function expectProgress(participant: WatchedPage, step: number, of: number): Promise<void> {
  const progress = participant.page.getByTestId('progress');
  await poll(() => progress.textContent()).toBe(`${step} of ${of}`);
  expect(await progress.getAttribute('data-of')).toBe(String(of));
}

/** The presenter's count of participants standing on a slide now. */
async function expectHere(page: Page, slideId: string, count: number): Promise<void> {
  await expectData(page.locator(`.slide-progress [data-slide-id=${slideId}]`), 'participants', count);
}

async function expectBar(page: Page, slideId: string, optionId: string, count: number): Promise<void> {
  await poll(() =>
    page
      .locator(`.result-card[data-slide-id=${slideId}] [data-option-id=${optionId}] .bar-count`)
      .getAttribute('data-count'),
  ).toBe(String(count));
}

async function onSlide(participant: WatchedPage, slideId: string): Promise<void> {
  await participant.page.locator(`[data-slide-id=${slideId}]`).waitFor();
}

/** Picks an option and sends it: a self-paced page then moves straight on. */
async function choose(participant: WatchedPage, label: string): Promise<void> {
  await participant.page.getByText(label, { exact: true }).click();
  await participant.page.getByRole('button', { name: 'Send' }).click();
}

/** No horizontal scrolling on the phone: nothing wider than the viewport. */
async function expectNoOverflow(page: Page): Promise<void> {
  const { scroll, width } = await page.evaluate(() => {
    const root = (globalThis as unknown as { document: { documentElement: { scrollWidth: number } } }).document
      .documentElement;
    return { scroll: root.scrollWidth, width: (globalThis as unknown as { innerWidth: number }).innerWidth };
  });
  expect(scroll).toBeLessThanOrEqual(width);
}
