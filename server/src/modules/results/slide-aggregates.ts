import type { Slide, SlideResult } from '@pollkit/contracts';
import type { TallyRow } from '../answers/index.js';
import { tallyKey } from '../answers/tallies.js';

/**
 * Per-slide results computed from the counters alone (slide_tallies), shared by the results endpoint
 * and the CSV export so the two cannot disagree. Only the deck's own options, ratings and statements
 * are reported: a counter naming anything else is ignored.
 */

export interface Tally {
  count: number;
  total: number;
}

/** The poll's counters by slide, then by key. */
export class TallyIndex {
  readonly #bySlide = new Map<string, Map<string, Tally>>();

  constructor(rows: readonly TallyRow[]) {
    for (const row of rows) {
      let slide = this.#bySlide.get(row.slideId);
      if (!slide) {
        slide = new Map();
        this.#bySlide.set(row.slideId, slide);
      }
      slide.set(row.key, { count: row.count, total: row.total });
    }
  }

  get(slideId: string, key: string): Tally {
    return this.#bySlide.get(slideId)?.get(key) ?? { count: 0, total: 0 };
  }

  count(slideId: string, key: string): number {
    return this.get(slideId, key).count;
  }
}

/** `part / whole` as a percentage with two decimals; 0 when there is nothing to divide. */
function percentage(part: number, whole: number): number {
  return whole === 0 ? 0 : Math.round((part / whole) * 10_000) / 100;
}

function ratings(min: number, max: number): number[] {
  return Array.from({ length: max - min + 1 }, (_, i) => min + i);
}

type Of<K extends SlideResult['kind']> = Extract<SlideResult, { kind: K }>;
type SlideOf<K extends Slide['kind']> = Extract<Slide, { kind: K }>;

export function multipleChoiceResult(slide: SlideOf<'multiple_choice'>, tallies: TallyIndex): Of<'multiple_choice'> {
  const totalAnswers = tallies.count(slide.id, tallyKey.answers);
  return {
    slideId: slide.id,
    text: slide.text,
    kind: 'multiple_choice',
    totalAnswers,
    options: slide.options.map((option) => {
      const count = tallies.count(slide.id, tallyKey.option(option.id));
      return { id: option.id, label: option.label, count, percentage: percentage(count, totalAnswers) };
    }),
  };
}

export function quizResult(slide: SlideOf<'quiz'>, tallies: TallyIndex): Of<'quiz'> {
  const totalAnswers = tallies.count(slide.id, tallyKey.answers);
  const correctAnswers = tallies.count(slide.id, tallyKey.correct);
  const correct = new Set(slide.correctOptionIds);
  return {
    slideId: slide.id,
    text: slide.text,
    kind: 'quiz',
    totalAnswers,
    correctAnswers,
    correctRate: percentage(correctAnswers, totalAnswers),
    options: slide.options.map((option) => {
      const count = tallies.count(slide.id, tallyKey.option(option.id));
      return {
        id: option.id,
        label: option.label,
        count,
        percentage: percentage(count, totalAnswers),
        correct: correct.has(option.id),
      };
    }),
  };
}

/**
 * A scale without statements is read from its `rating:<v>` counters and the rating sum on `answers`.
 * With statements each statement has its own; the slide-level average and distribution then pool every
 * statement's ratings (so the distribution counts one rating per statement per respondent), while
 * `totalAnswers` stays the number of respondents.
 */
export function scaleResult(slide: SlideOf<'scale'>, tallies: TallyIndex): Of<'scale'> {
  const values = ratings(slide.min, slide.max);
  const answers = tallies.get(slide.id, tallyKey.answers);
  const statements = slide.statements.map((statement) => {
    const sum = tallies.get(slide.id, tallyKey.statement(statement.id));
    return {
      id: statement.id,
      text: statement.text,
      totalAnswers: sum.count,
      average: sum.count === 0 ? null : sum.total / sum.count,
      distribution: values.map((value) => ({
        value,
        count: tallies.count(slide.id, tallyKey.statementRating(statement.id, value)),
      })),
    };
  });

  let ratingCount = answers.count;
  let ratingSum = answers.total;
  let distribution = values.map((value) => ({ value, count: tallies.count(slide.id, tallyKey.rating(value)) }));
  if (statements.length > 0) {
    ratingCount = statements.reduce((n, s) => n + s.totalAnswers, 0);
    ratingSum = slide.statements.reduce((n, s) => n + tallies.get(slide.id, tallyKey.statement(s.id)).total, 0);
    distribution = values.map((value, i) => ({
      value,
      count: statements.reduce((n, s) => n + (s.distribution[i]?.count ?? 0), 0),
    }));
  }
  return {
    slideId: slide.id,
    text: slide.text,
    kind: 'scale',
    totalAnswers: answers.count,
    average: ratingCount === 0 ? null : ratingSum / ratingCount,
    distribution,
    statements,
  };
}

/**
 * `rank:<id>` counts the answers that placed the option and sums their 1-based positions. Borda score:
 * each answer gives n − position points (n options), so n × count − sum of positions.
 */
export function rankingResult(slide: SlideOf<'ranking'>, tallies: TallyIndex): Of<'ranking'> {
  const n = slide.options.length;
  return {
    slideId: slide.id,
    text: slide.text,
    kind: 'ranking',
    totalAnswers: tallies.count(slide.id, tallyKey.answers),
    options: slide.options.map((option) => {
      const { count, total } = tallies.get(slide.id, tallyKey.rank(option.id));
      return {
        id: option.id,
        label: option.label,
        averageRank: count === 0 ? null : total / count,
        score: n * count - total,
      };
    }),
  };
}
