import type { BranchCondition, Slide } from '@pollkit/contracts';
import { checkBranching } from '../../polls/branching-rules.js';
import { refuseAndAsAnyOf } from './and-lists.js';
import { describeRule } from './describe.js';
import { bestParaphrase, type Numbering, paraphraseScores, wordsOf } from './evidence.js';
import { type IgnoredClause, readAsWritten, type WrittenReading } from './people.js';
import { parse } from './rules.js';
import { closestReading } from './suggestions.js';
import { Cursor, InstructionError, REFUSAL_REASONS, type ReadInstruction } from './tokens.js';
import type { Correction } from './typos.js';

export { describeRule } from './describe.js';
export { InstructionError } from './tokens.js';

/**
 * The rule-based reader of skip logic in plain English: two grammars over one vocabulary
 * (lexicon.ts), both hand-written, both resolving every word against the poll (a slide reference
 * must be a slide, an option one of that slide's options), both refusing with the words at fault.
 *
 * The strict grammar (rules.ts and below), recursive descent over the tokens:
 *
 *   instruction := rule (separator rule)*
 *   rule        := [heading] ("if" | "when") conditions [","] ["then"] action
 *                | [heading] ("if" | "when") conditions ("->" | ":") target
 *                | action ("if" | "when" | "for anyone who") conditions
 *                | ("otherwise" | "else") [","] (("if" | "when") conditions … | action)
 *                | ("based on" | "depending on") [the answer to slide] ":" (value "->" target)+
 *   heading     := "skip logic:" | slide ":"                       Q2: if respondent chooses Enterprise…
 *   conditions  := condition ("or" condition)*                    on one slide ("and": refused)
 *   condition   := slide predicate                                Q2 is below 3, Q1 = London, Q4 includes "A"
 *                | subject verb …                                 they chose New York, they scored us 0-6
 *                | option ("is selected" | "is ranked first") (on | in) slide
 *                | the top choice on slide predicate | nothing is ticked on slide | option alone
 *   action      := ("skip" | "jump" | "go" | "move" | "continue" | "branch") ["straight"] "to" slide
 *                | "skip" slide                                   the slide after it
 *                | ("end" | "finish" | "stop" | "submit") ["the" (poll | survey | form | quiz)] | go to the end
 *   slide       := Q2 | question 2 | slide 3 | section 3 | the second question | the last slide | an id
 *                | "quoted text" | its text | words only it has | words (Q2) | it
 *
 * The grammar of people's writing (people.ts), clause by clause:
 *
 *   instruction := clause*                          lines, sentences, ";", ", if", "otherwise" (clauses.ts)
 *   clause      := [openers] (rule | heading | no-op | chatter)
 *   rule        := condition-words action           "Anyone who picks Canberra gets to skip the confidence question"
 *                | action condition-opener condition-words          "end it for anyone who says they're not coming back"
 *                | sending-verb condition-words "to" target         "send everyone who ticked the workshops on to the grid"
 *                | otherwise-words action                           "everyone else goes straight to …"
 *                | condition-words same-action-words                "… and if they leave it blank, same thing"
 *   action      := move-verb [fillers] "to" target | skip-verb slides ["and"] [to target] | end-words
 *                | "->" target                                       (clause-action.ts, targets.ts)
 *   condition-words: every slide the words name, weighed (a number, an id, a label only one slide has,
 *                words of a slide's text, ratings that fit a scale), the best slide taken when it is
 *                clearly best; then what they test there (clause-condition.ts, clause-tests.ts)
 *   heading     := words that only name a slide     "For the 'Will you attend next year?' one:"
 *   no-op       := "otherwise carry on as normal", "… -> default sequence": reported, no rule
 *
 * Each grammar reads "QN" and "question N" both as the Nth question and as the Nth slide; a reading
 * must fit the poll, and two that fit and differ are refused. Rules are evaluated in order, the
 * first that matches wins; "otherwise <action>" applies to whatever the earlier rules of that slide
 * did not match.
 */

/** A rule as read, with the user's words it was read from and what it means in the poll's words. */
interface ReportedRule {
  id: string;
  /** The user's words. */
  source: string;
  /** The rule in the poll's words, each slide named by its text: what a host checks. */
  reading: string;
}

/** What the parser did with an instruction, beside the draft: each rule as read, what it left out, what it corrected. */
interface DraftReport {
  rules: ReportedRule[];
  ignored: IgnoredClause[];
  corrected: Correction[];
}

export interface InstructionReading extends ReadInstruction {
  report: DraftReport;
}

type Grammar = (instruction: string, slides: readonly Slide[], numbering: Numbering) => WrittenReading;

/** The first grammar: the instruction language of docs/branching.md, read strictly (rules.ts). */
const strictly: Grammar = (instruction, slides, numbering) => ({
  ...parse(new Cursor(instruction, slides, numbering)),
  ignored: [],
  corrections: [],
});

const NUMBERINGS: readonly Numbering[] = ['questions', 'slides'];

/**
 * Reads `instruction` against the poll's slides: the conditions it says, in order, each with an id
 * `rule-<n>`, the words each was read from, and a report naming each rule's slides by their text.
 *
 * The strict grammar is tried first, then the grammar of people's writing (people.ts); each with
 * "Q3" counted both ways (the third question, the third slide). A reading that fits the poll
 * (`checkBranching` finds nothing) is the answer; two that fit and differ are refused, both said,
 * rather than guessed between. When nothing fits, a reading with problems is returned for the
 * caller to report, or the most specific refusal is thrown (a backward jump before words it could
 * not read), with the closest instruction that reads when a typo is a small change away.
 */
