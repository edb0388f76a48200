import type { Browser, Locator } from 'playwright-core';
import { expect } from 'vitest';
import { launchChromium, PagePool, poll, type WatchedPage } from './browser.js';
import { type ControlAction, type LiveSessionFixture, startImageHost } from './live-deck.js';
import { startTestServer, type TestServer } from './server.js';
import { type BodyOf, expectOk, expectStatus, type OutputOf, testClient } from './test-client.js';

/**
 * What the browser tests of the audience page and the presenter screen
 * (server/test/system/live-pages.*.browser.test.ts) share: a server, an image host and Chromium,
 * started in the file's beforeAll (`startLivePages`), the pool of pages the tests open, and the
 * steps a participant or a presenter takes. The state below is the one file's.
 */

export let t: TestServer;
export let images: Awaited<ReturnType<typeof startImageHost>>;
let browser: Browser;
const api = testClient(() => t.api);
export const pages = new PagePool(() => browser);
export const open = pages.open;

/** The file's beforeAll. */
export async function startLivePages(): Promise<void> {
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
}

/** The file's afterAll. */
export async function stopLivePages(): Promise<void> {
  await browser?.close();
  await t?.close();
  await images?.close();
}

// Checked at the end of each test: a page that logged an error failed, whatever it showed.
export function expectNoPageErrors() {
  pages.expectNoErrors();
}

