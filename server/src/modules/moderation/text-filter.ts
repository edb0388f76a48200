/**
 * The text filter's detection engine: finds vulgar words in audience text (open-ended answers, Q&A
 * questions, participant names) so the server can mask, refuse or hold them. Pure and synchronous;
 * every table is built once, at the first call; a scan allocates little beyond its result.
 *
 * How a text is read:
 *
 * 1. Characters. Each code point is folded on its own, through a cached table: look-alike letters
 *    from other scripts to the Latin letter they imitate (lexicon/confusables.ts, from Unicode's
 *    confusables.txt), NFKC (fullwidth, mathematical and circled letters, ligatures), lower case,
 *    accents stripped (NFD; ß → ss, æ → ae, œ → oe, ø → o, ł → l). ñ stays ñ but also reads as n, so
 *    "coño" can be told from "cono" while a term written with n matches either. Zero-width and other
 *    invisible format characters (U+200B–U+200D, U+2060, U+FEFF, soft hyphen…), combining marks and
 *    variation selectors are skipped. Inside a word, digits and symbols may stand for letters (0 o,
 *    1 i/l, 3 e, 4 a, 5 s, 6 g, 7 t, 8 b, 9 g, @ a, $ s, ! i/l, | l/i, € e, ¢ c), unless the word has
 *    more digits than letters ("a55", "1337"). One wildcard character repeated (`*`, `#`, `%` or `?`)
 *    stands for one letter each between letters, with at least three real letters and no more
 *    wildcards than letters: "f*ck", "a**hole" — but not "f***", which is what maskText writes.
 * 2. Words. A word is a run of letters, digits and those symbols (`! | * # % ?` at its ends are
 *    punctuation). Three or more single characters separated by one to three of space . - _ · / \ |
 *    + ~ : , are read as one word ("f u c k", "s.h.i.t", "m-e-r-d-e", "c_a_z_z_o"). When a whole
 *    word matches nothing, the parts of a CamelCase name (up to four, three letters or more) are
 *    tried, without digits at their ends ("BigDick69", "PutoAmo", "Schlampe99").
 * 3. Repeated letters. A word is compared as runs of one letter: a run of three or more matches the
 *    letter once or twice ("fuuuck", "caaazzo"); a run of two matches a single letter only for terms
 *    marked `loose` (distinctive stems: fuck, shit, cazzo…), once per word, since doubled letters are
 *    ordinary spelling ("bitte" is not "bite", "fodder" not "foder", "puttee" not "pute").
 * 4. Terms (lexicon/terms.ts, lexicon/ldnoobw.ts) match whole words: the term, or the term followed by
 *    one of its listed endings ("shit" + ty, "cazz" + ata). Terms marked to end a compound may be
 *    preceded by other letters ("bullshit", "Hundescheiße", "Arschficker"), terms marked to start one
 *    may be followed by anything ("Scheißtag", "Arschgeige"), a few distinctive ones both
 *    ("motherfucking"). Words that contain a term in any other way are never touched (Scunthorpe,
 *    assassin, cocktail, Dickens, Matsushita, cazzuola).
 * 5. Language-local terms: vulgar in one language, ordinary in another of the seven (French "con",
 *    "bite", "cul", "pute"; Spanish "puto", "verga"; Portuguese "porra", "cu"; English "ass", "dick";
 *    Italian "figa"; German "Hure"; Dutch compounds of "kut"). They apply when the text's own
 *    language — guessed from its function words when they tell it (lexicon/languages.ts), else the
 *    poll's `language` — is theirs, or when the word was typed with an evasion (a look-alike, digit,
 *    symbol, wildcard, invisible character, stretched letter or spaced-out letters: nobody writes
 *    "p0rra" for a truncheon).
 * 6. Phrases. A term of several words matches those words in a row, whatever separates them.
 * 7. Lists. A workspace's blocked terms add to the built-ins; its allowed terms (and a few built-in
 *    phrases such as "cul de sac") beat both on the exact same word or phrase: allowing "Dick"
 *    unflags "Dick", not "dickhead".
 */
import { CONFUSABLES } from './lexicon/confusables.js';
import { FUNCTION_WORDS } from './lexicon/languages.js';
import { LDNOOBW } from './lexicon/ldnoobw.js';
import { BUILTIN_ALLOWED, BUILTIN_GROUPS, CLEAN_SPELLINGS, CLEAN_WORDS, type LexiconGroup } from './lexicon/terms.js';

// ---------------------------------------------------------------------------------------------
// Public API

/** A compiled list of terms (a workspace's blocked or allowed terms). */
export interface TermList {
  /** How many terms were compiled (terms without a letter or digit are left out). */
  readonly size: number;
  /** @internal */
  readonly trie: Trie;
}

export interface ScanOptions {
  /** Terms to flag besides the built-in ones. */
  blocked?: TermList;
  /** Terms never flagged: they beat built-in and blocked terms on the exact same word or phrase. */
  allowed?: TermList;
  /**
   * The poll's language ("fr", "pt-BR"…): the language-local terms of that language apply when the
   * text's own language cannot be told from its words.
   */
  language?: string;
}

export interface TextSpan {
  /** UTF-16 offset of the flagged word's first character in the original text. */
  start: number;
  /** UTF-16 offset just past its last character (invisible characters inside included). */
  end: number;
}

export interface TextScan {
  flagged: boolean;
  /** The flagged words as typed (evasions included), in order, not overlapping. */
  spans: TextSpan[];
}

/**
 * Compiles a workspace's terms (each a word or phrase of 1–64 characters). A term matches whole words
 * with the same evasions as the built-in ones; a leading `*` lets it end a longer word ("*head"), a
 * trailing one start a longer word ("idiot*"). Terms with no letter or digit are left out.
 */
export function compileTermList(terms: readonly string[]): TermList {
  const t = getTables();
  const trie = newTrie();
  let size = 0;
  for (const raw of terms) {
    const term = raw.trim().slice(0, 64);
    if (term && addTerm(t, trie, term, { builtin: false })) size += 1;
  }
  return { size, trie };
}

/** Finds the vulgar words of a text. */
export function scanText(text: string, options: ScanOptions = {}): TextScan {
  const t = getTables();
  tokenize(t, text);
  if (S.words === 0) return { flagged: false, spans: [] };
  S.pollLanguage = languageOf(options.language);
  S.textLanguage = undefined;
  const hits: Hit[] = [];
  findHits(t.builtin, hits, 0, S.words);
  if (options.blocked && options.blocked.size > 0) findHits(options.blocked.trie, hits, 0, S.words);
  if (hits.length === 0) return { flagged: false, spans: [] };
  // Allowed terms and phrases matter only where they would cover a hit: starting at most their
  // longest phrase's length before it.
  const allowedHits: Hit[] = [];
  const allowed = options.allowed && options.allowed.size > 0 ? options.allowed.trie : undefined;
  for (const hit of hits) {
    findAllowed(t.builtinAllowed, allowedHits, hit);
    if (allowed) findAllowed(allowed, allowedHits, hit);
  }
  const spans: TextSpan[] = [];
  for (const hit of hits) {
    if (allowedHits.some((a) => a.start <= hit.start && a.end >= hit.end)) continue;
    spans.push({ start: hit.start, end: hit.end });
  }
  return { flagged: spans.length > 0, spans: spans.length > 1 ? mergeSpans(spans) : spans };
}

/**
 * Masks flagged words: the first letter of each stays, every other character of the word becomes `*`
 * (whitespace inside a spaced-out word stays; invisible characters and combining marks are dropped).
 */
