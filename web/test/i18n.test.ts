/// <reference types="node" />
import { readFileSync } from 'node:fs';
import MessageFormatModule from '@messageformat/core';
import { h } from 'preact';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  direction,
  errorMessage,
  formatNumber,
  formatScore,
  language,
  languages,
  loadMessages,
  readPageData,
  t,
  tx,
} from '../src/shared/i18n.js';

/**
 * The pages' i18n runtime (web/src/shared/i18n.ts) without a browser: the server's data block read
 * and checked, the one catalog imported (English when it fails), the direction, and messages
 * formatted from the English catalog compiled as the build compiles it.
 */

// The package's types declare `export default`, its code assigns `module.exports`: Node's default import is the class.
const MessageFormat = MessageFormatModule as unknown as typeof MessageFormatModule.default;
const english = JSON.parse(readFileSync(new URL('../src/i18n/messages/en.json', import.meta.url), 'utf8')) as Record<
  string,
  string
>;

/** The English catalog as `messages-join-en.js` exports it: a function per key. */
function compiled(tag: string, messages: Record<string, string>) {
  const mf = new MessageFormat(tag);
  return { default: Object.fromEntries(Object.entries(messages).map(([key, message]) => [key, mf.compile(message)])) };
}

/** Just what i18n.ts reads of a document: the data block, and `<html lang dir>`. */
function page(block: unknown, dir = '') {
  const documentElement = { lang: '', dir };
  const text = typeof block === 'string' ? block : JSON.stringify(block);
  return {
    documentElement,
    getElementById: (id: string) => (id === 'pollkit-page' && block !== undefined ? { textContent: text } : null),
  } as unknown as Document;
}

const ENGLISH_URL = '/assets/messages-join-en.js';

afterEach(() => {
  vi.restoreAllMocks();
});

describe('the data block', () => {
  const fallback = { language: 'en', languages: ['en'], catalog: ENGLISH_URL };

  it('is English when missing or malformed', () => {
    expect(readPageData(page(undefined))).toEqual(fallback);
    expect(readPageData(page('{"language":'))).toEqual(fallback);
    expect(readPageData(page({ language: 'de' }))).toEqual(fallback);
    expect(readPageData(page({ language: 'not a tag!', catalog: '/assets/messages-de.js' }))).toEqual(fallback);
    expect(readPageData(page({ language: 'de', catalog: '//elsewhere.example/messages-de.js' }))).toEqual(fallback);
    expect(readPageData(page({ language: 'de', catalog: 42 }))).toEqual(fallback);
  });

  it('gives the language, the languages and the catalog, tags as browsers write them, ignoring other fields', () => {
    expect(
      readPageData(
        page({
          language: 'pt-br',
          languages: ['en', 'pt-BR', 'zh-hans', 'bad tag', 7],
          catalog: '/assets/messages-pt-br.js?v=0123456789abcdef',
          logo: null,
          embedOrigins: [],
        }),
      ),
    ).toEqual({
      language: 'pt-BR',
      languages: ['en', 'pt-BR', 'zh-Hans'],
      catalog: '/assets/messages-pt-br.js?v=0123456789abcdef',
    });
    expect(readPageData(page({ language: 'de', catalog: '/assets/messages-de.js' })).languages).toEqual(['de']);
  });
});

