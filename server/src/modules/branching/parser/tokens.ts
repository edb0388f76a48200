import { type BranchCondition, branchRefusalReasons, type Slide } from '@pollkit/contracts';
import { NUMBER_WORDS, ORDINALS } from './lexicon.js';

/**
 * Why an instruction is refused, most specific first: what skip logic cannot say (a backward jump,
 * a condition on free text, an AND across slides…), a reference to nothing in the poll, two readings
 * that differ, or words the parser does not read (`unreadable`). The API returns it as
 * `details.reason`; docs/branching.md lists each with its wording. The list is the contract's.
 */
export const REFUSAL_REASONS = branchRefusalReasons;
export type RefusalReason = (typeof REFUSAL_REASONS)[number];

export class InstructionError extends Error {
  constructor(
    /** The words that could not be read, as written. */
    readonly fragment: string,
    /** What was expected there, with an example. */
    readonly expected: string,
    /** The closest instruction the parser does read, when one is a small change away. */
    readonly suggestion?: string,
    /** What is wrong, as a code: see {@link REFUSAL_REASONS}. */
    readonly reason: RefusalReason = 'unreadable',
  ) {
    super(
      `Could not understand "${fragment}": expected ${expected}${suggestion ? `. Did you mean "${suggestion}"?` : ''}`,
    );
  }
}

type TokenKind = 'word' | 'number' | 'quoted' | 'symbol';
export interface Token {
  kind: TokenKind;
  /** Lower-cased for words; the digits for numbers; the inner text for quoted strings. */
  value: string;
  /** Offset in the instruction, for quoting the rest of the clause in errors. */
  start: number;
  /** Offset just past the token's text in the instruction. */
  end: number;
  /** A word as written, capitals and all ("Germany"), where it differs from `value`. */
  written?: string;
}

/**
 * A quoted text closes with the quote that opened it (straight or curly), and a single quote only
 * where no letter follows, so that "No, I'll use my own" stays one text. Then numbers, symbols and
 * words ("&" is a word: "People & Operations" is a label).
 */
const TOKEN =
  /\s*(?:["“]([^"”]*)["”]|['‘]((?:[^'’]|['’](?=\p{L}))*)['’](?!\p{L})|(-?\d+(?:\.\d+)?)(?![\p{L}\d])|(<=|>=|==|!=|=>|->|→|[<>=≤≥≠;,.:+()?!])|([\p{L}\p{N}_#&-]+(?:['’][\p{L}]+)?))/uy;

/** The text each token list was made from, for quoting the user's words as written. */
const SOURCES = new WeakMap<readonly Token[], string>();

/** The words of tokens [from, to) as the user wrote them; undefined for tokens not made by tokenize. */
export function writtenText(tokens: readonly Token[], from: number, to: number): string | undefined {
  const source = SOURCES.get(tokens);
  const first = tokens[from];
  const last = tokens[to - 1];
  return source !== undefined && first && last ? source.slice(first.start, last.end) : undefined;
}

export function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  SOURCES.set(tokens, text);
  TOKEN.lastIndex = 0;
  let position = 0;
  while (position < text.length) {
    TOKEN.lastIndex = position;
    const match = TOKEN.exec(text);
    if (!match) {
      if (/^\s*$/.test(text.slice(position))) break;
      const start = position + (text.slice(position).length - text.slice(position).trimStart().length);
      throw new InstructionError(clauseFrom(text, start), 'words, numbers and quoted text');
    }
    const start = match.index + match[0].length - match[0].trimStart().length;
    const end = TOKEN.lastIndex;
    const quoted = match[1] ?? match[2];
    if (quoted !== undefined) tokens.push({ kind: 'quoted', value: quoted, start, end });
    else if (match[3] !== undefined) tokens.push({ kind: 'number', value: match[3], start, end });
    else if (match[4] !== undefined)
      tokens.push({ kind: 'symbol', value: SYMBOLS.get(match[4]) ?? match[4], start, end });
    else if (match[5] !== undefined) splitWord(match[5], start, end, tokens);
    position = TOKEN.lastIndex;
  }
  return tokens;
}

/** Symbols written more than one way, as the parser reads them. */
const SYMBOLS = new Map([
  ['≤', '<='],
  ['≥', '>='],
  ['≠', '!='],
  ['==', '='],
  ['=>', '->'],
  ['→', '->'],
]);

/**
 * `Q2` → `q`, `2`; `didn't` → `did`, `not`; `#3` → `3`; `3rd` → the ordinal `third`; anything else
 * lower-cased.
 */
