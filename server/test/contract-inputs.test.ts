import { contract, isStorableText, storableText, text } from '@pollkit/contracts';
import { describe, expect, it } from 'vitest';
import { forEachString, hasCheck } from './support/schemas.js';

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
