import type { BranchCondition, Slide } from '@pollkit/contracts';
import { refuseUnusedNames } from './accounting.js';
import { findAction, saysAMove, saysNothingChanges } from './clause-action.js';
import { readClauseCondition } from './clause-condition.js';
import { refuseOtherActions, refuseSecondRule, refuseSkippingUnnamed } from './clause-refusals.js';
import { pointsBack, type Test } from './clause-tests.js';
import { cleanInstruction, splitClauses } from './clauses.js';
import { type ClauseScope, type Numbering, normaliseText, optionMentions } from './evidence.js';
import { OPENERS, OTHER_ACTIONS, OTHERWISE_WORDS, SAME_ACTION, TEST_WORDS } from './lexicon.js';
import { clauseText, hasPhrase, phraseAt } from './phrases.js';
import type { ClauseAction, Destination } from './targets.js';
import { InstructionError, type Token, tokenize } from './tokens.js';
import { type Correction, correctTypos } from './typos.js';

/**
 * The second grammar: skip logic as people write it when they do not write it the parser's way —
 * shorthand ("nps<=6 -> why"), rules that start with who ("Anyone who picks Canberra gets to
 * skip…"), chatter around them ("Hey team! 🙌 … thanks so much!!"), slides named by a paraphrase.
 * Each clause (clauses.ts) is read on its own: its action (clause-action.ts), then its condition
 * from what is left (clause-condition.ts). Clauses that say nothing changes ("otherwise carry on as
 * normal") are dropped and reported; clauses with no rule in them (greetings, reasons) are skipped.
 */

export interface IgnoredClause {
  /** The clause, as cleaned. */
  text: string;
  /** Why it adds no rule. */
  why: string;
}

export interface WrittenReading {
  conditions: BranchCondition[];
  /** `sources[i]`: the clause `conditions[i]` was read from. */
  sources: string[];
  ignored: IgnoredClause[];
  /** Typing slips read as the word they miss ("belwo" as "below"). */
  corrections: Correction[];
}

const GIVES_A_REASON = 'it gives the reason for a rule, not a rule: its words are not read as a condition';
const NOTHING_CHANGES = 'it says respondents carry on as they would without a rule, so it adds none';

/** The first token after greetings and politeness ("Hey team!", "so basically", "can we make it so"). */
function afterOpeners(tokens: readonly Token[]): number {
  let at = 0;
  for (;;) {
    const length = phraseAt(tokens, at, OPENERS);
    if (length === 0) break;
    at += length;
    while (tokens[at]?.value === ',' || tokens[at]?.value === '!') at++;
  }
  return at;
}

/** What a destination is, after the slide `from` the rule tests: a jump to a slide, or the end. */
function actionOf(destination: Destination, from: Slide, slides: readonly Slide[]): BranchCondition['then'] {
  if (destination.kind === 'end') return { action: 'end' };
  const index =
    destination.kind === 'slide'
      ? slides.indexOf(destination.slide)
      : destination.kind === 'after'
        ? slides.indexOf(destination.slide) + 1
        : slides.indexOf(from) + 2;
  const slide = slides[index];
  return slide ? { action: 'skip_to', slideId: slide.id } : { action: 'end' };
}

function refuse(text: string, expected: string, reason: InstructionError['reason']): never {
  throw new InstructionError(text, expected, undefined, reason);
}

