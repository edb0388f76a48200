import { createHash } from 'node:crypto';
import type { Slide } from '@pollkit/contracts';
import type { AnswerValue } from '../../db/schema.js';

/**
 * The aggregate model: what one accepted answer adds to the counters of its slide. The writer applies
 * these deltas in the same transaction as the answer; the results reader and the export read them.
 * Every key is built here and nowhere else.
 *
 * | slide kind        | keys (count, total)                                                      |
 * |-------------------|--------------------------------------------------------------------------|
 * | every answerable  | `answers` (1, 0)                                                         |
 * | multiple_choice   | `option:<id>` (1) per chosen option                                      |
 * | quiz              | `option:<id>` (1) per chosen option; `correct` (1) when exactly right    |
 * | scale             | `rating:<v>` (1); `answers` total += v                                   |
 * | scale, statements | `statement:<sid>` (1, v) and `statement:<sid>:rating:<v>` (1) each       |
 * | ranking           | `rank:<optionId>` (1, 1-based position)                                  |
 * | open_ended        | open_text_counts[text] += 1; word_counts[word] += 1 per distinct word    |
 * | qa                | `answers` (1) per question                                               |
 */
export const tallyKey = {
  answers: 'answers',
  option: (optionId: string) => `option:${optionId}`,
  correct: 'correct',
  rating: (value: number) => `rating:${value}`,
  statement: (statementId: string) => `statement:${statementId}`,
  statementRating: (statementId: string, value: number) => `statement:${statementId}:rating:${value}`,
  rank: (optionId: string) => `rank:${optionId}`,
} as const;

interface TallyDelta {
  key: string;
  count: number;
  total: number;
}

export interface AnswerDeltas {
  tallies: TallyDelta[];
  /** open_ended only: the normalised text and its distinct words. */
  text?: { hash: string; text: string };
  words?: string[];
}

/**
 * `shownText`: an open-ended answer as the text filter shows it (flagged words masked), when it differs
 * from the answer: the word cloud counts the words of that, so that no flagged word, nor a piece of one
 * ("hole" of "a$$hole"), reaches it. The answer's text is counted as written (exports mask it).
 */
export function deltasFor(slide: Slide, value: AnswerValue, shownText?: string): AnswerDeltas {
  const tallies: TallyDelta[] = [];
  const add = (key: string, total = 0) => tallies.push({ key, count: 1, total });
  switch (slide.kind) {
    case 'multiple_choice':
      add(tallyKey.answers);
      for (const id of value.optionIds ?? []) add(tallyKey.option(id));
      return { tallies };
    case 'quiz': {
      add(tallyKey.answers);
      const chosen = value.optionIds ?? [];
      for (const id of chosen) add(tallyKey.option(id));
      const correct = new Set(slide.correctOptionIds);
      if (chosen.length === correct.size && chosen.every((id) => correct.has(id))) add(tallyKey.correct);
      return { tallies };
    }
    case 'scale':
      if (value.scaleValues) {
        add(tallyKey.answers);
        for (const [statementId, rating] of Object.entries(value.scaleValues)) {
          add(tallyKey.statement(statementId), rating);
          add(tallyKey.statementRating(statementId, rating));
        }
      } else if (value.scaleValue !== undefined) {
        add(tallyKey.answers, value.scaleValue);
        add(tallyKey.rating(value.scaleValue));
      }
      return { tallies };
    case 'ranking':
      add(tallyKey.answers);
      for (const [index, id] of (value.rankingOrder ?? []).entries()) add(tallyKey.rank(id), index + 1);
      return { tallies };
    case 'open_ended': {
      add(tallyKey.answers);
      const text = value.text ?? '';
      return { tallies, text: { hash: textHash(text), text }, words: wordsOf(shownText ?? text) };
    }
    case 'qa':
      add(tallyKey.answers);
      return { tallies };
    case 'content':
      return { tallies };
  }
}

function textHash(text: string): string {
  return createHash('sha256').update(text).digest('base64url');
}

/** Collapses runs of white space, so "a  b" and "a b" count as one answer. */
export function normaliseText(text: string): string {
  return text.trim().replace(/\s+/gu, ' ');
}

const STOPWORDS = new Set(
  (
    'a an and are as at be but by for from has have i if in is it its me my no not of on or our so that the their ' +
    'them there they this to too us was we were what when which who why will with you your'
  ).split(' '),
);

/** Distinct lower-case words of an answer for the word cloud: two or more letters/digits, at least one letter. */
function wordsOf(text: string): string[] {
  const words = new Set<string>();
  for (const match of text.toLowerCase().matchAll(/[\p{L}\p{N}][\p{L}\p{N}'’-]*/gu)) {
    const word = match[0].replace(/['’-]+$/u, '');
    // Numbers ("#42", "2026") say little in a word cloud: a word needs a letter.
    if (word.length >= 2 && word.length <= 64 && /\p{L}/u.test(word) && !STOPWORDS.has(word)) words.add(word);
  }
  return [...words];
}