export function maskText(text: string, spans: readonly TextSpan[]): string {
  if (spans.length === 0) return text;
  const t = getTables();
  let out = '';
  let at = 0;
  for (const span of mergeSpans([...spans])) {
    if (span.start < at || span.end > text.length || span.start >= span.end) continue;
    out += text.slice(at, span.start);
    let kept = false;
    for (let i = span.start; i < span.end; ) {
      const cp = text.codePointAt(i) as number;
      const width = cp > 0xffff ? 2 : 1;
      const fold = foldOf(t, cp);
      if (fold.kind === K.Ignore) {
        // dropped
      } else if (isWhitespace(cp)) {
        out += text.slice(i, i + width);
      } else if (!kept && fold.kind !== K.Sep) {
        out += text.slice(i, i + width);
        kept = true;
      } else {
        out += '*';
      }
      i += width;
    }
    at = span.end;
  }
  return out + text.slice(at);
}

/** scanText, then maskText. */
export function maskFlagged(text: string, options: ScanOptions = {}): { text: string; flagged: boolean } {
  const scan = scanText(text, options);
  return { text: scan.flagged ? maskText(text, scan.spans) : text, flagged: scan.flagged };
}

// ---------------------------------------------------------------------------------------------
// Letter candidates: what one folded letter of the text may be read as, as an id. A single code
// point is its own id; a set ("1il": the digit, i or l; "ñn") is interned above every code point.

const SET_BASE = 0x200000;
const NO_MATCH = -1;
const WILD = -2;
const setLetters: number[][] = [];
const setPrimary: number[] = [];
const setIds = new Map<string, number>();
/** ñ, read as ñ or n. */
const ENYE = intern('ñn');

function intern(letters: string): number {
  const cps = [...letters].map((c) => c.codePointAt(0) as number);
  if (cps.length === 1) return cps[0] as number;
  let id = setIds.get(letters);
  if (id === undefined) {
    id = SET_BASE + setLetters.length;
    setLetters.push(cps);
    // For keys: the first letter that is not a digit ("1il" → i).
    setPrimary.push(cps.find((c) => c < 0x30 || c > 0x39) ?? (cps[0] as number));
    setIds.set(letters, id);
  }
  return id;
}

/** The letters an id may be read as. */
function lettersOf(id: number): readonly number[] {
  return id >= SET_BASE ? (setLetters[id - SET_BASE] as number[]) : [id];
}

function primaryOf(id: number): number {
  return id >= SET_BASE ? (setPrimary[id - SET_BASE] as number) : id;
}

// ---------------------------------------------------------------------------------------------
// Characters

enum K {
  /** Separates words. */
  Sep = 0,
  Letter = 1,
  Digit = 2,
  /** A symbol that may stand for a letter inside a word (@ $ € ¢; ! and | only inside). */
  Sym = 3,
  /** A symbol that may stand for any one letter inside a word (* # % ?). */
  Wild = 4,
  /** Invisible: skipped. */
  Ignore = 5,
}

interface Fold {
  kind: K;
  /** One id per letter the character folds to. */
  ids: readonly number[];
  /** For a digit: the digit itself (read so in a word of more digits than letters). */
  literal: number;
  /** Punctuation at a word's edges (! | * # % ?). */
  weakEdge: boolean;
  /** A separator that may join spaced-out single letters. */
  joiner: boolean;
  /**
   * Written to dodge a filter rather than to spell: a look-alike from another script, a compatibility
   * form (fullwidth, mathematical), a digit or symbol for a letter, an invisible format character.
   */
  evasive: boolean;
  /** An upper-case letter. */
  cap: boolean;
}

function fold(kind: K, ids: readonly number[], extra: Partial<Fold> = {}): Fold {
  return { kind, ids, literal: 0, weakEdge: false, joiner: false, evasive: false, cap: false, ...extra };
}

const SEP = fold(K.Sep, []);
const JOINER = fold(K.Sep, [], { joiner: true });
/** Combining marks: a decomposed accent is ordinary spelling. */
const MARK = fold(K.Ignore, []);
/** Zero-width and other invisible format characters. */
const HIDDEN = fold(K.Ignore, [], { evasive: true });

/** Digits read as letters inside words: the digit itself first, then the letters. */
const LEET: Record<string, string> = {
  '0': '0o',
  '1': '1il',
  '2': '2',
  '3': '3e',
  '4': '4a',
  '5': '5s',
  '6': '6g',
  '7': '7t',
  '8': '8b',
  '9': '9g',
};
/** Symbols read as letters inside words; `true`: punctuation at a word's edges. */
const LEET_SYMBOLS: Record<string, [string, boolean]> = {
  '@': ['a', false],
  $: ['s', false],
  '!': ['il', true],
  '|': ['li', true],
  '€': ['e', false],
  '¢': ['c', false],
};
const WILDCARDS = '*#%?';
const JOINERS = ' .-_·/\\+~:,\u2013\u2014\u2022';
/** Letters NFD does not take apart. */
const SPECIAL_LETTERS: Record<string, string> = {
  ß: 'ss',
  ẞ: 'ss',
  æ: 'ae',
  œ: 'oe',
  ø: 'o',
  ł: 'l',
  đ: 'd',
  ð: 'd',
  þ: 'th',
  ı: 'i',
  ħ: 'h',
  ŀ: 'l',
};

interface Tables {
  ascii: Fold[];
  /** Folds of code points below DENSE (Latin, Greek, Cyrillic, punctuation…), filled as met. */
  dense: (Fold | undefined)[];
  /** Folds of the others, as met. */
  cache: Map<number, Fold>;
  confusables: Map<number, string>;
  builtin: Trie;
  builtinAllowed: Trie;
  clean: Set<string>;
  cleanSpellings: Set<string>;
  /** The folded keys of cleanSpellings: the exact spelling is compared only for those. */
  cleanSpellingKeys: Set<string>;
}

let tables: Tables | undefined;

function getTables(): Tables {
  if (tables) return tables;
  const t: Tables = {
    ascii: [],
    dense: new Array(DENSE).fill(undefined),
    cache: new Map(),
    confusables: new Map(CONFUSABLES),
    builtin: newTrie(),
    builtinAllowed: newTrie(),
    clean: new Set(),
    cleanSpellings: new Set(CLEAN_SPELLINGS.map((w) => w.normalize('NFC'))),
    cleanSpellingKeys: new Set(),
  };
  for (let cp = 0; cp < 128; cp++) t.ascii.push(computeFold(t, cp));
  tables = t;
  for (const word of CLEAN_WORDS) t.clean.add(foldKey(t, word));
  for (const word of CLEAN_SPELLINGS) t.cleanSpellingKeys.add(foldKey(t, word));
  for (const group of BUILTIN_GROUPS) addGroup(t, t.builtin, group);
  for (const { always, local } of Object.values(LDNOOBW)) {
    addGroup(t, t.builtin, { terms: always });
    for (const [term, langs] of local) addGroup(t, t.builtin, { terms: [term], lang: langs });
  }
  for (const term of BUILTIN_ALLOWED) addTerm(t, t.builtinAllowed, term, { builtin: false });
  return t;
}

function addGroup(t: Tables, trie: Trie, group: LexiconGroup): void {
  const except = group.except
    ? new Set(group.except.map((w) => foldKey(t, w) + (w.endsWith('*') ? '*' : '')))
    : undefined;
  for (const term of group.terms) {
    addTerm(t, trie, term, { builtin: true, langs: group.lang, loose: group.loose, except, names: group.names });
  }
}

const DENSE = 0x3000;

function foldOf(t: Tables, cp: number): Fold {
  if (cp < 128) return t.ascii[cp] as Fold;
  if (cp < DENSE) {
    let f = t.dense[cp];
    if (!f) {
      f = computeFold(t, cp);
      t.dense[cp] = f;
    }
    return f;
  }
  let f = t.cache.get(cp);
  if (!f) {
    f = computeFold(t, cp);
    if (t.cache.size > 20_000) t.cache.clear(); // bounded: hostile text may use every code point
    t.cache.set(cp, f);
  }
  return f;
}

