import type { Slide } from '@pollkit/contracts';
import { COMPARISON_PREFIXES, SUBJECT_NOUNS, SUBJECTS } from './lexicon.js';
import { readComparison, valuePredicate } from './predicates.js';
import { locatedOptions, normalise, optionAnywhere, readSlide } from './references.js';
import {
  ANSWERED_VERBS,
  ANSWERED_WITH,
  AUXILIARIES,
  BEING_VERBS,
  CHOOSE_STEMS,
  CHOSE_VERBS,
  COMPARING_WORDS,
  NEGATED_AUXILIARIES,
  NOT_ANSWERED_VERBS,
  RATED_VERBS,
  SILENT_VERBS,
  WROTE_VERBS,
} from './strict-lexicon.js';
import { type Condition, type Cursor, InstructionError } from './tokens.js';

export function readSubject(p: Cursor): boolean {
  const token = p.peek();
  if (token?.kind !== 'word') return false;
  if (SUBJECTS.includes(token.value)) {
    p.at++;
    return true;
  }
  const start = p.at;
  p.acceptAny(['the', 'a', 'an', 'any', 'each', 'every']);
  const noun = p.peek();
  if (noun?.kind === 'word' && SUBJECT_NOUNS.includes(noun.value)) {
    p.at++;
    return true;
  }
  p.at = start;
  return false;
}

/** After "they": chose / rated / answered / did not answer … */
export function subjectCondition(p: Cursor): Condition {
  if (p.acceptAny(NOT_ANSWERED_VERBS)) {
    const slide = readSlide(p);
    p.accept('blank') || p.accept('empty') || p.accept('unanswered');
    return { slide, operator: 'not_answered' };
  }
  const wrote = p.acceptAny(WROTE_VERBS);
  if (wrote) return { slide: readSlide(p), operator: 'answered' };
  const silent = ['did not', 'does not', 'do not'].flatMap((not) => SILENT_VERBS.map((verb) => `${not} ${verb}`));
  if (p.acceptAny(silent)) return { slide: readSlide(p), operator: 'not_answered' };
  // "they are on the Free plan", "they are joining Sales": an option one slide has.
  const being = BEING_VERBS;
  const verbAt = p.at;
  if (p.acceptAny(being)) {
    const found = optionAnywhere(p);
    if (!found) {
      p.at = verbAt;
      p.fail('an answer a slide of this poll has, as in "they are on the Free plan"');
    }
    // "the Free plan": a word of the slide's own text after the answer says nothing more.
    const next = p.peek();
    const own = `${found.slide.id} ${found.slide.text}`.toLowerCase();
    if (next?.kind === 'word' && own.includes(next.value)) p.at++;
    return { slide: found.slide, operator: 'equals', value: found.optionId };
  }
  const yesNo = yesNoCondition(p);
  if (yesNo) return yesNo;
  const valueFirst = valueThenSlide(p);
  if (valueFirst) return valueFirst;
  const choosing = CHOOSE_STEMS;
  const negated = p.acceptAny(
    ['did not', 'does not', 'do not', 'has not', 'have not'].flatMap((not) =>
      [...choosing, 'chosen', 'picked', 'selected', 'ticked', 'checked'].map((verb) => `${not} ${verb}`),
    ),
  );
  const chose = negated ?? p.acceptAny(CHOSE_VERBS);
  if (chose) {
    const anyOf = p.acceptAny(['any of', 'one of', 'either', 'at least one of']) !== undefined;
    const located = locatedOptions(p);
    if (negated) {
      if (located.options.length > 1) p.fail('one option after "did not choose"');
      return { slide: located.slide, operator: 'not_equals', value: located.options[0] as string };
    }
    if (anyOf || located.options.length > 1)
      return { slide: located.slide, operator: 'includes', value: located.options };
    return { slide: located.slide, operator: 'equals', value: located.options[0] as string };
  }
  refuseCorrectness(p);
  if (p.acceptAny(RATED_VERBS)) {
    refusePoints(p);
    const slide = ratedSlide(p);
    p.accept('a') || p.accept('an');
    const comparison = readComparison(p, slide);
    if (!comparison) p.fail('a rating, such as "below 3", "at least 4" or "5"');
    return { slide, ...comparison };
  }
  if (p.acceptAny(ANSWERED_WITH)) {
    // "they said "Yes" to Q2", "they answered with 5 on Q2": a value, then its slide.
    const valueAt = p.at;
    let look = p.at + 1;
    while (look < p.tokens.length && !['to', 'on', 'for', 'in'].includes(p.tokens[look]?.value ?? '')) look++;
    if (look >= p.tokens.length) p.fail('a value and its slide, as in "they said \\"Yes\\" to Q2"');
    p.at = look + 1;
    const slide = readSlide(p);
    const after = p.at;
    p.at = valueAt;
    const predicate = valuePredicate(p, slide);
    p.at = after;
    return predicate;
  }
  if (p.acceptAny(ANSWERED_VERBS)) {
    // "they answered "Yes" to Q2" or "they answered Q2".
    const token = p.peek();
    if (token?.kind === 'quoted' || token?.kind === 'number') {
      const mark = p.at;
      p.at++;
      if (p.acceptAny(['to', 'on', 'for', 'in'])) {
        const slide = readSlide(p);
        p.at = mark;
        const predicate = valuePredicate(p, slide);
        p.acceptAny(['to', 'on', 'for', 'in']);
        readSlide(p);
        return predicate;
      }
      p.at = mark;
    }
    return { slide: readSlide(p), operator: 'answered' };
  }
  return p.fail(
    '"chose", "did not choose", "rated", "answered" or "did not answer" after the subject, as in "they chose \\"Pizza\\" on Q1"',
  );
}

