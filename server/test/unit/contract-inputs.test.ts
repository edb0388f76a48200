import {
  contract,
  displayText,
  displayTextNormalisation,
  isStorableText,
  MAX_STACKED_MARKS,
  normaliseDisplayText,
  storableText,
  text,
} from '@pollkit/contracts';
import { describe, expect, it } from 'vitest';
import { forEachString, hasCheck, hasFormat } from '../support/schemas.js';

/**
 * The rules every route's input obeys by construction, checked on the contract itself, so a route
 * added tomorrow is held to them without a test of its own.
 */
describe('every string a client can send', () => {
  const operations = Object.entries(contract).flatMap(([group, routes]) =>
    Object.entries(routes).map(([name, route]) => ({ name: `${group}.${name}`, route })),
  );

  it.each(operations)('$name: every string field refuses text PostgreSQL cannot store', ({ route }) => {
    const bare: string[] = [];
    let strings = 0;
    forEachString(route.input, (path, schema) => {
      strings += 1;
      if (!hasCheck(schema, storableText)) bare.push(path || '(the input itself)');
    });
    // A string schema without the rule: build it with `text()` from contracts/src/schemas/text.ts.
    expect(bare).toEqual([]);
    // Path parameters alone make most inputs hold a string; the walk must have seen them.
    if (route.path.includes('{')) expect(strings).toBeGreaterThan(0);
  });
});

/**
 * Strings of free form that are not display text: what a client chose as an identifier or an
 * address, or what the server handed out, compared exactly as sent. Every other string without a
 * fixed form (a regex or a string format) must be display text. A new field lands here only with a
 * reason.
 */
const EXACT_FREE_FORM: [RegExp, string, RegExp?][] = [
  [/(^|\.)voterId$/, 'the caller’s identifier for a respondent, matched against stored answers'],
  [/^respondentId$/, 'the customer’s own identifier for a participant, matched as given'],
  [/^id$/, 'a voter id, participant id or respondentId, matched against stored ones', /^respondents\./],
  [/(^|\.)cursor$/, 'an opaque cursor the server made'],
  [/^url$/, 'a webhook URL, checked as a URL'],
  [/\.if\.value(\.\*)?$/, 'option ids (or a rating) a branching condition tests'],
  [/^language$/, 'a BCP 47 tag, read as the supported language it names'],
  [/^embedOrigins\.\*$/, 'an origin, checked and canonicalised as a URL'],
  [/^source$/, 'an imported file, read byte for byte by its format’s reader', /^polls\.import$/],
];

describe('every human-readable string a client can send', () => {
  const operations = Object.entries(contract).flatMap(([group, routes]) =>
    Object.entries(routes).map(([name, route]) => ({ name: `${group}.${name}`, route })),
  );

  it.each(operations)(
    '$name: free text is normalised as display text, identifiers are left exact',
    ({ name, route }) => {
      const unclassified: string[] = [];
      const normalisedIdentifiers: string[] = [];
      forEachString(route.input, (path, schema) => {
        const display = hasCheck(schema, displayTextNormalisation);
        if (display && hasFormat(schema)) normalisedIdentifiers.push(path);
        const exact = EXACT_FREE_FORM.some(
          ([pattern, , operation]) => pattern.test(path) && (operation === undefined || operation.test(name)),
        );
        if (display || hasFormat(schema) || exact) return;
        unclassified.push(path || '(the input itself)');
      });
      // A free-text field: build it with `displayText()` (contracts/src/schemas/text.ts); an exact one
      // without a fixed form: add it to EXACT_FREE_FORM, saying why.
      expect(unclassified).toEqual([]);
      expect(normalisedIdentifiers).toEqual([]);
    },
  );

  it('covers the fields people read: names, titles, slides, labels, questions, answers, descriptions', () => {
    const display = new Set<string>();
    for (const { name, route } of operations) {
      forEachString(route.input, (path, schema) => {
        if (hasCheck(schema, displayTextNormalisation)) display.add(`${name} ${path}`);
      });
    }
    for (const field of [
      'live.join name',
      'live.answer text',
      'polls.create title',
      'polls.create content.questions.*.text',
      'polls.create content.questions.*.options.*.label',
      'polls.create content.questions.*.statements.*.text',
      'polls.create content.questions.*.minLabel',
      'polls.update title',
      'responses.create text',
      'keys.create name',
      'webhooks.create description',
      'webhooks.update description',
      'polls.branch instruction',
    ]) {
      expect(display, field).toContain(field);
    }
  });
});

