import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { chromiumAvailable, expectAccessible, LAPTOP, PHONE, poll } from '../support/browser.js';
import { Walk } from '../support/catalog-english.js';
import { everyKindDeck } from '../support/live-deck.js';
import {
  AR,
  addressesOf,
  choose,
  control,
  DE,
  deckStrings,
  EN,
  expectCount,
  FR,
  fill,
  firstItemRightOfLast,
  htmlLangDir,
  images,
  JA,
  liveSession,
  onSlide,
  open,
  pages,
  participantCount,
  rate,
  send,
  slideIndex,
  startI18nPages,
  startsLeftOfEnd,
  stopI18nPages,
  t,
  textBox,
} from '../support/pages-i18n.js';
import type { ContentInput } from '../support/polls.js';
import { onceOnEmbeddedLeg } from '../support/server.js';
import { expectOk, slideOf, testClient } from '../support/test-client.js';

const api = testClient(() => t.api);

/**
 * The audience page and the presenter screen in other languages, in a real browser (Debian's
 * Chromium through playwright-core) against a real server: a German session walked through every
 * slide kind with no English word of the catalog on either page and axe-core finding nothing; an
 * Arabic one laid out right to left (and driven with ← as forward); `?lang=` and the audience
 * page's language picker. server/test/api/page-settings.test.ts checks what the server writes into
 * the pages; this file checks what the browser then shows. Themes and the keyboard:
 * pages-i18n.themes-and-keyboard.browser.test.ts.
 * With POLLKIT_DOCS_SCREENSHOTS=1 the pictures docs/languages.md shows are rewritten in docs/images
 * (always also in test-artifacts/screenshots).
 */

describe.skipIf(!chromiumAvailable || onceOnEmbeddedLeg)('the pages in other languages and themes, in Chromium', () => {
  beforeAll(startI18nPages);
  afterAll(stopI18nPages);

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
    const omar = await api.request('POST /live/{pin}/join', { params: { pin: session.pin }, body: { name: 'Omar' } });
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
    const answered = await api.request('POST /live/{pin}/answers', {
      params: { pin: session.pin },
      body: { slideId: 'lunch', optionIds: ['pizza'] },
      headers: { 'x-participant-token': expectOk(omar).participantToken },
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
    const results = await api.request('GET /polls/{id}/results', {
      params: { id: english.pollId },
      apiKey: english.apiKey,
    });
    expect(slideOf(expectOk(results).slides, 'lunch', 'multiple_choice').totalAnswers).toBe(1);
    expect(await participantCount(english)).toBe(1);
    pages.expectNoErrors();
  });
});

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
