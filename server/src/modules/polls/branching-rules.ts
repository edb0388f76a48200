import type { BranchCondition, Branching, Poll, Slide } from '@pollkit/contracts';
import { ApiError } from '../../core/api-error.js';
import type { AnswerValue } from '../../db/schema.js';

/**
 * Whether skip logic fits its poll, whoever wrote it (the rule-based parser, a language model, a
 * client's `PATCH`): every slide and option exists, the operator and value fit the slide's kind,
 * jumps go forward, and every rule can apply — none is caught in full by the rules before it on its
 * slide, none sits on a slide that no respondent reaches, none can never be true.
 *
 * Rules are read as they will be evaluated: after a respondent leaves slide `if.slideId` (answered
 * or not), its rules are tried in order and the first that matches decides where they go; when none
 * matches, they go on to the next slide. Operators, by slide kind:
 * - multiple choice and quiz: `equals` / `not_equals` an option id (chosen / not chosen), `includes`
 *   option ids (any of them chosen);
 * - scale without statements: `equals`, `not_equals`, `greater_than`, `less_than`, `at_least`,
 *   `at_most` a rating between the slide's `min` and `max`;
 * - ranking: `equals` / `not_equals` an option id (ranked first, or not);
 * - every answerable kind: `answered`, `not_answered`. Content slides take no answers: no rules.
 *
 * Whether a rule can apply is decided exactly, over every outcome a respondent can have on the slide
 * (each option or rating, each set of options on a multiple-answer slide, or no answer), up to
 * 2^10 outcomes; a slide with more possible outcomes is checked for everything but overlaps.
 */

export interface BranchingProblem {
  /** Where in `{ conditions }` the problem is, as a validation error's `path`. */
  path: (string | number)[];
  message: string;
}

type Condition = BranchCondition;
/** One thing a respondent can have done on a slide: `null` is no answer. */
export type Outcome = null | number | string | readonly string[];

const MAX_SUBSET_OPTIONS = 10;

const NEEDS_NO_VALUE = new Set(['answered', 'not_answered']);
const RATING_OPERATORS = new Set(['equals', 'not_equals', 'greater_than', 'less_than', 'at_least', 'at_most']);

function operatorsOf(slide: Slide): ReadonlySet<string> {
  switch (slide.kind) {
    case 'multiple_choice':
    case 'quiz':
      return new Set(['equals', 'not_equals', 'includes', 'answered', 'not_answered']);
    case 'scale':
      return slide.statements.length === 0
        ? new Set([...RATING_OPERATORS, 'answered', 'not_answered'])
        : new Set(['answered', 'not_answered']);
    case 'ranking':
      return new Set(['equals', 'not_equals', 'answered', 'not_answered']);
    case 'open_ended':
    case 'qa':
      return new Set(['answered', 'not_answered']);
    case 'content':
      return new Set();
  }
}

/** Every outcome of a slide, or undefined when there are too many to list. */
export function outcomesOf(slide: Slide): Outcome[] | undefined {
  switch (slide.kind) {
    case 'multiple_choice':
    case 'quiz': {
      const ids = slide.options.map((option) => option.id);
      const several = slide.kind === 'quiz' || slide.type === 'multiple';
      if (!several) return [null, ...ids];
      if (ids.length > MAX_SUBSET_OPTIONS) return undefined;
      const subsets: Outcome[] = [null];
      for (let mask = 1; mask < 1 << ids.length; mask++) subsets.push(ids.filter((_, bit) => mask & (1 << bit)));
      return subsets;
    }
    case 'scale': {
      if (slide.statements.length > 0) return [null, 'answered'];
      const ratings: Outcome[] = [null];
      for (let value = slide.min; value <= slide.max; value++) ratings.push(value);
      return ratings;
    }
    case 'ranking':
      // What a condition can tell apart: which option came first.
      return [null, ...slide.options.map((option) => option.id)];
    case 'open_ended':
    case 'qa':
      return [null, 'answered'];
    case 'content':
      return [];
  }
}

/** Whether a respondent with `outcome` on the slide matches the condition. */
export function matches(condition: Condition['if'], outcome: Outcome): boolean {
  if (condition.operator === 'not_answered') return outcome === null;
  if (outcome === null) return false;
  if (condition.operator === 'answered') return true;
  const value = condition.value;
  const chosen = (id: unknown) => (Array.isArray(outcome) ? outcome.includes(id as string) : outcome === id);
  switch (condition.operator) {
    case 'equals':
      return chosen(value);
    case 'not_equals':
      return !chosen(value);
    case 'includes':
      return Array.isArray(value) && value.some((id) => chosen(id));
    case 'greater_than':
      return typeof outcome === 'number' && outcome > (value as number);
    case 'less_than':
      return typeof outcome === 'number' && outcome < (value as number);
    case 'at_least':
      return typeof outcome === 'number' && outcome >= (value as number);
    case 'at_most':
      return typeof outcome === 'number' && outcome <= (value as number);
  }
}

