/**
 * Moodle's GIFT format (https://docs.moodle.org/en/GIFT_format) read into a question bank.
 *
 * Written by hand rather than with gift-pegjs: that parser fails a whole question when a `//` comment
 * line opens its answer block, folds comment lines into the previous answer's feedback, and reports
 * errors as grammar expectations. Reading one blank-line-separated block at a time, as Moodle does,
 * also keeps a broken question from swallowing the next one and gives every question its line.
 */
import {
  type Bank,
  type BankChange,
  type BankQuestion,
  BankRefused,
  type BankSlide,
  refusePastQuestionLimit,
} from '../bank.js';
import { collapseWhitespace, hasMarkup, plainTextOfHtml, plainTextOfMarkdown } from './plain-text.js';
import { linesOfTextFile } from './text-file.js';

type TextFormat = 'moodle' | 'html' | 'plain' | 'markdown';

/** A question's lines as written, comment lines left out, with where each one is in the file. */
interface Block {
  lines: string[];
  lineNumbers: number[];
}

type Reading =
  | { outcome: 'slide'; name?: string; slide: BankSlide; changes: BankChange[] }
  | { outcome: 'unsupported'; name?: string; kind: string }
  /** Its text is nothing but a recording (an `<audio>` or `<video>` element, a link to a sound file). */
  | { outcome: 'audio'; name?: string }
  /** `problem` completes "Question N, on line L, …". */
  | { outcome: 'malformed'; problem: string };

interface Answer {
  marker: '=' | '~';
  /** The `%50%` weight, when the answer has one. */
  weight?: number;
  label: string;
}

export function readGift(text: string): Bank {
  const lines = linesOfTextFile(text, 'GIFT');
  const questions: BankQuestion[] = [];
  let sawGiftSyntax = false;
  for (const block of blocksOf(lines)) {
    const source = block.lines.join('\n');
    if (source.startsWith('::') || findUnescaped(source, '{') >= 0 || findUnescaped(source, '}') >= 0) {
      sawGiftSyntax = true;
    }
    questions.push(questionOf(block, questions.length + 1));
    refusePastQuestionLimit(questions);
  }
  if (questions.length === 0) {
    throw new BankRefused('The file holds no GIFT questions.', [
      { message: 'There is nothing in it but blank lines, // comments and $CATEGORY lines.' },
    ]);
  }
  if (!sawGiftSyntax) {
    // Any text is a GIFT "description"; a file with no answer block and no name anywhere is far more
    // likely another format (Aiken, a plain list) than a deck of nothing but text slides.
    throw new BankRefused('The file is not GIFT: none of its questions has an answer block {…} or a ::name::.', [
      { line: questions[0]?.line, message: 'The first question has no answer block {…} and no ::name::.' },
    ]);
  }
  return { questions };
}

/**
 * Questions are separated by blank lines. `//` comment lines are dropped wherever they are (also
 * inside an answer block), and a `$CATEGORY:` line only names the category questions go into.
 */
function blocksOf(lines: readonly string[]): Block[] {
  const blocks: Block[] = [];
  let current: Block = { lines: [], lineNumbers: [] };
  const endBlock = () => {
    if (current.lines.length > 0) blocks.push(current);
    current = { lines: [], lineNumbers: [] };
  };
  lines.forEach((line, index) => {
    const trimmed = line.trim();
    const isComment = trimmed.startsWith('//');
    const isCategory = current.lines.length === 0 && trimmed.startsWith('$CATEGORY:');
    if (trimmed === '') {
      endBlock();
    } else if (!isComment && !isCategory) {
      current.lines.push(line);
      current.lineNumbers.push(index + 1);
    }
  });
  endBlock();
  return blocks;
}

