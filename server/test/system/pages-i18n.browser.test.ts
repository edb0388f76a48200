import { readFileSync } from 'node:fs';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { themePalette } from '../../src/modules/themes/theme-palette.js';
import {
  chromiumAvailable,
  expectAccessible,
  LAPTOP,
  launchChromium,
  PagePool,
  PHONE,
  poll,
  type WatchedPage,
} from '../support/browser.js';
import { call } from '../support/http.js';
import { everyKindDeck, type LiveSessionFixture, startImageHost } from '../support/live-deck.js';
import type { ContentInput, SlideInput } from '../support/polls.js';
import { onceOnEmbeddedLeg, startTestServer, type TestServer } from '../support/server.js';

/**
 * The audience page and the presenter screen in other languages and under a theme, in a real
 * browser (Debian's Chromium through playwright-core) against a real server: a German session walked
 * through every slide kind with no English word of the catalog on either page and axe-core finding
 * nothing; an Arabic one laid out right to left (and driven with ← as forward); `?lang=` and the
 * audience page's language picker; a dark and a light theme drawn on both pages; a participant who
 * answers with the keyboard alone. server/test/api/page-settings.test.ts checks what the server writes
 * into the pages; this file checks what the browser then shows.
 * With POLLKIT_DOCS_SCREENSHOTS=1 the pictures docs/languages.md and docs/themes.md show are
 * rewritten in docs/images (always also in test-artifacts/screenshots).
 */

let t: TestServer;
let images: Awaited<ReturnType<typeof startImageHost>>;
let browser: Browser;
const pages = new PagePool(() => browser);
const open = pages.open;

type Catalog = Record<string, string>;
const catalog = (tag: string): Catalog =>
  JSON.parse(readFileSync(new URL(`../../../web/src/i18n/messages/${tag}.json`, import.meta.url), 'utf8'));
const EN = catalog('en');
const DE = catalog('de');
const AR = catalog('ar');
const JA = catalog('ja');
const FR = catalog('fr');

/** A message with plain `{name}` arguments filled in (enough for the labels the tests look for). */
function fill(message: string, values: Record<string, string>): string {
  return message.replace(/\{(\w+)\}/g, (whole, name: string) => values[name] ?? whole);
}

