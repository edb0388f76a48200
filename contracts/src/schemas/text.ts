import { z } from 'zod';

/**
 * Text PostgreSQL can store. Its `text` type refuses the NUL character (U+0000), and `jsonb` refuses
 * an unpaired UTF-16 surrogate (`"\ud800"` is valid JSON but not valid Unicode). Both arrive
 * through perfectly well-formed JSON bodies and query strings, so unless they are refused up front
 * they fail deep down, in the database, as a 500 — and, inside a group-commit batch, take the batch
 * with them.
 *
 * With the `u` flag a well-formed surrogate pair is one code point, so `\p{Cs}` matches only the
 * unpaired halves.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching NUL is the point of this rule.
const UNSTORABLE = /[\u0000\p{Cs}]/u;

/** Whether PostgreSQL can store `value` as `text` and inside `jsonb`. */
export function isStorableText(value: string): boolean {
  return !UNSTORABLE.test(value);
}

/**
 * The rule every string a client sends carries (`text()` below). One check object, so a test can
 * find it on every string of every route's input and no route, present or future, can go without it.
 */
export const storableText = z.check<string>((ctx) => {
  const value = ctx.value;
  if (isStorableText(value)) return;
  ctx.issues.push({
    code: 'custom',
    input: value,
    message: value.includes('\u0000')
      ? 'Must not contain the NUL character (\\u0000)'
      : 'Must be valid Unicode: contains an unpaired surrogate (such as \\ud800)',
  });
});

/** A string a client sends: any string field of a request body, query or path. */
export function text() {
  return z.string().check(storableText);
}