describe('loading the catalog', () => {
  it('imports the one the page names, and takes the direction from <html dir> or else the language', async () => {
    const importer = vi.fn(async (url: string) => {
      if (url === '/assets/messages-he.js') return compiled('he', { 'join.form.join': 'הצטרפות' });
      throw new Error(`unexpected ${url}`);
    });
    const doc = page({ language: 'he', languages: ['en', 'he'], catalog: '/assets/messages-he.js' });
    await loadMessages(doc, importer);
    expect(importer).toHaveBeenCalledTimes(1);
    expect([language, direction, languages]).toEqual(['he', 'rtl', ['en', 'he']]);
    expect(doc.documentElement).toMatchObject({ lang: 'he', dir: 'rtl' });
    expect(t('join.form.join')).toBe('הצטרפות');

    await loadMessages(page({ language: 'de', catalog: '/d.js' }, 'ltr'), async () => compiled('de', {}));
    expect([language, direction]).toEqual(['de', 'ltr']);
  });

  it('falls back to English, left to right, when the catalog does not load', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const doc = page({ language: 'ar', languages: ['en', 'ar'], catalog: '/assets/messages-ar.js?v=1' }, 'rtl');
    await loadMessages(doc, async (url) => {
      if (url === ENGLISH_URL) return compiled('en', english);
      throw new TypeError('Failed to fetch dynamically imported module');
    });
    expect([language, direction]).toEqual(['en', 'ltr']);
    expect(doc.documentElement).toMatchObject({ lang: 'en', dir: 'ltr' });
    expect(t('join.form.heading')).toBe('Join a session');
    expect(warn).toHaveBeenCalledTimes(1);
  });

  it('rejects a module that is no catalog', async () => {
    await expect(loadMessages(page(undefined), async () => ({}))).rejects.toThrow(/no catalog/);
  });
});

describe('messages', () => {
  it('are formatted by the compiled English catalog as the pages showed them before', async () => {
    await loadMessages(page(undefined), async () => compiled('en', english));
    expect(t('present.quiz.answersHidden', { count: 3 })).toBe('3 answers · results hidden');
    expect(t('present.quiz.answersHidden', { count: 1 })).toBe('1 answer · results hidden');
    expect(t('common.participantsTookPart', { count: 3 })).toBe('3 participants took part.');
    expect(t('join.outcome.rightPoints', { points: 1000 })).toBe('✓ Right · 1000 points');
    expect(t('join.outcome.rightPoints', { points: 12500 })).toBe('✓ Right · 12,500 points');
    expect(t('join.walk.progress', { step: 2, total: 5 })).toBe('2 of 5');
    expect(t('results.share', { share: 0.67 })).toBe('(67%)');
    expect(t('results.ranking.averagePlace', { place: 1.666 })).toBe('average place 1.7');
    expect(t('join.error.notAPin', { pin: '12ab' })).toBe('“12ab” is not a PIN: a PIN is six digits.');
  });

  it('show a missing key as the key, warning once', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    await loadMessages(page({ language: 'de', catalog: '/de.js' }), async () =>
      compiled('de', { 'join.form.join': 'Beitreten' }),
    );
    expect(t('join.form.join')).toBe('Beitreten');
    expect(t('join.form.heading')).toBe('join.form.heading');
    expect(t('join.form.heading')).toBe('join.form.heading');
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn.mock.calls[0]?.[0]).toContain('join.form.heading');
  });

  it('put elements where the translation puts their arguments', async () => {
    await loadMessages(page({ language: 'de', catalog: '/de.js' }), async () =>
      compiled('de', { 'join.score.finalRanked': 'Platz {rank}, {score} Punkte' }),
    );
    const score = h('strong', null, '1000');
    const rank = h('strong', null, '#1');
    expect(tx('join.score.finalRanked', { score, rank })).toEqual(['Platz ', rank, ', ', score, ' Punkte']);
  });

  it('map an API error by its code, and any other error to the generic message with its detail', async () => {
    await loadMessages(page(undefined), async () => compiled('en', english));
    const refused = Object.assign(new Error('Slide is locked'), { code: 'slide_locked' });
    expect(errorMessage(refused)).toBe('Answers are closed for this slide.');
    const unknown = Object.assign(new Error('Body is invalid'), { code: 'validation_failed' });
    expect(errorMessage(unknown)).toBe('Something went wrong: Body is invalid');
    expect(errorMessage('boom')).toBe('Something went wrong: boom');
  });

  it('format numbers in the page’s language, scores grouped from five digits', async () => {
    await loadMessages(page({ language: 'de', catalog: '/de.js' }), async () => compiled('de', {}));
    expect(formatNumber(1234.5)).toBe('1.234,5');
    expect(formatScore(1000)).toBe('1000');
    expect(formatScore(12500)).toBe('12.500');
  });
});
