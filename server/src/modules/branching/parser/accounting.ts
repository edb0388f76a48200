import type { Slide } from '@pollkit/contracts';
import { alike, normaliseText, optionMentions, vocabularyOf, wordsOf } from './evidence.js';
import { KIND_WORDS, LEXICON_WORDS, PEOPLE_NOUNS, STOP_WORDS, SYNONYMS } from './lexicon.js';
import { anOptionOf } from './messages.js';
import { clauseText, refuseWords } from './phrases.js';
import type { Token } from './tokens.js';

/**
 * The last check before a clause of people's writing becomes a rule: every word in it that names
 * something of this deck must be used by the rule. A rule reads one slide, skips the slides after
 * it and lands on its target; a word that names only slides outside that stretch, or their options,
 * was left out of the reading, and a reading that leaves out what the writer named may be wrong
 * ("colleagues who chose London and rated the event 1 go to…", read as London alone). Such a clause
 * is refused, never drafted with the word dropped. Content slides are left out: no rule tests one,
 * and their words ("Welcome to the Summit", "Thanks for your feedback") are how people name the deck.
 */

/** Grammar words (verbs of rating and choosing, comparisons): how tests are said, not what they are about. */
const GRAMMAR_WORDS: ReadonlySet<string> = new Set(
  [...LEXICON_WORDS].filter(
    (word) => !(word in SYNONYMS) && !Object.values(KIND_WORDS).some((kinds) => kinds.includes(word)),
  ),
);

/** The words a slide is named by: its text, id and statements (its options are found as mentions). */
function namesOf(slide: Slide): string[] {
  const kinds = new Set(KIND_WORDS[slide.kind] ?? []);
  return vocabularyOf(slide).filter(
    (word) => word.length >= 3 && !kinds.has(word) && !STOP_WORDS.has(word) && !GRAMMAR_WORDS.has(word),
  );
}

/**
 * Refuses the clause when a word in tokens [from, to) names only slides the rule on `tested` with
 * target `target` does not use: before `tested`, or after where it lands. In the condition's own
 * words only `tested` may be named: the slides skipped on the way are named by the action
 * ("skip the venue grid"), never by who the rule is about ("rated us low on support AND…").
 */
export function refuseUnusedNames(
  tokens: readonly Token[],
  from: number,
  to: number,
  slides: readonly Slide[],
  tested: Slide,
  target: Slide | 'end',
  /** Whether token `at` is of the condition, where only the tested slide may be named. */
  inCondition: (at: number) => boolean = () => false,
): void {
  const first = slides.indexOf(tested);
  const last = target === 'end' ? slides.length - 1 : slides.indexOf(target);
  // A content slide's words are the deck's own ("the Summit", "feedback", "thanks"), said of the deck.
  const vocabularies = slides.map((slide) => ({ slide, names: slide.kind === 'content' ? [] : namesOf(slide) }));
  const used = (slide: Slide, at: number) => {
    const index = slides.indexOf(slide);
    return inCondition(at) ? index === first : index >= first && index <= last;
  };
  const refuse = (at: number, word: string, slide: Slide) => {
    const index = slides.indexOf(slide);
    // A slide on the way, named by who the rule is about: a second condition, on another slide.
    if (inCondition(at) && index > first && index <= last) {
      refuseWords(
        tokens,
        at,
        at + 1,
        `a condition on one slide: "${word}" names "${slide.text}" beside "${tested.text}"; a rule is tried when a respondent leaves its slide, so it cannot require answers to two slides; write a rule for each slide`,
        'across_slides',
      );
    }
    refuseWords(
      tokens,
      at,
      at + 1,
      `a rule that uses every slide it names: "${word}" names "${slide.text}", which this rule neither tests, skips nor goes to`,
      'unreadable',
    );
  };
  // An option named: a label of its own ("Pro", "Public API"), not one of everyday words ("No", "Other").
  const mentions = optionMentions(tokens, from, to, slides);
  for (const mention of mentions) {
    const same = mentions.filter((other) => other.from === mention.from);
    const option =
      'options' in mention.slide ? mention.slide.options.find((o) => o.id === mention.optionId) : undefined;
    const label = wordsOf(option?.label ?? '');
    const said = wordsOf(clauseText(tokens, mention.from, mention.to));
    // The whole label, or a word of it long enough to be its own ("own" of "No, I'll use my own" is not).
    const ownWords =
      (said.length === label.length && label.some((word) => !STOP_WORDS.has(word))) ||
      said.some((word) => word.length >= 4 && !STOP_WORDS.has(word));
    if ((mention.strong || ownWords) && !same.some((other) => used(other.slide, mention.from)))
      refuse(mention.from, tokens[mention.from]?.value ?? '', mention.slide);
  }
  const inMention = (at: number) => mentions.some((mention) => at >= mention.from && at < mention.to);
  for (let at = from; at < to; at++) {
    const token = tokens[at] as Token;
    if ((token.kind !== 'word' && token.kind !== 'quoted') || inMention(at)) continue;
    for (const word of wordsOf(token.value)) {
      if (word.length < 3 || STOP_WORDS.has(word) || GRAMMAR_WORDS.has(word) || PEOPLE_NOUNS.includes(word)) continue;
      const naming = vocabularies.filter(({ names }) => names.some((name) => alike(name, word)));
      if (naming.length === 0 || naming.some(({ slide }) => used(slide, at))) continue;
      refuse(at, word, (naming[0] as (typeof naming)[number]).slide);
    }
  }
}

