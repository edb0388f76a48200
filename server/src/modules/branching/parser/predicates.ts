import type { Slide } from '@pollkit/contracts';
import { COMPARISON_PREFIXES, CONDITION_EXPECTED, NOT_OPTION_WORDS } from './lexicon.js';
import { anOptionOf } from './messages.js';
import { optionsIfAny, readOption, readOptions } from './references.js';
import {
  COPULAS,
  EQUALS_WORDS,
  EXCLUDES_WORDS,
  INCLUDES_WORDS,
  OR_LESS,
  OR_MORE,
  RANKED_FIRST,
  RATED_AS,
  SAYS_VERBS,
  SKIPPED_WORDS,
} from './strict-lexicon.js';
import type { Condition, Cursor, Operator } from './tokens.js';

/** After a slide: is below 3 / is "Pizza" / was skipped / is any of / includes … */
export function readPredicate(p: Cursor, slide: Slide): Condition {
  if (slide.kind === 'open_ended' || slide.kind === 'qa') {
    const token = p.peek();
    if (token && SAYS_VERBS.includes(token.value)) {
      p.fail(
        `"answered" or "not answered": a condition on ${slide.id} (${slide.kind === 'qa' ? 'Q&A' : 'open-ended'}) tests whether it was answered, not what the answer says`,
        'free_text',
      );
    }
  }
  if (p.acceptAny(EXCLUDES_WORDS)) {
    return negatedValue(p, slide);
  }
  const contains = p.acceptAny(INCLUDES_WORDS);
  if (contains) return { slide, operator: 'includes', value: readOptions(p, slide) };
  if (p.acceptAny(['has an answer', 'has a response', 'has any answer', 'has been answered', 'got an answer'])) {
    return { slide, operator: 'answered' };
  }
  if (p.acceptAny(['has no answer', 'has no response', 'has not been answered', 'got no answer'])) {
    return { slide, operator: 'not_answered' };
  }
  const be = p.acceptAny(COPULAS);
  p.acceptAny(['answered with', 'answered as', 'rated as']);
  // "is not sure": an option whose label starts with "not" is that option, not a negation.
  const labelled = p.peek()?.value === 'not' ? optionsIfAny(p, slide) : undefined;
  if (labelled) {
    return labelled.length > 1
      ? { slide, operator: 'includes', value: labelled }
      : { slide, operator: 'equals', value: labelled[0] as string };
  }
  const not =
    p.accept('not') ||
    p.acceptAny(['anything but', 'anything other than', 'anything except', 'other than', 'something other than']) !==
      undefined;
  if (p.acceptAny(SKIPPED_WORDS)) {
    return { slide, operator: not ? 'answered' : 'not_answered' };
  }
  if (p.acceptAny(['answered', 'been answered'])) return { slide, operator: not ? 'not_answered' : 'answered' };
  if (!be && p.acceptAny(['has no answer', 'has not been answered'])) return { slide, operator: 'not_answered' };
  p.acceptAny(RATED_AS);
  if (not) return negatedValue(p, slide);
  return valuePredicate(p, slide);
}

/** After "not", "does not include", "!=": one option or a rating, not chosen or not given. */
function negatedValue(p: Cursor, slide: Slide): Condition {
  p.acceptAny(['equal to', 'the option', 'option', 'the answer']);
  const option = readOption(p, slide);
  if (option !== undefined) return { slide, operator: 'not_equals', value: option };
  const n = p.signedNumber();
  if (n !== undefined) return { slide, operator: 'not_equals', value: n };
  return p.fail('an option or a rating after "not"');
}