/** A respondent's stored answer to a slide as a condition sees it; null when there is none. */
export function outcomeOfAnswer(slide: Slide, value: AnswerValue | undefined): Outcome {
  if (!value) return null;
  switch (slide.kind) {
    case 'multiple_choice':
    case 'quiz':
      return value.optionIds ?? [];
    case 'scale':
      return slide.statements.length === 0 && value.scaleValue !== undefined ? value.scaleValue : 'answered';
    case 'ranking':
      return value.rankingOrder?.[0] ?? 'answered';
    default:
      return 'answered';
  }
}

/**
 * Where a respondent goes after slide `index` with `outcome` on it: the first of the slide's rules
 * that matches decides (a slide id's index, or `end`); none matching, the next slide, or the end
 * after the last. `GET /polls/{id}/next-slide` and a self-paced session's walk both ask this.
 */
export function slideAfter(poll: Pick<Poll, 'content' | 'branching'>, index: number, outcome: Outcome): number | 'end' {
  const slides = poll.content.questions;
  const slide = slides[index];
  if (slide) {
    for (const rule of poll.branching?.conditions ?? []) {
      if (rule.if.slideId !== slide.id || !matches(rule.if, outcome)) continue;
      if (rule.then.action === 'end') return 'end';
      const target = rule.then.slideId;
      const to = slides.findIndex((candidate) => candidate.id === target);
      // Stored skip logic is checked against the deck (jumps go forward), so this always holds.
      if (to > index) return to;
    }
  }
  return index + 1 < slides.length ? index + 1 : 'end';
}

function describeSlide(slides: readonly Slide[], slide: Slide): string {
  return `'${slide.id}' (slide ${slides.indexOf(slide) + 1})`;
}

/** Problems with the value of a condition on `slide`, if any. */
function valueProblem(slide: Slide, condition: Condition['if']): string | undefined {
  const { operator, value } = condition;
  if (NEEDS_NO_VALUE.has(operator)) return value === undefined ? undefined : `\`${operator}\` takes no \`value\``;
  const optionIds = 'options' in slide ? slide.options.map((option) => option.id) : [];
  const unknown = (id: unknown) => `Slide '${slide.id}' has no option '${String(id)}' (it has ${optionIds.join(', ')})`;
  if (operator === 'includes') {
    if (!Array.isArray(value) || value.length === 0) return '`includes` takes a non-empty list of option ids';
    const missing = value.find((id) => !optionIds.includes(id));
    return missing === undefined ? undefined : unknown(missing);
  }
  if (slide.kind === 'scale') {
    if (typeof value !== 'number' || !Number.isInteger(value)) return `\`${operator}\` on a scale takes a whole rating`;
    if (value < slide.min || value > slide.max) {
      return `Slide '${slide.id}' is rated from ${slide.min} to ${slide.max}: ${value} is outside it`;
    }
    return undefined;
  }
  if (typeof value !== 'string') return `\`${operator}\` on a ${slide.kind.replace('_', '-')} slide takes an option id`;
  return optionIds.includes(value) ? undefined : unknown(value);
}