const FORMAT = /^[\p{Cf}\u115f\u1160\u3164\uffa0]$/u;
const COMBINING = /^[\p{Mn}\p{Me}]$/u;
const LETTER = /^\p{L}$/u;
const NUMBER = /^\p{N}$/u;
const MARKS = /[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]/g;

function computeFold(t: Tables, cp: number): Fold {
  const ch = String.fromCodePoint(cp);
  if (cp < 128) {
    if (cp >= 0x61 && cp <= 0x7a) return fold(K.Letter, [cp]);
    if (cp >= 0x41 && cp <= 0x5a) return fold(K.Letter, [cp + 32], { cap: true });
    const leet = LEET[ch];
    if (leet) return fold(K.Digit, [intern(leet)], { literal: cp, evasive: true });
    const symbol = LEET_SYMBOLS[ch];
    if (symbol) return fold(K.Sym, [intern(symbol[0])], { weakEdge: symbol[1], evasive: true });
    if (WILDCARDS.includes(ch)) return fold(K.Wild, [WILD], { weakEdge: true, evasive: true });
    if (cp === 0x09 || cp === 0x0a || cp === 0x0d) return JOINER;
    if (cp < 0x20 || cp === 0x7f) return HIDDEN;
    return JOINERS.includes(ch) ? JOINER : SEP;
  }
  if (FORMAT.test(ch) || cp === 0x34f || (cp >= 0xfe00 && cp <= 0xfe0f) || (cp >= 0xe0100 && cp <= 0xe01ef)) {
    return HIDDEN; // format characters, the combining grapheme joiner, variation selectors
  }
  if (COMBINING.test(ch)) return MARK;
  const symbol = LEET_SYMBOLS[ch];
  if (symbol) return fold(K.Sym, [intern(symbol[0])], { evasive: true });
  const lower = ch.toLowerCase();
  const cap = lower !== ch;
  const special = SPECIAL_LETTERS[lower];
  if (special) return fold(K.Letter, [...special].map(intern), { cap });
  // A look-alike: the original first (Greek capital Η is H, small η is n), then its lower case.
  const lookAlike = t.confusables.get(cp) ?? t.confusables.get(lower.codePointAt(0) as number);
  if (lookAlike) return fold(K.Letter, [intern(lookAlike)], { cap, evasive: true });
  // Compatibility forms (fullwidth, mathematical, circled letters, ligatures): fold what they become.
  const nfkc = ch.normalize('NFKC');
  if (nfkc !== ch) {
    const ids: number[] = [];
    let kind = K.Letter;
    let literal = 0;
    for (const part of nfkc) {
      const f = foldOf(t, part.codePointAt(0) as number);
      if (f.kind === K.Ignore) continue;
      if (f.kind === K.Sep || f.kind === K.Wild) return isWhitespace(cp) ? JOINER : SEP;
      if (f.kind !== K.Letter) {
        kind = f.kind;
        literal = f.literal;
      }
      ids.push(...f.ids);
    }
    if (ids.length === 0) return MARK;
    return fold(kind, ids, { literal, evasive: true, cap: cap || nfkc !== nfkc.toLowerCase() });
  }
  if (LETTER.test(ch)) {
    if (lower === 'ñ') return fold(K.Letter, [intern('ñn')], { cap });
    const base = lower.normalize('NFD').replace(MARKS, '');
    if (/^[a-z]+$/.test(base)) return fold(K.Letter, [...base].map(intern), { cap });
    return fold(K.Letter, [lower.codePointAt(0) as number], { cap });
  }
  if (NUMBER.test(ch)) return fold(K.Letter, [cp]);
  return isWhitespace(cp) ? JOINER : SEP;
}

function isWhitespace(cp: number): boolean {
  return (
    cp === 0x20 ||
    (cp >= 0x09 && cp <= 0x0d) ||
    cp === 0xa0 ||
    cp === 0x1680 ||
    (cp >= 0x2000 && cp <= 0x200a) ||
    cp === 0x2028 ||
    cp === 0x2029 ||
    cp === 0x202f ||
    cp === 0x205f ||
    cp === 0x3000
  );
}

// ---------------------------------------------------------------------------------------------
// The scan's state: the text's letters ("units") and words, in buffers reused from scan to scan
// (a scan is synchronous, so one set serves every call).

const F_CAP = 1;
const F_ODD = 2;
/** An invisible format character came right before this unit, inside the word. */
const F_HIDDEN = 4;

const W_EVADED = 1;
/** Written with a capital then small letters ("Dick"), as a name would be. */
const W_TITLE = 2;
/** Has a CamelCase boundary or digits at an end: may have parts. */
const W_PARTS = 4;

interface State {
  text: string;
  // Units: one per folded letter.
  id: Int32Array;
  kind: Uint8Array;
  flags: Uint8Array;
  start: Int32Array;
  end: Int32Array;
  units: number;
  // Words: a range of units, and of the text.
  wFrom: Int32Array;
  wTo: Int32Array;
  wStart: Int32Array;
  wEnd: Int32Array;
  wFlags: Uint8Array;
  /** Code points kept (1: a single character, which may join its neighbours). */
  wChars: Int32Array;
  /** Separator characters before the word, if only joiners (-1: something else, or the first word). */
  wGap: Int32Array;
  words: number;
  pollLanguage: string | undefined;
  /** The text's own language as its function words tell it (null: they do not; undefined: not asked). */
  textLanguage: string | null | undefined;
  /** The word left out of that guess (the one being judged: "con" is also a Spanish function word). */
  textLanguageWithout: number;
  // Runs of the word (or part) being matched: letter id and count.
  /**
   * Runs of one letter (letter id and count), word after word as matching first needs them; each
   * word's are built once per scan and serve every list. A part's go after them, built each time.
   */
  rId: Int32Array;
  rN: Int32Array;
  /** The end of the runs being matched (the current word's or part's; absolute index). */
  runs: number;
  /** Where the next runs are built. */
  runTop: number;
  /** Each word's runs [wRunFrom, wRunTo) (-1: not built yet). */
  wRunFrom: Int32Array;
  wRunTo: Int32Array;
}

const S: State = {
  text: '',
  id: new Int32Array(512),
  kind: new Uint8Array(512),
  flags: new Uint8Array(512),
  start: new Int32Array(512),
  end: new Int32Array(512),
  units: 0,
  wFrom: new Int32Array(128),
  wTo: new Int32Array(128),
  wStart: new Int32Array(128),
  wEnd: new Int32Array(128),
  wFlags: new Uint8Array(128),
  wChars: new Int32Array(128),
  wGap: new Int32Array(128),
  words: 0,
  pollLanguage: undefined,
  textLanguage: undefined,
  textLanguageWithout: -1,
  rId: new Int32Array(512),
  rN: new Int32Array(512),
  runs: 0,
  runTop: 0,
  wRunFrom: new Int32Array(128),
  wRunTo: new Int32Array(128),
};

function grow<T extends Int32Array | Uint8Array>(a: T, size: number): T {
  if (a.length >= size) return a;
  const b = new (a.constructor as new (n: number) => T)(Math.max(size, a.length * 2));
  b.set(a);
  return b;
}

function ensureUnits(n: number): void {
  if (S.id.length >= n) return;
  S.id = grow(S.id, n);
  S.kind = grow(S.kind, n);
  S.flags = grow(S.flags, n);
  S.start = grow(S.start, n);
  S.end = grow(S.end, n);
}

function ensureWords(n: number): void {
  if (S.wFrom.length >= n) return;
  S.wFrom = grow(S.wFrom, n);
  S.wTo = grow(S.wTo, n);
  S.wStart = grow(S.wStart, n);
  S.wEnd = grow(S.wEnd, n);
  S.wFlags = grow(S.wFlags, n);
  S.wChars = grow(S.wChars, n);
  S.wGap = grow(S.wGap, n);
  S.wRunFrom = grow(S.wRunFrom, n);
  S.wRunTo = grow(S.wRunTo, n);
}

