import type { Slide } from '@pollkit/contracts';
import { CHOICE_VERBS, KIND_WORDS, LAST_WORDS, NEXT_WORDS, ORDINALS, STOP_WORDS, SYNONYMS } from './lexicon.js';
import type { Token } from './tokens.js';

/**
 * What a span of words says about the poll, for people.ts: the slides it names (by number, id,
 * quoted text or a paraphrase of the text) and the options it names (by label, a word only one label
 * has, or id). Nothing here decides a rule; it gathers the evidence the rule is read from.
 */

/** How "Q3" and "question 3" count: the slides that ask something, or every slide. */
export type Numbering = 'questions' | 'slides';

/** A clause being read: its tokens, the poll, how numbers count, and the slide "it" means. */
export interface ClauseScope {
  tokens: readonly Token[];
  slides: readonly Slide[];
  numbering: Numbering;
  context: Slide | undefined;
  /** The slide the rule before sent to: what "skip it" skips. */
  lastTarget?: Slide | undefined;
  /** Where the clause's action sends: its condition can only be on a slide before it. */
  target?: Slide | 'end' | undefined;
}

export interface SlideMention {
  slide: Slide;
  /** Token range [from, to) of the words that name it. */
  from: number;
  to: number;
  /** Named outright (a number, an id, its quoted text) rather than by a paraphrase. */
  explicit: boolean;
  /** Its reading depends on how questions are counted ("Q3", "question 3"). */
  numbered: boolean;
  /** Named by its id written as a bare word ("features"), which may also just be a word. */
  byId?: boolean;
}

export interface OptionMention {
  slide: Slide;
  optionId: string;
  from: number;
  to: number;
  /** A whole label, quoted text, or a label word no other text shares; weak ones need their slide named too. */
  strong: boolean;
}

/** A number too large for the deck: "Q10" in a deck of nine slides. */
export interface MissingSlide {
  from: number;
  to: number;
  words: string;
}

const SLIDE_NOUNS = new Set(['slide', 'page', 'section', 'screen', 'step']);
const QUESTION_NOUNS = new Set(['q', 'question', 'item']);

export function normaliseText(text: string): string {
  return (
    text
      .toLowerCase()
      .replace(/[’]/g, "'")
      // "11–50 people" as written in a label and as typed ("11-50 people") is one text.
      .replace(/\s*[–—]\s*/g, '-')
      .replace(/[?!.,:]/g, '')
      .replace(/\s+/g, ' ')
      .trim()
  );
}