export function readInstruction(instruction: string, slides: readonly Slide[]): InstructionReading {
  const outcomes: (WrittenReading | InstructionError)[] = [];
  for (const grammar of [strictly, readAsWritten]) {
    const fitting: WrittenReading[] = [];
    for (const numbering of NUMBERINGS) {
      try {
        const reading = grammar(instruction, slides, numbering);
        outcomes.push(reading);
        const fits = checkBranching(reading.conditions, slides).length === 0;
        if (fits && numbersAgree(instruction, slides, numbering)) fitting.push(reading);
      } catch (error) {
        if (!(error instanceof InstructionError)) throw error;
        outcomes.push(error);
      }
    }
    const [first, second] = fitting;
    if (first && second && !sameRules(first.conditions, second.conditions))
      throw twoReadings(instruction, first, second, slides);
    if (first) return withReport(first, slides);
  }
  // Nothing fits. The strict grammar's own answer, questions counted, comes first when it says what
  // is wrong (a reading whose problems the caller reports, or a refusal for a reason); then the most
  // specific refusal with questions counted (the other count only rescues readings and finds two);
  // then any reading. A refusal for words the poll lacks suggests the closest instruction that reads.
  const strict = outcomes[0] as WrittenReading | InstructionError;
  if (!(strict instanceof InstructionError)) return withReport(strict, slides);
  const byQuestions = [outcomes[0], outcomes[2]].filter((outcome) => outcome instanceof InstructionError);
  const refusal = strict.reason !== 'unreadable' ? strict : mostSpecific(byQuestions);
  const reading = outcomes.find((outcome): outcome is WrittenReading => !(outcome instanceof InstructionError));
  if (refusal.reason === 'unreadable' && reading) return withReport(reading, slides);
  if (!SUGGESTED.has(refusal.reason) || refusal.suggestion !== undefined) throw refusal;
  const suggestion = closestReading(instruction, slides, refusal);
  throw suggestion === undefined
    ? refusal
    : new InstructionError(refusal.fragment, refusal.expected, suggestion, refusal.reason);
}

/** Refusals a typo can cause, for which the closest reading is suggested. */
const SUGGESTED = new Set<InstructionError['reason']>(['unreadable', 'no_such_option', 'no_such_slide']);

/**
 * The refusal of two readings that fit and differ, quoting the first number that counts two ways and
 * saying the first rule on which the readings part, each way.
 */
function twoReadings(
  instruction: string,
  byQuestions: WrittenReading,
  bySlides: WrittenReading,
  slides: readonly Slide[],
): InstructionError {
  const number = /\b(?:q|question|item)\s*#?\s*\d+|#\d+/i.exec(instruction)?.[0] ?? instruction.trim().slice(0, 80);
  const at = byQuestions.conditions.findIndex(
    (rule, index) => JSON.stringify(rule) !== JSON.stringify(bySlides.conditions[index]),
  );
  const one = byQuestions.conditions[Math.max(at, 0)];
  const other = bySlides.conditions[Math.max(at, 0)];
  const say = (rule: BranchCondition | undefined) => (rule ? describeRule(rule, slides) : 'no such rule');
  return new InstructionError(
    number,
    `one reading, but there are two: counting questions (content slides left out), ${say(one)}; counting every slide, ${say(other)}. Name the slides by their text or id, or write "slide N" to count every slide`,
    undefined,
    'ambiguous',
  );
}

/**
 * Whether each "Q6 (dietary)", "#5 agent grid" of the instruction, counted this way, is the slide
 * its words name: a count that names another slide than the words beside it is not the one meant.
 */
function numbersAgree(instruction: string, slides: readonly Slide[], numbering: Numbering): boolean {
  const list = numbering === 'questions' ? slides.filter((slide) => slide.kind !== 'content') : slides;
  for (const match of instruction.matchAll(/\b(?:q|question|item)\s*#?\s*(\d+)|#(\d+)/gi)) {
    const slide = list[Number(match[1] ?? match[2]) - 1];
    if (!slide) continue;
    const after = instruction.slice((match.index ?? 0) + match[0].length);
    const beside = /^\s*\(([^)]*)\)/.exec(after)?.[1] ?? /^\s*((?:[\p{L}-]+\s*){1,3})/u.exec(after)?.[1] ?? '';
    const words = wordsOf(beside);
    const scores = paraphraseScores(words, slides);
    const named = bestParaphrase(words, slides, scores);
    if (named && named !== slide && (scores.get(named) ?? 0) >= 2 && !scores.has(slide)) return false;
  }
  return true;
}

/** The refusal that names the real problem: the first by REFUSAL_REASONS' order, the strict grammar's on a tie. */
function mostSpecific(refusals: readonly InstructionError[]): InstructionError {
  // A character the strict tokenizer cannot read (an emoji) says less than any other refusal.
  const rank = (error: InstructionError) =>
    REFUSAL_REASONS.indexOf(error.reason) + (error.expected === 'words, numbers and quoted text' ? 0.5 : 0);
  return [...refusals].sort((a, b) => rank(a) - rank(b))[0] as InstructionError;
}

function sameRules(a: readonly BranchCondition[], b: readonly BranchCondition[]): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

function withReport(reading: WrittenReading, slides: readonly Slide[]): InstructionReading {
  refuseAndAsAnyOf(reading.conditions, reading.sources, slides);
  return {
    conditions: reading.conditions,
    sources: reading.sources,
    report: {
      rules: reading.conditions.map((condition, index) => ({
        id: condition.id,
        source: reading.sources[index] ?? '',
        reading: describeRule(condition, slides),
      })),
      ignored: reading.ignored,
      corrected: reading.corrections,
    },
  };
}

/** The conditions an instruction says ({@link readInstruction} without the sources). */
export function parseInstruction(instruction: string, slides: readonly Slide[]): BranchCondition[] {
  return readInstruction(instruction, slides).conditions;
}
