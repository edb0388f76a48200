import type { Slide } from '@pollkit/contracts';
import { NPS_GROUPS, NUMBER_WORDS, RATING_ABOVE, RATING_AT_LEAST, RATING_AT_MOST, RATING_BELOW } from './lexicon.js';
import type { Token } from './tokens.js';

type Scale = Extract<Slide, { kind: 'scale' }>;

/**
 * The ratings a condition on a scale accepts, from the numbers people write: "<= 6", "0-6", "6 or
 * below", "less then 7", "1 or 2", "5, 6 or 7", "between 4 and 6", "9 or a 10", "4s and 5s",
 * "detractors" (0–6 on a 0–10 scale), "Excellent" (the scale's top label). Several pieces in one
 * condition are all accepted ("a 1 or 2 … or 9").
 */
export interface RatingReading {
  /** The ratings accepted, within the scale. */
  values: Set<number>;
  /** Ratings written that the scale does not have ("9-10" on 1–7): the condition is refused. */
  outside: number[];
  /** Token indexes the reading used. */
  used: Set<number>;
}

function numberAt(tokens: readonly Token[], at: number): number | undefined {
  const token = tokens[at];
  if (!token) return undefined;
  if (token.kind === 'number' && /^-?\d+$/.test(token.value)) return Math.abs(Number(token.value));
  if (token.kind === 'word') {
    const plural = /^(\d+)s$/.exec(token.value);
    if (plural) return Number(plural[1]);
    const word = NUMBER_WORDS.indexOf(token.value);
    if (word >= 0 && token.value !== 'one') return word + 1;
  }
  return undefined;
}

/** The words of `phrases` (each `a b c`) that end just before token `at`; the longest. */
function phraseBefore(tokens: readonly Token[], at: number, phrases: readonly string[]): number {
  let best = 0;
  for (const phrase of phrases) {
    const words = phrase.split(' ');
    if (words.length > at) continue;
    if (words.every((word, index) => tokens[at - words.length + index]?.value === word))
      best = Math.max(best, words.length);
  }
  return best;
}

/** The words of `phrases` that start at token `at`; the longest. */
function phraseAfter(tokens: readonly Token[], at: number, phrases: readonly string[]): number {
  let best = 0;
  for (const phrase of phrases) {
    const words = phrase.split(' ');
    if (words.every((word, index) => tokens[at + index]?.value === word)) best = Math.max(best, words.length);
  }
  return best;
}

const JOINERS = new Set([',', 'or', 'and', 'a', 'an', '-', 'to', 'through', 'till', 'until', 'thru']);

/**
 * The ratings tokens [from, to) give `slide`, skipping the tokens in `taken` (slide numbers such as
 * "Q3"); undefined when they give none.
 */
