import type { Locator } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { themePalette } from '../../src/modules/themes/theme-palette.js';
import { chromiumAvailable, expectAccessible, LAPTOP, PHONE } from '../support/browser.js';
import { everyKindDeck, type LiveSessionFixture } from '../support/live-deck.js';
import {
  choose,
  createTheme,
  EN,
  expectBar,
  expectCount,
  ids,
  images,
  liveSession,
  onSlide,
  open,
  pages,
  send,
  startI18nPages,
  stopI18nPages,
  t,
  tabTo,
} from '../support/pages-i18n.js';
import type { ContentInput } from '../support/polls.js';
import { onceOnEmbeddedLeg } from '../support/server.js';
import { errorDetails, expectOk, expectStatus, slideOf, testClient } from '../support/test-client.js';

const api = testClient(() => t.api);

/**
 * The audience page and the presenter screen under a theme and from the keyboard, in a real browser
 * (Debian's Chromium through playwright-core) against a real server: a dark and a light theme drawn
 * on both pages, readable everywhere (an unreadable one refused); a participant who answers with the
 * keyboard alone, and a presenter screen moved on by keyboard. Other languages:
 * pages-i18n.languages.browser.test.ts.
 * With POLLKIT_DOCS_SCREENSHOTS=1 the pictures docs/themes.md shows are rewritten in docs/images
 * (always also in test-artifacts/screenshots).
 */

describe.skipIf(!chromiumAvailable || onceOnEmbeddedLeg)('the pages in other languages and themes, in Chromium', () => {
  beforeAll(startI18nPages);
  afterAll(stopI18nPages);

  afterEach(async (context) => pages.closeAll(context.task.result?.state === 'fail', 'failed-i18n'));

  it('draws a dark and a light theme on both pages, readable everywhere, and refuses an unreadable one', async () => {
    const { apiKey } = await t.workspace('pro');
    const dark = { primary: '#60a5fa', background: '#101418', text: '#f0f0f0' };
    const light = { primary: '#b91c1c', background: '#fffbeb', text: '#1c1917' };
    const darkTheme = await createTheme(apiKey, {
      name: 'Acme dark',
      colors: dark,
      logo: { url: images.url, alt: 'Acme' },
      font: 'serif',
    });
    const lightTheme = await createTheme(apiKey, { name: 'Acme light', colors: light });
    const deck = themedDeck();
    const problems: string[] = [];

    // The dark theme set on the session, the light one on the poll.
    const darkSession = await liveSession(deck, { apiKey, session: { themeId: darkTheme.id } });
    await themedWalk(darkSession, dark, { logo: 'Acme', font: /Georgia/, docs: true }, problems);
    const lightSession = await liveSession(deck, { apiKey, poll: { themeId: lightTheme.id } });
    await themedWalk(lightSession, light, { logo: null, font: /system-ui/, docs: false }, problems);
    expect(problems, 'axe-core on the themed pages').toEqual([]);

    // Grey on grey: refused, the contrast named.
    const unreadable = await api.request('POST /themes', {
      apiKey,
      body: { name: 'Fog', colors: { primary: '#1d4ed8', background: '#ffffff', text: '#aaaaaa' } },
    });
    expectStatus(unreadable, 422);
    expect(errorDetails(unreadable).fieldErrors['colors.text']?.[0]).toMatch(/\d\.\d\d:1.*4\.5:1/);
    pages.expectNoErrors();
  });

  it('takes a participant’s answers from the keyboard alone, and the presenter screen moves on by keyboard', async () => {
    const all = everyKindDeck(images.url).questions;
    const pick = (id: string) => all.find((slide) => slide.id === id)!;
    const session = await liveSession({ questions: [pick('lunch'), pick('mood'), pick('priorities')] });
    const presenter = await open('presenter-keys', LAPTOP);
    const kim = await open('kim-keys', LAPTOP);
    const p = presenter.page;
    const k = kim.page;

    await p.goto(session.presenterUrl);
    await presenter.waitFor(p.getByTestId('waiting'));
    // Joined: Tab to the name field (the PIN is in the address), type, Enter.
    await k.goto(session.joinUrl);
    await k.getByRole('button', { name: 'Join' }).waitFor();
    await tabTo(k, 'input[name="name"]');
    await k.keyboard.type('Kim');
    await k.keyboard.press('Enter');
    await kim.waitFor(k.getByTestId('waiting'));
    expect(await k.getByTestId('me-name').textContent()).toBe('Kim');
    await expectCount(p.getByTestId('participant-count'), 1);

    // The presenter starts with →.
    await p.keyboard.press('ArrowRight');
    await onSlide([presenter, kim], 'lunch');

    // Multiple choice: Tab into the group, Space picks, ↓ moves the choice, Tab to Send, Enter.
    await tabTo(k, 'input[type="radio"][value="pizza"]');
    await k.keyboard.press('Space');
    expect(await k.getByRole('radio', { name: 'Pizza' }).isChecked()).toBe(true);
    await k.keyboard.press('ArrowDown');
    expect(await k.getByRole('radio', { name: 'Sushi' }).isChecked()).toBe(true);
    await tabTo(k, 'button[type="submit"]');
    await k.keyboard.press('Enter');
    await k.getByTestId('answer-received').waitFor();
    await expectCount(p.getByTestId('answer-count'), 1);
    await expectBar(p, 'sushi', 1);

    // The presenter moves on from the toolbar: Tab to Next, Enter.
    await tabTo(p, 'footer button:not(:disabled)', 'Next');
    await p.keyboard.press('Enter');
    await onSlide([presenter, kim], 'mood');

    // Scale: each statement's group by Tab, Space on the first rating, → to the one meant.
    await tabTo(k, 'input[name="mood-work"]');
    await k.keyboard.press('Space');
    for (let step = 0; step < 3; step++) await k.keyboard.press('ArrowRight');
    await tabTo(k, 'input[name="mood-team"]');
    await k.keyboard.press('Space');
    for (let step = 0; step < 4; step++) await k.keyboard.press('ArrowRight');
    expect(await k.locator('input[name="mood-work"]:checked').getAttribute('value')).toBe('4');
    expect(await k.locator('input[name="mood-team"]:checked').getAttribute('value')).toBe('5');
    await tabTo(k, 'button[type="submit"]');
    await k.keyboard.press('Space');
    await k.getByTestId('answer-received').waitFor();
    await expectCount(p.getByTestId('answer-count'), 1);

    // A presentation clicker's PageDown moves on too.
    await p.keyboard.press('PageDown');
    await onSlide([presenter, kim], 'priorities');

    // Ranking: "Move Price up" twice, by Tab and Shift+Tab, then Send.
    for (let move = 0; move < 2; move++) {
      await tabTo(k, 'button[aria-label="Move Price up"]:not(:disabled)');
      await k.keyboard.press('Enter');
    }
    expect(await k.locator('ol.ranking li').evaluateAll(ids)).toEqual(['price', 'speed', 'quality']);
    await tabTo(k, 'button[type="submit"]');
    await k.keyboard.press('Enter');
    await k.getByTestId('answer-received').waitFor();
    await expectCount(p.getByTestId('answer-count'), 1);

    // What the keyboard sent is what the API counted.
    const results = await api.request('GET /polls/{id}/results', {
      params: { id: session.pollId },
      apiKey: session.apiKey,
    });
    const { slides } = expectOk(results);
    const lunch = slideOf(slides, 'lunch', 'multiple_choice');
    expect(lunch.options.find((option) => option.id === 'sushi')?.count).toBe(1);
    expect(lunch.totalAnswers).toBe(1);
    expect(slideOf(slides, 'mood', 'scale').statements.map((statement) => [statement.id, statement.average])).toEqual([
      ['work', 4],
      ['team', 5],
    ]);
    expect(slideOf(slides, 'priorities', 'ranking').options.map((option) => [option.id, option.averageRank])).toEqual(
      expect.arrayContaining([
        ['price', 1],
        ['speed', 2],
        ['quality', 3],
      ]),
    );
    pages.expectNoErrors();
  });
});