/** "they got Q1 right": whether an answer is correct is not in the format (it tests the options chosen). */
function refuseCorrectness(p: Cursor): void {
  const mark = p.at;
  if (!p.acceptAny(['got', 'get', 'gets', 'had', 'answered'])) return;
  try {
    readSlide(p);
    if (['right', 'correct', 'wrong', 'incorrect', 'correctly', 'incorrectly'].includes(p.peek()?.value ?? '')) {
      p.fail(
        'the options chosen: a condition tests which options were chosen ("If Q1 is \\"Paris\\""), not whether the answer was right',
        'unreadable',
      );
    }
  } catch (error) {
    if (!(error instanceof InstructionError) || error.expected.startsWith('the options chosen')) throw error;
  }
  p.at = mark;
}

/** "scored more than 2 points": a quiz score is not an answer to a slide, which is all a rule tests. */
function refusePoints(p: Cursor): void {
  const comparing = new Set(COMPARING_WORDS);
  for (let offset = 0; offset < 5; offset++) {
    const token = p.peek(offset);
    if (!token) return;
    if (token.value === 'points' || token.value === 'point') {
      p.at += offset;
      p.fail(
        'a slide and its rating: a quiz score (points) is not an answer to a slide, which is all a rule tests',
        'unsupported_action',
      );
    }
    if (token.kind !== 'number' && !comparing.has(token.value)) return;
  }
}

/**
 * What "they rated …" rates: a slide, or "us"/"it" when the deck has one rating scale (no
 * statements) to mean — "they scored us 0-6".
 */
function ratedSlide(p: Cursor): Slide {
  const mark = p.at;
  if (p.acceptAny(['us', 'it', 'the product', 'the event', 'the service'])) {
    const scales = p.slides.filter((slide) => slide.kind === 'scale' && slide.statements.length === 0);
    const next = p.peek();
    const rating =
      next?.kind === 'number' ||
      next?.value === 'a' ||
      next?.value === 'an' ||
      COMPARISON_PREFIXES.has(next?.value ?? '');
    if (scales.length === 1 && rating) return scales[0] as Slide;
    p.at = mark;
  }
  return readSlide(p);
}

/**
 * "they answer Paris on Q1", "they answered 5 to Q2": a value, then its slide. Undefined, nothing
 * consumed, when the words are not that.
 */
function valueThenSlide(p: Cursor): Condition | undefined {
  const mark = p.at;
  if (!p.acceptAny(['answered', 'answer', 'answers', 'put', 'entered', 'enter'])) return undefined;
  const valueAt = p.at;
  let look = p.at;
  const preposition = (index: number) => ['to', 'on', 'for', 'in'].includes(p.tokens[index]?.value ?? '');
  while (look < p.tokens.length && look - valueAt < 6 && !preposition(look)) look++;
  if (look === valueAt || look >= p.tokens.length) {
    p.at = mark;
    return undefined;
  }
  try {
    p.at = look + 1;
    const slide = readSlide(p);
    const after = p.at;
    p.at = valueAt;
    const condition = valuePredicate(p, slide);
    if (p.at !== look) {
      p.at = mark;
      return undefined;
    }
    p.at = after;
    return condition;
  } catch (error) {
    if (!(error instanceof InstructionError)) throw error;
    p.at = mark;
    return undefined;
  }
}

/**
 * "they need a laptop", "they don't need a laptop": the words of a yes/no question ("Do you need
 * a laptop?") said of the respondent, meaning its options that start with "Yes" (or "No").
 */
function yesNoCondition(p: Cursor): Condition | undefined {
  const mark = p.at;
  const nots = NEGATED_AUXILIARIES;
  const negated = p.acceptAny(nots) !== undefined;
  const words = p.wordsAhead(8);
  for (let length = words.length; length >= 1; length--) {
    const phrase = words.slice(0, length).join(' ');
    const slide = p.slides.find((candidate) => {
      const text = normalise(candidate.text).replace(/[?!.]/g, '');
      return AUXILIARIES.some((aux) => text === `${aux} you ${phrase}`);
    });
    if (!slide || !('options' in slide)) continue;
    const prefix = negated ? 'no' : 'yes';
    const matching = slide.options.filter((option) => normalise(option.label).split(/[\s,]+/)[0] === prefix);
    if (matching.length === 0) continue;
    p.at += length;
    return matching.length === 1
      ? { slide, operator: 'equals', value: matching[0]?.id as string }
      : { slide, operator: 'includes', value: matching.map((option) => option.id) };
  }
  p.at = mark;
  return undefined;
}