export function readRatings(
  tokens: readonly Token[],
  from: number,
  to: number,
  slide: Scale,
  taken: ReadonlySet<number>,
): RatingReading | undefined {
  const values = new Set<number>();
  const outside: number[] = [];
  const used = new Set<number>();
  const accept = (low: number, high: number) => {
    for (const value of [low, high]) if (value < slide.min || value > slide.max) outside.push(value);
    for (let value = Math.max(low, slide.min); value <= Math.min(high, slide.max); value++) values.add(value);
  };
  for (let at = from; at < to; at++) {
    const token = tokens[at] as Token;
    if (token.kind === 'word' && NPS_GROUPS[token.value] && slide.min === 0 && slide.max === 10) {
      const [low, high] = NPS_GROUPS[token.value] as [number, number];
      accept(low, high);
      used.add(at);
      continue;
    }
    if (taken.has(at)) continue;
    const n = numberAt(tokens, at);
    if (n === undefined) continue;
    // "out of 7" and "/10" say the scale, not a rating.
    if (tokens[at - 1]?.value === 'of' && tokens[at - 2]?.value === 'out') continue;
    // "the 7-point scale", "a 5 star rating": the scale's size.
    const after = tokens[at + 1]?.value ?? '';
    if (
      /^-?(point|points|pt|star|stars)$/.test(after) &&
      ['scale', 'rating', 'likert'].includes(tokens[at + 2]?.value ?? '')
    )
      continue;
    used.add(at);
    let end = at + 1;
    // A run: "0-6", "0 to 6", "between 4 and 6", "from 1 to 3".
    const dash = tokens[at + 1];
    const adjacentNegative = dash?.kind === 'number' && dash.value.startsWith('-') && dash.start === token.end;
    const joiner = tokens[at + 1]?.value;
    const between = tokens[at - 1]?.value === 'between' || tokens[at - 1]?.value === 'from';
    const whole =
      adjacentNegative &&
      Math.min(n, Math.abs(Number(dash.value))) === slide.min &&
      Math.max(n, Math.abs(Number(dash.value))) === slide.max;
    if (whole) {
      at += 1;
      continue;
    }
    if (adjacentNegative) {
      accept(Math.min(n, Math.abs(Number(dash.value))), Math.max(n, Math.abs(Number(dash.value))));
      used.add(at + 1);
      at += 1;
      continue;
    }
    if (
      (joiner === '-' ||
        joiner === 'to' ||
        joiner === 'through' ||
        joiner === 'thru' ||
        (between && joiner === 'and')) &&
      numberAt(tokens, at + 2) !== undefined
    ) {
      const m = numberAt(tokens, at + 2) as number;
      // "(Q2, 1–7)": the whole scale says which scale, not which ratings.
      if (Math.min(n, m) === slide.min && Math.max(n, m) === slide.max) {
        at += 2;
        continue;
      }
      accept(Math.min(n, m), Math.max(n, m));
      used.add(at + 1).add(at + 2);
      at += 2;
      continue;
    }
    // A comparison before the number: "less then 7", "<= 6", "at least 8".
    const below = phraseBefore(tokens, at, RATING_BELOW);
    const above = phraseBefore(tokens, at, RATING_ABOVE);
    const atMost = phraseBefore(tokens, at, RATING_AT_MOST);
    const atLeast = phraseBefore(tokens, at, RATING_AT_LEAST);
    const before = Math.max(below, above, atMost, atLeast);
    // …or after it: "6 or below", "8+", "4 and up".
    const atMostAfter = phraseAfter(tokens, at + 1, RATING_AT_MOST);
    const atLeastAfter = phraseAfter(tokens, at + 1, RATING_AT_LEAST);
    if (before > 0) {
      if (atMost === before) accept(slide.min, n);
      else if (atLeast === before) accept(n, slide.max);
      else if (below === before) accept(slide.min, n - 1);
      else accept(n + 1, slide.max);
      for (let i = at - before; i < at; i++) used.add(i);
    } else if (atMostAfter > 0 && atMostAfter >= atLeastAfter) {
      accept(slide.min, n);
      end = at + 1 + atMostAfter;
    } else if (atLeastAfter > 0) {
      accept(n, slide.max);
      end = at + 1 + atLeastAfter;
    } else {
      accept(n, n);
    }
    for (let i = at; i < end; i++) used.add(i);
    at = end - 1;
    // The joiners of a list ("5, 6 or 7", "a 1 or a 2") belong to it.
    while (JOINERS.has(tokens[at + 1]?.value ?? '') && at + 1 < to) {
      if (numberAt(tokens, at + 2) === undefined && numberAt(tokens, at + 3) === undefined) break;
      used.add(at + 1);
      at++;
    }
  }
  for (const [label, value] of [
    [slide.minLabel, slide.min],
    [slide.maxLabel, slide.max],
  ] as const) {
    if (!label) continue;
    const words = label.toLowerCase().split(/\s+/);
    for (let at = from; at + words.length <= to; at++) {
      if (words.every((word, index) => tokens[at + index]?.value === word)) {
        accept(value, value);
        for (let i = at; i < at + words.length; i++) used.add(i);
      }
    }
  }
  if (values.size === 0 && outside.length === 0) return undefined;
  return { values, outside, used };
}

/** How a set of ratings is written as rules: a run from an end of the scale is one comparison. */
export function ratingTests(
  values: ReadonlySet<number>,
  slide: Scale,
): { operator: 'equals' | 'at_most' | 'at_least'; value: number }[] {
  const sorted = [...values].sort((a, b) => a - b);
  const low = sorted[0] as number;
  const high = sorted.at(-1) as number;
  const contiguous = high - low + 1 === sorted.length;
  if (sorted.length > 1 && contiguous && low === slide.min) return [{ operator: 'at_most', value: high }];
  if (sorted.length > 1 && contiguous && high === slide.max) return [{ operator: 'at_least', value: low }];
  return sorted.map((value) => ({ operator: 'equals' as const, value }));
}