function ensureRuns(n: number): void {
  if (S.rId.length >= n) return;
  S.rId = grow(S.rId, n);
  S.rN = grow(S.rN, n);
}

/** ASCII characters the tokenizer handles without a Fold: letters, and separators. */
const FAST_LOWER = 1;
const FAST_UPPER = 2;
const FAST_JOINER = 3;
const FAST_SEP = 4;
let fastAscii: Uint8Array | undefined;

function fastTable(t: Tables): Uint8Array {
  const fast = new Uint8Array(128);
  for (let cp = 0; cp < 128; cp++) {
    const f = t.ascii[cp] as Fold;
    if (f.kind === K.Letter) fast[cp] = f.cap ? FAST_UPPER : FAST_LOWER;
    else if (f.kind === K.Sep) fast[cp] = f.joiner ? FAST_JOINER : FAST_SEP;
  }
  return fast;
}

/** Reads a text into units and words (S). */
function tokenize(t: Tables, text: string): void {
  // Buffers grown by a huge text are given back on the next ordinary one.
  if (S.id.length > 1 << 20 && text.length < 1 << 16) {
    S.id = new Int32Array(512);
    S.kind = new Uint8Array(512);
    S.flags = new Uint8Array(512);
    S.start = new Int32Array(512);
    S.end = new Int32Array(512);
    S.rId = new Int32Array(512);
    S.rN = new Int32Array(512);
  }
  if (S.wFrom.length > 1 << 18 && text.length < 1 << 16) {
    S.wFrom = new Int32Array(128);
    S.wTo = new Int32Array(128);
    S.wStart = new Int32Array(128);
    S.wEnd = new Int32Array(128);
    S.wFlags = new Uint8Array(128);
    S.wChars = new Int32Array(128);
    S.wGap = new Int32Array(128);
    S.wRunFrom = new Int32Array(128);
    S.wRunTo = new Int32Array(128);
  }
  S.text = text;
  S.runTop = 0;
  S.words = 0;
  fastAscii ??= fastTable(t);
  const fast = fastAscii;
  let units = 0;
  let ids = S.id;
  let kinds = S.kind;
  let flagsOf = S.flags;
  let starts = S.start;
  let ends = S.end;
  let tokenFrom = -1; // first unit of the current token
  let tokenEnd = 0;
  let hidden = false;
  let gap = -1; // joiners since the last token (-1: none yet, or another separator came)
  // While a token has only ASCII letters, what endToken needs is counted here.
  let plain = true;
  let camel = false;
  let stretched = false;
  const length = text.length;
  for (let i = 0; i < length; ) {
    let cp = text.charCodeAt(i);
    if (cp < 128) {
      const quick = fast[cp] as number;
      if (quick === FAST_LOWER || quick === FAST_UPPER) {
        const id = quick === FAST_LOWER ? cp : cp + 32;
        if (tokenFrom < 0) {
          tokenFrom = units;
          plain = true;
          camel = false;
          stretched = false;
        } else if (plain) {
          if (quick === FAST_UPPER && ((flagsOf[units - 1] as number) & F_CAP) === 0) camel = true;
          if (units - tokenFrom >= 2 && ids[units - 1] === id && ids[units - 2] === id) stretched = true;
        }
        if (units >= ids.length) {
          ensureUnits(units + 1);
          ids = S.id;
          kinds = S.kind;
          flagsOf = S.flags;
          starts = S.start;
          ends = S.end;
        }
        ids[units] = id;
        kinds[units] = K.Letter;
        flagsOf[units] = (quick === FAST_UPPER ? F_CAP : 0) | (hidden ? F_HIDDEN : 0);
        hidden = false;
        starts[units] = i;
        ends[units] = i + 1;
        units++;
        tokenEnd = ++i;
        continue;
      }
      if (quick !== 0) {
        if (tokenFrom >= 0) {
          S.units = units;
          if (plain && !hidden) endPlainToken(tokenFrom, gap, camel, stretched);
          else endToken(tokenFrom, tokenEnd, gap);
          units = S.units;
          tokenFrom = -1;
          gap = 0;
        }
        if (gap >= 0) gap = quick === FAST_JOINER ? gap + 1 : -1;
        i++;
        continue;
      }
    }
    let width = 1;
    if (cp >= 0xd800 && cp <= 0xdbff && i + 1 < length) {
      cp = text.codePointAt(i) as number;
      if (cp > 0xffff) width = 2;
    }
    const f = cp < 128 ? (t.ascii[cp] as Fold) : foldOf(t, cp);
    const kind = f.kind;
    if (kind === K.Ignore) {
      if (tokenFrom >= 0) {
        tokenEnd = i + width;
        plain = false;
        if (f.evasive) hidden = true;
      }
    } else if (kind === K.Sep) {
      if (tokenFrom >= 0) {
        S.units = units;
        if (plain && !hidden) endPlainToken(tokenFrom, gap, camel, stretched);
        else endToken(tokenFrom, tokenEnd, gap);
        units = S.units;
        tokenFrom = -1;
        gap = 0;
      }
      if (gap >= 0) gap = f.joiner ? gap + 1 : -1;
    } else {
      if (tokenFrom < 0) tokenFrom = units;
      plain = false;
      tokenEnd = i + width;
      const folded = f.ids;
      if (units + folded.length > ids.length) {
        ensureUnits(units + folded.length);
        ids = S.id;
        kinds = S.kind;
        flagsOf = S.flags;
        starts = S.start;
        ends = S.end;
      }
      const kindCode = f.weakEdge ? (kind === K.Wild ? K.Wild : K.Sep) : kind;
      const flags = (f.cap ? F_CAP : 0) | (f.evasive ? F_ODD : 0) | (hidden ? F_HIDDEN : 0);
      hidden = false;
      for (let k = 0; k < folded.length; k++) {
        ids[units] = folded[k] as number;
        kinds[units] = kindCode;
        flagsOf[units] = flags;
        starts[units] = i;
        ends[units] = tokenEnd;
        units++;
      }
    }
    i += width;
  }
  S.units = units;
  if (tokenFrom >= 0) {
    if (plain && !hidden) endPlainToken(tokenFrom, gap, camel, stretched);
    else endToken(tokenFrom, tokenEnd, gap);
  }
  joinSingles(t);
}

/** endToken for a token of ASCII letters only, from what tokenize counted. */
function endPlainToken(from: number, gap: number, camel: boolean, stretched: boolean): void {
  const to = S.units;
  const n = to - from;
  const w = S.words++;
  if (w >= S.wFrom.length) ensureWords(w + 1);
  S.wFrom[w] = from;
  S.wTo[w] = to;
  S.wStart[w] = S.start[from] as number;
  S.wEnd[w] = S.end[to - 1] as number;
  S.wChars[w] = n;
  S.wGap[w] = w > 0 ? gap : -1;
  let flags = stretched ? W_EVADED : 0;
  if (((S.flags[from] as number) & F_CAP) !== 0 && (n === 1 || ((S.flags[from + 1] as number) & F_CAP) === 0)) {
    flags |= W_TITLE;
  }
  if (camel && n >= 3) flags |= W_PARTS;
  S.wFlags[w] = flags;
}