function questionOf(block: Block, number: number): BankQuestion {
  const line = block.lineNumbers[0]!;
  const reading = readBlock(block, number);
  switch (reading.outcome) {
    case 'slide':
      return { number, ...nameField(reading.name), line, slide: reading.slide, changes: reading.changes };
    case 'unsupported':
      return {
        number,
        ...nameField(reading.name),
        line,
        skipped: {
          reason: 'unsupported_kind',
          message: `Question ${number} is ${reading.kind}, which Pollkit has no slide for.`,
        },
        changes: [],
      };
    case 'audio':
      return {
        number,
        ...nameField(reading.name),
        line,
        skipped: {
          reason: 'audio',
          message: `Question ${number} is only a recording, which a slide cannot play.`,
        },
        changes: [],
      };
    case 'malformed':
      return {
        number,
        line,
        skipped: { reason: 'malformed', message: `Question ${number}, on line ${line}, ${reading.problem}.` },
        changes: [],
      };
  }
}

function nameField(name: string | undefined): { name?: string } {
  return name ? { name } : {};
}

function readBlock(block: Block, number: number): Reading {
  const source = block.lines.join('\n');
  const lineAt = (offset: number) => block.lineNumbers[countNewlines(source, offset)]!;

  const open = findUnescaped(source, '{');
  const close = findUnescaped(source, '}');
  if (close >= 0 && (open < 0 || close < open)) {
    return { outcome: 'malformed', problem: `has a closing } on line ${lineAt(close)} with no { before it` };
  }
  if (open >= 0 && close < 0) {
    return {
      outcome: 'malformed',
      problem: `opens an answer block with { on line ${lineAt(open)} but never closes it`,
    };
  }
  const secondOpen = open >= 0 ? findUnescaped(source, '{', open + 1) : -1;
  if (secondOpen >= 0 && secondOpen < close) {
    return { outcome: 'malformed', problem: `has a second { on line ${lineAt(secondOpen)} inside its answer block` };
  }

  const head = open >= 0 ? source.slice(0, open) : source;
  const named = nameAndStem(head);
  if (named === undefined) {
    return { outcome: 'malformed', problem: 'has a name that starts with :: but never ends with ::' };
  }
  const { name, stem } = named;
  const { format, body } = formatOf(stem);
  const questionText = plainTextOf(body, format);
  if (questionText === '' && RECORDING.test(body)) return { outcome: 'audio', name };

  if (open < 0) {
    if (questionText === '') return { outcome: 'malformed', problem: 'has no text' };
    return { outcome: 'slide', name, slide: { kind: 'content', text: questionText }, changes: [] };
  }

  const tail = source.slice(close + 1);
  if (tail.trim() !== '') {
    const tailOpen = findUnescaped(tail, '{');
    const tailClose = findUnescaped(tail, '}');
    if (tailClose >= 0 && (tailOpen < 0 || tailClose < tailOpen)) {
      const offset = close + 1 + tailClose;
      return { outcome: 'malformed', problem: `has a closing } on line ${lineAt(offset)} with no { before it` };
    }
    return { outcome: 'unsupported', name, kind: 'a missing-word question (its text goes on after the answer block)' };
  }

  return readAnswerBlock(source.slice(open + 1, close), { number, name, text: questionText, format });
}

/** Markup or a link that is a recording: what is left of a question whose text was only that. */
const RECORDING = /<(audio|video|source)\b|\.(mp3|wav|ogg|oga|m4a|aac|flac|opus|mp4|webm)\b/i;

/** What the text before the answer block says about the question. */
interface Stem {
  number: number;
  name?: string;
  text: string;
  format: TextFormat;
}

