import type { Page } from 'playwright-core';
import { expectAccessible, type WatchedPage } from './browser.js';
import { type Catalog, EN } from './pages-i18n.js';

/**
 * The English of the pages' catalog, and a walk that looks for it on a page in another language
 * (server/test/system/pages-i18n.languages.browser.test.ts): each state checked by axe-core and for
 * English of the catalog, or a catalog key shown in place of a missing message.
 */

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
export class Walk {
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
