import type { Slide } from '@pollkit/contracts';
import { sameWord } from './evidence.js';
import { DESCRIPTION_FILLERS, DESCRIPTION_STOPS, NOT_OPTION_WORDS, ORDINALS, SLIDE_EXPECTED } from './lexicon.js';
import { quotedLabels } from './messages.js';
import { OPTION_NOUNS } from './strict-lexicon.js';
import { type Cursor, InstructionError } from './tokens.js';

/** The `n`th of `list`; a number past its end is refused, quoting the reference from `start`. */
function nthSlide(p: Cursor, list: readonly Slide[], n: number, noun: string, start: number): Slide {
  const slide = list[n - 1];
  if (!slide) {
    p.at = start;
    p.fail(`a ${noun} of this poll: it has ${list.length} ${noun}${list.length === 1 ? '' : 's'}`, 'no_such_slide');
  }
  return slide;
}

/** A slide where the strict grammar needs one, consumed or refused: unlike slideNamedAt (evidence.ts), on purpose. */
export function readSlide(p: Cursor): Slide {
  p.accept('the answer to') || p.accept('the answers to') || p.accept('the rating of');
  const start = p.at;
  // "Q3", "question 3", "question #3", "item 3": the third question, or the third slide (Cursor.numbering).
  if (p.acceptAny(['q', 'question', 'question #', 'question no', 'question number', 'q no', 'item'])) {
    const n = p.number();
    if (n !== undefined) {
      const byQuestion = p.numbering === 'questions';
      return nthSlide(p, byQuestion ? p.questions : p.slides, n, byQuestion ? 'question' : 'slide', start);
    }
    p.at = start;
  }
  // Survey tools call them sections (Google Forms) or pages: each is a slide here.
  if (p.acceptAny(['slide', 'slide #', 'slide number', 'section', 'page', 'screen'])) {
    const n = p.number();
    if (n !== undefined) return nthSlide(p, p.slides, n, 'slide', start);
    p.at = start;
  }
  if (p.accept('the')) {
    const token = p.peek();
    const ordinal = token?.kind === 'word' ? ORDINALS.indexOf(token.value) : -1;
    const last = token?.kind === 'word' && (token.value === 'last' || token.value === 'final');
    if (ordinal >= 0 || last) {
      p.at++;
      const noun = p.acceptAny(['question', 'slide', 'section', 'page', 'screen', 'one']);
      if (noun) {
        const list = noun === 'question' || noun === 'one' ? p.questions : p.slides;
        const named = list === p.questions ? 'question' : 'slide';
        if (last) return nthSlide(p, list, list.length, named, start);
        return nthSlide(p, list, ordinal + 1, named, start);
      }
    }
    p.at = start;
  }
  // "satisfaction (Q2)": the reference in brackets says which slide the words before it mean.
  const bracketed = bracketedReference(p);
  if (bracketed) return bracketed;
  if (p.acceptAny(['it', 'that', 'that question', 'this question', 'the same question']) && p.lastSlide) {
    return p.lastSlide;
  }
  p.acceptAny(['the', 'their', 'our', 'your', 'his', 'her']);
  const token = p.peek();
  if (token?.kind === 'quoted') {
    const wanted = normalise(token.value);
    const byText = p.slides.filter((slide) => normalise(slide.text) === wanted);
    const byId = p.slides.filter((slide) => slide.id.toLowerCase() === token.value.toLowerCase());
    const found = byText.length === 1 ? byText[0] : byId.length === 1 ? byId[0] : undefined;
    if (found) {
      p.at++;
      return found;
    }
  }
  if (token?.kind === 'word') {
    // The slide's whole text, then the longest description ("their comfort with our tools"), then an id.
    const described = slideByWords(p) ?? slideByDescription(p);
    if (described) return described;
    const byId = p.slides.find((slide) => slide.id.toLowerCase() === token.value);
    if (byId) {
      p.at++;
      // "the lunch question", "lunch slide": the noun after an id says nothing more.
      p.acceptAny(['question', 'slide', 'section', 'page']);
      return byId;
    }
  }
  p.at = start;
  return p.fail(SLIDE_EXPECTED);
}

/** `words (Q2)`: the slide in brackets, the words before it passed over (at most six). */
function bracketedReference(p: Cursor): Slide | undefined {
  for (let offset = 0; offset <= 6; offset++) {
    const token = p.peek(offset);
    if (!token || (token.kind !== 'word' && token.value !== '(')) return undefined;
    if (token.value !== '(') continue;
    const mark = p.at;
    p.at += offset + 1;
    try {
      const slide = readSlide(p);
      if (p.accept(')')) return slide;
    } catch (error) {
      if (!(error instanceof InstructionError)) throw error;
    }
    p.at = mark;
    return undefined;
  }
  return undefined;
}

