import type { BranchCondition, Slide } from '@pollkit/contracts';
import { type OptionMention, unknownWords, wordsOf } from './evidence.js';
import {
  ANAPHORA,
  ANSWER_VERBS,
  BLANK_WORDS,
  BOTH_WORDS,
  CHOICE_VERBS,
  FIRST_PLACE,
  LEXICON_WORDS,
  NEGATIONS,
  OPEN_SAYS,
  OTHER_PLACES,
  RATING_WORDS,
  RIGHT_WORDS,
  TEXT_WORDS,
  WRONG_WORDS,
} from './lexicon.js';
import { anOptionOf } from './messages.js';
import { firstAt, hasPhrase, phraseAt, refuseWords } from './phrases.js';
import { ratingTests, readRatings } from './ratings.js';
import type { Token } from './tokens.js';
import { yesNoOptions } from './yes-no.js';

/** The words of a condition on one slide: the options of it they name, and the tokens that are not theirs. */
export interface ConditionWords {
  tokens: readonly Token[];
  from: number;
  to: number;
  mentions: readonly OptionMention[];
  taken: ReadonlySet<number>;
}

/**
 * What a condition tests on its slide once the slide is known: options chosen or not, ratings, a
 * right or wrong quiz answer, a blank, the words of a yes/no question said of the respondent.
 */

/**
 * Whether the options named are negated: a "not" shortly before the first of them ("did not use live
 * chat", "isn't New York", "!= paris") or just after one with only "is" between ("'Public API' is
 * not among…"). A "not" elsewhere ("won't have seen the venue") says something else.
 */
function negated({ tokens, from, to, mentions, taken }: ConditionWords): boolean {
  const inLabel = (at: number) => mentions.some((mention) => at >= mention.from && at < mention.to);
  const first = mentions.reduce((earliest, mention) => Math.min(earliest, mention.from), to);
  const copulas = new Set(['is', 'was', 'are', 'were']);
  for (let at = from; at < to; at++) {
    if (inLabel(at) || taken.has(at) || phraseAt(tokens, at, NEGATIONS) === 0) continue;
    if (mentions.length === 0) return true;
    if (at < first && first - at <= 4) return true;
    const afterLabel = mentions.some(
      (mention) => at >= mention.to && tokens.slice(mention.to, at).every((token) => copulas.has(token.value)),
    );
    if (afterLabel) return true;
  }
  return false;
}

function blank({ tokens, from, to, mentions, taken }: ConditionWords): boolean {
  for (let at = from; at < to; at++) {
    // "no response", "no answer": a blank, though "No" may also be a label.
    const length = phraseAt(tokens, at, BLANK_WORDS);
    if (length > 1 && !taken.has(at)) return true;
    if (taken.has(at) || mentions.some((mention) => at >= mention.from && at < mention.to)) continue;
    // "skip (straight) to": an action's verb, not a blank.
    const movesOn = ['to', 'straight', 'directly', 'ahead', 'past', 'them', 'him', 'her'].includes(
      tokens[at + 1]?.value ?? '',
    );
    // "pro and team ppl skip the features q, go straight to ranking": a skip said before where they go.
    const thenMoves =
      ['skip', 'skips'].includes((tokens[at] as Token).value) &&
      tokens
        .slice(at + 1, at + 7)
        .some((token) => ['go', 'jump', 'move', 'head', 'proceed', 'straight'].includes(token.value));
    if (length > 0 && !movesOn && !thenMoves) return true;
    if (['unanswered', 'non-response', 'nonresponse'].includes((tokens[at] as Token).value)) return true;
  }
  // "doesn't answer", "do not fill in", "don't tick any".
  for (let at = from; at < to; at++) {
    if (taken.has(at) || phraseAt(tokens, at, NEGATIONS) === 0) continue;
    for (let look = at + 1; look < Math.min(to, at + 5); look++) {
      if (
        phraseAt(tokens, look, ANSWER_VERBS) > 0 ||
        ['tick', 'pick', 'select', 'choose', 'bother'].includes((tokens[look] as Token).value)
      ) {
        return mentions.length === 0;
      }
    }
  }
  return false;
}

/** How a rating is said without a number ("rated the venue poorly"): a rating, not merely an answer. */
const GRID_RATINGS = [
  'poorly',
  'badly',
  'low',
  'lowly',
  'high',
  'highly',
  'well',
  'negatively',
  'positively',
  'poor',
  'bad',
  'good',
  'great',
  'terrible',
  'top',
  'bottom',
];

