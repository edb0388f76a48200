import type { Slide } from '@pollkit/contracts';
import {
  bestParaphrase,
  type ClauseScope,
  isNextWord,
  paraphraseScores,
  slideNamedAt,
  unknownWords,
  wordsOf,
} from './evidence.js';
import {
  CONDITION_OPENERS,
  END_PHRASES,
  END_SAYINGS,
  END_VERBS,
  ENDING_NOUNS,
  LEXICON_WORDS,
  MOVE_CUES,
  MOVE_FILLERS,
  STOP_WORDS,
  TARGET_PREPOSITIONS,
  TARGET_STOPS,
} from './lexicon.js';
import { clauseText, phraseAt } from './phrases.js';
import { InstructionError, type Token } from './tokens.js';

/**
 * Where an action goes: a slide named by number, id, quoted text or a paraphrase of its text, "the
 * next question", the slides a "skip" passes over, or the end.
 */

/** Where to: a slide, the end, the slide after a slide ("skip Q3"), or after the tested slide's next. */
export type Destination =
  | { kind: 'slide'; slide: Slide; numbered: boolean }
  | { kind: 'end' }
  | { kind: 'after'; slide: Slide; numbered: boolean }
  | { kind: 'after_next' };

export interface ClauseAction {
  destination: Destination;
  /** Token range of the action's words: the rest of the clause holds the condition. */
  from: number;
  to: number;
  /** Where the condition is, when it follows the action ("end it for anyone who …", "send everyone who … to"). */
  conditionFrom?: number;
  conditionTo?: number;
  /** Ranges that say what is skipped ("they don't need the laptop question"): not part of the condition. */
  remarks?: [number, number][];
}

/** "end the survey", "finish", "they're done", "the survey is over", "terminate": its length in words. */
export function endAt(tokens: readonly Token[], at: number, to: number): number {
  const token = tokens[at];
  if (!token || at >= to) return 0;
  const word = token.value;
  const saying = phraseAt(tokens, at, END_SAYINGS);
  if (saying > 0) return Math.min(saying, to - at);
  if (END_VERBS.includes(word) && !(word === 'end' && tokens[at - 1]?.value === 'the')) {
    if (word === 'close' && tokens[at + 1]?.value !== 'the') return 0;
    let length = 1;
    if (['the', 'their', 'this'].includes(tokens[at + length]?.value ?? '')) length++;
    if (ENDING_NOUNS.includes(tokens[at + length]?.value ?? '')) length++;
    return Math.min(length, to - at);
  }
  if (['is', 'are', 'be', "they're"].includes(word)) {
    const next = tokens[at + 1]?.value;
    if (next === 'done' || next === 'over' || next === 'finish' || next === 'finished' || next === 'complete') return 2;
  }
  if (
    (word === 'survey' || word === 'quiz' || word === 'form') &&
    ['concludes', 'ends', 'closes', 'stops'].includes(tokens[at + 1]?.value ?? '')
  ) {
    return 2;
  }
  return 0;
}

/** Whether the words at `at` are the end or a slide: after a colon, that makes a shorthand rule ("plan=free: end"). */
export function endsOrTargets(scope: ClauseScope, at: number, to: number): boolean {
  const { tokens, slides, numbering } = scope;
  if (phraseAt(tokens, at, END_PHRASES) > 0 || endAt(tokens, at, to) > 0) return true;
  const named = slideNamedAt(tokens, at, slides, numbering);
  if (named && 'slide' in named && named.to === to) return true;
  if (MOVE_CUES.includes(tokens[at]?.value ?? '')) return false;
  return false;
}

/** The end of a target's words: the first stop after at least one word. */
/**
 * A slide is named in a few words: a target's or a skipped slide's words are read up to
 * NAME_WORDS tokens at most, which also keeps a run of "skip skip skip…" linear in its length.
 */
const NAME_WORDS = 16;

function phraseEnd(tokens: readonly Token[], at: number, to: number): number {
  let end = at;
  to = Math.min(to, at + NAME_WORDS);
  const stops = (index: number) =>
    TARGET_STOPS.has((tokens[index] as Token).value) || phraseAt(tokens, index, CONDITION_OPENERS) > 0;
  while (end < to && (end === at || !stops(end))) end++;
  return end;
}