function readAnswerBlock(block: string, stem: Stem): Reading {
  const { number, name, text } = stem;
  const generalFeedback = findUnescaped(block, '####');
  const answerText = (generalFeedback >= 0 ? block.slice(0, generalFeedback) : block).trim();

  // The same order of tests as Moodle's own GIFT import, so a block means what it means there.
  if (answerText.startsWith('#')) return { outcome: 'unsupported', name, kind: 'a numerical question' };
  const hasTilde = findUnescaped(answerText, '~') >= 0;
  const hasEquals = findUnescaped(answerText, '=') >= 0;
  if (!hasTilde && hasEquals && answerText.includes('->')) {
    return { outcome: 'unsupported', name, kind: 'a matching question' };
  }
  if (text === '') return { outcome: 'malformed', problem: 'has no question text before its answer block' };
  if (answerText === '') return { outcome: 'slide', name, slide: { kind: 'open_ended', text }, changes: [] };

  const truth = hasTilde ? undefined : trueOrFalse(answerText);
  if (truth === undefined && !hasTilde && !hasEquals) {
    return {
      outcome: 'malformed',
      problem: 'has an answer block that is neither true/false ({T} or {F}) nor answers starting with = or ~',
    };
  }
  if (truth !== undefined) {
    const slide: BankSlide = {
      kind: 'choice',
      text,
      options: [{ label: 'True' }, { label: 'False' }],
      correct: [truth ? 0 : 1],
      multiple: false,
    };
    return { outcome: 'slide', name, slide, changes: [] };
  }

  const split = answersOf(answerText, stem.format);
  if (split.leading !== '') {
    return { outcome: 'malformed', problem: 'has text in its answer block before the first = or ~' };
  }
  if (split.answers.some((answer) => answer.label === '')) {
    return { outcome: 'malformed', problem: 'has an answer with no text after its = or ~' };
  }
  if (!hasTilde) {
    const change: BankChange = {
      reason: 'answers_dropped',
      message: `Question ${number} became an open-ended slide, so its accepted answers (${listOf(split.answers.map((answer) => answer.label))}) were dropped.`,
    };
    return { outcome: 'slide', name, slide: { kind: 'open_ended', text }, changes: [change] };
  }
  return choiceOf(split.answers, stem);
}

function choiceOf(answers: readonly Answer[], { number, name, text }: Stem): Reading {
  const isCorrect = (answer: Answer) => (answer.weight === undefined ? answer.marker === '=' : answer.weight > 0);
  const correct = answers.flatMap((answer, index) => (isCorrect(answer) ? [index] : []));
  const changes: BankChange[] = [];
  if (answers.some((answer) => answer.weight !== undefined && answer.weight !== 0 && answer.weight !== 100)) {
    changes.push({
      reason: 'weights_simplified',
      message: `Question ${number} gave partial credit, and every option with a positive weight now counts as correct.`,
    });
  }
  // GIFT has no single/multiple flag. Moodle makes a question multiple-answer when no answer is
  // marked `=`; of those, only the ones whose credit is spread over several options are "select all
  // that apply" questions — a `~`-only question with no weights is a survey with one answer.
  const multiple = correct.length > 1 && answers.every((answer) => answer.marker === '~');
  const slide: BankSlide = {
    kind: 'choice',
    text,
    options: answers.map((answer) => ({ label: answer.label })),
    correct,
    multiple,
  };
  return { outcome: 'slide', name, slide, changes };
}

function listOf(labels: readonly string[]): string {
  const shown = 5;
  return labels.length > shown ? `${labels.slice(0, shown).join(', ')}, …` : labels.join(', ');
}

function trueOrFalse(answerText: string): boolean | undefined {
  const feedback = findUnescaped(answerText, '#');
  const word = (feedback >= 0 ? answerText.slice(0, feedback) : answerText).trim().toUpperCase();
  if (word === 'T' || word === 'TRUE') return true;
  if (word === 'F' || word === 'FALSE') return false;
  return undefined;
}