export function testsOn(slide: Slide, slides: readonly Slide[], words: ConditionWords): Test[] {
  const { tokens, from, to, mentions, taken } = words;
  const said = (phrases: readonly string[]) => hasPhrase(tokens, from, to, phrases);
  if (slide.kind === 'content') {
    refuseWords(
      tokens,
      from,
      to,
      `a slide that takes answers: "${slide.text}" is a content slide, which no respondent answers`,
      'content_slide',
    );
  }
  refuseUnknownNames(tokens, from, to, slides, slide, taken);
  // Left blank, alone or beside another test ("1-3 or skipped": both).
  const leftBlank = blank(words);
  const orBlank = (read: Test[]): Test[] => (leftBlank ? [{ operator: 'not_answered' }, ...read] : read);
  if (slide.kind === 'open_ended' || slide.kind === 'qa') {
    if (leftBlank) return [{ operator: 'not_answered' }];
    if (said(TEXT_WORDS) || said(OPEN_SAYS)) {
      const at = said(TEXT_WORDS) ? firstAt(tokens, from, to, TEXT_WORDS) : firstAt(tokens, from, to, OPEN_SAYS);
      refuseWords(
        tokens,
        at,
        to,
        `"answered" or "not answered": a condition on "${slide.text}" tests whether it was answered, not what the answer says`,
        'free_text',
      );
    }
    if (said(ANSWER_VERBS)) return [{ operator: negated(words) ? 'not_answered' : 'answered' }];
    return refuseWords(tokens, from, to, `"answered" or "left blank" for "${slide.text}"`, 'unreadable');
  }
  if (slide.kind === 'scale') {
    if (slide.statements.length > 0 && leftBlank) return [{ operator: 'not_answered' }];
    if (slide.statements.length > 0) {
      // "rate the agent poorly for friendliness": a rating of one statement is not "answered".
      const statementNamed = slide.statements.some((statement) =>
        wordsOf(statement.text).some((word) => hasPhrase(tokens, from, to, [word])),
      );
      const rated = hasPhrase(tokens, from, to, GRID_RATINGS);
      if (
        said(ANSWER_VERBS) &&
        !statementNamed &&
        !rated &&
        !tokens.slice(from, to).some((token) => token.kind === 'number')
      ) {
        return [{ operator: negated(words) ? 'not_answered' : 'answered' }];
      }
      const statementWords = slide.statements.flatMap((statement) => wordsOf(statement.text));
      return refuseWords(
        tokens,
        firstAt(tokens, from, to, statementWords),
        to,
        `a condition on the whole of "${slide.text}": a grid of statements can only be tested for being answered, not one statement's rating`,
        'per_statement',
      );
    }
    const ratings = readRatings(tokens, from, to, slide, taken);
    if (ratings && ratings.outside.length > 0) {
      const outside = tokens.findIndex(
        (token, index) => index >= from && index < to && ratings.outside.includes(Math.abs(Number(token.value))),
      );
      refuseWords(
        tokens,
        outside < 0 ? from : outside,
        to,
        `a rating on "${slide.text}", from ${slide.min} to ${slide.max}: ${ratings.outside.join(', ')} is outside it`,
        'out_of_range',
      );
    }
    if (!ratings && leftBlank) return [{ operator: 'not_answered' }];
    if (!ratings) {
      if (said(ANSWER_VERBS) || said(RATING_WORDS)) {
        return refuseWords(
          tokens,
          from,
          to,
          `a rating for "${slide.text}", such as "1 or 2", "below 4" or "9-10"`,
          'unreadable',
        );
      }
      return refuseWords(tokens, from, to, `a rating for "${slide.text}"`, 'unreadable');
    }
    if (negated(words)) {
      const all = new Set<number>();
      for (let value = slide.min; value <= slide.max; value++) if (!ratings.values.has(value)) all.add(value);
      ratings.values.clear();
      for (const value of all) ratings.values.add(value);
      if (all.size === 0) refuseWords(tokens, from, to, 'a rating some respondent can give', 'out_of_range');
    }
    return orBlank(ratingTests(ratings.values, slide));
  }
  if (leftBlank && mentions.length === 0) return [{ operator: 'not_answered' }];
  const options = 'options' in slide ? slide.options : [];
  // Ratings written for a slide that has none ("the integrations get a 2, 3 or 4" read on a choice
  // slide) would be dropped: refused rather than read without them.
  const firstPlace = (index: number) =>
    tokens[index - 1]?.value === '#' || tokens[index - 1]?.value === 'ranked' || tokens[index - 1]?.value === 'no';
  const spare = tokens.findIndex(
    (token, index) =>
      !firstPlace(index) &&
      index >= from &&
      index < to &&
      token.kind === 'number' &&
      token.value.replace('-', '').length < 4 &&
      !taken.has(index) &&
      !mentions.some((m) => index >= m.from && index < m.to),
  );
  if (spare >= 0) {
    refuseWords(tokens, spare, to, `a test "${slide.text}" can have: it has no ratings`, 'unreadable');
  }
  let ids = [...new Set(mentions.map((mention) => mention.optionId))];
  if (slide.kind === 'quiz' && ids.length === 0) {
    const right = said(RIGHT_WORDS);
    const wrong = said(WRONG_WORDS);
    if (right !== wrong) {
      const correct = new Set(slide.correctOptionIds);
      ids = options.filter((option) => correct.has(option.id) === right).map((option) => option.id);
      return ids.length === 1
        ? [{ operator: 'equals', value: ids[0] as string }]
        : [{ operator: 'includes', value: ids }];
    }
  }
  const yesNo = yesNoOptions(slide, tokens, from, to, mentions);
  if (yesNo.negatedText) {
    // "if their issue wasn't resolved, or only partially": the "not" says No; the options named add to it.
    const either = [...new Set([...yesNo.ids, ...ids])];
    return either.length === 1
      ? [{ operator: 'equals', value: either[0] as string }]
      : [{ operator: 'includes', value: either }];
  }
  if (ids.length === 0 && yesNo.ids.length > 0) {
    // "they will attend … not …": a "not" that is not before the slide's words is not clear enough.
    if (negated(words)) {
      refuseWords(tokens, from, to, anOptionOf(slide), 'unreadable');
    }
    ids = yesNo.ids;
  }
  if (ids.length === 0) {
    if (said(ANSWER_VERBS)) return [{ operator: negated(words) ? 'not_answered' : 'answered' }];
    return refuseWords(tokens, from, to, anOptionOf(slide), 'no_such_option');
  }
  if (slide.kind === 'ranking') {
    if (!said(FIRST_PLACE) && !said(OTHER_PLACES)) {
      refuseWords(
        tokens,
        from,
        to,
        `the option ranked first on "${slide.text}", as in "Dark mode is ranked first"`,
        'unreadable',
      );
    }
    if (said(OTHER_PLACES) && !said(FIRST_PLACE)) {
      refuseWords(
        tokens,
        from,
        to,
        `the option ranked first: a condition on "${slide.text}" sees which option came first, not where the others came`,
        'unsupported_action',
      );
    }
    if (ids.length === 1) return [{ operator: 'equals', value: ids[0] as string }];
    return ids.map((id) => ({ operator: 'equals' as const, value: id }));
  }
  const multiple = slide.kind === 'multiple_choice' && slide.type === 'multiple';
  if (ids.length > 1 && multiple && said(BOTH_WORDS)) {
    refuseWords(
      tokens,
      firstAt(tokens, from, to, BOTH_WORDS),
      to,
      'any one of the options: `includes` means any of them; a rule cannot require several at once',
      'all_of',
    );
  }
  if (negated(words)) {
    if (ids.length > 1) {
      refuseWords(
        tokens,
        from,
        to,
        'one option after "not": a rule cannot require that none of several were chosen',
        'all_of',
      );
    }
    return [{ operator: 'not_equals', value: ids[0] as string }];
  }
  return orBlank(
    ids.length === 1 ? [{ operator: 'equals', value: ids[0] as string }] : [{ operator: 'includes', value: ids }],
  );
}