export function targetAt(scope: ClauseScope, at: number, to: number, verbAt = at - 1): ClauseAction {
  const { tokens, slides } = scope;
  const found = slideTarget(scope, at, to);
  if (found) return { ...found, from: verbAt };
  const end = phraseEnd(tokens, at, to);
  throw new InstructionError(
    clauseText(tokens, at, end) || '(nothing after the arrow)',
    `a slide of this poll to go to: ${slides.map((slide, index) => `"${slide.text}" (slide ${index + 1})`).join(', ')}, or the end`,
    undefined,
    'no_such_slide',
  );
}

/** The slide (or end) named at `at`, with the range of its words; undefined when none is. */
export function slideTarget(scope: ClauseScope, at: number, to: number): ClauseAction | undefined {
  const { tokens, slides, numbering, context } = scope;
  let start = at;
  while (['the', 'a', 'their', 'our', 'your'].includes(tokens[start]?.value ?? '')) start++;
  const endWords = phraseAt(tokens, start, END_PHRASES) || phraseAt(tokens, at, END_PHRASES);
  if (endWords > 0 && !(tokens[start]?.value === 'done' && slides.some((slide) => slide.id === 'done'))) {
    let length = endWords;
    while (['of', 'the', ...ENDING_NOUNS].includes(tokens[start + length]?.value ?? '')) length++;
    return { destination: { kind: 'end' }, from: at, to: start + length };
  }
  const end = phraseEnd(tokens, start, to);
  if (isNextWord(tokens[start])) return { destination: { kind: 'after_next' }, from: at, to: end };
  for (let look = start; look < Math.min(end, start + 3); look++) {
    const named = slideNamedAt(tokens, look, slides, numbering);
    if (named && !('slide' in named)) {
      throw new InstructionError(
        named.words,
        `a slide this poll has: it has ${slides.length} slides`,
        undefined,
        'no_such_slide',
      );
    }
    if (named) {
      if (named.numbered) numberAgreesWithWords(tokens, named, Math.max(end, named.to), to, slides);
      const joiner = tokens[named.to]?.value;
      if ((joiner === 'or' || joiner === 'and') && slideNamedAt(tokens, named.to + 1, slides, numbering)) {
        throw new InstructionError(
          clauseText(tokens, at, to),
          'one place to go: a rule sends a respondent to one slide',
          undefined,
          'unreadable',
        );
      }
      return {
        destination: { kind: 'slide', slide: named.slide, numbered: named.numbered },
        from: at,
        to: Math.max(end, named.to),
      };
    }
  }
  if (['it', 'there', 'that', 'this'].includes(tokens[start]?.value ?? '') && context) {
    return { destination: { kind: 'slide', slide: context, numbered: false }, from: at, to: start + 1 };
  }
  const words = wordsOf(
    tokens
      .slice(start, end)
      .map((token) => token.value)
      .join(' '),
  );
  const scores = paraphraseScores(words, slides);
  let slide = bestParaphrase(words, slides, scores);
  // "slide 6 (open-ended recall question)": the words in brackets may settle a tie.
  if (!slide && tokens[end]?.value === '(') {
    const close = tokens.findIndex((token, index) => index > end && token.value === ')');
    const inner = tokens.slice(end + 1, close < 0 ? to : close).map((token) => token.value);
    slide = bestParaphrase([...words, ...inner], slides);
  }
  // "the bonus round on Asian capitals": words the poll does not have name a slide it does not have,
  // however well one of their words fits a slide that is there.
  const strange = unknownWords(words, slides, LEXICON_WORDS);
  if (slide && strange.length >= 2 && (scores.get(slide) ?? 0) <= 2) return undefined;
  if (slide) return { destination: { kind: 'slide', slide, numbered: false }, from: at, to: end };
  return undefined;
}

/**
 * "route to Q4 (onboarding buddy preference)": when the words beside a number name another slide,
 * the number is read the other way (questions or slides), or the instruction is refused.
 */
