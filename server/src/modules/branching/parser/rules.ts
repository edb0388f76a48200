import type { Slide } from '@pollkit/contracts';
import { forward, readAction, readTarget, startsAction } from './actions.js';
import { readConditions } from './conditions.js';
import { ACTION_EXPECTED } from './lexicon.js';
import { valuePredicate } from './predicates.js';
import { optionAnywhere, readSlide } from './references.js';
import { ARROWS, CONDITION_STARTS } from './strict-lexicon.js';
import { type Action, type Condition, type Cursor, InstructionError, type ReadInstruction } from './tokens.js';

export function parse(p: Cursor): ReadInstruction {
  const rules: { condition: Condition; action: Action; source: string }[] = [];
  skipSeparators(p);
  if (p.done()) p.fail('at least one rule, such as "If Q2 is below 3, skip to Q4"', 'no_rule');
  while (!p.done()) {
    const first = p.at;
    const read = readRule(p, rules.at(-1)?.condition.slide);
    const source = p.source(first, p.at);
    rules.push(...read.map((rule) => ({ ...rule, source })));
    skipSeparators(p);
  }
  return {
    conditions: rules.map(({ condition, action }, index) => ({
      id: `rule-${index + 1}`,
      if:
        condition.value === undefined
          ? { slideId: condition.slide.id, operator: condition.operator }
          : { slideId: condition.slide.id, operator: condition.operator, value: condition.value },
      // biome-ignore lint/suspicious/noThenProperty: `then` is the field name of the rule's action.
      then: action,
    })),
    sources: rules.map((rule) => rule.source),
  };
}

function skipSeparators(p: Cursor): void {
  while (p.acceptAny([';', '.', ',', 'and', 'also', 'then']) !== undefined) {
    // Separators between rules carry no meaning.
  }
}

function readRule(p: Cursor, previousSlide: Slide | undefined): { condition: Condition; action: Action }[] {
  if (p.acceptAny(['otherwise', 'else', 'or else', 'in all other cases', 'in any other case'])) {
    p.accept(',');
    if (p.acceptAny(['if', 'when', 'whenever'])) return conditionThenAction(p);
    if (!previousSlide) p.fail('a rule with a condition before "otherwise"');
    const action = readAction(p);
    // Whatever the earlier rules of that slide did not catch: answered or not, this applies.
    return [
      { condition: { slide: previousSlide, operator: 'answered' }, action },
      { condition: { slide: previousSlide, operator: 'not_answered' }, action },
    ];
  }
  p.acceptAny(['skip logic', 'branching', 'logic', 'rule']) && p.accept(':');
  slideHeading(p);
  if (p.acceptAny(['based on', 'depending on', 'go to section based on', 'go to page based on'])) {
    return basedOn(p);
  }
  if (p.acceptAny(CONDITION_STARTS)) return conditionThenAction(p);
  if (startsAction(p)) {
    const actionStart = p.at;
    const action = readAction(p);
    p.accept(',');
    if (
      !p.acceptAny([
        'if',
        'when',
        'whenever',
        'for anyone who',
        'for those who',
        'for people who',
        'for respondents who',
        'for everyone who',
        'for anybody who',
      ])
    ) {
      p.fail('"if" and a condition after the action, as in "skip to Q4 if Q2 is below 3"');
    }
    const conditions = readConditions(p);
    for (const condition of conditions) {
      const end = p.at;
      forward(p, condition, action, actionStart);
      p.at = end;
    }
    return conditions.map((condition) => ({ condition, action }));
  }
  return p.fail(`a rule starting with "if", such as "If Q2 is below 3, skip to Q4", or ${ACTION_EXPECTED}`);
}

function conditionThenAction(p: Cursor): { condition: Condition; action: Action }[] {
  const conditions = readConditions(p);
  p.accept(',');
  const arrow = p.acceptAny(['->', ':', 'goes to', 'go to']) !== undefined;
  p.acceptAny(['then', 'they should', 'send them', 'take them']);
  p.accept(',');
  const actionAt = p.at;
  const action = arrow && !startsAction(p) ? readTarget(p) : readAction(p);
  oneAction(p);
  for (const condition of conditions) forward(p, condition, action, actionAt);
  return conditions.map((condition) => ({ condition, action }));
}

/** "go to section 3 and section 5": a rule sends a respondent to one place. */
function oneAction(p: Cursor): void {
  const mark = p.at;
  if (!p.acceptAny(['and', 'and then', 'then', 'and also'])) return;
  p.acceptAny(['to', 'go to', 'skip to', 'jump to']);
  const token = p.peek();
  const names =
    token &&
    (token.value === 'q' ||
      token.value === 'question' ||
      token.value === 'slide' ||
      token.value === 'section' ||
      token.value === 'page');
  p.at = mark;
  if (names) p.fail('one action per rule: a respondent goes to one place', 'unsupported_action');
}

/**
 * "Based on the answer to Q2: Yes -> Q4, No -> end" (Google Forms' "go to section based on answer"):
 * one rule per answer listed, each sending those who gave it to its slide.
 */
function basedOn(p: Cursor): { condition: Condition; action: Action }[] {
  const named = p.acceptAny(['the answer to', 'the answers to', 'the response to', 'answers to', 'answer to']);
  // "Go to section based on answer: Sales -> section 5": the slide is the one the answers belong to.
  const unnamed = !named && p.acceptAny(['the answer', 'answer', 'the answers', 'answers']) !== undefined;
  let slide: Slide;
  if (unnamed) {
    p.acceptAny([':', ',', '-']);
    const mark = p.at;
    const first = optionAnywhere(p);
    if (!first) p.fail('an answer of one slide, as in "Sales -> section 5"');
    slide = first.slide;
    p.at = mark;
  } else {
    slide = readSlide(p);
  }
  p.acceptAny([':', ',', '-']);
  const rules: { condition: Condition; action: Action }[] = [];
  do {
    p.acceptAny(['if', 'when']);
    p.acceptAny(['they chose', 'they pick', 'they picked', 'they selected', 'they answer', 'they answered', 'it is']);
    const condition = valuePredicate(p, slide);
    if (!p.acceptAny(ARROWS)) {
      p.fail('an arrow and where it goes, as in "Yes -> Q4" or "No -> end"');
    }
    p.accept('go to') || p.accept('skip to');
    const at = p.at;
    const action = readTarget(p);
    forward(p, condition, action, at);
    rules.push({ condition, action });
  } while (p.acceptAny([',', ';', 'and', 'or']) !== undefined && !p.done() && !startsRule(p));
  return rules;
}

/** "Q2: if …": a slide named before a colon is what the rule's answers belong to ("it"). */
function slideHeading(p: Cursor): void {
  const mark = p.at;
  try {
    const slide = readSlide(p);
    if (p.accept(':')) {
      p.lastSlide = slide;
      return;
    }
  } catch (error) {
    if (!(error instanceof InstructionError)) throw error;
  }
  p.at = mark;
}

/** Whether a new rule starts here (after a separator). */
function startsRule(p: Cursor): boolean {
  const token = p.peek();
  return token?.kind === 'word' && ['if', 'when', 'otherwise', 'else', 'based', 'depending'].includes(token.value);
}