/** Whether the words point back at the options of the clause before: "anyone who didn't tick either of those". */
export function pointsBack(tokens: readonly Token[], from: number, to: number): boolean {
  return hasPhrase(tokens, from, to, NEGATIONS) && hasPhrase(tokens, from, to, ANAPHORA);
}

/**
 * The condition of a clause as people write it: which slide it tests, found from everything the
 * words say about the poll (a number or id, options only one slide has, words of a slide's text,
 * ratings that fit a scale), then what it tests there: options chosen or not, ratings, a right or
 * wrong quiz answer, a blank. When the words name two slides, or could mean two, it is refused.
 */

export type Test = { operator: BranchCondition['if']['operator']; value?: string | number | string[] };

/**
 * "the capital of Germany", "a Linux laptop": a word the deck does not have, next to the words that
 * named the slide, names something the poll lacks. Refused rather than read as the slide it is near.
 */
function refuseUnknownNames(
  tokens: readonly Token[],
  from: number,
  to: number,
  slides: readonly Slide[],
  slide: Slide,
  taken: ReadonlySet<number>,
): void {
  const own = new Set(wordsOf(slide.text));
  for (let at = from + 1; at < to; at++) {
    const token = tokens[at] as Token;
    // A name is written with a capital ("Germany", "Linux", "Slack"), and not as the clause's first word.
    const capital = token.written !== undefined && /^\p{Lu}/u.test(token.written);
    if (token.kind !== 'word' || !capital || taken.has(at)) continue;
    if (unknownWords([token.value], slides, LEXICON_WORDS).length === 0) continue;
    const near = [tokens[at - 1], tokens[at + 1], tokens[at - 2], tokens[at + 2]].some(
      (neighbour) => neighbour && (own.has(neighbour.value) || CHOICE_VERBS.includes(neighbour.value)),
    );
    if (!near) continue;
    const ofSlide = tokens[at - 1]?.value === 'of';
    refuseWords(
      tokens,
      at,
      Math.min(to, at + 1),
      ofSlide ? `a slide of this poll: none is about "${token.written}"` : anOptionOf(slide),
      ofSlide || !('options' in slide) ? 'no_such_slide' : 'no_such_option',
    );
  }
}
