/// <reference types="node" />
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import MessageFormatModule from '@messageformat/core';
import { parse, type Select, type Token } from '@messageformat/parser';
import { afterAll, describe, expect, it } from 'vitest';

/**
 * The pages' message catalogs (web/src/i18n/messages/<tag>.json, ICU MessageFormat), checked as the
 * build would take them and as a translator may break them: every file is named by a language tag
 * as browsers write it, holds exactly the English catalog's keys, in order, each message parses and
 * compiles for its language, uses the English message's arguments, and gives each plural every
 * category its language has (`Intl.PluralRules`): Polish needs `few` and `many`, Arabic all six.
 * The checker is a function, tested on catalogs made up here too: a check that finds nothing on
 * the real files must be shown to find what it looks for.
 */

// The package's types declare `export default`, its code assigns `module.exports`: Node's default import is the class.
const MessageFormat = MessageFormatModule as unknown as typeof MessageFormatModule.default;

const MESSAGES_DIR = fileURLToPath(new URL('../src/i18n/messages/', import.meta.url));

type Messages = Record<string, unknown>;

/** Every argument a message uses, by name (plural and select selectors too). */
function argumentsOf(tokens: readonly Token[], into = new Set<string>()): Set<string> {
  for (const token of tokens) {
    if (token.type === 'argument' || token.type === 'function') into.add(token.arg);
    if (token.type === 'plural' || token.type === 'select' || token.type === 'selectordinal') {
      into.add(token.arg);
      for (const branch of token.cases) argumentsOf(branch.tokens, into);
    }
  }
  return into;
}

/** Every `plural` in a message, nested ones too. */
function pluralsOf(tokens: readonly Token[], into: Select[] = []): Select[] {
  for (const token of tokens) {
    if (token.type === 'plural' || token.type === 'select' || token.type === 'selectordinal') {
      if (token.type === 'plural') into.push(token);
      for (const branch of token.cases) pluralsOf(branch.tokens, into);
    }
  }
  return into;
}

/** The problems of one catalog (`tag` from its file name) against the English one; none when it is fine. */
export function catalogProblems(tag: string, messages: Messages, english: Record<string, string>): string[] {
  const problems: string[] = [];
  let canonical: string | undefined;
  try {
    canonical = Intl.getCanonicalLocales(tag)[0];
  } catch {
    // Reported below.
  }
  if (canonical !== tag) {
    problems.push(`the file name ${tag}.json is not a language tag as written (${canonical ?? 'invalid'})`);
    return problems;
  }
  const keys = Object.keys(messages);
  const missing = Object.keys(english).filter((key) => !Object.hasOwn(messages, key));
  const extra = keys.filter((key) => !Object.hasOwn(english, key));
  if (missing.length > 0) problems.push(`missing keys: ${missing.join(', ')}`);
  if (extra.length > 0) problems.push(`keys English does not have: ${extra.join(', ')}`);
  const sorted = [...keys].sort();
  if (keys.some((key, index) => key !== sorted[index])) problems.push('the keys are not in alphabetical order');

  const categories = new Intl.PluralRules(tag).resolvedOptions().pluralCategories as string[];
  const mf = new MessageFormat(tag, { strictPluralKeys: true });
  for (const key of keys) {
    const message = messages[key];
    if (typeof message !== 'string') {
      problems.push(`${key}: not a string`);
      continue;
    }
    let tokens: Token[];
    try {
      tokens = parse(message, { cardinal: categories as never });
      mf.compile(message);
    } catch (error) {
      problems.push(`${key}: ${(error as Error).message.split('\n')[0]}`);
      continue;
    }
    const englishMessage = english[key];
    if (englishMessage !== undefined) {
      const wanted = [...argumentsOf(parse(englishMessage))].sort();
      const used = [...argumentsOf(tokens)].sort();
      if (wanted.join() !== used.join()) {
        problems.push(`${key}: arguments {${used.join('}, {')}}, English has {${wanted.join('}, {')}}`);
      }
    }
    for (const plural of pluralsOf(tokens)) {
      const has = new Set(plural.cases.map((branch) => branch.key));
      const lacking = [...new Set([...categories, 'other'])].filter((category) => !has.has(category));
      if (lacking.length > 0) {
        problems.push(
          `${key}: the plural of {${plural.arg}} lacks ${lacking.join(', ')} (${tag} has ${categories.join(', ')})`,
        );
      }
    }
  }
  return problems;
}

