import type { Slide } from '@pollkit/contracts';
import { KEYWORDS } from './lexicon.js';
import { parse } from './rules.js';
import { Cursor, type InstructionError } from './tokens.js';
import { editDistance } from './typos.js';

/** Words a typo of `word` may have meant: the closest of `vocabulary`, within a third of its length. */
function nearWords(word: string, vocabulary: ReadonlySet<string>): string[] {
  const lower = word.toLowerCase();
  if (lower.length < 3) return [];
  const limit = Math.max(1, Math.floor(lower.length / 3));
  const scored: { word: string; distance: number }[] = [];
  for (const candidate of vocabulary) {
    if (candidate === lower) continue;
    const distance = editDistance(lower, candidate, limit);
    if (distance <= limit) scored.push({ word: candidate, distance });
  }
  return scored.sort((a, b) => a.distance - b.distance).map((entry) => entry.word);
}

/**
 * The closest instruction the parser reads, when one word of the refused part (from the fragment
 * on) is a typo of a known word, an id or a label, or is one word too many: each such change is
 * tried, and the first that reads is the suggestion. Undefined when none does.
 */
export function closestReading(
  instruction: string,
  slides: readonly Slide[],
  error: InstructionError,
): string | undefined {
  const vocabulary = new Set<string>(KEYWORDS);
  for (const slide of slides) {
    vocabulary.add(slide.id.toLowerCase());
    if ('options' in slide) {
      for (const option of slide.options) {
        vocabulary.add(option.id.toLowerCase());
        for (const word of option.label.toLowerCase().split(/\s+/)) if (word) vocabulary.add(word);
      }
    }
  }
  const from = Math.max(0, instruction.indexOf(error.fragment));
  const words = [...instruction.matchAll(/[\p{L}][\p{L}\p{N}'’-]*/gu)].filter((match) => (match.index ?? 0) >= from);
  const reads = (candidate: string) => {
    try {
      parse(new Cursor(candidate, slides));
      return true;
    } catch {
      return false;
    }
  };
  for (const match of words.slice(0, 8)) {
    const at = match.index ?? 0;
    const word = match[0];
    const before = instruction.slice(0, at);
    const after = instruction.slice(at + word.length);
    for (const replacement of nearWords(word, vocabulary).slice(0, 3)) {
      const candidate = `${before}${matchCase(word, replacement)}${after}`;
      if (reads(candidate)) return candidate;
    }
  }
  return undefined;
}

/** `replacement` in the letter case `word` was written in (all capitals, a capital first, or lower). */
function matchCase(word: string, replacement: string): string {
  if (word.length > 1 && word === word.toUpperCase()) return replacement.toUpperCase();
  if (word[0] && word[0] === word[0].toUpperCase()) return replacement[0]?.toUpperCase() + replacement.slice(1);
  return replacement;
}
