import type { Slide } from '@pollkit/contracts';
import { type OptionMention, wordsOf } from './evidence.js';
import { DECLINING_VERBS, LEXICON_WORDS, NEGATIONS, STOP_WORDS, SYNONYMS } from './lexicon.js';
import { anOptionOf } from './messages.js';
import { phraseAt, refuseWords } from './phrases.js';
import type { Token } from './tokens.js';

/**
 * "if the issue was resolved", "they don't need a laptop": the words of a yes/no question said of
 * the respondent mean its options that start with "Yes" (or, negated, "No").
 */
export function yesNoOptions(
  slide: Slide,
  tokens: readonly Token[],
  from: number,
  to: number,
  mentions: readonly OptionMention[],
): { ids: string[]; negatedText: boolean } {
  const none = { ids: [], negatedText: false };
  if (!('options' in slide)) return none;
  const starts = (prefix: string) =>
    slide.options.filter((option) => wordsOf(option.label)[0] === prefix).map((option) => option.id);
  const yes = starts('yes');
  const no = starts('no');
  if (yes.length === 0 || no.length === 0) return none;
  const text = wordsOf(slide.text).filter(
    (word) => word.length >= 4 && !['your', 'would', 'like', 'have', 'will'].includes(word),
  );
  const places = tokens.flatMap((token, index) =>
    index >= from &&
    index < to &&
    [token.value, ...(SYNONYMS[token.value] ?? [])].some((form) =>
      text.some((word) => word === form || (word.length >= 5 && form.startsWith(word.slice(0, 5)))),
    )
      ? [index]
      : [],
  );
  if (places.length === 0) return none;
  // "Yes" or "No" written out is an option named, not the slide's words said of the respondent.
  if (tokens.slice(from, to).some((token) => token.value === 'yes' || token.value === 'no')) return none;
  // The "not" that negates the slide's own words stands just before them ("wasn't resolved", "won't
  // need a laptop"), or a verb of turning it down does ("decline a buddy").
  const negatedText = places.some((at) =>
    [1, 2, 3, 4].some(
      (back) =>
        at - back >= from &&
        (phraseAt(tokens, at - back, NEGATIONS) > 0 || phraseAt(tokens, at - back, DECLINING_VERBS) > 0),
    ),
  );
  // A verb the grammar does not know, just before the slide's words ("forgoes a buddy"), may say
  // either answer: refused rather than read as "Yes".
  const first = Math.min(...places);
  let before = first - 1;
  while (before >= from && ['a', 'an', 'the', 'their', 'any', 'one', 'of', 'for'].includes(tokens[before]?.value ?? ''))
    before--;
  const verb = tokens[before];
  if (
    !negatedText &&
    verb?.kind === 'word' &&
    before >= from &&
    !STOP_WORDS.has(verb.value) &&
    !LEXICON_WORDS.has(verb.value) &&
    !text.includes(verb.value) &&
    !slide.options.some((option) => wordsOf(option.label).includes(verb.value))
  ) {
    refuseWords(tokens, before, first + 1, anOptionOf(slide), 'unreadable');
  }
  if (!negatedText && mentions.length > 0) return none;
  return { ids: negatedText ? no : yes, negatedText };
}