/**
 * A slide named by a few of its words without quotes: "the overall rating", "the likelihood to
 * recommend", "the laptop question", "team". The words up to the verb after them, less the nouns
 * that only say "a slide" ("question", "rating"…), must each be in the slide's text or id (a word
 * matches one that shares its first five letters: "likelihood" and "likely"); the one slide where
 * they all are is meant. Several such slides, or none: not read here.
 */
function slideByDescription(p: Cursor): Slide | undefined {
  const words: string[] = [];
  for (let offset = 0; offset < 8; offset++) {
    const token = p.peek(offset);
    if (token?.kind !== 'word' || DESCRIPTION_STOPS.has(token.value)) break;
    words.push(token.value);
  }
  while (words.length > 0) {
    const content = words.filter((word) => !DESCRIPTION_FILLERS.has(word)).flatMap((word) => word.split('-'));
    if (content.length > 0) {
      const candidates = p.slides.filter((slide) => {
        const own = `${slide.id} ${slide.text}`
          .toLowerCase()
          .split(/[^\p{L}\p{N}]+/u)
          .filter(Boolean);
        return content.every((word) => own.some((candidate) => sameWord(word, candidate)));
      });
      if (candidates.length === 1) {
        p.at += words.length;
        return candidates[0];
      }
    }
    words.pop();
  }
  return undefined;
}

/** A slide named by its text without quotes ("If How do you feel is below 2"): the longest exact match. */
function slideByWords(p: Cursor): Slide | undefined {
  const texts = p.slides.map((slide) => ({
    slide,
    words: normalise(slide.text)
      .replace(/[?!.,:]/g, '')
      .split(' '),
  }));
  for (let length = 12; length >= 2; length--) {
    const words = p.wordsAhead(length);
    if (words.length < length) continue;
    const found = texts.filter((entry) => entry.words.join(' ') === words.join(' '));
    if (found.length === 1) {
      p.at += length;
      p.accept('?');
      return found[0]?.slide;
    }
  }
  return undefined;
}

/**
 * An option of `slide`: its label (in quotes or not, in any case, several words too), its id, or a
 * word of exactly one option's label when nothing else matches ("satisfied" for "Very satisfied"
 * when no other label has it). A quoted text that names none is refused, listing the options; so is
 * a word several labels share.
 */
export function readOption(p: Cursor, slide: Slide): string | undefined {
  const options = 'options' in slide ? slide.options : [];
  const mark = p.at;
  const found = optionAfterArticle(p, slide, options);
  if (found === undefined) p.at = mark;
  return found;
}

function optionAfterArticle(
  p: Cursor,
  slide: Slide,
  options: readonly { id: string; label: string }[],
): string | undefined {
  const article = p.peek(1) !== undefined && p.acceptAny(['the']) !== undefined;
  const token = p.peek();
  if (article && token?.kind !== 'word') return undefined;
  if (!token || (token.kind !== 'quoted' && token.kind !== 'word' && token.kind !== 'number')) return undefined;
  if (token.kind === 'quoted') {
    const wanted = normalise(token.value);
    const found =
      options.find((option) => normalise(option.label) === wanted) ??
      options.find((option) => option.id.toLowerCase() === wanted) ??
      uniqueByWord(p, slide, wanted, token.value);
    if (found) {
      p.at++;
      return found.id;
    }
    return p.fail(
      options.length > 0
        ? `an option of ${slide.id}: one of ${quotedLabels(options)}`
        : `something slide ${slide.id} (a ${slide.kind.replace('_', '-')} slide) can be answered with`,
      'no_such_option',
    );
  }
  // Unquoted: the longest run of words that is a whole label, then an id, then a word of one label.
  for (let length = 6; length >= 1; length--) {
    const words = p.wordsAhead(length);
    if (words.length < length) continue;
    const wanted = normalise(words.join(' '));
    const found = options.find((option) => normalise(option.label).replace(/[?!.,:]/g, '') === wanted);
    if (found) {
      p.at += length;
      return found.id;
    }
  }
  const byId = options.find((option) => option.id.toLowerCase() === token.value);
  if (byId) {
    p.at++;
    return byId.id;
  }
  if (token.kind === 'word' && !NOT_OPTION_WORDS.has(token.value)) {
    const found = uniqueByWord(p, slide, token.value, token.value);
    if (found) {
      p.at++;
      return found.id;
    }
  }
  return undefined;
}

/** The one option whose label has `word` as a whole word; refused when several have it. */
function uniqueByWord(p: Cursor, slide: Slide, word: string, written: string) {
  const options = 'options' in slide ? slide.options : [];
  if (word.length < 3) return undefined;
  const having = options.filter((option) =>
    normalise(option.label)
      .split(/[\s,/-]+/)
      .includes(word),
  );
  if (having.length > 1) {
    p.fail(
      `one option: "${written}" is in ${having.map((option) => `"${option.label}"`).join(' and ')}; write the whole label`,
      'ambiguous',
    );
  }
  return having[0];
}