export function checkBranching(conditions: readonly Condition[], slides: readonly Slide[]): BranchingProblem[] {
  const problems: BranchingProblem[] = [];
  const indexOf = new Map(slides.map((slide, index) => [slide.id, index]));
  /** The rules that passed the checks of their own, by source slide index. */
  const valid = new Map<number, { index: number; condition: Condition }[]>();

  conditions.forEach((condition, index) => {
    const at = (...rest: (string | number)[]) => ['conditions', index, ...rest];
    const sourceIndex = indexOf.get(condition.if.slideId);
    if (sourceIndex === undefined) {
      problems.push({ path: at('if', 'slideId'), message: `No slide '${condition.if.slideId}' in this poll` });
      return;
    }
    const source = slides[sourceIndex] as Slide;
    const allowed = operatorsOf(source);
    if (allowed.size === 0) {
      problems.push({
        path: at('if', 'slideId'),
        message: `Slide ${describeSlide(slides, source)} is a content slide: it takes no answers, so no rule can test it`,
      });
      return;
    }
    if (!allowed.has(condition.if.operator)) {
      problems.push({
        path: at('if', 'operator'),
        message: `\`${condition.if.operator}\` does not fit slide '${source.id}' (${source.kind.replace('_', '-')}${
          source.kind === 'scale' && source.statements.length > 0 ? ' with statements' : ''
        }): use one of ${[...allowed].map((operator) => `\`${operator}\``).join(', ')}`,
      });
      return;
    }
    const badValue = valueProblem(source, condition.if);
    if (badValue) {
      problems.push({ path: at('if', 'value'), message: badValue });
      return;
    }
    if (condition.then.action === 'skip_to') {
      const targetIndex = indexOf.get(condition.then.slideId);
      if (targetIndex === undefined) {
        problems.push({ path: at('then', 'slideId'), message: `No slide '${condition.then.slideId}' in this poll` });
        return;
      }
      if (targetIndex <= sourceIndex) {
        problems.push({
          path: at('then', 'slideId'),
          message: `Jumps go forward only: ${describeSlide(slides, slides[targetIndex] as Slide)} is not after ${describeSlide(slides, source)}`,
        });
        return;
      }
    }
    const list = valid.get(sourceIndex) ?? [];
    list.push({ index, condition });
    valid.set(sourceIndex, list);
  });

  // Each slide's rules in order: what each still catches after those before it; and which slides
  // any respondent reaches at all (the first; the next one when not every outcome jumps away; each
  // target of a rule that catches something).
  const reached = new Set<number>([0]);
  for (let slideIndex = 0; slideIndex < slides.length; slideIndex++) {
    const slide = slides[slideIndex] as Slide;
    const rules = valid.get(slideIndex) ?? [];
    if (!reached.has(slideIndex)) {
      for (const { index } of rules) {
        problems.push({
          path: ['conditions', index],
          message: `Rule '${conditions[index]?.id}' can never apply: no respondent reaches slide ${describeSlide(slides, slide)}`,
        });
      }
      continue;
    }
    const outcomes = outcomesOf(slide);
    if (outcomes === undefined) {
      // Too many outcomes to list: every rule is taken to catch something, and some fall through.
      for (const { condition } of rules) reach(condition, reached, indexOf);
      reached.add(slideIndex + 1);
      continue;
    }
    let left = outcomes;
    for (const { index, condition } of rules) {
      const caught = left.filter((outcome) => matches(condition.if, outcome));
      if (caught.length === 0) {
        const earlier = rules.filter(
          (other) => other.index < index && outcomes.some((o) => matches(other.condition.if, o)),
        );
        problems.push({
          path: ['conditions', index],
          message:
            outcomes.some((outcome) => matches(condition.if, outcome)) && earlier.length > 0
              ? `Rule '${condition.id}' can never apply: every answer it matches is caught first by ${earlier
                  .map((other) => `'${other.condition.id}'`)
                  .join(', ')}`
              : `Rule '${condition.id}' can never apply: no answer to slide '${slide.id}' matches it`,
        });
        continue;
      }
      reach(condition, reached, indexOf);
      left = left.filter((outcome) => !caught.includes(outcome));
    }
    // Content slides and slides without rules always lead on; others when some outcome is left.
    if (rules.length === 0 || left.length > 0) reached.add(slideIndex + 1);
  }
  return problems;
}

function reach(condition: Condition, reached: Set<number>, indexOf: ReadonlyMap<string, number>): void {
  if (condition.then.action === 'skip_to') reached.add(indexOf.get(condition.then.slideId) as number);
}

/** 422 `validation_failed` listing skip-logic problems under `field` (`branching`, or `instruction`). */
export function branchingProblemsError(field: string, problems: readonly BranchingProblem[], lead: string): ApiError {
  const byField = new Map<string, string[]>();
  for (const problem of problems) {
    const key = [field, ...problem.path].join('.');
    byField.set(key, [...(byField.get(key) ?? []), problem.message]);
  }
  const fieldErrors = Object.fromEntries(byField);
  return new ApiError('validation_failed', `${lead}: ${problems[0]?.message ?? ''}`, { fieldErrors, formErrors: [] });
}

/** `PATCH /polls/{id}` `{ branching }` and new content under stored branching: the skip logic must fit. */
export function assertBranchingFits(branching: Branching, slides: readonly Slide[], lead: string): void {
  const problems = checkBranching(branching.conditions, slides);
  if (problems.length > 0) throw branchingProblemsError('branching', problems, lead);
}
