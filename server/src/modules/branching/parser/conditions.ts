import { startsAction } from './actions.js';
import { CHOSEN_WORDS } from './lexicon.js';
import { readPredicate } from './predicates.js';
import { optionAnywhere, optionsThenSlide, readSlide } from './references.js';
import { ANSWER_NOUNS, CONDITION_JOINERS } from './strict-lexicon.js';
import { readSubject, subjectCondition } from './subjects.js';
import { type Condition, type Cursor, InstructionError } from './tokens.js';

/**
 * One condition, or several joined by "or" (each its own rule with the same action: the first to
 * match decides, which is what "or" means). Two joined by "and" are refused: a rule tests one
 * answer, and the format has no AND.
 */
export function readConditions(p: Cursor): Condition[] {
  const conditions = [readCondition(p)];
  for (;;) {
    const mark = p.at;
    p.accept(',');
    const joiner = p.acceptAny(CONDITION_JOINERS);
    if (!joiner) {
      p.at = mark;
      return conditions;
    }
    const next = tryCondition(p);
    if (!next) {
      p.at = mark;
      return conditions;
    }
    if (joiner.startsWith('or') && next.slide !== conditions[0]?.slide) {
      p.at = mark;
      p.accept(',');
      p.fail(
        'conditions on one slide: a rule is tried when a respondent leaves its slide, so an "or" across two ' +
          'slides is two rules, one on each slide, that may skip different questions: write them as two rules',
        'across_slides',
      );
    }
    if (joiner.startsWith('and')) {
      p.at = mark;
      p.accept(',');
      p.fail(
        'one condition per rule: the skip-logic format cannot require two answers at once (an AND); ' +
          'write a rule for one slide, or ask for the jump on each slide separately',
        'across_slides',
      );
    }
    conditions.push(next);
  }
}

/** A condition if one follows (the position is left after it); undefined, and nothing consumed, if not. */
function tryCondition(p: Cursor): Condition | undefined {
  const mark = p.at;
  try {
    return readCondition(p);
  } catch (error) {
    if (!(error instanceof InstructionError)) throw error;
    p.at = mark;
    return undefined;
  }
}

function readCondition(p: Cursor): Condition {
  const start = p.at;
  const condition = conditionOfAnyForm(p);
  if (condition.slide.kind === 'content') {
    p.at = start;
    p.fail(
      `a slide that takes answers: ${condition.slide.id} is a content slide, which no respondent answers, so no rule can test it`,
      'content_slide',
    );
  }
  p.lastSlide = condition.slide;
  return condition;
}

function conditionOfAnyForm(p: Cursor): Condition {
  const tops = [
    'the top choice',
    'the first choice',
    'the top-ranked option',
    'the top ranked option',
    'the top pick',
    'the option ranked first',
  ];
  if (p.acceptAny(tops.flatMap((phrase) => [`${phrase} on`, `${phrase} in`, `${phrase} for`]))) {
    return readPredicate(p, readSlide(p));
  }
  if (readSubject(p)) return subjectCondition(p);
  const optionFirst = optionFirstCondition(p);
  if (optionFirst) return optionFirst;
  const slide = readSlide(p);
  p.acceptAny(ANSWER_NOUNS);
  return readPredicate(p, slide);
}

/**
 * Conditions that name the answer before the slide: ""Opening keynote" is selected in Q3",
 * "Single sign-on is ranked first in Q4", "nothing is ticked on Q3", or an option alone that one
 * slide has ("If Engineering, go to section 2"). Undefined, nothing consumed, when it is not one.
 */
function optionFirstCondition(p: Cursor): Condition | undefined {
  const mark = p.at;
  if (p.acceptAny(['nothing', 'no option', 'no options', 'none of the options', 'no answer'])) {
    if (p.acceptAny(['is', 'was', 'are', 'were']) && p.acceptAny(CHOSEN_WORDS)) {
      if (p.acceptAny(['on', 'in', 'for', 'at'])) return { slide: readSlide(p), operator: 'not_answered' };
    }
    p.at = mark;
    return undefined;
  }
  // The words up to "is selected"/"is ranked first" are the option; the slide follows.
  let look = p.at;
  while (look < p.tokens.length && look - p.at < 7) {
    const value = p.tokens[look]?.value;
    if (value === 'is' || value === 'was' || value === 'are' || value === 'were') break;
    if (value === ',' || value === 'then') {
      look = p.tokens.length;
      break;
    }
    look++;
  }
  if (look > p.at && look < p.tokens.length) {
    p.at = look + 1;
    const negated = p.accept('not');
    const otherPlace = p.peek()?.value === 'ranked' && !['first', 'top', 'highest'].includes(p.peek(1)?.value ?? '');
    if (otherPlace && ['last', 'second', 'third', 'bottom', 'lowest'].includes(p.peek(1)?.value ?? '')) {
      p.fail(
        '"ranked first": a condition on a ranking tests which option came first, not where the others came',
        'unsupported_action',
      );
    }
    const ranked = p.acceptAny(['ranked first', 'ranked top', 'ranked highest', 'ranked number one', 'ranked 1st']);
    const chosen = ranked ?? p.acceptAny(CHOSEN_WORDS);
    if (chosen && p.acceptAny(['on', 'in', 'for', 'at', 'by'])) {
      const optionsAt = mark;
      const located = optionsThenSlide(p, optionsAt, p.at);
      if (located.options.length === 1) {
        return {
          slide: located.slide,
          operator: negated ? 'not_equals' : 'equals',
          value: located.options[0] as string,
        };
      }
      if (!negated) return { slide: located.slide, operator: 'includes', value: located.options };
    }
    p.at = mark;
  }
  // An option alone, followed by the action: the one slide that has it.
  const alone = optionAnywhere(p);
  if (alone) {
    const next = p.peek();
    if (next === undefined || next.value === ',' || next.value === 'then' || startsAction(p)) {
      return { slide: alone.slide, operator: 'equals', value: alone.optionId };
    }
  }
  p.at = mark;
  return undefined;
}