describe.skipIf(!chromiumAvailable || onceOnEmbeddedLeg)('the pages in other languages and themes, in Chromium', () => {
  beforeAll(async () => {
    images = await startImageHost();
    t = await startTestServer({
      MEDIA_ALLOW_LOOPBACK: 'true',
      // Every page here comes from 127.0.0.1, as in live-pages.browser.test.ts.
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

  afterEach(async (context) => pages.closeAll(context.task.result?.state === 'fail', 'failed-i18n'));

  it('shows a German session with no English word of the catalog, on both pages, in every state, and axe finds nothing', async () => {
    const deck = everyKindDeck(images.url);
    const session = await liveSession(deck, { session: { language: 'de' } });
    const presenter = await open('presenter-de', LAPTOP);
    const phone = await open('phone-de', PHONE);
    const p = presenter.page;
    const screens = [presenter, phone];
    const findings = new Walk(DE, [
      ...deckStrings(deck),
      'Quarterly all-hands',
      'Ada',
      'Growth',
      'When is the next offsite?',
      ...addressesOf(session),
    ]);

    await p.goto(session.presenterUrl);
    await presenter.waitFor(p.getByTestId('waiting'));
    await phone.page.goto(session.joinUrl);
    await phone.page.getByRole('button', { name: DE['join.form.join'] }).waitFor();
    for (const screen of screens) expect(await htmlLangDir(screen.page), screen.name).toEqual(['de', 'ltr']);
    await findings.check('the join form, the presenter screen before the start', screens);

    await phone.page.getByLabel(DE['join.form.nameLabel']!).fill('Ada');
    await phone.page.getByRole('button', { name: DE['join.form.join'] }).click();
    await phone.waitFor(phone.page.getByTestId('waiting'));
    await expectCount(p.getByTestId('participant-count'), 1);
    await findings.check('joined, waiting for the start', screens);

    await p.keyboard.press('ArrowRight');
    await onSlide(screens, 'welcome');
    await findings.check('a content slide', screens);

    // Multiple choice: before and after the answer, results shown and hidden again.
    await p.keyboard.press('ArrowRight');
    await onSlide(screens, 'lunch');
    await findings.check('multiple choice, before the answer', screens);
    await phone.screenshot('de-01-choice', { docs: 'languages-de-join-phone.png' });
    await choose(phone, ['Sushi'], DE);
    await expectCount(p.getByTestId('answer-count'), 1);
    await findings.check('multiple choice, answered (live results on the screen)', screens);
    await p.keyboard.press('r');
    await phone.page.getByTestId('results').waitFor();
    await findings.check('multiple choice, results shown', screens);
    await p.keyboard.press('r');
    await phone.page.getByTestId('results').waitFor({ state: 'detached' });
    await phone.page.getByTestId('answer-received').waitFor();
    await findings.check('multiple choice, results hidden again', screens);

    await p.keyboard.press('ArrowRight');
    await onSlide(screens, 'toppings');
    await choose(phone, ['Olives', 'Basil'], DE);
    await expectCount(p.getByTestId('answer-count'), 1);
    await findings.check('multiple choice of several, answered', screens);

    // Quiz: the countdown, the answers hidden, then the results and the leaderboard.
    await p.keyboard.press('ArrowRight');
    await onSlide(screens, 'capital');
    await findings.check('a quiz, before the answer', screens);
    await choose(phone, ['Canberra'], DE);
    await expectCount(p.getByTestId('answer-count'), 1);
    await findings.check('a quiz, answered, results hidden', screens);
    await p.keyboard.press('r');
    await phone.page.getByTestId('quiz-outcome').waitFor();
    await p.locator('.screen-leaderboard').waitFor();
    await findings.check('a quiz’s results and the leaderboard', screens);

    // Scale: locked, unlocked, answered.
    await p.keyboard.press('ArrowRight');
    await onSlide(screens, 'mood');
    await p.keyboard.press('l');
    await phone.page.getByTestId('locked').waitFor();
    await findings.check('a scale, locked', screens);
    await p.keyboard.press('l');
    await phone.page.getByTestId('locked').waitFor({ state: 'detached' });
    await rate(phone, { 'At work': 4, 'In the team': 5 }, DE);
    await expectCount(p.getByTestId('answer-count'), 1);
    await findings.check('a scale, answered', screens);
    await p.keyboard.press('r');
    await phone.page.getByTestId('results').waitFor();
    await findings.check('a scale’s results shown', screens);

    await p.keyboard.press('ArrowRight');
    await onSlide(screens, 'priorities');
    await findings.check('a ranking, before the answer', screens);
    await phone.page.getByRole('button', { name: fill(DE['join.ranking.moveUp']!, { label: 'Price' }) }).click();
    await send(phone, DE);
    await expectCount(p.getByTestId('answer-count'), 1);
    await findings.check('a ranking, answered', screens);
    await p.keyboard.press('r');
    await phone.page.getByTestId('results').waitFor();
    await findings.check('a ranking’s results shown', screens);

    await p.keyboard.press('ArrowRight');
    await onSlide(screens, 'word');
    await phone.page.getByLabel(DE['join.answer.label']!).fill('Growth');
    await send(phone, DE);
    await expectCount(p.getByTestId('answer-count'), 1);
    await p.keyboard.press('r');
    await phone.page.locator('.cloud li').waitFor();
    await p.locator('.cloud li').waitFor();
    await findings.check('an open question’s word cloud shown', screens);

    // Q&A, moderated: a question asked, waiting, approved, upvoted.
    await p.keyboard.press('ArrowRight');
    await onSlide(screens, 'ask');
    await phone.page.getByLabel(DE['join.qa.label']!).fill('When is the next offsite?');
    await phone.page.getByRole('button', { name: DE['join.qa.ask'] }).click();
    await phone.page.getByTestId('answer-received').waitFor();
    await expectCount(p.getByTestId('answer-count'), 1);
    await p.getByTestId('moderation').locator('summary').click();
    await p.locator('.moderation li').waitFor();
    await findings.check('Q&A, a question waiting for approval', screens);
    await p.locator('.moderation li').getByRole('button', { name: DE['present.moderation.approve'] }).click();
    await phone.page.locator('.questions li', { hasText: 'offsite' }).waitFor();
    await phone.page.getByRole('button', { name: DE['join.qa.upvote'] }).click();
    await phone.page.getByRole('button', { name: DE['join.qa.upvoted'] }).waitFor();
    await p.locator('.questions li', { hasText: 'offsite' }).getByText('▲ 1', { exact: true }).waitFor();
    await findings.check('Q&A, the question approved and upvoted', screens);

    await p.getByRole('button', { name: DE['present.controls.end'] }).click();
    await p.getByRole('button', { name: DE['present.controls.endNow'] }).waitFor();
    await findings.check('asking to confirm the end', screens);
    await p.getByRole('button', { name: DE['present.controls.endNow'] }).click();
    await phone.page.getByTestId('ended').waitFor();
    await p.getByTestId('ended').waitFor();
    await findings.check('the end', screens);

    expect(findings.problems, 'English words and accessibility violations on the German pages').toEqual([]);
    pages.expectNoErrors();
  });

  it('lays an Arabic session out right to left, and takes ← as forward on the presenter screen', async () => {
    const deck = arabicDeck(images.url);
    // The poll's language this time (the German session set the session's).
    const session = await liveSession(deck, { title: 'الاجتماع الفصلي', poll: { language: 'ar' } });
    const presenter = await open('presenter-ar', LAPTOP);
    const phone = await open('phone-ar', PHONE);
    const p = presenter.page;
    const screens = [presenter, phone];
    const problems: string[] = [];
    const accessible = async (state: string) => {
      for (const screen of screens) {
        try {
          await expectAccessible(screen.page, `${state} (${screen.name})`);
        } catch (error) {
          problems.push((error as Error).message);
        }
      }
    };

    await p.goto(session.presenterUrl);
    await presenter.waitFor(p.getByTestId('waiting'));
    await phone.page.goto(session.joinUrl);
    const form = phone.page.locator('form.join');
    await form.waitFor();
    for (const screen of screens) expect(await htmlLangDir(screen.page), screen.name).toEqual(['ar', 'rtl']);
    expect(await form.evaluate((element: any) => (globalThis as any).getComputedStyle(element).direction)).toBe('rtl');
    // The form's heading starts at the card's right edge (inside its padding) and ends short of its left one.
    const heading = await textBox(form.locator('h1'));
    const card = (await form.boundingBox())!;
    expect(card.x + card.width - heading.right, 'the heading’s text starts on the right').toBeLessThan(30);
    expect(heading.left - card.x, 'the heading’s text ends short of the left').toBeGreaterThan(60);
    // The presenter's top bar: the brand (its first item) on the right, the participant count on the left.
    expect(await firstItemRightOfLast(p.locator('.topbar > *'))).toBe(true);
    // The PIN still reads left to right, in the bar and under the QR code: "123 456", not "456 123".
    for (const pin of [p.getByTestId('pin'), p.locator('.pin-large')]) {
      expect(await pin.textContent()).toBe(`${session.pin.slice(0, 3)} ${session.pin.slice(3)}`);
      expect(await startsLeftOfEnd(pin), 'the PIN’s first digit left of its last').toBe(true);
    }
    await accessible('the join form, the presenter screen before the start');

    await phone.page.getByLabel(AR['join.form.nameLabel']!).fill('Ada');
    await phone.page.getByRole('button', { name: AR['join.form.join'] }).click();
    await phone.waitFor(phone.page.getByTestId('waiting'));
    expect(await firstItemRightOfLast(phone.page.locator('.topbar > *'))).toBe(true);
    // A second participant, through the API, so that the bars split in two.
    const omar = await call('POST', `${t.api}/live/${session.pin}/join`, { body: { name: 'Omar' } });
    expect([200, 201], omar.text).toContain(omar.status);
    await expectCount(p.getByTestId('participant-count'), 2);

    // ← is forward right to left: it starts the session and moves on; → goes back.
    await p.keyboard.press('ArrowLeft');
    await onSlide(screens, 'welcome');
    expect(await slideIndex(session)).toBe(0);
    await p.keyboard.press('ArrowLeft');
    await onSlide(screens, 'lunch');
    expect(await slideIndex(session)).toBe(1);
    await p.keyboard.press('ArrowRight');
    await onSlide(screens, 'welcome');
    expect(await slideIndex(session)).toBe(0);
    await p.keyboard.press('ArrowLeft');
    await onSlide(screens, 'lunch');
    expect(await slideIndex(session)).toBe(1);
    // The buttons' glyphs point the same way: Next ←, Previous →.
    const toolbar = p.getByRole('toolbar', { name: AR['present.controls.label'] });
    expect(await toolbar.getByRole('button', { name: AR['present.controls.next'] }).textContent()).toContain('←');
    expect(await toolbar.getByRole('button', { name: AR['present.controls.previous'] }).textContent()).toContain('→');

    // A choice: its radio button on the right of its label.
    const choice = phone.page.locator('label.choice').first();
    const radio = (await choice.locator('input').boundingBox())!;
    const label = (await choice.locator('span').boundingBox())!;
    expect(radio.x, 'the radio button right of its label').toBeGreaterThan(label.x);
    await accessible('a slide');
    await phone.screenshot('ar-01-choice', { docs: 'languages-ar-join-phone.png' });

    await choose(phone, ['سوشي'], AR);
    const answered = await call('POST', `${t.api}/live/${session.pin}/answers`, {
      body: { slideId: 'lunch', optionIds: ['pizza'] },
      headers: { 'x-participant-token': omar.body.participantToken },
    });
    expect([200, 201], answered.text).toContain(answered.status);
    await expectCount(p.getByTestId('answer-count'), 2);
    await p.keyboard.press('r');
    await phone.page.getByTestId('results').waitFor();
    // Half the answers each: each bar's fill starts at the track's right end and stops at its middle.
    for (const screen of screens) {
      for (const option of ['pizza', 'sushi']) {
        const bar = screen.page.locator(`[data-option-id=${option}]`);
        await poll(async () => {
          const track = (await bar.locator('.bar-track').boundingBox())!;
          const fill = (await bar.locator('.bar-fill').boundingBox())!;
          return {
            fromTheRight: Math.abs(track.x + track.width - (fill.x + fill.width)) < 1.5,
            half: Math.abs(fill.width / track.width - 0.5) < 0.02,
          };
        }, `${screen.name}: the ${option} bar`).toEqual({ fromTheRight: true, half: true });
      }
    }
    await accessible('a slide’s results');
    await presenter.screenshot('ar-02-results', { docs: 'languages-ar-present.png' });
    await phone.screenshot('ar-02-results');

    await p.keyboard.press('ArrowLeft');
    await onSlide(screens, 'capital');
    expect(await slideIndex(session)).toBe(2);
    await choose(phone, ['كانبرا'], AR);
    await p.keyboard.press('r');
    await phone.page.getByTestId('quiz-outcome').waitFor();
    await p.getByRole('button', { name: AR['present.controls.end'] }).click();
    await p.getByRole('button', { name: AR['present.controls.endNow'] }).click();
    await phone.page.getByTestId('ended').waitFor();
    await p.getByTestId('ended').waitFor();
    await accessible('the end');
    await phone.screenshot('ar-03-ended');
    await presenter.screenshot('ar-03-ended');

    expect(problems, 'axe-core on the Arabic pages').toEqual([]);
    pages.expectNoErrors();
  });

  it('shows a participant’s ?lang= language, ignores an unknown one, and keeps the participant through the language picker', async () => {
    const english = await liveSession({ questions: [everyKindDeck(images.url).questions[1]!] });
    const german = await liveSession(
      { questions: [everyKindDeck(images.url).questions[1]!] },
      {
        session: { language: 'de' },
      },
    );

    const japanese = await open('lang-ja', PHONE);
    await japanese.page.goto(`${t.url}/join/${english.pin}?lang=ja`);
    await japanese.page.getByRole('heading', { name: JA['join.form.heading'] }).waitFor();
    expect(await htmlLangDir(japanese.page)).toEqual(['ja', 'ltr']);
    expect(await japanese.page.getByRole('button', { name: JA['join.form.join'] }).isVisible()).toBe(true);

    // An unknown language: the session's, without a word on the console.
    for (const [session, language, heading] of [
      [english, 'en', EN['join.form.heading']],
      [german, 'de', DE['join.form.heading']],
    ] as const) {
      const visitor = await open(`lang-xx-${language}`, PHONE);
      const said: string[] = [];
      visitor.page.on('console', (message) => {
        if (message.type() === 'error' || message.type() === 'warning')
          said.push(`${message.type()}: ${message.text()}`);
      });
      await visitor.page.goto(`${t.url}/join/${session.pin}?lang=xx`);
      await visitor.page.getByRole('heading', { name: heading }).waitFor();
      expect(await htmlLangDir(visitor.page)).toEqual([language, 'ltr']);
      expect(said, `the console of /join/{pin}?lang=xx on a session in ${language}`).toEqual([]);
      if (language === 'en') {
        // The German walk's check, shown to find what it looks for: this page's English.
        const { english } = await new Walk(DE, addressesOf(session)).englishOn(visitor.page);
        expect(english.map(({ text }) => text)).toEqual(
          expect.arrayContaining([EN['join.form.heading'], EN['join.form.join'], EN['common.language.label']]),
        );
      }
    }

    // The picker: French, and still the same participant.
    const ada = await open('lang-picker', PHONE);
    await ada.page.goto(english.joinUrl);
    await ada.page.getByLabel(/Your name/).fill('Ada');
    await ada.page.getByRole('button', { name: 'Join' }).click();
    await ada.waitFor(ada.page.getByTestId('waiting'));
    expect(await participantCount(english)).toBe(1);
    await ada.page.getByLabel(EN['common.language.label']!).selectOption('fr');
    await ada.page.waitForURL(/[?&]lang=fr\b/);
    await ada.waitFor(ada.page.getByRole('heading', { name: FR['join.waiting.heading'] }));
    expect(await htmlLangDir(ada.page)).toEqual(['fr', 'ltr']);
    expect(await ada.page.getByTestId('me-name').textContent()).toBe('Ada');
    expect(await ada.page.getByLabel(FR['common.language.label']!).inputValue()).toBe('fr');
    expect(await participantCount(english)).toBe(1);
    // And it answers as that participant, in French.
    await control(english, 'start');
    await onSlide([ada], 'lunch');
    await choose(ada, ['Pizza'], FR);
    const results = await call('GET', `${t.api}/polls/${english.pollId}/results`, { apiKey: english.apiKey });
    expect(results.body.slides[0].totalAnswers).toBe(1);
    expect(await participantCount(english)).toBe(1);
    pages.expectNoErrors();
  });

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
    const unreadable = await call('POST', `${t.api}/themes`, {
      apiKey,
      body: { name: 'Fog', colors: { primary: '#1d4ed8', background: '#ffffff', text: '#aaaaaa' } },
    });
    expect(unreadable.status, unreadable.text).toBe(422);
    expect(unreadable.body.error.details.fieldErrors['colors.text'][0]).toMatch(/\d\.\d\d:1.*4\.5:1/);
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
    const results = await call('GET', `${t.api}/polls/${session.pollId}/results`, { apiKey: session.apiKey });
    const bySlide = Object.fromEntries(results.body.slides.map((slide: any) => [slide.slideId, slide]));
    expect(bySlide.lunch.options.find((option: any) => option.id === 'sushi').count).toBe(1);
    expect(bySlide.lunch.totalAnswers).toBe(1);
    expect(bySlide.mood.statements.map((statement: any) => [statement.id, statement.average])).toEqual([
      ['work', 4],
      ['team', 5],
    ]);
    expect(bySlide.priorities.options.map((option: any) => [option.id, option.averageRank])).toEqual(
      expect.arrayContaining([
        ['price', 1],
        ['speed', 2],
        ['quality', 3],
      ]),
    );
    pages.expectNoErrors();
  });
});

// ---------------------------------------------------------------------------------------------
// Sessions, decks and themes

/** A published poll over `content` in a workspace (a new one unless `apiKey`), and a session of it. */
async function liveSession(
  content: ContentInput,
  options: {
    apiKey?: string;
    title?: string;
    poll?: Record<string, unknown>;
    session?: Record<string, unknown>;
  } = {},
): Promise<LiveSessionFixture> {
  const apiKey = options.apiKey ?? (await t.workspace('pro')).apiKey;
  const created = await call('POST', `${t.api}/polls`, {
    apiKey,
    body: { title: options.title ?? 'Quarterly all-hands', content, ...options.poll },
  });
  expect(created.status, created.text).toBe(201);
  const published = await call('PATCH', `${t.api}/polls/${created.body.id}`, { apiKey, body: { publish: true } });
  expect(published.status, published.text).toBe(200);
  const session = await call('POST', `${t.api}/sessions`, {
    apiKey,
    body: { pollId: created.body.id, ...options.session },
  });
  expect(session.status, session.text).toBe(201);
  const { id, pin, hostToken, joinUrl } = session.body;
  return {
    apiKey,
    pollId: created.body.id,
    sessionId: id,
    pin,
    hostToken,
    presenterUrl: `${t.url}/present/${id}#hostToken=${hostToken}`,
    joinUrl,
  };
}

async function createTheme(apiKey: string, body: Record<string, unknown>): Promise<{ id: string }> {
  const res = await call('POST', `${t.api}/themes`, { apiKey, body });
  expect(res.status, res.text).toBe(201);
  return res.body;
}

/** Three slides of an Arabic deck: a content slide, a choice and a quiz. */
function arabicDeck(imageUrl: string): ContentInput {
  return {
    questions: [
      { id: 'welcome', kind: 'content', text: 'أهلاً بكم في الاجتماع الفصلي', media: { type: 'image', url: imageUrl } },
      {
        id: 'lunch',
        kind: 'multiple_choice',
        text: 'أين نتناول الغداء بعد الاجتماع؟',
        type: 'single',
        options: [
          { id: 'pizza', label: 'بيتزا' },
          { id: 'sushi', label: 'سوشي' },
          { id: 'tacos', label: 'تاكو' },
        ],
      },
      {
        id: 'capital',
        kind: 'quiz',
        text: 'ما هي عاصمة أستراليا؟',
        options: [
          { id: 'sydney', label: 'سيدني' },
          { id: 'canberra', label: 'كانبرا' },
          { id: 'melbourne', label: 'ملبورن' },
        ],
        correctOptionIds: ['canberra'],
        timeLimitSec: 60,
        points: 1000,
        speedBonus: false,
      },
    ],
  };
}

/** The every-kind deck's choice, quiz and open question (a word cloud): bars, a correct bar, a leaderboard, a cloud. */
function themedDeck(): ContentInput {
  const all = everyKindDeck('http://127.0.0.1/unused.png').questions;
  return { questions: ['lunch', 'capital', 'word'].map((id) => all.find((slide) => slide.id === id)!) };
}

/** Every text of a deck that comes from the API: slide texts, options, statements, a scale's end labels. */
function deckStrings(content: ContentInput): string[] {
  return content.questions.flatMap((slide: SlideInput & Record<string, any>) => [
    slide.text,
    ...((slide.options ?? []) as { label: string }[]).map((option) => option.label),
    ...((slide.statements ?? []) as { text: string }[]).map((statement) => statement.text),
    ...[slide.minLabel, slide.maxLabel].filter((label): label is string => typeof label === 'string'),
  ]);
}

/** The addresses a page shows (the join link, its host, the QR code's), which contain `join`. */
function addressesOf(session: LiveSessionFixture): string[] {
  const url = new URL(session.joinUrl);
  return [session.joinUrl, session.joinUrl.replace(/^https?:\/\//, ''), `${url.host}/join`];
}

// ---------------------------------------------------------------------------------------------
// The English of the catalog, and what a walk found

/**
 * The literal runs of an ICU message, split at each argument (`{name}`, `{n, number, …}`, a plural's
 * `#`), the branches of plurals and selects included: the words the message renders as they are.
 */
function literalRuns(message: string): string[] {
  const runs: string[] = [];
  let at = 0;
  const nextBrace = () => {
    const found = message.slice(at).search(/[{}]/);
    if (found < 0) throw new Error(`unbalanced braces in ${JSON.stringify(message)}`);
    return at + found;
  };
  const argument = (): void => {
    at++; // past `{`
    const end = nextBrace();
    if (message[end] === '}') {
      at = end + 1;
      return;
    }
    const type = message.slice(at, end).split(',')[1]?.trim();
    const plural = type === 'plural' || type === 'selectordinal';
    at = end;
    // At each branch's `{`: its body, then the next key, until the argument's closing `}`.
    for (;;) {
      at++;
      body(plural, true);
      const next = nextBrace();
      at = next;
      if (message[next] === '}') {
        at++;
        return;
      }
    }
  };
  const body = (inPlural: boolean, nested: boolean): void => {
    let run = '';
    while (at < message.length) {
      const char = message[at]!;
      if (nested && char === '}') {
        at++;
        break;
      }
      if (char === '{' || (inPlural && char === '#')) {
        runs.push(run);
        run = '';
        if (char === '#') at++;
        else argument();
        continue;
      }
      run += char;
      at++;
    }
    runs.push(run);
  };
  body(false, false);
  return runs;
}

interface EnglishString {
  key: string;
  text: string;
  pattern: RegExp;
}

/** The texts a message renders whatever its arguments: all of it without arguments, else its runs with a word of 4+ letters. */
function renderedTexts(message: string): string[] {
  if (!message.includes('{')) return [message.trim()];
  return literalRuns(message)
    .map((run) => run.replace(/\s+/g, ' ').trim())
    .filter((run) => /\p{L}{4,}/u.test(run));
}

/** Words that are the same in every language the pages speak. */
const ALWAYS_ALLOWED = ['Pollkit', 'PIN', 'Quiz', 'Q&A'];

/**
 * The English catalog's rendered strings that must not appear on a page in `translation`'s language:
 * minus what the translation says the same way (a message it left as in English) and the words
 * every language shares. Matched as whole words, in any case (the eyebrows are upper-cased).
 */
function englishStrings(translation: Catalog): EnglishString[] {
  const allowed = new Set(ALWAYS_ALLOWED.map((word) => word.toLowerCase()));
  for (const [key, message] of Object.entries(EN)) {
    if (translation[key] === message) for (const text of renderedTexts(message)) allowed.add(text.toLowerCase());
  }
  const strings: EnglishString[] = [];
  for (const [key, message] of Object.entries(EN)) {
    for (const text of new Set(renderedTexts(message))) {
      if (text === '' || allowed.has(text.toLowerCase())) continue;
      strings.push({ key, text, pattern: wholeWords(text) });
    }
  }
  return strings;
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** `text` where it stands as whole words: no letter or digit glued to an end that is one. */
function wholeWords(text: string): RegExp {
  const body = escapeRegExp(text).replace(/ /g, '\\s+');
  const before = /^[\p{L}\p{N}]/u.test(text) ? '(?<![\\p{L}\\p{N}])' : '';
  const after = /[\p{L}\p{N}]$/u.test(text) ? '(?![\\p{L}\\p{N}])' : '';
  return new RegExp(`${before}${body}${after}`, 'iu');
}

/** What a page shows: its title, its visible text, and the words of its labels, titles, alt texts and placeholders. */
async function shownText(page: Page): Promise<string> {
  return page.evaluate(() => {
    const doc = (globalThis as any).document;
    // biome-ignore lint/performance/useDomNodeTextContent: what is rendered, upper-cased and all, is what is checked.
    const parts: string[] = [doc.title, doc.body.innerText];
    const attributes = ['aria-label', 'title', 'alt', 'placeholder'];
    for (const element of doc.querySelectorAll('[aria-label], [title], [alt], [placeholder]')) {
      for (const name of attributes) {
        const value = element.getAttribute(name);
        if (value) parts.push(value);
      }
    }
    return parts.join('\n');
  });
}

/**
 * A walk through a session in a language other than English: in each state, each page is checked by
 * axe-core and for English of the catalog (and for a catalog key shown in place of a missing
 * message). What it finds is collected, state by state, so that one run reports all of it.
 */
class Walk {
  readonly problems: string[] = [];
  readonly #english: EnglishString[];
  readonly #data: RegExp[];

  /** `data`: the texts the API gives the pages (the deck's, names, answers, addresses), English in the fixtures. */
  constructor(translation: Catalog, data: string[]) {
    this.#english = englishStrings(translation);
    this.#data = [...new Set(data)]
      .sort((a, b) => b.length - a.length)
      .map((text) => new RegExp(escapeRegExp(text), 'giu'));
  }

  async check(state: string, screens: WatchedPage[]): Promise<void> {
    for (const screen of screens) {
      try {
        await expectAccessible(screen.page, `${state} (${screen.name})`);
      } catch (error) {
        this.problems.push((error as Error).message.split('\n')[0]!);
      }
      const { english, keys } = await this.englishOn(screen.page);
      if (english.length > 0) {
        this.problems.push(
          `${state} (${screen.name}) shows English: ${english.map(({ text, key }) => `"${text}" (${key})`).join(', ')}`,
        );
      }
      if (keys.length > 0) this.problems.push(`${state} (${screen.name}) shows catalog keys: ${keys.join(', ')}`);
    }
  }

  /** The English strings of the catalog the page shows, and the catalog keys it shows in place of a message. */
  async englishOn(page: Page): Promise<{ english: EnglishString[]; keys: string[] }> {
    let text = (await shownText(page)).replace(/\s+/g, ' ');
    for (const data of this.#data) text = text.replace(data, ' ¶ ');
    return {
      english: this.#english.filter((english) => english.pattern.test(text)),
      keys: Object.keys(EN).filter((key) => text.includes(key)),
    };
  }
}

// ---------------------------------------------------------------------------------------------
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

// ---------------------------------------------------------------------------------------------
// Layout and keyboard

/** `<html lang dir>` as the page has them now. */
function htmlLangDir(page: Page): Promise<[string, string]> {
  return page.evaluate(() => {
    const root = (globalThis as any).document.documentElement;
    return [root.getAttribute('lang'), root.getAttribute('dir')] as [string, string];
  });
}

/** The box of an element's text itself (not of the element, which a block stretches to its container's width). */
function textBox(locator: Locator): Promise<{ left: number; right: number }> {
  return locator.evaluate((element: any) => {
    const range = (globalThis as any).document.createRange();
    range.selectNodeContents(element);
    const box = range.getBoundingClientRect();
    return { left: box.left, right: box.right };
  });
}

/** Whether an element's first character is laid out left of its last one (its one text node's). */
function startsLeftOfEnd(locator: Locator): Promise<boolean> {
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
async function firstItemRightOfLast(items: Locator): Promise<boolean> {
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
async function tabTo(page: Page, selector: string, text?: string): Promise<void> {
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

async function control(session: LiveSessionFixture, action: string): Promise<void> {
  const res = await call('POST', `${t.api}/sessions/${session.sessionId}/control`, {
    headers: { 'x-host-token': session.hostToken, connection: 'close' },
    body: { action },
  });
  expect(res.status, res.text).toBe(200);
}

async function sessionNow(session: LiveSessionFixture) {
  const res = await call('GET', `${t.api}/sessions/${session.sessionId}`, {
    headers: { 'x-host-token': session.hostToken },
  });
  expect(res.status, res.text).toBe(200);
  return res.body;
}

async function participantCount(session: LiveSessionFixture): Promise<number> {
  return (await sessionNow(session)).participantCount;
}

async function slideIndex(session: LiveSessionFixture): Promise<number> {
  return (await sessionNow(session)).currentSlideIndex;
}

/** The `data-option-id` of each element (run in the page). */
function ids(items: { getAttribute(name: string): string | null }[]): (string | null)[] {
  return items.map((item) => item.getAttribute('data-option-id'));
}

async function expectCount(locator: Locator, count: number): Promise<void> {
  await poll(() => locator.getAttribute('data-count')).toBe(String(count));
}

async function expectBar(page: Page, optionId: string, count: number): Promise<void> {
  await poll(() => page.locator(`[data-option-id=${optionId}] .bar-count`).getAttribute('data-count')).toBe(
    String(count),
  );
}

async function onSlide(screens: WatchedPage[], slideId: string): Promise<void> {
  for (const screen of screens) await screen.waitFor(screen.page.locator(`[data-slide-id=${slideId}]`));
}

/** Send, in the page's language, and the answer received. */
async function send(participant: WatchedPage, messages: Catalog): Promise<void> {
  await participant.page.getByRole('button', { name: messages['join.answer.send'] }).click();
  await participant.page.getByTestId('answer-received').waitFor();
}

async function choose(participant: WatchedPage, labels: string[], messages: Catalog): Promise<void> {
  for (const label of labels) await participant.page.getByText(label, { exact: true }).click();
  await send(participant, messages);
}

async function rate(participant: WatchedPage, ratings: Record<string, number>, messages: Catalog): Promise<void> {
  for (const [statement, value] of Object.entries(ratings)) {
    await participant.page
      .getByRole('radiogroup', { name: statement })
      .getByRole('radio', { name: String(value), exact: true })
      .check();
  }
  await send(participant, messages);
}
