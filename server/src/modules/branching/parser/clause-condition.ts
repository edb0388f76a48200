import type { Slide } from '@pollkit/contracts';
import { refuseUnknownListMembers, refuseUnknownQuotes } from './accounting.js';
import { type Test, testsOn } from './clause-tests.js';
import {
  bestParaphrase,
  type ClauseScope,
  type OptionMention,
  optionMentions,
  paraphraseScores,
  type SlideMention,
  slideNamedAt,
  wordsOf,
} from './evidence.js';
import {
  BLANK_WORDS,
  BOTH_WORDS,
  CHOOSING,
  RATING_WORDS,
  RIGHT_WORDS,
  SKIP_REMARKS,
  STOP_WORDS,
  TEXT_WORDS,
  WRONG_WORDS,
} from './lexicon.js';
import { clauseText, firstAt, hasPhrase, phraseAt, refuseWords } from './phrases.js';
import type { Token } from './tokens.js';

export interface ClauseCondition {
  slide: Slide;
  /** Tests joined by "or": each its own rule with the clause's action. */
  tests: Test[];
  numbered: boolean;
}

/**
 * The condition of tokens [from, to). `context` is the slide a heading or the previous rule named
 * ("For the 'Will you attend' one: if they say No…"). Undefined when the words say nothing about
 * any slide's answers.
 */
