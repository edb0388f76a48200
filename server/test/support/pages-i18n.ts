import { readFileSync } from 'node:fs';
import type { Locator, Page } from 'playwright-core';
import { expect } from 'vitest';
import { poll, type WatchedPage } from './browser.js';
import { type ControlAction, createdSession, type LiveSessionFixture } from './live-deck.js';
import { images, open, pages, t } from './live-pages.js';
import { type ContentInput, pollPublisher, type SlideInput } from './polls.js';
import { type BodyOf, expectStatus, type OutputOf, testClient } from './test-client.js';

/**
 * What the browser tests of the pages in other languages and under a theme
 * (server/test/system/pages-i18n.*.browser.test.ts) share: a server, an image host and Chromium,
 * started in the file's beforeAll (`startI18nPages`), the pool of pages the tests open, the pages'
 * catalogs, sessions made through the API, and the steps a participant or a presenter takes. The
 * state below is the one file's.
 */

export { startLivePages as startI18nPages, stopLivePages as stopI18nPages } from './live-pages.js';
// The same server, image host and Chromium as the live pages' tests, started the same way.
export { images, open, pages, t };

const api = testClient(() => t.api);

export type Catalog = Record<string, string>;
const catalog = (tag: string): Catalog =>
  JSON.parse(readFileSync(new URL(`../../../web/src/i18n/messages/${tag}.json`, import.meta.url), 'utf8'));
export const EN = catalog('en');
export const DE = catalog('de');
export const AR = catalog('ar');
export const JA = catalog('ja');
export const FR = catalog('fr');

/** A message with plain `{name}` arguments filled in (enough for the labels the tests look for). */
export function fill(message: string, values: Record<string, string>): string {
  return message.replace(/\{(\w+)\}/g, (whole, name: string) => values[name] ?? whole);
}

// ---------------------------------------------------------------------------------------------
// Sessions, decks and themes

/** A published poll over `content` in a workspace (a new one unless `apiKey`), and a session of it. */
export async function liveSession(
  content: ContentInput,
  options: {
    apiKey?: string;
    title?: string;
    poll?: Omit<BodyOf<'POST /polls'>, 'title' | 'content'>;
    session?: Omit<BodyOf<'POST /sessions'>, 'pollId'>;
  } = {},
): Promise<LiveSessionFixture> {
  const apiKey = options.apiKey ?? (await t.workspace('pro')).apiKey;
  const created = await pollPublisher(() => ({
    api: t.api,
    apiKey,
    title: options.title ?? 'Quarterly all-hands',
    content,
    extra: options.poll,
  }))();
  const { id, pin, hostToken, joinUrl } = await createdSession(t, apiKey, created.id, options.session);
  return {
    apiKey,
    pollId: created.id,
    sessionId: id,
    pin,
    hostToken,
    presenterUrl: `${t.url}/present/${id}#hostToken=${hostToken}`,
    joinUrl,
  };
}

export async function createTheme(apiKey: string, body: BodyOf<'POST /themes'>): Promise<OutputOf<'POST /themes'>> {
  const res = await api.request('POST /themes', { apiKey, body });
  expectStatus(res, 201);
  return res.body;
}

/** Every text of a deck that comes from the API: slide texts, options, statements, a scale's end labels. */
export function deckStrings(content: ContentInput): string[] {
  return content.questions.flatMap((slide: SlideInput & Record<string, any>) => [
    slide.text,
    ...((slide.options ?? []) as { label: string }[]).map((option) => option.label),
    ...((slide.statements ?? []) as { text: string }[]).map((statement) => statement.text),
    ...[slide.minLabel, slide.maxLabel].filter((label): label is string => typeof label === 'string'),
  ]);
}