/** Trims punctuation off a token's ends, decides how its digits and wildcards read, records a word. */
function endToken(from: number, tokenEnd: number, gap: number): void {
  const to = S.units;
  const ids = S.id;
  const kinds = S.kind;
  const flagsOf = S.flags;
  const starts = S.start;
  let a = from;
  let b = to;
  while (a < b && (kinds[a] === K.Sep || kinds[a] === K.Wild)) a++;
  while (b > a && (kinds[b - 1] === K.Sep || kinds[b - 1] === K.Wild)) b--;
  if (a >= b) {
    S.units = from; // punctuation only
    return;
  }
  let letters = 0;
  let digits = 0;
  let wild = 0;
  let odd = false;
  let chars = 0;
  let firstLetter = b;
  let lastLetter = -1;
  let camel = false;
  let evaded = false;
  for (let u = a; u < b; u++) {
    const kind = kinds[u] as number;
    const flags = flagsOf[u] as number;
    if (kind === K.Letter) {
      letters++;
      if (firstLetter === b) firstLetter = u;
      lastLetter = u;
      // A letter three times in a row: stretched.
      if (u >= a + 2 && ids[u] === ids[u - 1] && ids[u] === ids[u - 2]) evaded = true;
    } else if (kind === K.Digit) {
      digits++;
    } else if (kind === K.Wild) {
      wild++;
    }
    if (flags !== 0) {
      if ((flags & F_ODD) !== 0) odd = true;
      if ((flags & F_HIDDEN) !== 0 && u > a) evaded = true; // an invisible character inside
      if ((flags & F_CAP) !== 0 && u > a && ((flagsOf[u - 1] as number) & F_CAP) === 0) {
        const before = kinds[u - 1];
        if (before === K.Letter || before === K.Digit) camel = true;
      }
    }
    if (u === a || starts[u] !== starts[u - 1]) chars++;
  }
  const literalDigits = digits > letters;
  if (odd || wild > 0) {
    let wildOk = wild > 0 && wild <= letters && letters >= 3;
    let wildChar = -1;
    for (let u = a; u < b; u++) {
      const kind = kinds[u] as number;
      if (kind === K.Digit) {
        if (literalDigits) {
          // "a55", "2024": digits read as digits.
          ids[u] = lettersOf(ids[u] as number)[0] as number;
          flagsOf[u] = (flagsOf[u] as number) & ~F_ODD;
        } else if (u > firstLetter && u < lastLetter) {
          evaded = true; // a digit between letters ("sh1t"), not at the ends ("Schlampe99")
        }
      } else if (kind === K.Wild) {
        // One wildcard character, each between letters (or more wildcards).
        const ch = S.text.charCodeAt(starts[u] as number);
        if (wildChar < 0) wildChar = ch;
        if (ch !== wildChar || !isLetterLike(u - 1) || !isLetterLike(u + 1, b)) wildOk = false;
      } else if (((flagsOf[u] as number) & F_ODD) !== 0) {
        evaded = true;
      }
    }
    if (wild > 0) {
      if (wildOk) evaded = true;
      for (let u = a; u < b; u++) if (kinds[u] === K.Wild) ids[u] = wildOk ? WILD : NO_MATCH;
    }
  }
  // Drop the trimmed units: shift the word's units to start at `from`.
  if (a > from) {
    ids.copyWithin(from, a, b);
    kinds.copyWithin(from, a, b);
    flagsOf.copyWithin(from, a, b);
    starts.copyWithin(from, a, b);
    S.end.copyWithin(from, a, b);
  }
  const n = b - a;
  S.units = from + n;
  const w = S.words++;
  if (w >= S.wFrom.length) ensureWords(w + 1);
  S.wFrom[w] = from;
  S.wTo[w] = from + n;
  S.wStart[w] = starts[from] as number;
  // Invisible characters after the last kept unit belong to the word.
  S.wEnd[w] = b === to ? tokenEnd : (S.end[from + n - 1] as number);
  S.wChars[w] = chars;
  S.wGap[w] = w > 0 ? gap : -1;
  let flags = evaded ? W_EVADED : 0;
  const first = flagsOf[from] as number;
  if ((first & F_CAP) !== 0 && kinds[from] === K.Letter && (n === 1 || ((flagsOf[from + 1] as number) & F_CAP) === 0)) {
    flags |= W_TITLE;
  }
  const edgeDigits = digits > 0 && (kinds[from] === K.Digit || kinds[from + n - 1] === K.Digit);
  if (letters >= 3 && (camel || (edgeDigits && !literalDigits))) flags |= W_PARTS;
  S.wFlags[w] = flags;
}

function isLetterLike(u: number, limit = Number.MAX_SAFE_INTEGER): boolean {
  if (u < 0 || u >= limit || u >= S.units) return false;
  const kind = S.kind[u];
  return kind === K.Letter || kind === K.Digit || kind === K.Sym || kind === K.Wild;
}

/** Three or more single characters separated by one to three joiners become one word ("f u c k"). */
function joinSingles(t: Tables): void {
  let out = 0;
  for (let w = 0; w < S.words; ) {
    let end = w;
    if (S.wChars[w] === 1) {
      while (
        end + 1 < S.words &&
        S.wChars[end + 1] === 1 &&
        (S.wGap[end + 1] as number) >= 1 &&
        (S.wGap[end + 1] as number) <= 3
      ) {
        end++;
      }
    }
    if (end - w >= 2) {
      // The singles' units are adjacent in the buffers already (separators make no units). A lone
      // digit was read as a digit; in the joined word it may stand for a letter ("s h 1 t").
      const from = S.wFrom[w] as number;
      const to = S.wTo[end] as number;
      let letters = 0;
      let digits = 0;
      for (let u = from; u < to; u++) {
        if (S.kind[u] === K.Letter) letters++;
        else if (S.kind[u] === K.Digit) digits++;
      }
      if (digits > 0 && digits <= letters) {
        for (let u = from; u < to; u++) {
          if (S.kind[u] === K.Digit) S.id[u] = foldOf(t, S.text.charCodeAt(S.start[u] as number)).ids[0] as number;
        }
      }
      copyWord(w, out);
      S.wTo[out] = S.wTo[end] as number;
      S.wEnd[out] = S.wEnd[end] as number;
      S.wChars[out] = end - w + 1;
      S.wFlags[out] = W_EVADED;
      out++;
      w = end + 1;
    } else {
      if (out !== w) copyWord(w, out);
      out++;
      w++;
    }
  }
  S.words = out;
  S.wRunFrom.fill(-1, 0, out);
}

function copyWord(from: number, to: number): void {
  S.wFrom[to] = S.wFrom[from] as number;
  S.wTo[to] = S.wTo[from] as number;
  S.wStart[to] = S.wStart[from] as number;
  S.wEnd[to] = S.wEnd[from] as number;
  S.wFlags[to] = S.wFlags[from] as number;
  S.wChars[to] = S.wChars[from] as number;
  S.wGap[to] = S.wGap[from] as number;
}

/** A range of units as a key: each read the first way ("sh1t" → "shit"). */
function keyOf(from: number, to: number): string {
  let key = '';
  for (let u = from; u < to; u++) {
    const id = S.id[u] as number;
    key += id < 0 ? '*' : String.fromCodePoint(primaryOf(id));
  }
  return key;
}

/** A term's or exception's folded spelling, keyed as a word of the text would be. */
function foldKey(t: Tables, word: string): string {
  let key = '';
  for (const ch of word) {
    const f = foldOf(t, ch.codePointAt(0) as number);
    if (f.kind === K.Letter || f.kind === K.Digit || f.kind === K.Sym) {
      for (const id of f.ids) key += String.fromCodePoint(f.kind === K.Digit ? f.literal : primaryOf(id));
    }
  }
  return key;
}

// ---------------------------------------------------------------------------------------------
// Terms and the trie

interface Pattern {
  /** Letter code and run length of each run. */
  ids: number[];
  counts: number[];
}

interface Entry {
  /** May be preceded by other letters of the same word (a compound's tail). */
  left: boolean;
  /** May be followed by anything (a compound's lead). */
  right: boolean;
  /** The term alone is a word. */
  bare: boolean;
  /** Endings that may follow. */
  suffixes: Pattern[];
  /** The following words of a phrase. */
  rest?: Pattern[];
  langs?: readonly string[];
  loose: boolean;
  except?: Set<string>;
  /** Not when written as part of a name ("Dick Smith"). */
  names: boolean;
  builtin: boolean;
}