describe('display-text normalisation', () => {
  const RLO = '\u202e';
  const PDF = '\u202c';
  const LRI = '\u2066';
  const PDI = '\u2069';
  const marks = (n: number) => '\u0301\u0302\u0303\u0304\u0305\u0306\u0307\u0308\u0309\u030a'.slice(0, n);

  it.each([
    [
      'drops bidirectional overrides, embeddings and isolates',
      `${RLO}nimda${PDF} ${LRI}x${PDI}\u202a\u202b\u202d\u2067\u2068`,
      'nimda x',
    ],
    ['keeps the direction marks LRM and RLM', 'a\u200eb\u200fc', 'a\u200eb\u200fc'],
    ['composes to NFC', 'Cafe\u0301', 'Café'],
    ['joins a mark a control kept from its letter', `e${RLO}\u0301`, 'é'],
    ['keeps up to four marks in a row', `a${marks(4)}`, `a${marks(4)}`.normalize('NFC')],
    [
      'cuts a longer run to four, a precomposed letter’s own marks counted',
      `Z${marks(10)}ệ${marks(3)}`,
      `Z${marks(4)}e\u0323\u0302${marks(2)}`.normalize('NFC'),
    ],
    ['leaves emoji sequences alone', '👩🏽‍💻 1️⃣ 🇫🇷', '👩🏽‍💻 1️⃣ 🇫🇷'],
    ['leaves scripts that stack a few marks alone', 'नमस्ते Tiếng Việt שָׁלוֹם', 'नमस्ते Tiếng Việt שָׁלוֹם'.normalize('NFC')],
  ])('%s', (_what, input, expected) => {
    expect(normaliseDisplayText(input)).toBe(expected);
    expect(displayText().parse(input)).toBe(expected);
  });

  it(`is stable: normalising twice changes nothing, and no run of more than ${MAX_STACKED_MARKS} marks survives`, () => {
    const pieces = [
      'a',
      'e',
      'Å',
      'ệ',
      '\u0301',
      '\u0323',
      '\u0302',
      '\u05b8',
      '\u0e49',
      RLO,
      LRI,
      PDI,
      '\u200f',
      '한',
      '\u1100',
      '\u1161',
      '😀',
      ' ',
    ];
    let seed = 42;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    for (let i = 0; i < 2_000; i++) {
      const input = Array.from(
        { length: 1 + Math.floor(random() * 20) },
        () => pieces[Math.floor(random() * pieces.length)],
      ).join('');
      const once = normaliseDisplayText(input);
      expect(normaliseDisplayText(once), JSON.stringify(input)).toBe(once);
      expect(once).toBe(once.normalize('NFC'));
      expect(once).not.toMatch(/[\u202a-\u202e\u2066-\u2069]/);
      expect(once).not.toMatch(new RegExp(`\\p{M}{${MAX_STACKED_MARKS + 1}}`, 'u'));
    }
  });

  it('leaves identifiers exact: `text()` does not normalise', () => {
    expect(text().parse(`${RLO}id${PDF}`)).toBe(`${RLO}id${PDF}`);
    expect(text().parse('Cafe\u0301')).toBe('Cafe\u0301');
  });
});

describe('every route with an id in its path', () => {
  const withIds = Object.entries(contract).flatMap(([group, routes]) =>
    Object.entries(routes)
      .filter(([, route]) => route.path.includes('{'))
      .map(([name, route]) => ({ name: `${group}.${name}`, route })),
  );

  // The pipeline answers a malformed id with 404 (api/pipeline.ts), so the document must say so.
  it.each(withIds)('$name: documents 404 not_found', ({ route }) => {
    expect(route.errors).toContain('not_found');
  });
});

describe('the storable-text rule', () => {
  const schema = text().max(10);

  it.each([
    ['a NUL', 'a\u0000b', 'Must not contain the NUL character (\\u0000)'],
    ['a lone high surrogate', 'a\ud800', 'Must be valid Unicode: contains an unpaired surrogate (such as \\ud800)'],
    ['a lone low surrogate', '\udc00z', 'Must be valid Unicode: contains an unpaired surrogate (such as \\ud800)'],
    ['a reversed pair', '\udc00\ud800', 'Must be valid Unicode: contains an unpaired surrogate (such as \\ud800)'],
  ])('refuses %s with a message that says what is wrong', (_what, value, message) => {
    expect(isStorableText(value)).toBe(false);
    const parsed = schema.safeParse(value);
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues.map((issue) => issue.message)).toEqual([message]);
  });

  it.each([
    ['plain text', 'Pizza'],
    ['a surrogate pair (emoji)', '🍕 ok'],
    ['other control characters PostgreSQL stores', 'tab\there\u0001'],
    ['the empty string', ''],
  ])('accepts %s', (_what, value) => {
    expect(isStorableText(value)).toBe(true);
    expect(schema.safeParse(value).success).toBe(true);
  });
});