/** `"A", "B" or "C"`: at least one option. */
export function readOptions(p: Cursor, slide: Slide): string[] {
  const first = readOption(p, slide);
  if (first === undefined) p.fail(`an option of ${slide.id}, by its label in quotes or its id`);
  const chosen = [first];
  for (;;) {
    const mark = p.at;
    p.accept(',');
    if (!p.acceptAny(['or', 'and', 'nor', '/']) && p.at === mark) break;
    p.acceptAny(['option', 'the option']);
    const next = readOption(p, slide);
    if (next === undefined) {
      p.at = mark;
      break;
    }
    chosen.push(next);
  }
  return chosen;
}

/**
 * An option named without its slide (`they chose "Pizza"`, `they selected New York`): the one slide
 * that has it, by its whole label (quoted or not, the longest run of words) or its id when quoted.
 * Several slides with that label: refused, asking which.
 */
export function optionAnywhere(p: Cursor): { slide: Slide; optionId: string } | undefined {
  const token = p.peek();
  if (!token) return undefined;
  const mark = p.at;
  const labelled = (wanted: string) =>
    p.slides.flatMap((slide) =>
      'options' in slide
        ? slide.options
            .filter((option) => normalise(option.label).replace(/[?!.,:]/g, '') === wanted.replace(/[?!.,:]/g, ''))
            .map((option) => ({ slide, option }))
        : [],
    );
  let matches: { slide: Slide; option: { id: string; label: string } }[] = [];
  let length = 0;
  if (token.kind === 'quoted') {
    matches = labelled(normalise(token.value));
    length = 1;
  } else {
    p.acceptAny(['the', 'a', 'an']);
    for (let count = 6; count >= 1 && matches.length === 0; count--) {
      const words = p.wordsAhead(count);
      if (words.length < count || NOT_OPTION_WORDS.has(words[0] as string)) continue;
      matches = labelled(normalise(words.join(' ')));
      length = count;
    }
  }
  if (matches.length === 1) {
    p.at += length;
    return { slide: matches[0]!.slide, optionId: matches[0]!.option.id };
  }
  if (matches.length > 1) {
    const label = matches[0]!.option.label;
    p.fail(
      `the slide of "${label}", an option of several slides: say which, as in "chose \\"${label}\\" on Q2"`,
      'ambiguous',
    );
  }
  p.at = mark;
  return undefined;
}

export function optionsIfAny(p: Cursor, slide: Slide): string[] | undefined {
  const mark = p.at;
  const prefixes = OPTION_NOUNS;
  p.acceptAny(prefixes);
  if (readOption(p, slide) === undefined) {
    p.at = mark;
    return undefined;
  }
  p.at = mark;
  p.acceptAny(prefixes);
  return readOptions(p, slide);
}

/** Options written before their slide: the slide (at `slideAt`) is read first, then the options against it. */
export function optionsThenSlide(p: Cursor, optionsAt: number, slideAt: number): { slide: Slide; options: string[] } {
  p.at = slideAt;
  const slide = readSlide(p);
  const after = p.at;
  p.at = optionsAt;
  const options = readOptions(p, slide);
  p.at = after;
  return { slide, options };
}

/** `"Pizza" on Q1`, `on Q1 "Pizza"`, or `"Pizza"` alone when one slide has that option. */
export function locatedOptions(p: Cursor): { slide: Slide; options: string[] } {
  if (p.acceptAny(['on', 'in', 'for', 'at'])) {
    const slide = readSlide(p);
    return { slide, options: readOptions(p, slide) };
  }
  const mark = p.at;
  const alone = optionAnywhere(p);
  if (alone) {
    // More options of the same slide may follow ("Pizza" or "Sushi"), and then the slide after all.
    p.at = mark;
    const options = readOptions(p, alone.slide);
    if (!p.acceptAny(['on', 'in', 'for', 'at'])) return { slide: alone.slide, options };
    return optionsThenSlide(p, mark, p.at);
  }
  // Options by id need their slide: "pizza on Q1".
  const peeked = p.peek();
  if (peeked && (peeked.kind === 'word' || peeked.kind === 'quoted')) {
    let look = p.at + 1;
    while (look < p.tokens.length && !['on', 'in', 'for', 'at'].includes(p.tokens[look]!.value)) look++;
    if (look < p.tokens.length) return optionsThenSlide(p, mark, look + 1);
  }
  return p.fail('an option in quotes and its slide, as in "\\"Pizza\\" on Q1"');
}

/** Whether two words are the same for naming a slide: equal, or sharing their first five letters. */

/** Case, spaces and a closing `?` or `.` do not matter when text is compared. */
export function normalise(text: string): string {
  return text
    .toLowerCase()
    .replace(/[’]/g, "'")
    .replace(/\s+/g, ' ')
    .replace(/[?.!]+$/, '')
    .trim();
}