interface TrieNode {
  /** Key: letter code × 4 + run length (1–3). */
  kids?: Map<number, TrieNode>;
  /** The same as arrays, for a node of few kids (a short scan beats a map). */
  keys?: number[];
  nodes?: TrieNode[];
  entries?: Entry[];
}

const SMALL_NODE = 6;

function childOf(node: TrieNode, key: number): TrieNode | undefined {
  const keys = node.keys;
  if (keys) {
    for (let k = 0; k < keys.length; k++) if (keys[k] === key) return (node.nodes as TrieNode[])[k];
    return undefined;
  }
  return node.kids?.get(key);
}

/** Two roots: every term for matches at a word's start; only compound tails for matches inside. */
interface Trie {
  start: TrieNode;
  inner: TrieNode;
  /** The first letters, and first two letters, of each root's terms: a quick test before a walk. */
  startFirst: Prefixes;
  innerFirst: Prefixes;
  /** The most words a term has (1 without phrases). */
  maxWords: number;
}

interface Prefixes {
  /** Letter codes that begin a term. */
  one: Set<number>;
  /** Pairs (first × PAIR + second letter) that begin a term of two runs or more. */
  two: Set<number>;
  /** Letters that are a whole term's only run ("x", "aaa"). */
  alone: Set<number>;
  /** The same for ASCII letters, as bitmaps (allocated with the first term): one per letter… */
  oneAscii?: Uint8Array;
  /** …letters that are a whole term… */
  aloneAscii?: Uint8Array;
  /** …one bit per pair of ASCII letters that begins a term… */
  twoAscii?: Uint8Array;
  /** …pairs that are a whole term (two runs)… */
  twoEndAscii?: Uint8Array;
  /** …and triples of a–z that begin a term. */
  threeAscii?: Uint8Array;
}

const PAIR = 0x110000;

function newTrie(): Trie {
  const prefixes = (): Prefixes => ({ one: new Set(), two: new Set(), alone: new Set() });
  return { start: {}, inner: {}, startFirst: prefixes(), innerFirst: prefixes(), maxWords: 1 };
}

function setBit(bits: Uint8Array, bit: number): void {
  bits[bit >> 3] = (bits[bit >> 3] as number) | (1 << (bit & 7));
}

function hasBit(bits: Uint8Array, bit: number): boolean {
  return ((bits[bit >> 3] as number) & (1 << (bit & 7))) !== 0;
}

function isAz(id: number): boolean {
  return id >= 0x61 && id <= 0x7a;
}

/**
 * Records how a term begins. Only the built-in trie gets the pair and triple bitmaps (6 KB); a
 * workspace's list, of which thousands may be cached, gets the 128-byte letter map and Sets.
 */
function addPrefix(first: Prefixes, pattern: Pattern, builtin: boolean): void {
  const a = pattern.ids[0] as number;
  const b = pattern.ids[1];
  const c = pattern.ids[2];
  first.one.add(a);
  first.oneAscii ??= new Uint8Array(128);
  first.aloneAscii ??= new Uint8Array(128);
  if (a < 128) first.oneAscii[a] = 1;
  if (b === undefined) {
    first.alone.add(a);
    if (a < 128) first.aloneAscii[a] = 1;
    return;
  }
  first.two.add(a * PAIR + b);
  if (!builtin || a >= 128 || b >= 128) return;
  first.twoAscii ??= new Uint8Array(2048);
  first.twoEndAscii ??= new Uint8Array(2048);
  first.threeAscii ??= new Uint8Array(2197);
  setBit(first.twoAscii, a * 128 + b);
  if (c === undefined) setBit(first.twoEndAscii, a * 128 + b);
  else if (isAz(a) && isAz(b) && isAz(c)) setBit(first.threeAscii, (a - 0x61) * 676 + (b - 0x61) * 26 + (c - 0x61));
  else setBit(first.twoEndAscii, a * 128 + b); // a third letter beyond a–z: walk every word with the pair
}

/** A folded word as runs of one letter ("scheiße" → s c h e i s×2 e). */
function patternOf(t: Tables, text: string): Pattern {
  const ids: number[] = [];
  const counts: number[] = [];
  for (const ch of text) {
    const f = foldOf(t, ch.codePointAt(0) as number);
    if (f.kind !== K.Letter && f.kind !== K.Digit && f.kind !== K.Sym) continue;
    for (const id of f.ids) {
      // A term's letter is read one way: a digit as itself, a symbol as its letter, ñ as ñ.
      const letter = f.kind === K.Digit ? f.literal : (lettersOf(id)[0] as number);
      if (ids.length > 0 && ids[ids.length - 1] === letter) counts[counts.length - 1] = (counts.at(-1) as number) + 1;
      else {
        ids.push(letter);
        counts.push(1);
      }
    }
  }
  return { ids, counts };
}

/**
 * Parses `[*]stem[(ending|ending|…)][*]` (built-in) or `[*]word[*]`, or a phrase of words, and
 * inserts it. Returns false for a term with no letter or digit.
 */
function addTerm(
  t: Tables,
  trie: Trie,
  term: string,
  options: { builtin: boolean; langs?: readonly string[]; loose?: boolean; except?: Set<string>; names?: boolean },
): boolean {
  let text = term.trim().toLowerCase();
  const left = text.startsWith('*');
  const right = text.length > 1 && text.endsWith('*');
  text = text.replace(/^\*+|\*+$/g, '');
  let endings: string[] | undefined;
  const paren = /^(.*)\(([^()]*)\)$/.exec(text);
  if (paren && options.builtin) {
    text = paren[1] as string;
    endings = (paren[2] as string).split('|');
  }
  const words = splitWords(t, text)
    .map((w) => patternOf(t, w))
    .filter((p) => p.ids.length > 0);
  const head = words[0];
  if (!head) return false;
  const entry: Entry = {
    left,
    right,
    bare: !endings || endings.includes(''),
    suffixes: (endings ?? []).filter((e) => e !== '').map((e) => patternOf(t, e)),
    rest: words.length > 1 ? words.slice(1) : undefined,
    langs: options.langs,
    loose: options.loose ?? false,
    except: options.except,
    names: options.names ?? false,
    builtin: options.builtin,
  };
  trie.maxWords = Math.max(trie.maxWords, words.length);
  insert(trie.start, trie.startFirst, head, entry);
  if (left) insert(trie.inner, trie.innerFirst, head, entry);
  return true;
}

/** A term's words, as the scan would split them (spaced-out single letters joined). */
function splitWords(t: Tables, text: string): string[] {
  tokenize(t, text);
  const words: string[] = [];
  for (let w = 0; w < S.words; w++) {
    let word = '';
    let last = -1;
    for (let u = S.wFrom[w] as number; u < (S.wTo[w] as number); u++) {
      if (S.start[u] === last) continue; // one character, several units (ß)
      last = S.start[u] as number;
      word += text.slice(last, S.end[u] as number);
    }
    words.push(word);
  }
  return words;
}

function insert(root: TrieNode, first: Prefixes, pattern: Pattern, entry: Entry): void {
  let node = root;
  addPrefix(first, pattern, entry.builtin);
  for (let r = 0; r < pattern.ids.length; r++) {
    const key = (pattern.ids[r] as number) * 4 + Math.min(pattern.counts[r] as number, 3);
    node.kids ??= new Map();
    let next = node.kids.get(key);
    if (!next) {
      next = {};
      node.kids.set(key, next);
    }
    // Kept in step: a node with few kids lists them in arrays too.
    if (node.kids.size <= SMALL_NODE) {
      node.keys = [...node.kids.keys()];
      node.nodes = [...node.kids.values()];
    } else {
      node.keys = undefined;
      node.nodes = undefined;
    }
    node = next;
  }
  node.entries ??= [];
  node.entries.push(entry);
}

// ---------------------------------------------------------------------------------------------
// Matching

interface Hit {
  /** UTF-16 offsets in the text. */
  start: number;
  end: number;
  /** The words it covers. */
  firstWord: number;
  lastWord: number;
}