function numberAgreesWithWords(
  tokens: readonly Token[],
  named: { slide: Slide; from: number; to: number },
  end: number,
  to: number,
  slides: readonly Slide[],
): void {
  let last = end;
  if (tokens[last]?.value === '(') {
    const close = tokens.findIndex((token, index) => index > last && token.value === ')');
    last = close < 0 ? to : close;
  }
  const words = tokens.slice(named.to, last).map((token) => token.value);
  const scores = paraphraseScores(words, slides);
  const described = bestParaphrase(words, slides, scores);
  if (!described || described === named.slide || (scores.get(described) ?? 0) < 2 || scores.has(named.slide)) return;
  throw new InstructionError(
    clauseText(tokens, named.from, last),
    `one slide: the number names "${named.slide.text}" and the words name "${described.text}"`,
    undefined,
    'ambiguous',
  );
}

/** "skip the laptop question", "skip Q3 and Q4", "jump the overall question": past the last one named. */
export function skippedSlides(scope: ClauseScope, at: number, to: number): ClauseAction | undefined {
  const { tokens, slides, numbering } = scope;
  const end = phraseEnd(tokens, at, to);
  let start = at;
  while (['the', 'a', 'their', 'our', 'your'].includes(tokens[start]?.value ?? '')) start++;
  if (isNextWord(tokens[start])) return { destination: { kind: 'after_next' }, from: at, to: end };
  if (['it', 'that', 'this'].includes(tokens[start]?.value ?? '')) {
    // "promoters skip it": the slide the rule before sent to, and nothing else ("skip that one" with no
    // slide before it would be a guess).
    if (!scope.lastTarget) {
      throw new InstructionError(
        clauseText(tokens, at, end),
        'the slide to skip, by its number or its words',
        undefined,
        'unreadable',
      );
    }
    return { destination: { kind: 'after', slide: scope.lastTarget, numbered: false }, from: at, to: start + 1 };
  }
  // Several slides joined by "and", "or" and commas: each is named, and the last one counts.
  let last: { slide: Slide; numbered: boolean } | undefined;
  let partStart = start;
  let look = start;
  const flush = (partEnd: number) => {
    for (let i = partStart; i < Math.min(partEnd, partStart + 3); i++) {
      const named = slideNamedAt(tokens, i, slides, numbering);
      if (named && 'slide' in named) {
        if (!last || slides.indexOf(named.slide) > slides.indexOf(last.slide))
          last = { slide: named.slide, numbered: named.numbered };
        return;
      }
    }
    const words = wordsOf(
      tokens
        .slice(partStart, partEnd)
        .map((token) => token.value)
        .join(' '),
    );
    const slide = words.some((word) => !STOP_WORDS.has(word)) ? bestParaphrase(words, slides) : undefined;
    if (slide && (!last || slides.indexOf(slide) > slides.indexOf(last.slide))) last = { slide, numbered: false };
  };
  let stop = end;
  const scanTo = Math.min(to, start + 3 * NAME_WORDS);
  while (look < scanTo) {
    const value = (tokens[look] as Token).value;
    // "skip X, straight to Y", "skip X and be taken to Y": where they go is not skipped.
    if (phraseAt(tokens, look, TARGET_PREPOSITIONS) > 0 && look > start) {
      let back = look;
      while (back > start && MOVE_FILLERS.includes((tokens[back - 1] as Token).value)) back--;
      stop = back;
      break;
    }
    if (value === '+') {
      flush(look);
      partStart = look + 1;
    } else if (value === 'and' || value === 'or' || value === ',') {
      // "skip the laptop question and go to …": a move verb after "and" starts the next action.
      if (
        MOVE_CUES.includes(tokens[look + 1]?.value ?? '') ||
        (['just', 'then', 'simply', 'also'].includes(tokens[look + 1]?.value ?? '') &&
          MOVE_CUES.includes(tokens[look + 2]?.value ?? '')) ||
        endAt(tokens, look + 1, to) > 0 ||
        phraseAt(tokens, look + 1, TARGET_PREPOSITIONS) > 0
      ) {
        stop = look;
        break;
      }
      flush(look);
      partStart = look + 1;
    } else if (TARGET_STOPS.has(value) && look > start) {
      stop = look;
      break;
    }
    look++;
    stop = look;
  }
  flush(stop);
  if (!last) return undefined;
  return { destination: { kind: 'after', slide: last.slide, numbered: last.numbered }, from: at, to: stop };
}