/** The problems of every catalog in `dir`, by file name; en.json is the reference. */
export function catalogDirProblems(dir: string): Record<string, string[]> {
  const read = (name: string) => JSON.parse(readFileSync(join(dir, name), 'utf8')) as Messages;
  const english = read('en.json') as Record<string, string>;
  const result: Record<string, string[]> = {};
  for (const name of readdirSync(dir).filter((file) => file.endsWith('.json'))) {
    let messages: Messages;
    try {
      messages = read(name);
    } catch (error) {
      result[name] = [`not JSON: ${(error as Error).message}`];
      continue;
    }
    result[name] = catalogProblems(name.slice(0, -'.json'.length), messages, english);
  }
  return result;
}

const english = JSON.parse(readFileSync(join(MESSAGES_DIR, 'en.json'), 'utf8')) as Record<string, string>;

describe('the message catalogs', () => {
  const files = readdirSync(MESSAGES_DIR).filter((name) => name.endsWith('.json'));

  it('include the English one, flat: a string per key', () => {
    expect(files).toContain('en.json');
    expect(Object.keys(english).length).toBeGreaterThan(100);
    for (const [key, message] of Object.entries(english)) {
      expect(key, key).toMatch(/^[a-z][A-Za-z]*(?:\.[a-z][A-Za-z_]*)+$/);
      expect(typeof message, key).toBe('string');
    }
  });

  it.each(files)('%s: the keys of en.json, each message valid for its language', (name) => {
    expect(catalogDirProblems(MESSAGES_DIR)[name]).toEqual([]);
  });
});

describe('the catalog checker', () => {
  const fixture = {
    'a.count': '{count, plural, one {# answer} other {# answers}}',
    'a.hello': 'Hello {name}',
    'b.plain': 'Plain',
  };

  it('finds nothing wrong with a good translation', () => {
    expect(
      catalogProblems(
        'pl',
        {
          'a.count': '{count, plural, one {# odpowiedź} few {# odpowiedzi} many {# odpowiedzi} other {# odpowiedzi}}',
          'a.hello': 'Cześć {name}',
          'b.plain': 'Zwykły',
        },
        fixture,
      ),
    ).toEqual([]);
    expect(catalogProblems('ja', { ...fixture, 'a.count': '{count, plural, other {# 件}}' }, fixture)).toEqual([]);
  });

  it('names missing and extra keys', () => {
    const problems = catalogProblems(
      'de',
      { 'a.count': fixture['a.count'], 'b.plain': 'Einfach', 'c.new': 'Neu' },
      fixture,
    );
    expect(problems).toContain('missing keys: a.hello');
    expect(problems).toContain('keys English does not have: c.new');
  });

  it('finds a plural without a category of the language, and one the language does not have', () => {
    expect(catalogProblems('pl', fixture, fixture)).toEqual([
      'a.count: the plural of {count} lacks few, many (pl has few, many, one, other)',
    ]);
    expect(catalogProblems('ja', fixture, fixture)).toEqual([expect.stringMatching(/^a\.count: .*one/)]);
  });

  it('finds an argument renamed or dropped, a syntax error, keys out of order, a file misnamed', () => {
    expect(catalogProblems('de', { ...fixture, 'a.hello': 'Hallo {nom}' }, fixture)).toEqual([
      'a.hello: arguments {nom}, English has {name}',
    ]);
    expect(catalogProblems('de', { ...fixture, 'a.hello': 'Hallo {name' }, fixture)).toEqual([
      expect.stringMatching(/^a\.hello: /),
    ]);
    expect(catalogProblems('de', Object.fromEntries(Object.entries(fixture).reverse()), fixture)).toEqual([
      'the keys are not in alphabetical order',
    ]);
    expect(catalogProblems('pt-br', fixture, fixture)).toEqual([
      'the file name pt-br.json is not a language tag as written (pt-BR)',
    ]);
    expect(catalogProblems('zh_Hans', fixture, fixture)[0]).toMatch(/not a language tag/);
  });

  describe('on a folder of catalogs', () => {
    const dir = mkdtempSync(join(tmpdir(), 'pollkit-messages-'));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it('finds a German copy of the English catalog that lacks a key, and a Polish one that lacks plural categories', () => {
      const [dropped] = Object.keys(english);
      const german = Object.fromEntries(Object.entries(english).filter(([key]) => key !== dropped));
      writeFileSync(join(dir, 'en.json'), JSON.stringify(english));
      writeFileSync(join(dir, 'de.json'), JSON.stringify(german));
      writeFileSync(join(dir, 'pl.json'), JSON.stringify(english));
      const problems = catalogDirProblems(dir);
      expect(problems['en.json']).toEqual([]);
      expect(problems['de.json']).toEqual([`missing keys: ${dropped}`]);
      expect(problems['pl.json']).toContain(
        'results.answers: the plural of {count} lacks few, many (pl has few, many, one, other)',
      );
    });
  });
});