/** Splits `=a ~%50%b#feedback` at each unescaped `=` or `~`, as Moodle does. */
function answersOf(answerText: string, questionFormat: TextFormat): { leading: string; answers: Answer[] } {
  const pieces: { marker: '=' | '~'; raw: string }[] = [];
  let leading = '';
  let start = 0;
  let marker: '=' | '~' | undefined;
  const endPiece = (end: number) => {
    const raw = answerText.slice(start, end);
    if (marker === undefined) leading = raw.trim();
    else pieces.push({ marker, raw });
  };
  for (let index = 0; index < answerText.length; index++) {
    const char = answerText[index];
    if (char === '\\') {
      index++;
    } else if (char === '=' || char === '~') {
      endPiece(index);
      marker = char;
      start = index + 1;
    }
  }
  endPiece(answerText.length);

  const answers = pieces.map(({ marker, raw }): Answer => {
    let rest = raw.trimStart();
    let weight: number | undefined;
    const weighted = /^%(-?\d+(?:[.,]\d*)?)%/.exec(rest);
    if (weighted) {
      weight = Number(weighted[1]!.replace(',', '.'));
      rest = rest.slice(weighted[0].length);
    }
    const feedback = findUnescaped(rest, '#');
    const labelSource = feedback >= 0 ? rest.slice(0, feedback) : rest;
    const { format, body } = formatOf(labelSource, questionFormat);
    return { marker, weight, label: plainTextOf(body, format) };
  });
  return { leading, answers };
}

/** The `::Name::` at the start of a question, if any, and the text after it; undefined if unclosed. */
function nameAndStem(head: string): { name?: string; stem: string } | undefined {
  const text = head.trimStart();
  if (!text.startsWith('::')) return { stem: head };
  for (let index = 2; index < text.length; index++) {
    if (text[index] === '\\') {
      index++;
    } else if (text[index] === ':' && text[index + 1] === ':') {
      const name = collapseWhitespace(unescapeGift(text.slice(2, index)));
      return { name: name === '' ? undefined : name, stem: text.slice(index + 2) };
    }
  }
  return undefined;
}

function formatOf(text: string, inherited: TextFormat = 'moodle'): { format: TextFormat; body: string } {
  const tagged = /^\s*\[(moodle|html|plain|markdown)\]/i.exec(text);
  if (!tagged) return { format: inherited, body: text };
  return { format: tagged[1]!.toLowerCase() as TextFormat, body: text.slice(tagged[0].length) };
}

function plainTextOf(gift: string, format: TextFormat): string {
  const text = unescapeGift(gift);
  switch (format) {
    case 'html':
      return plainTextOfHtml(text);
    case 'markdown': {
      const html = plainTextOfMarkdown(text);
      return hasMarkup(html) ? plainTextOfHtml(html) : collapseWhitespace(html);
    }
    case 'plain':
      return collapseWhitespace(text);
    case 'moodle': {
      // Moodle's own format shows HTML as HTML, so markup in it is markup; but text that would vanish
      // whole (an answer `<b>` meant literally) is kept as written rather than emptied.
      const plain = hasMarkup(text) ? plainTextOfHtml(text) : collapseWhitespace(text);
      return plain === '' ? collapseWhitespace(text) : plain;
    }
  }
}

const GIFT_ESCAPES: Record<string, string> = {
  ':': ':',
  '=': '=',
  '~': '~',
  '#': '#',
  '{': '{',
  '}': '}',
  '\\': '\\',
  n: '\n',
};

function unescapeGift(text: string): string {
  return text.replace(/\\([:=~#{}\\n])/g, (_, char: string) => GIFT_ESCAPES[char]!);
}

/** The index of `needle` in `text` where it is not escaped by a backslash, or -1. */
function findUnescaped(text: string, needle: string, from = 0): number {
  let found = text.indexOf(needle, from);
  let backslash = text.indexOf('\\', from);
  while (found >= 0 && backslash >= 0 && backslash < found) {
    const afterEscape = backslash + 2;
    if (found < afterEscape) found = text.indexOf(needle, afterEscape);
    backslash = text.indexOf('\\', afterEscape);
  }
  return found;
}

function countNewlines(text: string, end: number): number {
  let count = 0;
  for (let index = text.indexOf('\n'); index >= 0 && index < end; index = text.indexOf('\n', index + 1)) count++;
  return count;
}
