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

/**
 * Bidirectional embeddings and overrides (U+202A–U+202E) and isolates (U+2066–U+2069): in a name or
 * a label they reorder the text shown after them — a participant called "\u202Enimda" reads as
 * "admin" on the presenter's screen — and an unclosed one spills into whatever follows it. The
 * marks U+200E and U+200F (LRM, RLM) only set a direction for the text beside them and stay.
 */
const BIDI_CONTROLS = /[\u202A-\u202E\u2066-\u2069]/g;

/** The most combining marks kept in a row: legitimate text stacks two or three, "Zalgo" text dozens. */
export const MAX_STACKED_MARKS = 4;
const MARK_RUN = new RegExp(`\\p{M}{${MAX_STACKED_MARKS + 1},}`, 'gu');

/**
 * Text as it is stored and shown to other people: bidirectional controls removed, runs of combining
 * marks cut to MAX_STACKED_MARKS (their excess piles up over the lines around them), and Unicode NFC
 * (so "é" typed as e + U+0301 and as U+00E9 is one text, counted and compared alike). Marks are
 * counted decomposed (NFD), so a precomposed letter's own accents count too; stripping comes first,
 * so that marks a control kept apart are counted as the run they become. Normalising the result
 * again changes nothing.
 */
export function normaliseDisplayText(value: string): string {
  return value
    .replace(BIDI_CONTROLS, '')
    .normalize('NFD')
    .replace(MARK_RUN, (run) => Array.from(run).slice(0, MAX_STACKED_MARKS).join(''))
    .normalize('NFC');
}

/**
 * The normalisation every display-text field carries (`displayText()` below), one check object, so a
 * test can find it on every human-readable string of every route's input, as it finds `storableText`.
 * An overwrite: the value changes, its type does not (a string in, a string out, in the contract's
 * types and the OpenAPI document alike).
 */
export const displayTextNormalisation = z.overwrite<string>(normaliseDisplayText);

/**
 * Human-readable free text other people read — names, titles, slide texts, option labels, questions
 * and answers, descriptions — normalised on the way in (`normaliseDisplayText`). Identifiers, PINs,
 * voter ids, keys, tokens and URLs stay exact: they are built with `text()`.
 */
export function displayText() {
  return z.string().check(storableText, displayTextNormalisation);
}

/**
 * The keyword, in the OpenAPI document and in a tool's output schema on `/mcp`, that marks text an
 * answer carries but nobody in the workspace wrote: a participant's answer, question or name, or what
 * a webhook receiver answered. Such text is data to show, never instructions: an AI agent reading a
 * result must not be steered by what an audience typed (docs/mcp.md).
 */
export const UNTRUSTED_TEXT_KEYWORD = 'x-untrusted-text';

/**
 * Marks an output field (and every string inside it) as untrusted text (`UNTRUSTED_TEXT_KEYWORD`).
 * Its description, if any, is kept: zod merges metadata.
 */
export function untrustedText<T extends z.ZodType>(schema: T): T {
  return schema.meta({ [UNTRUSTED_TEXT_KEYWORD]: true }) as T;
}