/** The addresses a page shows (the join link, its host, the QR code's), which contain `join`. */
export function addressesOf(session: LiveSessionFixture): string[] {
  const url = new URL(session.joinUrl);
  return [session.joinUrl, session.joinUrl.replace(/^https?:\/\//, ''), `${url.host}/join`];
}

// ---------------------------------------------------------------------------------------------
// Layout and keyboard

/** `<html lang dir>` as the page has them now. */
export function htmlLangDir(page: Page): Promise<[string, string]> {
  return page.evaluate(() => {
    const root = (globalThis as any).document.documentElement;
    return [root.getAttribute('lang'), root.getAttribute('dir')] as [string, string];
  });
}

/** The box of an element's text itself (not of the element, which a block stretches to its container's width). */
export function textBox(locator: Locator): Promise<{ left: number; right: number }> {
  return locator.evaluate((element: any) => {
    const range = (globalThis as any).document.createRange();
    range.selectNodeContents(element);
    const box = range.getBoundingClientRect();
    return { left: box.left, right: box.right };
  });
}

/** Whether an element's first character is laid out left of its last one (its one text node's). */
export function startsLeftOfEnd(locator: Locator): Promise<boolean> {
  return locator.evaluate((element: any) => {
    const doc = (globalThis as any).document;
    const text = element.firstChild;
    const at = (from: number) => {
      const range = doc.createRange();
      range.setStart(text, from);
      range.setEnd(text, from + 1);
      return range.getBoundingClientRect().left as number;
    };
    return at(0) < at(text.length - 1);
  });
}

/** Whether the first of the items (a top bar's) is laid out to the right of the last: mirrored. */
export async function firstItemRightOfLast(items: Locator): Promise<boolean> {
  const boxes = await items.evaluateAll((elements: any[]) =>
    elements.map((element) => element.getBoundingClientRect().x as number),
  );
  expect(boxes.length, 'a top bar of several items').toBeGreaterThan(1);
  return boxes[0]! > boxes[boxes.length - 1]!;
}

/**
 * Tab (then, if need be, Shift+Tab) until the focused element matches `selector` (and, with `text`,
 * contains it): the keyboard's way to a control. Fails naming where the focus went.
 */
export async function tabTo(page: Page, selector: string, text?: string): Promise<void> {
  const focused = () =>
    page.evaluate(
      ([selector, text]) => {
        const active = (globalThis as any).document.activeElement;
        if (!active?.matches(selector)) return false;
        return text === undefined || String(active.textContent).includes(text);
      },
      [selector, text] as const,
    );
  const seen: string[] = [];
  for (const key of ['Tab', 'Shift+Tab']) {
    for (let press = 0; press < 30; press++) {
      if (await focused()) return;
      await page.keyboard.press(key);
      seen.push(
        await page.evaluate(() => {
          const active = (globalThis as any).document.activeElement;
          return `${active?.tagName.toLowerCase()}${active?.name ? `[name=${active.name}]` : ''}:${String(active?.getAttribute('aria-label') ?? active?.textContent ?? '').slice(0, 20)}`;
        }),
      );
    }
  }
  throw new Error(`the keyboard never reached ${selector}${text ? ` "${text}"` : ''}; focus went: ${seen.join(' → ')}`);
}

// ---------------------------------------------------------------------------------------------
// Sessions and answers

export async function control(session: LiveSessionFixture, action: ControlAction): Promise<void> {
  const res = await api.request('POST /sessions/{id}/control', {
    params: { id: session.sessionId },
    headers: { 'x-host-token': session.hostToken, connection: 'close' },
    body: { action },
  });
  expectStatus(res, 200);
}

async function sessionNow(session: LiveSessionFixture) {
  const res = await api.request('GET /sessions/{id}', {
    params: { id: session.sessionId },
    headers: { 'x-host-token': session.hostToken },
  });
  expectStatus(res, 200);
  return res.body;
}

export async function participantCount(session: LiveSessionFixture): Promise<number> {
  return (await sessionNow(session)).participantCount;
}

export async function slideIndex(session: LiveSessionFixture): Promise<number> {
  return (await sessionNow(session)).currentSlideIndex;
}

/** The `data-option-id` of each element (run in the page). */
export function ids(items: { getAttribute(name: string): string | null }[]): (string | null)[] {
  return items.map((item) => item.getAttribute('data-option-id'));
}

export async function expectCount(locator: Locator, count: number): Promise<void> {
  await poll(() => locator.getAttribute('data-count')).toBe(String(count));
}

export async function expectBar(page: Page, optionId: string, count: number): Promise<void> {
  await poll(() => page.locator(`[data-option-id=${optionId}] .bar-count`).getAttribute('data-count')).toBe(
    String(count),
  );
}

export async function onSlide(screens: WatchedPage[], slideId: string): Promise<void> {
  for (const screen of screens) await screen.waitFor(screen.page.locator(`[data-slide-id=${slideId}]`));
}

/** Send, in the page's language, and the answer received. */
export async function send(participant: WatchedPage, messages: Catalog): Promise<void> {
  await participant.page.getByRole('button', { name: messages['join.answer.send'] }).click();
  await participant.page.getByTestId('answer-received').waitFor();
}

export async function choose(participant: WatchedPage, labels: string[], messages: Catalog): Promise<void> {
  for (const label of labels) await participant.page.getByText(label, { exact: true }).click();
  await send(participant, messages);
}

export async function rate(
  participant: WatchedPage,
  ratings: Record<string, number>,
  messages: Catalog,
): Promise<void> {
  for (const [statement, value] of Object.entries(ratings)) {
    await participant.page
      .getByRole('radiogroup', { name: statement })
      .getByRole('radio', { name: String(value), exact: true })
      .check();
  }
  await send(participant, messages);
}