/** The participant token the page keeps in its storage. */
export async function participantToken(participant: WatchedPage): Promise<string> {
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

export async function control(session: LiveSessionFixture, action: ControlAction, slideIndex?: number): Promise<void> {
  // Sent on a new connection: the test's own kept-alive one may be among those the server dropped.
  const res = await api.request('POST /sessions/{id}/control', {
    params: { id: session.sessionId },
    headers: { 'x-host-token': session.hostToken, connection: 'close' },
    body: slideIndex === undefined ? { action } : { action, slideIndex },
  });
  expectStatus(res, 200);
}

export async function participantCount(session: LiveSessionFixture): Promise<number> {
  const res = await api.request('GET /sessions/{id}', {
    params: { id: session.sessionId },
    headers: { 'x-host-token': session.hostToken },
  });
  return expectOk(res).participantCount;
}

/** A slide's results, of a kind that counts answers (every kind but Q&A, which counts questions). */
type AnsweredSlideResults = Extract<OutputOf<'GET /polls/{id}/results'>['slides'][number], { totalAnswers: number }>;

/** The answers slide `slideId` (not a Q&A slide) has had; a slide the results do not have fails the test. */
export async function answerCount(session: LiveSessionFixture, slideId: string): Promise<number> {
  const res = await api.request('GET /polls/{id}/results', { params: { id: session.pollId }, apiKey: session.apiKey });
  const slide = expectOk(res).slides.find((each) => each.slideId === slideId) as AnsweredSlideResults;
  return slide.totalAnswers;
}

/** The `data-option-id` of each element (run in the page). */
export function ids(items: { getAttribute(name: string): string | null }[]): (string | null)[] {
  return items.map((item) => item.getAttribute('data-option-id'));
}

export async function expectCount(locator: Locator, count: number): Promise<void> {
  await poll(() => locator.getAttribute('data-count')).toBe(String(count));
}

export async function expectBar(page: WatchedPage['page'], optionId: string, count: number): Promise<void> {
  await poll(() => page.locator(`[data-option-id=${optionId}] .bar-count`).getAttribute('data-count')).toBe(
    String(count),
  );
}

export async function expectScore(participant: WatchedPage, score: number): Promise<void> {
  await poll(() => participant.page.getByTestId('score').getAttribute('data-score')).toBe(String(score));
}

export async function onSlide(participants: WatchedPage[], slideId: string): Promise<void> {
  for (const participant of participants) await participant.page.locator(`[data-slide-id=${slideId}]`).waitFor();
}

export async function choose(participant: WatchedPage, labels: string[]): Promise<void> {
  for (const label of labels) await participant.page.getByText(label, { exact: true }).click();
  await participant.page.getByRole('button', { name: 'Send' }).click();
  await participant.page.getByTestId('answer-received').waitFor();
}

export async function rate(participant: WatchedPage, ratings: Record<string, number>): Promise<void> {
  for (const [statement, value] of Object.entries(ratings)) {
    await participant.page
      .getByRole('radiogroup', { name: statement })
      .getByRole('radio', { name: String(value), exact: true })
      .check();
  }
  await participant.page.getByRole('button', { name: 'Send' }).click();
  await participant.page.getByTestId('answer-received').waitFor();
}

export async function rankingOrder(participant: WatchedPage): Promise<(string | null)[]> {
  return participant.page.locator('ol.ranking li').evaluateAll(ids);
}

/** Drags an item by its handle above the first one, with the mouse (pointer events). */
export async function dragToTop(participant: WatchedPage, optionId: string): Promise<void> {
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

export async function say(participant: WatchedPage, text: string): Promise<void> {
  await participant.page.getByLabel('Your answer').fill(text);
  await participant.page.getByRole('button', { name: 'Send' }).click();
  await participant.page.getByTestId('answer-received').waitFor();
}

/**
 * A question asked in another session of the fixture's poll (over HTTP, by a participant there) and
 * one asked through the API: `approve()` approves both where they were asked.
 */
export async function questionsElsewhere(session: LiveSessionFixture, inRoom: string, throughApi: string) {
  const auth = { apiKey: session.apiKey };
  const other = expectOk(await api.request('POST /sessions', { ...auth, body: { pollId: session.pollId } }));
  // A presenter-paced session has a PIN.
  const pin = other.pin as string;
  const poll = expectOk(await api.request('GET /polls/{id}', { params: { id: session.pollId }, ...auth }));
  const askIndex = poll.content.questions.findIndex((slide) => slide.id === 'ask');
  const moves: BodyOf<'POST /sessions/{id}/control'>[] = [
    { action: 'start' },
    { action: 'goto', slideIndex: askIndex },
  ];
  for (const body of moves) {
    const moved = await api.request('POST /sessions/{id}/control', { params: { id: other.id }, ...auth, body });
    expect(moved.status, moved.text).toBe(200);
  }
  const joined = await api.request('POST /live/{pin}/join', { params: { pin }, body: { name: 'Elsewhere' } });
  const asked = await api.request('POST /live/{pin}/answers', {
    params: { pin },
    body: { slideId: 'ask', text: inRoom },
    headers: { 'x-participant-token': expectOk(joined).participantToken },
  });
  expectStatus(asked, 201);
  const viaApi = await api.request('POST /polls/{id}/responses', {
    params: { id: session.pollId },
    ...auth,
    body: { voterId: 'api-voter', slideId: 'ask', text: throughApi },
  });
  expectStatus(viaApi, 201);
  const askedId = asked.body.id;
  const viaApiId = viaApi.body.id;
  return {
    approve: async () => {
      for (const approve of [
        () =>
          api.request('PATCH /sessions/{id}/questions/{questionId}', {
            params: { id: other.id, questionId: askedId },
            ...auth,
            body: { status: 'approved' },
          }),
        () =>
          api.request('PATCH /polls/{id}/questions/{questionId}', {
            params: { id: session.pollId, questionId: viaApiId },
            ...auth,
            body: { status: 'approved' },
          }),
      ]) {
        const approved = await approve();
        expect(approved.status, approved.text).toBe(200);
      }
    },
  };
}

export async function ask(participant: WatchedPage, text: string): Promise<void> {
  await participant.page.getByLabel('Your question').fill(text);
  await participant.page.getByRole('button', { name: 'Ask' }).click();
  await participant.page.getByTestId('answer-received').waitFor();
}