/** The walk's state (module-level: a scan is synchronous). */
let walkFrom = 0; // first unit of what is matched
let walkTo = 0;
let walkWord = 0;
let walkWhole = true;
let walkEvaded = false;
let walkStart = 0; // the run the match started at
let walkRunFrom = 0; // the first run of what is matched
let walkLast = 0; // set by a match: the last word it covers

function findAllowed(trie: Trie, hits: Hit[], hit: Hit): void {
  findHits(trie, hits, Math.max(0, hit.firstWord - trie.maxWords + 1), hit.firstWord + 1);
}

/** Matches words [fromWord, toWord) (a phrase may run past toWord). */
function findHits(trie: Trie, hits: Hit[], fromWord: number, toWord: number): void {
  for (let w = fromWord; w < toWord; w++) {
    const from = S.wFrom[w] as number;
    const to = S.wTo[w] as number;
    const flags = S.wFlags[w] as number;
    walkWord = w;
    walkWhole = true;
    walkEvaded = (flags & W_EVADED) !== 0;
    let runFrom = S.wRunFrom[w] as number;
    if (runFrom < 0) {
      runFrom = S.runTop;
      S.runTop = buildRuns(from, to, runFrom);
      S.wRunFrom[w] = runFrom;
      S.wRunTo[w] = S.runTop;
    }
    if (matchRuns(trie, from, to, runFrom, S.wRunTo[w] as number)) {
      hits.push({ start: S.wStart[w] as number, end: S.wEnd[walkLast] as number, firstWord: w, lastWord: walkLast });
      w = walkLast;
      continue;
    }
    if ((flags & W_PARTS) !== 0) matchParts(trie, w, hits);
  }
}

/** The parts of a CamelCase name ("BigDick69" → Big, Dick), without digits at their ends. */
function matchParts(trie: Trie, w: number, hits: Hit[]): void {
  const from = S.wFrom[w] as number;
  const to = S.wTo[w] as number;
  const bounds: number[] = [from];
  for (let u = from + 1; u < to; u++) {
    if (((S.flags[u] as number) & F_CAP) !== 0 && ((S.flags[u - 1] as number) & F_CAP) === 0) {
      const before = S.kind[u - 1];
      if (before === K.Letter || before === K.Digit) bounds.push(u);
    }
  }
  bounds.push(to);
  if (bounds.length > 5) return; // not a name: base64, hashes
  walkWhole = false;
  for (let p = 0; p + 1 < bounds.length; p++) {
    let a = bounds[p] as number;
    let b = bounds[p + 1] as number;
    while (a < b && S.kind[a] === K.Digit) a++;
    while (b > a && S.kind[b - 1] === K.Digit) b--;
    if (b - a < 3 || (a === from && b === to)) continue;
    walkEvaded = false;
    for (let u = a; u < b; u++) {
      const flags = S.flags[u] as number;
      if ((flags & F_ODD) !== 0 || ((flags & F_HIDDEN) !== 0 && u > a)) walkEvaded = true;
    }
    if (matchRuns(trie, a, b, S.runTop, buildRuns(a, b, S.runTop))) {
      hits.push({ start: S.start[a] as number, end: S.end[b - 1] as number, firstWord: w, lastWord: w });
    }
  }
}

/** Builds the runs of one letter of units [from, to) at `at`; returns their end. */
function buildRuns(from: number, to: number, at: number): number {
  ensureRuns(at + to - from);
  const rId = S.rId;
  const rN = S.rN;
  let end = at;
  let prev = NO_MATCH - 1;
  for (let u = from; u < to; u++) {
    const id = S.id[u] as number;
    if (id === prev && id !== WILD) {
      rN[end - 1] = (rN[end - 1] as number) + 1;
    } else {
      rId[end] = id;
      rN[end] = 1;
      end++;
      prev = id;
    }
  }
  return end;
}

/** Units [from, to), as runs [runFrom, runEnd): a walk from each run that may start a term. */
function matchRuns(trie: Trie, from: number, to: number, runFrom: number, runEnd: number): boolean {
  S.runs = runEnd;
  walkFrom = from;
  walkTo = to;
  walkRunFrom = runFrom;
  walkLast = walkWord;
  const innerOne = trie.innerFirst.oneAscii;
  for (let s = runFrom; s < runEnd; s++) {
    const id = S.rId[s] as number;
    if (id < 0) continue;
    const first = s === runFrom;
    if (!first && id < 128 && (!innerOne || innerOne[id] === 0)) continue; // the common case, inline
    if (!mayStart(first ? trie.startFirst : trie.innerFirst, s)) continue;
    walkStart = s;
    if (step(first ? trie.start : trie.inner, s, false)) return true;
  }
  return false;
}

/** Whether a term may start at run `s` (false rules it out; true is worth a walk). */
function mayStart(first: Prefixes, s: number): boolean {
  const id = S.rId[s] as number;
  const oneAscii = first.oneAscii;
  if (!oneAscii) return false; // no term
  if (id < 128) {
    if (oneAscii[id] === 0) return false;
    if ((first.aloneAscii as Uint8Array)[id] === 1 || s + 1 >= S.runs) return true;
    const next = S.rId[s + 1] as number;
    if (next < 0 || next >= 128) return true;
    if (!first.twoAscii) return first.two.has(id * PAIR + next);
    const pair = id * 128 + next;
    if (!hasBit(first.twoAscii, pair)) return false;
    if (hasBit(first.twoEndAscii as Uint8Array, pair) || s + 2 >= S.runs) return true;
    const third = S.rId[s + 2] as number;
    if (!isAz(id) || !isAz(next) || !isAz(third)) return true;
    return hasBit(first.threeAscii as Uint8Array, (id - 0x61) * 676 + (next - 0x61) * 26 + (third - 0x61));
  }
  if (id >= SET_BASE) {
    const letters = lettersOf(id);
    for (let c = 0; c < letters.length; c++) if (first.one.has(letters[c] as number)) return true;
    return false;
  }
  if (!first.one.has(id)) return false;
  if (first.alone.has(id) || s + 1 >= S.runs) return true;
  const next = S.rId[s + 1] as number;
  return next < 0 || next >= SET_BASE || first.two.has(id * PAIR + next);
}

/** Matches run `r` onwards from `node`; true when some entry accepted the word. */
function step(node: TrieNode, r: number, loose: boolean): boolean {
  const kids = node.kids;
  if (r >= S.runs || !kids) return false;
  const id = S.rId[r] as number;
  const n = S.rN[r] as number;
  if (id === WILD) {
    // Any one letter; two wildcards in a row may be a doubled letter.
    for (const [key, child] of kids) {
      const m = key & 3;
      if (m === 1) {
        if (child.entries && accept(child, r, 0, loose)) return true;
        if (step(child, r + 1, loose)) return true;
      } else if (m === 2 && r + 1 < S.runs && S.rId[r + 1] === WILD) {
        if (child.entries && accept(child, r + 1, 0, loose)) return true;
        if (step(child, r + 2, loose)) return true;
      }
    }
    return false;
  }
  if (id < 0) return false;
  const letters = id < SET_BASE ? undefined : lettersOf(id);
  const count = letters ? letters.length : 1;
  for (let c = 0; c < count; c++) {
    const code = (letters ? (letters[c] as number) : id) * 4;
    for (let m = 1; m <= 3 && m <= n; m++) {
      const child = childOf(node, code + m);
      if (!child) continue;
      // How the run is consumed: exactly, stretched (three or more of a letter), or a doubled letter
      // read once (loose terms only, once per word: "puttee" is not "pute").
      const exact = n === m;
      const full = exact || n >= 3;
      const doubled = n === 2 && m === 1 && !loose;
      if (child.entries) {
        if ((full || doubled) && accept(child, r, 0, loose || doubled)) return true;
        if (!exact && accept(child, r, n - m, loose)) return true;
      }
      if (full && step(child, r + 1, loose)) return true;
      if (doubled && step(child, r + 1, true)) return true;
    }
  }
  return false;
}