export function readClauseCondition(
  scope: ClauseScope,
  from: number,
  to: number,
  /** Only which slide the words name (a heading): no test is read, and a tie is no slide. */
  nameOnly = false,
  /** Token ranges that are not the condition's ("they don't need the laptop question"). */
  remarks: readonly [number, number][] = [],
): ClauseCondition | undefined {
  const { tokens, slides, numbering, context } = scope;
  const named: SlideMention[] = [];
  const taken = new Set<number>();
  for (const [start, end] of remarks) for (let i = start; i < end; i++) taken.add(i);
  // "… — we don't need the 'why' essay": what respondents do not need is not what they answered.
  for (let at = from; at < to; at++) {
    if (phraseAt(tokens, at, SKIP_REMARKS) === 0) continue;
    let end = at;
    while (end < to && ![',', '.', ';', 'so', 'because', 'but'].includes((tokens[end] as Token).value)) end++;
    for (let i = at; i < end; i++) taken.add(i);
    at = end;
  }
  const said = tokens.slice(from, to).filter((_token, index) => !taken.has(from + index));
  const blankWords = hasPhrase(tokens, from, to, BLANK_WORDS);
  if (!blankWords && !said.some((token) => token.kind !== 'word' || !STOP_WORDS.has(token.value))) return undefined;
  for (let at = from; at < to; at++) {
    if (taken.has(at)) continue;
    const found = slideNamedAt(tokens, at, slides, numbering);
    if (found && !('slide' in found))
      refuseWords(tokens, found.from, found.to, 'a slide this poll has', 'no_such_slide');
    if (found) {
      named.push(found);
      for (let i = found.from; i < found.to; i++) taken.add(i);
      at = found.to - 1;
    }
  }
  // "the Washington question": an option's label before "question" names its slide.
  const mentions = optionMentions(tokens, from, to, slides).filter((mention) => !taken.has(mention.from));
  const options: OptionMention[] = [];
  for (const mention of mentions) {
    if (
      ['question', 'one', 'slide', 'item'].includes(tokens[mention.to]?.value ?? '') &&
      !isChosen(tokens, mention.from)
    ) {
      named.push({ slide: mention.slide, from: mention.from, to: mention.to + 1, explicit: false, numbered: false });
      for (let i = mention.from; i <= mention.to; i++) taken.add(i);
    } else options.push(mention);
  }
  const scores = new Map<Slide, number>();
  const add = (slide: Slide, points: number) => scores.set(slide, (scores.get(slide) ?? 0) + points);
  for (const mention of named) add(mention.slide, mention.byId ? 3 : mention.explicit ? 10 : 4);
  const optionSlides = new Set(options.filter((mention) => mention.strong).map((mention) => mention.slide));
  for (const slide of optionSlides) add(slide, 4);
  const words = tokens
    .slice(from, to)
    .filter((_, index) => !taken.has(from + index))
    .map((token) => token.value);
  // How well the words describe each slide: computed once, read again below.
  const paraphrased = paraphraseScores(words, slides);
  for (const [slide, score] of paraphrased) add(slide, Math.min(score, 4));
  // A grid's statement ("catering") names its grid as surely as an option names its slide.
  for (const slide of slides) {
    if (slide.kind !== 'scale') continue;
    if (slide.statements.some((statement) => wordsOf(statement.text).every((word) => words.includes(word))))
      add(slide, 2);
  }
  // What an answer says can only be about a slide that takes written answers.
  if (hasPhrase(tokens, from, to, TEXT_WORDS)) {
    for (const slide of slides) if (slide.kind === 'open_ended' || slide.kind === 'qa') add(slide, 3);
  }
  if (context) add(context, 2);
  const numbers = tokens
    .slice(from, to)
    .flatMap((token, index) =>
      token.kind === 'number' && !taken.has(from + index) ? [Math.abs(Number(token.value))] : [],
    );
  const rated = hasPhrase(tokens, from, to, RATING_WORDS) || words.some((word) => NPS_WORDS.has(word));
  const scales = slides.filter((slide) => slide.kind === 'scale' && slide.statements.length === 0);
  const fitting = scales.filter(
    (slide) => slide.kind === 'scale' && numbers.every((n) => n >= slide.min && n <= slide.max),
  );
  if (numbers.length > 0) for (const slide of fitting) add(slide, fitting.length === 1 ? 3 : 1);
  else if (rated) for (const slide of fitting) add(slide, 1);
  // "detractors", "promoters": the Net Promoter groups of a 0–10 scale.
  if (words.some((word) => NPS_WORDS.has(word))) {
    for (const slide of scales) if (slide.kind === 'scale' && slide.min === 0 && slide.max === 10) add(slide, 3);
  }
  if (hasPhrase(tokens, from, to, [...RIGHT_WORDS, ...WRONG_WORDS]))
    for (const slide of slides) if (slide.kind === 'quiz') add(slide, 1);
  // Weak options (a common word such as "No") count for a slide already named.
  for (const mention of options) if (!mention.strong && scores.has(mention.slide)) add(mention.slide, 2);
  // Only a common label ("answering No") and no slide named: the one slide before the target that has it.
  if (scores.size === 0 && !nameOnly && scope.target) {
    const limit = scope.target === 'end' ? slides.length : slides.indexOf(scope.target);
    // Every slide before it with an option whose label has those words, not only the slides where
    // they name one option ("yes" is "Yes please" on one slide, and "Yes, a Mac" or "Yes, a PC" on another).
    const said = options.map((mention) => wordsOf(clauseText(tokens, mention.from, mention.to)));
    const before = slides.filter(
      (candidate, index) =>
        index < limit &&
        'options' in candidate &&
        candidate.options.some((option) =>
          said.some((words) => words.every((word) => wordsOf(option.label).includes(word))),
        ),
    );
    const [only] = before;
    if (only && before.length === 1) add(only, 2);
  }
  const ranked = [...scores].sort((a, b) => b[1] - a[1]);
  const [best, runnerUp] = ranked;
  if (!best) return undefined;
  if (nameOnly) {
    return best[1] >= 3 && (!runnerUp || runnerUp[1] < best[1])
      ? { slide: best[0], tests: [], numbered: false }
      : undefined;
  }
  // A slide with a test of its own in the words: its options, or ratings that fit it and its name.
  // A slide with a test of its own in the words: its options, or ratings that fit it beside its name.
  // The tokens that test it, so that one word ("No", a label of two slides) is not read as two tests.
  const testedBy = (candidate: Slide): Set<number> => {
    const at = new Set<number>();
    for (const mention of options) if (mention.slide === candidate && mention.strong) at.add(mention.from);
    const namedHere =
      named.some((mention) => mention.slide === candidate) ||
      (paraphrased.get(candidate) ?? 0) >= 1 ||
      (candidate.kind === 'scale' &&
        candidate.min === 0 &&
        candidate.max === 10 &&
        words.some((word) => NPS_WORDS.has(word)));
    if (candidate.kind === 'scale' && candidate.statements.length === 0 && fitting.includes(candidate) && namedHere) {
      tokens.forEach((token, index) => {
        if (index >= from && index < to && token.kind === 'number' && !taken.has(index)) at.add(index);
      });
    }
    return at;
  };
  const tests = ranked
    .filter(([, score]) => score >= 3)
    .map(([candidate]) => testedBy(candidate))
    .filter((at) => at.size > 0);
  const apart = tests.some((a, index) => tests.slice(index + 1).some((b) => [...a].every((at) => !b.has(at))));
  if (apart) {
    refuseWords(
      tokens,
      firstAt(tokens, from, to, [...BOTH_WORDS, 'and', 'or', ',']),
      to,
      'a condition on one slide: a rule is tried when a respondent leaves its slide, so it cannot require answers to two slides; write a rule for each slide',
      'across_slides',
    );
  }
  const firm = (candidate: Slide) =>
    named.some((mention) => mention.slide === candidate && !mention.byId) ||
    optionSlides.has(candidate) ||
    named.some(
      (mention) => mention.slide === candidate && mention.byId && options.some((option) => option.slide === candidate),
    );
  if (runnerUp && firm(best[0]) && firm(runnerUp[0]) && hasPhrase(tokens, from, to, [...BOTH_WORDS, 'and', 'or'])) {
    refuseWords(
      tokens,
      firstAt(tokens, from, to, [...BOTH_WORDS, 'and', 'or']),
      to,
      'a condition on one slide: a rule is tried when a respondent leaves its slide, so it cannot require answers to two slides; write a rule for each slide',
      'across_slides',
    );
  }
  // "… and who also gave the support a 1 or a 2": a second slide with words of its own, joined by "also".
  if (runnerUp && runnerUp[0] !== best[0] && runnerUp[1] >= 3 && hasPhrase(tokens, from, to, BOTH_WORDS)) {
    refuseWords(
      tokens,
      firstAt(tokens, from, to, BOTH_WORDS),
      to,
      'a condition on one slide: a rule is tried when a respondent leaves its slide, so it cannot require answers to two slides; write a rule for each slide',
      'across_slides',
    );
  }
  if (runnerUp && runnerUp[1] === best[1] && best[1] >= 3) {
    refuseWords(
      tokens,
      from,
      to,
      `one slide: these words could mean "${best[0].text}" or "${runnerUp[0].text}"; name the slide`,
      'ambiguous',
    );
  }
  if (best[1] < 2) return undefined;
  const slide = best[0];
  // A second slide named outright, or with its own options, is a condition on two slides.
  const other =
    named.find((mention) => mention.slide !== slide && !mention.byId) ??
    options.find((mention) => mention.strong && mention.slide !== slide && !labelShared(mention, slide));
  if (other && (named.some((mention) => mention.slide === slide) || optionSlides.has(slide))) {
    const joined =
      hasPhrase(tokens, from, to, BOTH_WORDS) ||
      tokens.slice(from, to).some((token) => token.value === 'and' || token.value === 'or');
    if (joined) {
      refuseWords(
        tokens,
        from,
        to,
        'a condition on one slide: a rule is tried when a respondent leaves its slide, so it cannot require answers to two slides; write a rule for each slide',
        'across_slides',
      );
    }
  }
  const numberedRef = named.some((mention) => mention.slide === slide && mention.numbered);
  // "item 3 (session attendance)": a number and words that name different slides cannot both be right.
  const described = bestParaphrase(words, slides, paraphrased);
  for (const mention of named) {
    if (!mention.numbered || !described || described === mention.slide) continue;
    if ((paraphrased.get(described) ?? 0) >= 2 && !paraphrased.has(mention.slide)) {
      refuseWords(
        tokens,
        mention.from,
        mention.to,
        `one slide: the number names "${mention.slide.text}" and the words name "${described.text}"`,
        'ambiguous',
      );
    }
  }
  const own = options.filter((mention) => mention.slide === slide);
  const read = testsOn(slide, slides, { tokens, from, to, mentions: own, taken });
  refuseUnknownListMembers(tokens, from, to, slides, slide);
  refuseUnknownQuotes(tokens, from, to, slides, slide);
  return { slide, tests: read, numbered: numberedRef };
}

const NPS_WORDS = new Set(['detractor', 'detractors', 'promoter', 'promoters', 'passive', 'passives']);

/** Whether a verb of choosing comes just before token `at` ("picks Washington", not "the Washington question"). */
function isChosen(tokens: readonly Token[], at: number): boolean {
  return CHOOSING.includes(tokens[at - 1]?.value ?? '');
}

/** Whether a mention's label is also one of `slide`'s labels ("No" on two yes/no slides). */
function labelShared(mention: OptionMention, slide: Slide): boolean {
  if (!('options' in slide) || !('options' in mention.slide)) return false;
  const label = mention.slide.options.find((option) => option.id === mention.optionId)?.label.toLowerCase();
  return slide.options.some((option) => option.label.toLowerCase() === label);
}