/** The words of a text, for matching: lower case, split at anything that is not a letter or digit. */
export function wordsOf(text: string): string[] {
  return text
    .toLowerCase()
    .replace(/’/g, "'")
    .split(/[^\p{L}\p{N}']+/u)
    .map((word) => word.replace(/'s$|'$/, ''))
    .filter(Boolean);
}

/** Whether two words name the same thing: equal, or sharing their first five or six letters. */
export function sameWord(a: string, b: string): boolean {
  if (a === b) return true;
  // Five letters when one word is short ("likely", "likelihood"), six otherwise: "satisfied" and
  // "satisfaction" are alike, "participants" and "partially" are not.
  const shorter = Math.min(a.length, b.length);
  if (shorter < 5) return false;
  const needed = shorter <= 6 ? 5 : 6;
  return a.slice(0, needed) === b.slice(0, needed);
}

/** The `n`th slide of the deck under a numbering, or undefined past its end. */
function numbered(slides: readonly Slide[], numbering: Numbering, n: number): Slide | undefined {
  const list = numbering === 'questions' ? slides.filter((slide) => slide.kind !== 'content') : slides;
  return list[n - 1];
}

/**
 * A slide named at token `at` by number ("Q3", "question 3", "item 2", "slide 5", "the fifth
 * question", "the last slide") or by id. Undefined when the words there are not one; a
 * {@link MissingSlide} when they are, but the deck has no such slide.
 * Unlike readSlide (references.ts), on purpose: evidence in people's writing, never consumed or refused.
 */
export function slideNamedAt(
  tokens: readonly Token[],
  at: number,
  slides: readonly Slide[],
  numbering: Numbering,
): SlideMention | MissingSlide | undefined {
  const word = tokens[at];
  if (!word) return undefined;
  const next = tokens[at + 1];
  const afterHash = next?.value === '#' || next?.value === 'no' || next?.value === 'number' ? 1 : 0;
  const count = tokens[at + 1 + afterHash];
  if (word.kind === 'word' && (QUESTION_NOUNS.has(word.value) || SLIDE_NOUNS.has(word.value))) {
    if (count?.kind === 'number' && /^\d+$/.test(count.value)) {
      const to = at + 2 + afterHash;
      const byQuestion = QUESTION_NOUNS.has(word.value);
      const slide = numbered(slides, byQuestion ? numbering : 'slides', Number(count.value));
      if (!slide) return { from: at, to, words: `${word.value} ${count.value}` };
      return { slide, from: at, to, explicit: true, numbered: byQuestion };
    }
  }
  // "#4 (sessions): …", "-> #6": a slide; "ranks Dark mode #1": a place in a ranking, not a slide.
  const hashLeads =
    at === 0 ||
    ['->', 'to', ',', ';', '(', 'and', 'or', ':', 'skip', 'slide', 'item'].includes(tokens[at - 1]?.value ?? '');
  if (word.value === '#' && next?.kind === 'number' && hashLeads) {
    const slide = numbered(slides, numbering, Number(next.value));
    if (!slide) return { from: at, to: at + 2, words: `#${next.value}` };
    return { slide, from: at, to: at + 2, explicit: true, numbered: true };
  }
  // "the fifth question", "the last slide".
  const ordinal = word.kind === 'word' ? ORDINALS.indexOf(word.value) : -1;
  const last = word.kind === 'word' && LAST_WORDS.includes(word.value);
  if (
    (ordinal >= 0 || last) &&
    next?.kind === 'word' &&
    (QUESTION_NOUNS.has(next.value) || SLIDE_NOUNS.has(next.value))
  ) {
    const byQuestion = QUESTION_NOUNS.has(next.value);
    const list = byQuestion ? slides.filter((slide) => slide.kind !== 'content') : slides;
    const slide = last ? list.at(-1) : list[ordinal];
    if (!slide) return { from: at, to: at + 2, words: `${word.value} ${next.value}` };
    return { slide, from: at, to: at + 2, explicit: true, numbered: false };
  }
  if (word.kind === 'word' || word.kind === 'quoted') {
    const byId = slides.find((slide) => slide.id.toLowerCase() === word.value.toLowerCase());
    if (byId) return { slide: byId, from: at, to: at + 1, explicit: true, numbered: false, byId: word.kind === 'word' };
  }
  if (word.kind === 'quoted') {
    const quoted = normaliseText(word.value);
    const byText = slides.filter((slide) => normaliseText(slide.text) === quoted);
    // Part of a slide's text names it, unless it is an option's whole label ("Satisfied" on "How satisfied…?").
    const isLabel = slides.some(
      (slide) => 'options' in slide && slide.options.some((option) => normaliseText(option.label) === quoted),
    );
    const within = isLabel
      ? []
      : slides.filter((slide) => quoted.length >= 6 && normaliseText(slide.text).includes(quoted));
    const found = byText.length === 1 ? byText : within;
    if (found.length === 1) return { slide: found[0] as Slide, from: at, to: at + 1, explicit: true, numbered: false };
  }
  return undefined;
}

/** "the next question": the slide after `from` (the slide the rule tests). */
export function isNextWord(token: Token | undefined): boolean {
  return token?.kind === 'word' && NEXT_WORDS.includes(token.value);
}

/** A word without the endings that do not change what it names: "ranking" → "rank", "contacted" → "contact". */
export function stem(word: string): string {
  const lower = word.toLowerCase();
  for (const ending of ['ing', 'ed', 'es', 's', 'ly']) {
    if (lower.length - ending.length >= 4 && lower.endsWith(ending)) return lower.slice(0, -ending.length);
  }
  return lower;
}

/** Whether two words name the same thing for a paraphrase: same stem, or sharing their first five or six letters. */
export function alike(a: string, b: string): boolean {
  return sameWord(a, b) || stem(a) === stem(b);
}

/** Words a slide is known by: its text, id, statements, the words for its kind (its options are mentions, not names). */
export function vocabularyOf(slide: Slide): string[] {
  const parts = [slide.text, slide.id.replace(/[_-]/g, ' ')];
  if (slide.kind === 'scale') parts.push(...slide.statements.map((statement) => statement.text));
  const kind = slide.kind === 'scale' && slide.statements.length > 0 ? ['grid', 'matrix'] : [];
  return [
    ...wordsOf(parts.join(' ')).filter((word) => !STOP_WORDS.has(word) && word.length >= 2),
    ...(KIND_WORDS[slide.kind] ?? []),
    ...kind,
  ];
}

/**
 * How well `words` describe each slide: for each content word found in a slide's text, id,
 * statements or kind ("the improve-next-year box" → `improve`), 2 points when no other slide has
 * it, 1 when others do. Words of two letters, and the common words of STOP_WORDS, do not count; a
 * word with SYNONYMS counts as the best of them ("come back" for "Will you attend…?").
 */
export function paraphraseScores(words: readonly string[], slides: readonly Slide[]): Map<Slide, number> {
  const content = [...new Set(words.flatMap((word) => word.toLowerCase().split(/[-_]/)))].filter(
    (word) => word.length >= 2 && !STOP_WORDS.has(word),
  );
  const vocabularies = slides.map((slide) => ({ slide, words: vocabularyOf(slide) }));
  const scores = new Map<Slide, number>();
  for (const word of content) {
    const forms = [word, ...(SYNONYMS[word] ?? [])];
    const having = vocabularies.filter((entry) =>
      entry.words.some((known) => forms.some((form) => alike(form, known))),
    );
    for (const entry of having) scores.set(entry.slide, (scores.get(entry.slide) ?? 0) + (having.length === 1 ? 2 : 1));
  }
  return scores;
}

/**
 * The one slide `words` describe best, when one does; a tie is broken by every word the words share
 * with each slide's text, common ones included ("whether we may contact them" is "May we contact
 * you…?" rather than "How did you contact us?"). Still tied, or nothing: undefined. `scores` is
 * {@link paraphraseScores} of the same words, when the caller has it already.
 */
export function bestParaphrase(
  words: readonly string[],
  slides: readonly Slide[],
  scores: ReadonlyMap<Slide, number> = paraphraseScores(words, slides),
): Slide | undefined {
  const ranked = [...scores].sort((a, b) => b[1] - a[1]);
  const [first, second] = ranked;
  if (!first) return undefined;
  if (!second || second[1] < first[1]) return first[0];
  const all = new Set(
    words.flatMap((word) => word.toLowerCase().split(/[-_]/)).filter((word) => !FRAME_WORDS.has(word)),
  );
  const shared = (slide: Slide) => wordsOf(slide.text).filter((word) => all.has(word)).length;
  const tied = ranked.filter(([, score]) => score === first[1]).map(([slide]) => ({ slide, shared: shared(slide) }));
  tied.sort((a, b) => b.shared - a.shared);
  const [top, next] = tied;
  return top && next && top.shared > next.shared ? top.slide : undefined;
}

/** Words that frame a reference to a slide without describing it. */
const FRAME_WORDS = new Set(['the', 'a', 'an', 'question', 'slide', 'one', 'bit', 'part', 'page', 'to', 'of']);

/** Content words of `words` that no slide, option or statement of the deck has: names of things the poll lacks. */
export function unknownWords(words: readonly string[], slides: readonly Slide[], known: ReadonlySet<string>): string[] {
  const deck = slides.flatMap((slide) => [
    ...vocabularyOf(slide),
    ...('options' in slide ? slide.options.flatMap((option) => [...wordsOf(option.label), option.id]) : []),
  ]);
  return words.filter(
    (word) =>
      word.length >= 4 &&
      /^\p{L}+$/u.test(word) &&
      !STOP_WORDS.has(word) &&
      !known.has(word) &&
      !deck.some((candidate) => alike(word, candidate)),
  );
}

/**
 * The options named in tokens [from, to): whole labels first (the longest at each place), then ids
 * and a label's first or only distinctive word. A label made only of common words ("No", "Other",
 * "Free") is strong only when a verb of choosing or `=` comes just before it, or it is quoted.
 */
export function optionMentions(
  tokens: readonly Token[],
  from: number,
  to: number,
  slides: readonly Slide[],
): OptionMention[] {
  const found: OptionMention[] = [];
  const labelled = slides.flatMap((slide) =>
    'options' in slide ? slide.options.map((option) => ({ slide, option, words: wordsOf(option.label) })) : [],
  );
  let at = from;
  while (at < to) {
    const token = tokens[at] as Token;
    if (token.kind === 'quoted') {
      const quoted = normaliseText(token.value);
      for (const entry of labelled) {
        if (normaliseText(entry.option.label) === quoted || entry.option.id === quoted) {
          found.push({ slide: entry.slide, optionId: entry.option.id, from: at, to: at + 1, strong: true });
        }
      }
      at++;
      continue;
    }
    let longest = 0;
    for (const entry of labelled) {
      const length = entry.words.length;
      if (length === 0 || length <= longest - 1 || at + length > to) continue;
      const ahead = wordsOf(
        tokens
          .slice(at, at + length)
          .map((t) => t.value)
          .join(' '),
      );
      if (ahead.join(' ') !== entry.words.join(' ')) continue;
      const common = entry.words.every((word) => STOP_WORDS.has(word) || word.length <= 3);
      const strong = !common || afterChoiceCue(tokens, at);
      if (length > longest) {
        // A longer label at the same place replaces the shorter ones ("Very satisfied" over "Satisfied").
        for (let i = found.length - 1; i >= 0 && (found[i] as OptionMention).from === at; i--) found.splice(i, 1);
        longest = length;
      }
      found.push({ slide: entry.slide, optionId: entry.option.id, from: at, to: at + length, strong });
    }
    if (longest > 0) {
      at += longest;
      continue;
    }
    // A common word ("other") is an option by its id only after "=" or ":" ("role: other", "role = other").
    const byIdAfterSign =
      token.kind === 'word' && STOP_WORDS.has(token.value) && ['=', ':'].includes(tokens[at - 1]?.value ?? '');
    if (
      token.kind === 'word' &&
      (!STOP_WORDS.has(token.value) || token.value === 'yes' || token.value === 'no' || byIdAfterSign)
    ) {
      // "Free-plan respondents": the first part of a hyphenated word may be the label.
      const part = token.value.includes('-') ? (token.value.split('-')[0] ?? '') : '';
      // "say yes" where "Yes please" is on one slide and "Yes, a Mac" and "Yes, a PC" on another:
      // the word is some option of two slides, so it names neither outright.
      const slidesWithWord = new Set(
        labelled.filter((entry) => entry.words.includes(token.value)).map((entry) => entry.slide),
      );
      for (const { slide } of labelled.filter(
        (entry, index, all) => all.findIndex((e) => e.slide === entry.slide) === index,
      )) {
        const options = 'options' in slide ? slide.options : [];
        const byId = options.filter((option) => option.id.toLowerCase() === token.value);
        const byWord = options.filter((option) => {
          const words = wordsOf(option.label);
          return (
            words.includes(token.value) ||
            (part !== '' && words.length === 1 && words[0] === part) ||
            (token.value.length >= 5 && words.some((word) => sameWord(word, token.value)))
          );
        });
        const match = byId.length === 1 ? byId : byWord.length === 1 && !byIdAfterSign ? byWord : [];
        const option = match[0];
        if (option) {
          // "an enterprise lead", "a free trial": a label used to describe something else.
          const describing =
            ['a', 'an'].includes(tokens[at - 1]?.value ?? '') &&
            tokens[at + 1]?.kind === 'word' &&
            !STOP_WORDS.has(tokens[at + 1]?.value ?? '');
          if (describing) continue;
          const distinctive = token.value.length >= 4 && !CHOICE_VERBS.includes(token.value);
          const strong =
            ((distinctive && byWord.length === 1) || afterChoiceCue(tokens, at)) && slidesWithWord.size <= 1;
          found.push({ slide, optionId: option.id, from: at, to: at + 1, strong });
        }
      }
    }
    at++;
  }
  return found;
}

/** Whether a verb of choosing, `=`, `:` or "is" comes just before token `at` (a few words back). */
function afterChoiceCue(tokens: readonly Token[], at: number): boolean {
  for (let back = 1; back <= 3; back++) {
    const token = tokens[at - back];
    if (!token) return false;
    if (token.kind === 'symbol' && ['=', ':', '!=', '->'].includes(token.value)) return true;
    if (token.kind === 'word' && CHOICE_VERBS.includes(token.value)) return true;
    if (
      token.kind === 'word' &&
      !['the', 'a', 'an', 'option', 'answer', 'they', 'them', 'with', 'by', 'or', 'either', 'only', 'just'].includes(
        token.value,
      )
    ) {
      return false;
    }
  }
  return false;
}