/** The every-kind deck's choice, quiz and open question (a word cloud): bars, a correct bar, a leaderboard, a cloud. */
function themedDeck(): ContentInput {
  const all = everyKindDeck('http://127.0.0.1/unused.png').questions;
  return { questions: ['lunch', 'capital', 'word'].map((id) => all.find((slide) => slide.id === id)!) };
}

// Themes

const rgb = (hex: string) => `rgb(${[1, 3, 5].map((at) => Number.parseInt(hex.slice(at, at + 2), 16)).join(', ')})`;

/**
 * A themed session on both pages: the theme's colours where the palette puts them (the page's
 * paper, the primary button's accent, the bars), its logo and font, and axe-core clean on the join
 * form, an answer form, results, a word cloud and the end.
 */
async function themedWalk(
  session: LiveSessionFixture,
  colors: { primary: string; background: string; text: string },
  expected: { logo: string | null; font: RegExp; docs: boolean },
  problems: string[],
): Promise<void> {
  const palette = themePalette(colors);
  const tag = expected.docs ? 'dark' : 'light';
  const presenter = await open(`presenter-${tag}`, LAPTOP);
  const phone = await open(`phone-${tag}`, PHONE);
  const p = presenter.page;
  const screens = [presenter, phone];
  const accessible = async (state: string) => {
    for (const screen of screens) {
      try {
        await expectAccessible(screen.page, `${state} (${screen.name})`);
      } catch (error) {
        problems.push((error as Error).message.split('\n')[0]!);
      }
    }
  };

  await p.goto(session.presenterUrl);
  await presenter.waitFor(p.getByTestId('waiting'));
  await phone.page.goto(session.joinUrl);
  await phone.page.getByRole('button', { name: 'Join' }).waitFor();
  for (const screen of screens) {
    const page = screen.page;
    const root = await page.evaluate(() => {
      const doc = (globalThis as any).document;
      const style = (globalThis as any).getComputedStyle(doc.documentElement);
      return {
        background: style.backgroundColor,
        paper: style.getPropertyValue('--paper').trim(),
        accent: style.getPropertyValue('--accent').trim(),
        font: style.fontFamily,
      };
    });
    expect(root, `${screen.name}: the page's colours and font`).toEqual({
      background: rgb(colors.background.toLowerCase()),
      paper: palette['--paper'],
      accent: palette['--accent'],
      font: expect.stringMatching(expected.font),
    });
    expect(palette['--paper']).toBe(colors.background.toLowerCase());
    const primary = page.locator('button.primary').first();
    expect(await primary.evaluate((button: any) => (globalThis as any).getComputedStyle(button).backgroundColor)).toBe(
      rgb(palette['--accent']!),
    );
    const logo = page.locator('img.brand-logo');
    if (expected.logo === null) {
      expect(await logo.count(), `${screen.name}: no logo`).toBe(0);
    } else {
      await logo.waitFor();
      expect(await logo.isVisible()).toBe(true);
      expect(await logo.getAttribute('alt')).toBe(expected.logo);
      expect(await logo.getAttribute('src')).toMatch(/\/media\/files\/[0-9a-f]{64}\.\w+$/);
      expect(await loadedWidth(logo), `${screen.name}: the logo loaded`).toBeGreaterThan(0);
    }
  }
  await accessible(`${tag}: the join form, the presenter screen before the start`);

  await phone.page.getByLabel(/Your name/).fill('Ada');
  await phone.page.getByRole('button', { name: 'Join' }).click();
  await phone.waitFor(phone.page.getByTestId('waiting'));
  await p.keyboard.press('ArrowRight');
  await onSlide(screens, 'lunch');
  await phone.page.getByText('Sushi', { exact: true }).click();
  await accessible(`${tag}: an answer form, a choice made`);
  if (expected.docs) await phone.screenshot(`${tag}-01-choice`, { docs: 'themes-dark-join-phone.png' });
  await send(phone, EN);
  await expectCount(p.getByTestId('answer-count'), 1);
  await p.keyboard.press('r');
  await phone.page.getByTestId('results').waitFor();
  for (const screen of screens) {
    const fill = screen.page.locator('[data-option-id=sushi] .bar-fill');
    expect(
      await fill.evaluate((element: any) => (globalThis as any).getComputedStyle(element).backgroundColor),
      `${screen.name}: a bar in --bar`,
    ).toBe(rgb(palette['--bar']!));
  }
  await accessible(`${tag}: a choice's results shown`);
  await presenter.screenshot(`${tag}-02-results`, expected.docs ? { docs: 'themes-dark-present.png' } : {});
  await phone.screenshot(`${tag}-02-results`);

  await p.keyboard.press('ArrowRight');
  await onSlide(screens, 'capital');
  await choose(phone, ['Canberra'], EN);
  await p.keyboard.press('r');
  await phone.page.getByTestId('quiz-outcome').waitFor();
  await p.locator('.screen-leaderboard').waitFor();
  await accessible(`${tag}: a quiz's results (the correct bar) and the leaderboard`);

  await p.keyboard.press('ArrowRight');
  await onSlide(screens, 'word');
  await phone.page.getByLabel('Your answer').fill('Focus');
  await send(phone, EN);
  await p.keyboard.press('r');
  await phone.page.locator('.cloud li').waitFor();
  await p.locator('.cloud li').waitFor();
  await accessible(`${tag}: a word cloud`);
  await presenter.screenshot(`${tag}-03-cloud`);

  await p.getByRole('button', { name: EN['present.controls.end'] }).click();
  await p.getByRole('button', { name: EN['present.controls.endNow'] }).click();
  await phone.page.getByTestId('ended').waitFor();
  await p.getByTestId('ended').waitFor();
  await accessible(`${tag}: the end`);
  await phone.screenshot(`${tag}-04-ended`);
  await presenter.screenshot(`${tag}-04-ended`);
}

/** An image's naturalWidth once it has loaded (0 if it failed), however long the machine takes. */
function loadedWidth(image: Locator): Promise<number> {
  return image.evaluate(
    (img: any) =>
      new Promise<number>((resolve) => {
        if (img.complete) resolve(img.naturalWidth);
        else {
          img.addEventListener('load', () => resolve(img.naturalWidth), { once: true });
          img.addEventListener('error', () => resolve(0), { once: true });
        }
      }),
  );
}