function splitWord(word: string, start: number, end: number, tokens: Token[]): void {
  let lower = word.toLowerCase().replace(/’/g, "'");
  // "Q1's answer": the possessive says nothing.
  if (lower.endsWith("'s")) lower = lower.slice(0, -2);
  const q = /^(q|#)(\d+)$/.exec(lower);
  if (q) {
    // "Q2" is "q" and the number; "#2" the hash and the number ("question #2", "ranked #1").
    tokens.push({ kind: 'word', value: q[1] as string, start, end: start + 1 });
    tokens.push({ kind: 'number', value: q[2] as string, start: start + 1, end });
    return;
  }
  const ordinal = /^(\d+)(?:st|nd|rd|th)$/.exec(lower);
  if (ordinal && ORDINALS[Number(ordinal[1]) - 1]) {
    tokens.push({ kind: 'word', value: ORDINALS[Number(ordinal[1]) - 1] as string, start, end });
    return;
  }
  const negated = /^(did|does|do|is|was|were|are|has|have|had|wo|ca|could|would|should|need)n't$/.exec(lower);
  if (negated) {
    const verb = negated[1] === 'wo' ? 'will' : negated[1] === 'ca' ? 'can' : (negated[1] as string);
    tokens.push({ kind: 'word', value: verb, start, end }, { kind: 'word', value: 'not', start, end });
    return;
  }
  tokens.push({ kind: 'word', value: lower, start, end, ...(lower === word ? {} : { written: word }) });
}

/** The instruction from `start` to the end of its clause (`;` or `.`), for an error message. */
function clauseFrom(text: string, start: number): string {
  const rest = text.slice(start);
  const end = rest.search(/[;.](\s|$)/);
  const clause = (end < 0 ? rest : rest.slice(0, end)).trim();
  return clause.length > 80 ? `${clause.slice(0, 77)}…` : clause;
}

export type Operator = BranchCondition['if']['operator'];
export type Action = BranchCondition['then'];
export interface Condition {
  slide: Slide;
  operator: Operator;
  value?: string | number | string[];
}

/** A position in an instruction's tokens, with the poll it is read against. */
export class Cursor {
  at = 0;
  readonly tokens: Token[];
  readonly text: string;
  readonly slides: readonly Slide[];
  /** Slides that ask something: what "question N" counts. */
  readonly questions: readonly Slide[];
  /** The slide the last condition tested: what "it" refers to ("If it is London…"). */
  lastSlide: Slide | undefined;

  constructor(
    text: string,
    slides: readonly Slide[],
    /** How "Q3" and "question 3" count: the slides that ask something, or every slide. */
    readonly numbering: 'questions' | 'slides' = 'questions',
  ) {
    this.text = text;
    this.tokens = tokenize(text);
    this.slides = slides;
    this.questions = slides.filter((slide) => slide.kind !== 'content');
  }

  peek(offset = 0): Token | undefined {
    return this.tokens[this.at + offset];
  }

  done(): boolean {
    return this.at >= this.tokens.length;
  }

  /** Consumes the words of `phrase` (space-separated) if they come next. */
  accept(phrase: string): boolean {
    const words = phrase.split(' ');
    for (const [index, word] of words.entries()) {
      const token = this.peek(index);
      if (!token || (token.kind !== 'word' && token.kind !== 'symbol') || token.value !== word) return false;
    }
    this.at += words.length;
    return true;
  }

  acceptAny(phrases: readonly string[]): string | undefined {
    // Longest first: "less than" before "less".
    for (const phrase of [...phrases].sort((a, b) => b.split(' ').length - a.split(' ').length)) {
      if (this.accept(phrase)) return phrase;
    }
    return undefined;
  }

  fail(expected: string, reason: RefusalReason = 'unreadable'): never {
    const token = this.peek();
    const fragment = token ? clauseFrom(this.text, token.start) : '(the end of the instruction)';
    throw new InstructionError(fragment, expected, undefined, reason);
  }

  number(): number | undefined {
    const token = this.peek();
    if (token?.kind === 'number' && /^\d+$/.test(token.value)) {
      this.at++;
      return Number(token.value);
    }
    if (token?.kind === 'word' && NUMBER_WORDS.includes(token.value)) {
      this.at++;
      return NUMBER_WORDS.indexOf(token.value) + 1;
    }
    return undefined;
  }

  /** The values of the next `count` word (or number) tokens, fewer if something else comes first. */
  wordsAhead(count: number): string[] {
    const words: string[] = [];
    for (let offset = 0; offset < count; offset++) {
      const token = this.peek(offset);
      if (!token || (token.kind !== 'word' && token.kind !== 'number')) break;
      words.push(token.value);
    }
    return words;
  }

  signedNumber(): number | undefined {
    const token = this.peek();
    if (token?.kind === 'number') {
      this.at++;
      return Number(token.value);
    }
    return this.number();
  }

  /** The instruction's words from token `from` up to (not including) token `to`, as written. */
  source(from: number, to: number): string {
    const first = this.tokens[from];
    const last = this.tokens[to - 1];
    if (!first || !last) return '';
    return this.text
      .slice(first.start, last.end)
      .replace(/[\s,;.]+$/, '')
      .trim();
  }
}

/** The conditions an instruction says, and for each the user's words it was read from. */
export interface ReadInstruction {
  conditions: BranchCondition[];
  /** `sources[i]`: the words of the instruction that `conditions[i]` was read from. */
  sources: string[];
}