/**
 * Whether one of a node's entries accepts the word: its term ended in run `r`, `leftover` letters of
 * that run unconsumed (they must begin an ending).
 */
function accept(node: TrieNode, r: number, leftover: number, loose: boolean): boolean {
  for (const entry of node.entries as Entry[]) {
    if (loose && !entry.loose) continue;
    if (walkStart > walkRunFrom && !entry.left) continue;
    const from = leftover > 0 ? r : r + 1;
    let ok = false;
    if (from >= S.runs) {
      ok = entry.bare;
    } else if (entry.right) {
      ok = true;
    } else {
      const suffixes = entry.suffixes;
      for (let k = 0; k < suffixes.length && !ok; k++) {
        ok = matchesRuns(from, leftover, suffixes[k] as Pattern, entry.loose);
      }
    }
    if (!ok) continue;
    let last = walkWord;
    if (entry.rest) {
      if (!walkWhole) continue;
      last = matchRest(entry.rest);
      if (last < 0) continue;
    }
    // A language-local term: in the text's language (else the poll's), or typed with an evasion.
    if (entry.langs && !walkEvaded && !entry.langs.includes(languageFor() ?? '')) continue;
    if (entry.names && walkWhole && looksLikeName(walkWord)) continue;
    if (entry.except || entry.builtin) {
      const key = keyOf(walkFrom, walkTo);
      if (entry.except && isException(entry.except, key)) continue;
      if (entry.builtin && (tables?.clean.has(key) || isCleanSpelling(key))) continue;
    }
    walkLast = last;
    return true;
  }
  return false;
}

function isCleanSpelling(key: string): boolean {
  const spellings = tables?.cleanSpellings;
  if (!spellings || !tables?.cleanSpellingKeys.has(key)) return false;
  const text = S.text.slice(S.wStart[walkWord] as number, S.wEnd[walkWord] as number);
  return spellings.has(text.toLowerCase().normalize('NFC'));
}

function looksLikeName(w: number): boolean {
  return isTitle(w) && (isTitle(w - 1) || isTitle(w + 1));
}

function isTitle(w: number): boolean {
  return w >= 0 && w < S.words && ((S.wFlags[w] as number) & W_TITLE) !== 0;
}

/** Whether a word is one of a term's exceptions: a whole word, or a prefix written with a trailing `*`. */
function isException(except: Set<string>, key: string): boolean {
  if (except.has(key)) return true;
  for (let n = key.length; n >= 2; n--) if (except.has(`${key.slice(0, n)}*`)) return true;
  return false;
}

/** The phrase's following words, each whole; returns the last word's index, or -1. */
function matchRest(rest: readonly Pattern[]): number {
  for (let k = 0; k < rest.length; k++) {
    const w = walkWord + 1 + k;
    if (w >= S.words || !matchesWord(S.wFrom[w] as number, S.wTo[w] as number, rest[k] as Pattern)) return -1;
  }
  return walkWord + rest.length;
}

/** Whether units [from, to) are exactly `pattern`, compared run by run. */
function matchesWord(from: number, to: number, pattern: Pattern): boolean {
  const { ids, counts } = pattern;
  let k = -1;
  let n = 0;
  let prev = NO_MATCH - 1;
  for (let u = from; u < to; u++) {
    const id = S.id[u] as number;
    if (id === prev && id !== WILD) {
      n++;
      continue;
    }
    if (k >= 0 && !runMatches(prev, n, ids[k] as number, counts[k] as number, false)) return false;
    k++;
    if (k >= ids.length) return false;
    prev = id;
    n = 1;
  }
  return k === ids.length - 1 && runMatches(prev, n, ids[k] as number, counts[k] as number, false);
}

function runMatches(id: number, n: number, letter: number, m: number, loose: boolean): boolean {
  if (id === WILD) return n === m;
  if (id < 0) return false;
  if (id < SET_BASE ? id !== letter : !lettersOf(id).includes(letter)) return false;
  // In a phrase's following words ñ is ñ: "qué coño" is "coño" alone, not the idiom "que cono".
  if (id === ENYE && letter !== 0xf1) return false;
  return n === m || (n >= 3 && n > m) || (loose && n === 2 && m === 1);
}

/**
 * Whether runs `from` to the end are exactly `pattern` (an ending); `leftover`, when not 0, is how
 * many letters of run `from` remain to match.
 */
function matchesRuns(from: number, leftover: number, pattern: Pattern, loose: boolean): boolean {
  if (S.runs - from !== pattern.ids.length) return false;
  for (let k = 0; k < pattern.ids.length; k++) {
    const r = from + k;
    const id = S.rId[r] as number;
    const n = k === 0 && leftover > 0 ? leftover : (S.rN[r] as number);
    const m = pattern.counts[k] as number;
    if (id === WILD) {
      if (n !== m) return false;
      continue;
    }
    if (id < 0) return false;
    const letter = pattern.ids[k] as number;
    if (id < SET_BASE ? id !== letter : !lettersOf(id).includes(letter)) return false;
    if (!(n === m || (n >= 3 && n > m) || (loose && n === 2 && m === 1))) return false;
  }
  return true;
}

// ---------------------------------------------------------------------------------------------
// Languages

let functionWords: Map<string, string[]> | undefined;

/**
 * The language a scan's local terms are judged in: the text's own when its function words tell it
 * (more of them for one language than for any other), else the poll's.
 */
function languageFor(): string | undefined {
  if (S.textLanguage === undefined || S.textLanguageWithout !== walkWord) {
    S.textLanguage = guessLanguage(walkWord);
    S.textLanguageWithout = walkWord;
  }
  return S.textLanguage ?? S.pollLanguage;
}

function guessLanguage(without: number): string | null {
  if (!functionWords) {
    functionWords = new Map();
    for (const [lang, list] of Object.entries(FUNCTION_WORDS)) {
      for (const word of list.split(/\s+/)) {
        if (!word) continue;
        const langs = functionWords.get(word) ?? [];
        if (!langs.includes(lang)) langs.push(lang);
        functionWords.set(word, langs);
      }
    }
  }
  const score = new Map<string, number>();
  for (let w = 0; w < S.words; w++) {
    const from = S.wFrom[w] as number;
    const to = S.wTo[w] as number;
    if (w === without || to - from > 9 || !allLetters(from, to)) continue;
    for (const lang of functionWords.get(keyOf(from, to)) ?? []) score.set(lang, (score.get(lang) ?? 0) + 1);
  }
  let best: string | null = null;
  let top = 0;
  let second = 0;
  for (const [lang, n] of score) {
    if (n > top) {
      second = top;
      top = n;
      best = lang;
    } else if (n > second) {
      second = n;
    }
  }
  return top >= 1 && top > second ? best : null;
}

function allLetters(from: number, to: number): boolean {
  for (let u = from; u < to; u++) if (S.kind[u] !== K.Letter) return false;
  return true;
}

let lastLanguageTag: string | undefined;
let lastLanguage: string | undefined;

/** A BCP 47 tag's primary language, lower case ("pt-BR" → "pt"). */
function languageOf(tag: string | undefined): string | undefined {
  if (!tag) return undefined;
  if (tag !== lastLanguageTag) {
    lastLanguageTag = tag;
    const cut = tag.search(/[-_]/);
    lastLanguage = (cut < 0 ? tag : tag.slice(0, cut)).toLowerCase();
  }
  return lastLanguage;
}

function mergeSpans(spans: TextSpan[]): TextSpan[] {
  spans.sort((a, b) => a.start - b.start);
  const out: TextSpan[] = [];
  for (const span of spans) {
    const prev = out[out.length - 1];
    if (prev && span.start <= prev.end) prev.end = Math.max(prev.end, span.end);
    else out.push({ start: span.start, end: span.end });
  }
  return out;
}