/** Words inside a list of answers that name none: "by telephone, or by way of the community forum". */
const LIST_FILLERS = new Set(
  'the a an by way of via through with on in at using just only also either maybe perhaps'.split(' '),
);

/**
 * Refuses a list of answers with a member that is no option of `tested`: "those who contacted us by
 * telephone, or by way of the community forum" would otherwise be read as the forum alone.
 */
export function refuseUnknownListMembers(
  tokens: readonly Token[],
  from: number,
  to: number,
  slides: readonly Slide[],
  tested: Slide,
): void {
  const mentions = optionMentions(tokens, from, to, slides);
  const own = mentions.filter((mention) => mention.slide === tested);
  const inMention = (at: number) => mentions.some((mention) => at >= mention.from && at < mention.to);
  const ownNames = vocabularyOf(tested);
  const isMember = (at: number) => {
    const token = tokens[at];
    if (!token || inMention(at) || token.kind === 'number' || token.kind !== 'word') return true;
    // "if their issue wasn't resolved, or only partially": the slide's own words say its answers too.
    if (ownNames.some((name) => alike(name, token.value))) return true;
    return STOP_WORDS.has(token.value) || GRAMMAR_WORDS.has(token.value) || LIST_FILLERS.has(token.value);
  };
  const skip = (at: number, step: 1 | -1) => {
    let look = at;
    while (look >= from && look < to && (LIST_FILLERS.has(tokens[look]?.value ?? '') || tokens[look]?.value === ','))
      look += step;
    return look;
  };
  for (const mention of own) {
    for (const step of [-1, 1] as const) {
      const joint = skip(step < 0 ? mention.from - 1 : mention.to, step);
      if (joint < from || joint >= to || !['or', 'and', 'nor'].includes(tokens[joint]?.value ?? '')) continue;
      const member = skip(joint + step, step);
      if (member < from || member >= to || isMember(member)) continue;
      refuseWords(tokens, member, member + 1, anOptionOf(tested), 'no_such_option');
    }
  }
}

/**
 * Refuses quoted text that looks like an option of `tested` but is none of them: "Yes, a Linux
 * laptop" where the options are "Yes, a Mac", "Yes, a Windows PC" and "No, I'll use my own" is an
 * option the poll lacks, not the options that also start with "Yes".
 */
export function refuseUnknownQuotes(
  tokens: readonly Token[],
  from: number,
  to: number,
  slides: readonly Slide[],
  tested: Slide,
): void {
  if (!('options' in tested)) return;
  const labels = tested.options.map((option) => normaliseText(option.label));
  const labelWords = new Set(tested.options.flatMap((option) => wordsOf(option.label)));
  for (let at = from; at < to; at++) {
    const token = tokens[at] as Token;
    if (token.kind !== 'quoted') continue;
    const quoted = normaliseText(token.value);
    if (labels.includes(quoted) || tested.options.some((option) => option.id === quoted)) continue;
    if (slides.some((slide) => normaliseText(slide.text).includes(quoted))) continue;
    if (!wordsOf(token.value).some((word) => labelWords.has(word))) continue;
    refuseWords(tokens, at, at + 1, anOptionOf(tested), 'no_such_option');
  }
}