/** Reads an instruction clause by clause, with "Q3" counted by `numbering`. Throws InstructionError. */
export function readAsWritten(instruction: string, slides: readonly Slide[], numbering: Numbering): WrittenReading {
  const conditions: BranchCondition[] = [];
  const sources: string[] = [];
  const ignored: IgnoredClause[] = [];
  /** The slide a heading named ("For the 'Will you attend' one:"), or the last rule tested. */
  let context: Slide | undefined;
  /** The slide the last rule sent to: what "skip it" means. */
  let lastTarget: Slide | undefined;
  /** A condition said without its action, waiting for the clause that says where ("…; send them to Y"). */
  let pending: { slide: Slide; tests: Test[] } | undefined;
  let waitingText = '';
  /** Rules said with "only", which need the others' way said too. */
  const onlyRules: { slide: Slide; at: number; text: string }[] = [];
  /** The rules the clause before added, which "just send them to Y" re-aims. */
  let previous: { first: number; then: BranchCondition['then'] } | undefined;
  /** "skip the X question" rules, by their first condition's index, to check once nothing re-aims them. */
  const skipChecks = new Map<number, () => void>();
  /** The first clause with words of a condition but no action, which did not read. */
  let stray: InstructionError | undefined;
  const add = (slide: Slide, tests: readonly Test[], then: BranchCondition['then'], source: string) => {
    previous = { first: conditions.length, then };
    for (const test of tests) {
      conditions.push({
        id: `rule-${conditions.length + 1}`,
        if:
          test.value === undefined
            ? { slideId: slide.id, operator: test.operator }
            : { slideId: slide.id, operator: test.operator, value: test.value },
        then,
      });
      sources.push(source);
    }
    context = slide;
    if (then.action === 'skip_to') lastTarget = slides.find((candidate) => candidate.id === then.slideId);
  };
  const { text: corrected, corrections } = correctTypos(instruction, slides);
  for (const clause of splitClauses(cleanInstruction(corrected))) {
    if (clause.reason) {
      ignored.push({ text: clause.text, why: GIVES_A_REASON });
      continue;
    }
    let tokens: Token[];
    try {
      tokens = tokenize(clause.text);
    } catch {
      refuse(clause.text, 'words, numbers and quoted text', 'unreadable');
    }
    let from = afterOpeners(tokens);
    while (tokens[from]?.value === 'and' || tokens[from]?.value === 'but') from++;
    if (from >= tokens.length) continue;
    const text = clauseText(tokens, from, tokens.length);
    const otherwise = phraseAt(tokens, from, OTHERWISE_WORDS);
    const action = findAction(
      { tokens, slides, numbering, context: lastTarget ?? context, lastTarget },
      from + otherwise,
      tokens.length,
    );
    if (!action || (action.destination.kind !== 'end' && saysNothingChanges(tokens.slice(action.to)))) {
      if (saysNothingChanges(tokens)) {
        ignored.push({ text, why: NOTHING_CHANGES });
        continue;
      }
      // Words that send someone somewhere, which did not read as an action, are never chatter.
      if (saysAMove(tokens, from))
        refuse(
          text,
          'an action: "skip to …", "go to slide 5", "end the survey", with a slide of this poll',
          'unreadable',
        );
      // A heading names a slide and tests nothing ("On the confidence scale"); a greeting names none.
      const named = readClauseCondition({ tokens, slides, numbering, context: undefined }, from, tokens.length, true);
      if (!hasTestWords(tokens, from)) {
        if (named) {
          refuseOtherActions(tokens, text, slides);
          context = named.slide;
        }
        continue;
      }
      let condition: ReturnType<typeof readClauseCondition>;
      try {
        condition = readClauseCondition({ tokens, slides, numbering, context }, from, tokens.length);
      } catch (error) {
        // A clause with no action whose condition does not read either: a refusal only if it mattered.
        if (!(error instanceof InstructionError)) throw error;
        stray ??= error;
        continue;
      }
      if (!condition) continue;
      refuseOtherActions(tokens, text, slides);
      if (hasPhrase(tokens, from, tokens.length, SAME_ACTION) && previous) {
        add(condition.slide, condition.tests, previous.then, text);
        continue;
      }
      pending = condition;
      waitingText = text;
      continue;
    }
    refuseOtherActions(tokens, text, slides);
    refuseSecondRule(tokens, action);
    let slide: Slide;
    let tests: Test[];
    const waiting = pending;
    if (otherwise > 0 || pointsBack(tokens, from, action.from)) {
      if (!context) refuse(text, 'a rule before "otherwise", for the slide it goes on about', 'unreadable');
      slide = context;
      tests = everythingElse(conditions, slide);
    } else {
      const condition = readConditionAround({ tokens, slides, numbering, context }, from, action);
      if (!condition && pending) {
        ({ slide, tests } = pending);
      } else if (!condition && previous && conditions.length > 0 && reAims(tokens, from, action)) {
        // "…skip the grid? Just send them straight to the improve question": the same people, a later target.
        const then = actionOf(action.destination, context as Slide, slides);
        for (let index = previous.first; index < conditions.length; index++) {
          // biome-ignore lint/suspicious/noThenProperty: `then` is the field name of the rule's action.
          (conditions[index] as BranchCondition).then = then;
        }
        previous = { ...previous, then };
        skipChecks.delete(previous.first);
        continue;
      } else if (!condition) {
        return refuse(text, 'a condition: which answer, on which slide, leads there', 'unreadable');
      } else {
        ({ slide, tests } = condition);
      }
    }
    // A condition said without where to go, and not taken up by this clause, would be lost.
    if (waiting && pending === waiting && !(slide === waiting.slide && tests === waiting.tests)) {
      refuse(waitingText, 'where those respondents go: "skip to …" or "end the survey"', 'unreadable');
    }
    pending = undefined;
    const then = actionOf(action.destination, slide, slides);
    if (
      then.action === 'skip_to' &&
      slides.findIndex((candidate) => candidate.id === then.slideId) <= slides.indexOf(slide)
    ) {
      refuse(
        clauseText(tokens, action.from, action.to),
        `a slide after "${slide.text}": jumps go forward only, a respondent cannot be sent back`,
        'backward_jump',
      );
    }
    // "skip the tour question" said of a slide two before it: skip the tour alone, or everything up to it?
    // Checked at the end: a later "just send them straight to …" may say where they go instead.
    if (action.destination.kind === 'after') {
      const skipping = { tokens, action, slide };
      skipChecks.set(conditions.length, () =>
        refuseSkippingUnnamed(skipping.tokens, skipping.action, skipping.slide, slides, numbering),
      );
    }
    // "the end of the quiz, i.e. the slide "Quiz complete"": the end, or that slide? Not guessed.
    if (then.action === 'end') {
      const named = tokens
        .slice(action.from)
        .find(
          (token) =>
            token.kind === 'quoted' && slides.some((other) => normaliseText(other.text) === normaliseText(token.value)),
        );
      if (named)
        refuse(
          text,
          `one place to go: the end of the poll, or "${named.value}", which respondents would then still see`,
          'ambiguous',
        );
    }
    if (otherwise === 0) {
      const landing = then.action === 'end' ? 'end' : slides.find((candidate) => candidate.id === then.slideId);
      // A condition of two parts ("rates us low on support AND said it wasn't resolved") may name
      // only the slide it tests; elsewhere the slides skipped on the way may be named too.
      const labelled = optionMentions(tokens, 0, tokens.length, slides);
      const aside: [number, number][] = [
        ...(action.remarks ?? []),
        ...labelled.map((mention): [number, number] => [mention.from, mention.to]),
      ];
      const conditionAt = (at: number) =>
        !aside.some(([start, end]) => at >= start && at < end) &&
        (at < action.from ||
          (action.conditionFrom !== undefined &&
            at >= action.conditionFrom &&
            at < (action.conditionTo ?? tokens.length)));
      // "and" between two answers ("pro and team people") or before the action ("… and shall proceed") joins no conditions.
      const joined = tokens.some(
        (token, at) =>
          at >= from &&
          conditionAt(at) &&
          ['and', 'but', 'plus', 'also', 'both'].includes(token.value) &&
          !labelled.some((mention) => mention.from === at + 1) &&
          !['shall', 'should', 'will', 'must', 'may', 'can', 'then', 'so', 'go', 'skip', 'be'].includes(
            tokens[at + 1]?.value ?? '',
          ),
      );
      refuseUnusedNames(tokens, from, tokens.length, slides, slide, landing ?? 'end', joined ? conditionAt : undefined);
    }
    add(slide, tests, then, text);
    // "only people who …": fine when the others are said to go somewhere too, a guess otherwise.
    const labels = optionMentions(tokens, 0, tokens.length, slides);
    const only = tokens.findIndex(
      (token, index) =>
        token.value === 'only' && !labels.some((mention) => index >= mention.from && index < mention.to),
    );
    // Two "only"s change the meaning: of several options, that one alone ("if they ONLY use Kanban
    // boards"), and who sees a slide ("only engineers should see the integrations question").
    const several = slide.kind === 'multiple_choice' && slide.type === 'multiple';
    const sees =
      only >= 0 && tokens.slice(only).some((token) => ['see', 'sees', 'get', 'shown', 'asked'].includes(token.value));
    const negative = tests.every((test) => test.operator === 'not_equals' || test.operator === 'not_answered');
    if (only >= 0 && otherwise === 0 && !negative && (several || sees))
      onlyRules.push({ slide, at: conditions.length, text });
  }
  for (const rule of onlyRules) {
    const othersGo = conditions
      .slice(rule.at)
      .some((condition) => condition.if.slideId === rule.slide.id && condition.if.operator === 'answered');
    if (!othersGo) {
      refuse(
        rule.text,
        'where everyone else goes: "only" says the others do something else, so say what (as in "…, everyone else skips to Q5")',
        'unreadable',
      );
    }
  }
  for (const check of skipChecks.values()) check();
  // A clause that said a condition but no action, and did not read, matters once other rules did read.
  if (stray && conditions.length > 0)
    throw new InstructionError(stray.fragment, stray.expected, undefined, 'unreadable');
  if (pending) refuse(waitingText, 'where those respondents go: "skip to …" or "end the survey"', 'unreadable');
  if (conditions.length === 0) {
    // "notify our sales team by email": an action skip logic cannot take, said with no rule beside it.
    let tokens: Token[] = [];
    try {
      tokens = tokenize(cleanInstruction(corrected).replace(/["“”]/g, ' '));
    } catch {
      // Words the tokenizer cannot read say no action either.
    }
    if (tokens.some((_token, at) => phraseAt(tokens, at, OTHER_ACTIONS) > 0))
      refuse(
        instruction.trim().slice(0, 80),
        'a jump to a slide or the end: skip logic cannot email, notify, show messages or award points',
        'unsupported_action',
      );
    refuse(instruction.trim().slice(0, 80), 'at least one rule: which answer, on which slide, leads where', 'no_rule');
  }
  return { conditions, sources, ignored, corrections };
}

/** "Otherwise": every answer, and no answer, that the slide's earlier rules left. */
function everythingElse(conditions: readonly BranchCondition[], slide: Slide): Test[] {
  const earlier = conditions
    .filter((condition) => condition.if.slideId === slide.id)
    .map((condition) => condition.if.operator);
  const tests: Test[] = [];
  if (!earlier.includes('answered')) tests.push({ operator: 'answered' });
  if (!earlier.includes('not_answered')) tests.push({ operator: 'not_answered' });
  return tests;
}

/** "just send them to …", "please take them straight to …": a new target for the people of the rule before. */
function reAims(tokens: readonly Token[], from: number, action: ClauseAction): boolean {
  const before = tokens
    .slice(from, action.from)
    .filter((token) => !['just', 'so', 'then', 'please', 'and', ','].includes(token.value));
  const pronoun = ['them', 'him', 'her', 'they', 'those'].includes(tokens[action.from + 1]?.value ?? '');
  return before.length === 0 && pronoun;
}

/** Whether a clause tests something (a number, an option, a blank…) rather than only naming a slide ("Slide 5 (grid)"). */
function hasTestWords(tokens: readonly Token[], from: number): boolean {
  const slideNumber = (at: number) =>
    ['q', 'question', 'slide', 'item', 'page', 'section', '#', 'no'].includes(tokens[at - 1]?.value ?? '');
  return (
    tokens.slice(from).some((token, index) => token.kind === 'number' && !slideNumber(from + index)) ||
    hasPhrase(tokens, from, tokens.length, TEST_WORDS)
  );
}

/** The condition before the action, inside it ("send everyone who … to"), or after it ("end it for anyone who …"). */
function readConditionAround(within: ClauseScope, from: number, action: ClauseAction) {
  const { destination } = action;
  const target =
    destination.kind === 'end' ? ('end' as const) : destination.kind === 'after_next' ? undefined : destination.slide;
  const scope = { ...within, target };
  const { tokens } = scope;
  // The action's words are not the condition's, except the people it sends ("send everyone who … to").
  const own: [number, number][] =
    action.conditionTo === undefined || action.conditionFrom === undefined
      ? [[action.from, action.to]]
      : [
          [action.from, action.conditionFrom],
          [action.conditionTo, action.to],
        ];
  const remarks = [...(action.remarks ?? []), ...own];
  const before = readClauseCondition(scope, from, action.from, false, remarks);
  if (action.conditionFrom !== undefined) {
    const to = action.conditionTo ?? tokens.length;
    const inside = readClauseCondition(scope, action.conditionFrom, to, false, remarks);
    // "If role is Engineer, end the survey if NPS is below 5": a condition on each side of the action.
    if (inside && before && before.slide !== inside.slide) {
      refuse(
        clauseText(tokens, from, tokens.length),
        'a condition on one slide: a rule is tried when a respondent leaves its slide, so it cannot require answers to two slides; write a rule for each slide',
        'across_slides',
      );
    }
    if (inside) return inside;
  }
  return before;
}
