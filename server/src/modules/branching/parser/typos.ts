import type { Slide } from '@pollkit/contracts';
import { stem, wordsOf } from './evidence.js';
import { KEYWORDS, LEXICON_WORDS, STOP_WORDS } from './lexicon.js';

/**
 * Typing slips in an instruction, read as the word they miss by one letter: "belwo" is "below",
 * "skpi" is "skip", "Piza" is the option "Pizza". Only words no vocabulary knows are changed (the
 * grammar's, the poll's text, labels and ids), to a word that is the one closest: five letters
 * and longer by one edit; four-letter words only by swapping two letters. Each change is reported with the draft.
 */

/** Edit distance with transpositions ("belwo" is one edit from "below"), or `limit + 1` when past it. */
export function editDistance(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  const rows: number[][] = [Array.from({ length: b.length + 1 }, (_, index) => index)];
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      const above = rows[i - 1] as number[];
      let value = Math.min((above[j] as number) + 1, (row[j - 1] as number) + 1, (above[j - 1] as number) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        value = Math.min(value, ((rows[i - 2] as number[])[j - 2] as number) + 1);
      }
      row.push(value);
    }
    rows.push(row);
  }
  const distance = (rows[a.length] as number[])[b.length] as number;
  return distance > limit ? limit + 1 : distance;
}

export interface Correction {
  /** The word as written. */
  from: string;
  /** The word it was read as. */
  to: string;
}

/** The poll's words: its texts, labels, statements and ids; and, apart, its options' words (what a slip may mean). */
function deckWords(slides: readonly Slide[]): { all: Set<string>; options: Set<string> } {
  const all = new Set<string>();
  const options = new Set<string>();
  for (const slide of slides) {
    for (const word of wordsOf(`${slide.id} ${slide.text}`)) all.add(word);
    if ('options' in slide) {
      for (const option of slide.options) {
        for (const word of wordsOf(`${option.id} ${option.label}`)) {
          all.add(word);
          options.add(word);
        }
      }
    }
    if (slide.kind === 'scale')
      for (const statement of slide.statements) for (const word of wordsOf(statement.text)) all.add(word);
  }
  return { all, options };
}

/** The instruction with its slips corrected, and the corrections. */
export function correctTypos(
  instruction: string,
  slides: readonly Slide[],
): { text: string; corrections: Correction[] } {
  const deck = deckWords(slides);
  const grammar = new Set(KEYWORDS.filter((word) => /^\p{L}{4,}$/u.test(word)));
  // What a slip may mean: the grammar's words, the options' words, and the longer words of the texts
  // ("missng" for "missing").
  const targets = [
    ...grammar,
    ...[...deck.options].filter((word) => word.length >= 4),
    ...[...deck.all].filter((word) => word.length >= 5),
  ];
  const known = (word: string) =>
    LEXICON_WORDS.has(word) || grammar.has(word) || deck.all.has(word) || STOP_WORDS.has(word) || COMMON.has(word);
  // "remembered", "features", "comes": a known word with an ending is known too.
  const knownForm = (word: string) =>
    known(word) ||
    known(stem(word)) ||
    deck.all.has(`${word}s`) ||
    [...deck.all].some((other) => stem(other) === stem(word));
  const corrections: Correction[] = [];
  const text = instruction.replace(/\p{L}[\p{L}']*/gu, (written) => {
    const word = written.toLowerCase();
    if (word.length < 4 || word.includes("'") || knownForm(word)) return written;
    const candidates = targets.filter((candidate) => {
      if (editDistance(word, candidate, 1) > 1) return false;
      // Four letters are too few to tell a slip from another word, unless two letters swapped places.
      const swapped = [...word].sort().join('') === [...candidate].sort().join('');
      return word.length >= 5 || swapped;
    });
    const unique = [...new Set(candidates)];
    if (unique.length !== 1) return written;
    corrections.push({ from: written, to: unique[0] as string });
    return unique[0] as string;
  });
  return { text, corrections };
}

/** Words people write around rules that are near a grammar word but are not slips of it. */
const COMMON = new Set(
  'thank thanks thanx loved liked past part hear here near fine find point points than then them they when what where were wear year years also else'.split(
    ' ',
  ),
);