/** An option (or options), or a rating comparison. */
export function valuePredicate(p: Cursor, slide: Slide): Condition {
  p.acceptAny(EQUALS_WORDS);
  if (p.acceptAny(['any of', 'one of', 'either', 'among', 'any one of', 'at least one of']))
    return { slide, operator: 'includes', value: readOptions(p, slide) };
  const comparison = readComparison(p, slide);
  if (comparison) return { slide, ...comparison };
  const options = optionsIfAny(p, slide);
  // A ranking's answer, as conditions see it, is the option ranked first: "has "Mobile app" ranked first".
  if (options) p.acceptAny(RANKED_FIRST);
  if (options) {
    return options.length > 1
      ? { slide, operator: 'includes', value: options }
      : { slide, operator: 'equals', value: options[0] as string };
  }
  // A word where an option should be ("Q1 is Paris") names an option the slide does not have.
  const next = p.peek();
  const namesOption =
    'options' in slide && (next?.kind === 'quoted' || (next?.kind === 'word' && !NOT_OPTION_WORDS.has(next.value)));
  if (namesOption && 'options' in slide) return p.fail(anOptionOf(slide, 'one of '), 'no_such_option');
  return p.fail(CONDITION_EXPECTED, 'unreadable');
}

/**
 * below 3 / at least 4 / 4 or more / exactly 5 / 5 / > 2, and a run of ratings that reaches an end
 * of the scale ("1 or 2", "9-10", "between 0 and 6" on 0–10: one comparison). A rating outside
 * the scale, or a run in its middle, is refused at its words.
 */
export function readComparison(p: Cursor, slide?: Slide): { operator: Operator; value: number } | undefined {
  const mark = p.at;
  const prefix = p.acceptAny([...COMPARISON_PREFIXES.keys()]);
  const between = prefix === undefined && p.acceptAny(['between', 'from']) !== undefined;
  const numberAt = p.at;
  const n = p.signedNumber();
  if (n === undefined) {
    p.at = mark;
    return undefined;
  }
  const range = rangeEnd(p, n, between);
  p.acceptAny(['stars', 'star', 'points', 'out of 5', 'out of 10', 'on the scale']);
  const scale = slide?.kind === 'scale' ? slide : undefined;
  const outside = (value: number) => scale !== undefined && (value < scale.min || value > scale.max);
  if (outside(n) || (range !== undefined && outside(range))) {
    p.at = outside(n) ? numberAt : p.at - 1;
    p.fail(`a rating on ${scale?.id}'s scale, from ${scale?.min} to ${scale?.max}`, 'out_of_range');
  }
  if (range !== undefined) {
    const [low, high] = n <= range ? [n, range] : [range, n];
    if (scale && low === scale.min) return { operator: 'at_most', value: high };
    if (scale && high === scale.max) return { operator: 'at_least', value: low };
    p.at = between ? mark : numberAt;
    p.fail(
      `one comparison: ${low} to ${high} is a range in the middle of the scale, and a rule holds one comparison. ` +
        `Write a rule for each side ("below ${low}", "above ${high}"), with the in-range jump as "otherwise"`,
      'unreadable',
    );
  }
  if (between) {
    p.at = mark;
    return undefined;
  }
  if (prefix !== undefined) return { operator: COMPARISON_PREFIXES.get(prefix) as Operator, value: n };
  if (p.acceptAny(OR_MORE)) {
    return { operator: 'at_least', value: n };
  }
  if (p.acceptAny(OR_LESS)) {
    return { operator: 'at_most', value: n };
  }
  return { operator: 'equals', value: n };
}

/**
 * The other end of a run of ratings after `n`: "or 2", "-6" (written "0-6"), "to 6", "and 6"
 * (after "between"), "or 9" only when adjacent ("1 or 2"). Undefined when none follows.
 */
function rangeEnd(p: Cursor, n: number, between: boolean): number | undefined {
  const mark = p.at;
  const token = p.peek();
  const previous = p.tokens[p.at - 1];
  if (token?.kind === 'number' && token.value.startsWith('-') && previous && token.start === previous.end) {
    p.at++;
    return -Number(token.value);
  }
  const joiner = p.acceptAny(between ? ['and', 'to', '-'] : ['or', 'to', 'through', '-']);
  if (joiner) {
    const m = p.signedNumber();
    if (m !== undefined && (between || joiner !== 'or' || Math.abs(m - n) === 1)) return m;
  }
  p.at = mark;
  return undefined;
}
