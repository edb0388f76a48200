import type { BranchCondition, Slide } from '@pollkit/contracts';

/**
 * The rule-based reader of skip logic in plain English: a hand-written recursive-descent parser
 * over a small tokenizer, so that every phrase it accepts is a production below and every refusal
 * names the words it could not read and what it expected there. Hand-written rather than generated:
 * the language is small, the productions need the poll (a slide reference must resolve to a slide,
 * an option to one of that slide's options), and the error messages are the product.
 *
 *   instruction := rule (separator rule)*
 *   rule        := [heading] ("if" | "when") conditions [","] ["then"] action
 *                | [heading] ("if" | "when") conditions ("->" | ":") target
 *                | action ("if" | "when" | "for anyone who") conditions
 *                | ("otherwise" | "else") [","] (("if" | "when") conditions … | action)
 *                | ("based on" | "depending on") [the answer to slide] ":" (value "->" target)+
 *   heading     := "skip logic:" | slide ":"                       Q2: if respondent chooses Enterprise…
 *   conditions  := condition ("or" condition)*                    on one slide ("and": refused)
 *   condition   := slide predicate                                Q2 is below 3, Q1 = London, Q4 includes "A"
 *                | subject verb …                                 they chose New York, they scored us 0-6
 *                | option ("is selected" | "is ranked first") (on | in) slide
 *                | the top choice on slide predicate | nothing is ticked on slide | option alone
 *   action      := ("skip" | "jump" | "go" | "move" | "continue" | "branch") ["straight"] "to" slide
 *                | "skip" slide                                   the slide after it
 *                | ("end" | "finish" | "stop" | "submit") ["the" (poll | survey | form | quiz)] | go to the end
 *   slide       := Q2 | question 2 | slide 3 | section 3 | the second question | the last slide | an id
 *                | "quoted text" | its text | words only it has | words (Q2) | it
 *
 * "Question N" and "QN" count the slides that ask something (content slides are not questions);
 * "slide N" counts every slide of the deck. Rules are evaluated in order, the first that matches
 * wins; "otherwise <action>" applies to whatever the previous rule's slide did not match.
 */

export class InstructionError extends Error {
  constructor(
    /** The words that could not be read, as written. */
    readonly fragment: string,
    /** What was expected there, with an example. */
    readonly expected: string,
    /** The closest instruction the parser does read, when one is a small change away. */
    readonly suggestion?: string,
  ) {
    super(
      `Could not understand "${fragment}": expected ${expected}${suggestion ? `. Did you mean "${suggestion}"?` : ''}`,
    );
  }
}

type TokenKind = 'word' | 'number' | 'quoted' | 'symbol';
interface Token {
  kind: TokenKind;
  /** Lower-cased for words; the digits for numbers; the inner text for quoted strings. */
  value: string;
  /** Offset in the instruction, for quoting the rest of the clause in errors. */
  start: number;
  /** Offset just past the token's text in the instruction. */
  end: number;
}

/**
 * A quoted text closes with the quote that opened it (straight or curly), and a single quote only
 * where no letter follows, so that "No, I'll use my own" stays one text. Then numbers, symbols and
 * words ("&" is a word: "People & Operations" is a label).
 */
const TOKEN =
  /\s*(?:["“]([^"”]*)["”]|['‘]((?:[^'’]|['’](?=\p{L}))*)['’](?!\p{L})|(-?\d+(?:\.\d+)?)(?![\p{L}])|(<=|>=|==|!=|=>|->|→|[<>=≤≥≠;,.:+()?!])|([\p{L}\p{N}_#&-]+(?:['’][\p{L}]+)?))/uy;

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
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
    // "#2" is the number alone ("question #2"); "Q2" is "q" and the number.
    if (q[1] === 'q') tokens.push({ kind: 'word', value: 'q', start, end: start + 1 });
    tokens.push({ kind: 'number', value: q[2] as string, start: start + 1, end });
    return;
  }
  const ordinal = /^(\d+)(?:st|nd|rd|th)$/.exec(lower);
  if (ordinal && ORDINALS[Number(ordinal[1]) - 1]) {
    tokens.push({ kind: 'word', value: ORDINALS[Number(ordinal[1]) - 1] as string, start, end });
    return;
  }
  const negated = /^(did|does|do|is|was|were|are|has|have|had)n't$/.exec(lower);
  if (negated) {
    tokens.push({ kind: 'word', value: negated[1] as string, start, end }, { kind: 'word', value: 'not', start, end });
    return;
  }
  tokens.push({ kind: 'word', value: lower, start, end });
}

/** The instruction from `start` to the end of its clause (`;` or `.`), for an error message. */
function clauseFrom(text: string, start: number): string {
  const rest = text.slice(start);
  const end = rest.search(/[;.](\s|$)/);
  const clause = (end < 0 ? rest : rest.slice(0, end)).trim();
  return clause.length > 80 ? `${clause.slice(0, 77)}…` : clause;
}

const ORDINALS = [
  'first',
  'second',
  'third',
  'fourth',
  'fifth',
  'sixth',
  'seventh',
  'eighth',
  'ninth',
  'tenth',
  'eleventh',
  'twelfth',
];
const NUMBER_WORDS = ['one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten'];
const SUBJECTS = [
  'they',
  'someone',
  'somebody',
  'anyone',
  'anybody',
  'people',
  'respondents',
  'voters',
  'participants',
  'users',
  'students',
  'attendees',
  'customers',
  'employees',
  'you',
  'he',
  'she',
  'i',
  'we',
];
const SUBJECT_NOUNS = [
  'respondent',
  'voter',
  'participant',
  'user',
  'person',
  'student',
  'attendee',
  'customer',
  'employee',
  'taker',
];

type Operator = BranchCondition['if']['operator'];
type Action = BranchCondition['then'];
interface Condition {
  slide: Slide;
  operator: Operator;
  value?: string | number | string[];
}

const SLIDE_EXPECTED =
  'a slide, such as Q2, "question 2", "slide 3", "the second question", a slide id, or the slide\'s text in quotes';
const ACTION_EXPECTED = 'an action: "skip to Q4", "jump to slide 5", "go to the last question" or "end the poll"';
const CONDITION_EXPECTED =
  'a condition: "Q2 is below 3", "Q1 is \\"Pizza\\"", "they chose any of \\"A\\", \\"B\\" on Q1" or "they did not answer Q2"';

class Parser {
  #at = 0;
  readonly #tokens: Token[];
  readonly #text: string;
  readonly #slides: readonly Slide[];
  /** Slides that ask something: what "question N" counts. */
  readonly #questions: readonly Slide[];
  /** The slide the last condition tested: what "it" refers to ("If it is London…"). */
  #lastSlide: Slide | undefined;

  constructor(text: string, slides: readonly Slide[]) {
    this.#text = text;
    this.#tokens = tokenize(text);
    this.#slides = slides;
    this.#questions = slides.filter((slide) => slide.kind !== 'content');
  }

  // --- token helpers -------------------------------------------------------------------------

  #peek(offset = 0): Token | undefined {
    return this.#tokens[this.#at + offset];
  }

  #done(): boolean {
    return this.#at >= this.#tokens.length;
  }

  /** Consumes the words of `phrase` (space-separated) if they come next. */
  #accept(phrase: string): boolean {
    const words = phrase.split(' ');
    for (const [index, word] of words.entries()) {
      const token = this.#peek(index);
      if (!token || (token.kind !== 'word' && token.kind !== 'symbol') || token.value !== word) return false;
    }
    this.#at += words.length;
    return true;
  }

  #acceptAny(phrases: readonly string[]): string | undefined {
    // Longest first: "less than" before "less".
    for (const phrase of [...phrases].sort((a, b) => b.split(' ').length - a.split(' ').length)) {
      if (this.#accept(phrase)) return phrase;
    }
    return undefined;
  }

  #fail(expected: string): never {
    const token = this.#peek();
    const fragment = token ? clauseFrom(this.#text, token.start) : '(the end of the instruction)';
    throw new InstructionError(fragment, expected);
  }

  // --- instruction and rules -----------------------------------------------------------------

  parse(): ReadInstruction {
    const rules: { condition: Condition; action: Action; source: string }[] = [];
    this.#skipSeparators();
    if (this.#done()) this.#fail('at least one rule, such as "If Q2 is below 3, skip to Q4"');
    while (!this.#done()) {
      const first = this.#at;
      const read = this.#rule(rules.at(-1)?.condition.slide);
      const source = this.#source(first, this.#at);
      rules.push(...read.map((rule) => ({ ...rule, source })));
      this.#skipSeparators();
    }
    return {
      conditions: rules.map(({ condition, action }, index) => ({
        id: `rule-${index + 1}`,
        if:
          condition.value === undefined
            ? { slideId: condition.slide.id, operator: condition.operator }
            : { slideId: condition.slide.id, operator: condition.operator, value: condition.value },
        // biome-ignore lint/suspicious/noThenProperty: `then` is the field name of the rule's action.
        then: action,
      })),
      sources: rules.map((rule) => rule.source),
    };
  }

  /** The instruction's words from token `from` up to (not including) token `to`, as written. */
  #source(from: number, to: number): string {
    const first = this.#tokens[from];
    const last = this.#tokens[to - 1];
    if (!first || !last) return '';
    return this.#text
      .slice(first.start, last.end)
      .replace(/[\s,;.]+$/, '')
      .trim();
  }

  #skipSeparators(): void {
    while (this.#acceptAny([';', '.', ',', 'and', 'also', 'then']) !== undefined) {
      // Separators between rules carry no meaning.
    }
  }

  #rule(previousSlide: Slide | undefined): { condition: Condition; action: Action }[] {
    if (this.#acceptAny(['otherwise', 'else', 'or else', 'in all other cases', 'in any other case'])) {
      this.#accept(',');
      if (this.#acceptAny(['if', 'when', 'whenever'])) return this.#conditionThenAction();
      if (!previousSlide) this.#fail('a rule with a condition before "otherwise"');
      const action = this.#action();
      // Whatever the earlier rules of that slide did not catch: answered or not, this applies.
      return [
        { condition: { slide: previousSlide, operator: 'answered' }, action },
        { condition: { slide: previousSlide, operator: 'not_answered' }, action },
      ];
    }
    this.#acceptAny(['skip logic', 'branching', 'logic', 'rule']) && this.#accept(':');
    this.#slideHeading();
    if (this.#acceptAny(['based on', 'depending on', 'go to section based on', 'go to page based on'])) {
      return this.#basedOn();
    }
    if (this.#acceptAny(['if', 'when', 'whenever', 'in case', 'where', 'for anyone who', 'for those who']))
      return this.#conditionThenAction();
    if (this.#startsAction()) {
      const actionStart = this.#at;
      const action = this.#action();
      this.#accept(',');
      if (
        !this.#acceptAny([
          'if',
          'when',
          'whenever',
          'for anyone who',
          'for those who',
          'for people who',
          'for respondents who',
          'for everyone who',
          'for anybody who',
        ])
      ) {
        this.#fail('"if" and a condition after the action, as in "skip to Q4 if Q2 is below 3"');
      }
      const conditions = this.#conditions();
      for (const condition of conditions) {
        const end = this.#at;
        this.#forward(condition, action, actionStart);
        this.#at = end;
      }
      return conditions.map((condition) => ({ condition, action }));
    }
    return this.#fail(`a rule starting with "if", such as "If Q2 is below 3, skip to Q4", or ${ACTION_EXPECTED}`);
  }

  #conditionThenAction(): { condition: Condition; action: Action }[] {
    const conditions = this.#conditions();
    this.#accept(',');
    const arrow = this.#acceptAny(['->', ':', 'goes to', 'go to']) !== undefined;
    this.#acceptAny(['then', 'they should', 'send them', 'take them']);
    this.#accept(',');
    const actionAt = this.#at;
    const action = arrow && !this.#startsAction() ? this.#target() : this.#action();
    this.#oneAction();
    for (const condition of conditions) this.#forward(condition, action, actionAt);
    return conditions.map((condition) => ({ condition, action }));
  }

  /** "go to section 3 and section 5": a rule sends a respondent to one place. */
  #oneAction(): void {
    const mark = this.#at;
    if (!this.#acceptAny(['and', 'and then', 'then', 'and also'])) return;
    this.#acceptAny(['to', 'go to', 'skip to', 'jump to']);
    const token = this.#peek();
    const names =
      token &&
      (token.value === 'q' ||
        token.value === 'question' ||
        token.value === 'slide' ||
        token.value === 'section' ||
        token.value === 'page');
    this.#at = mark;
    if (names) this.#fail('one action per rule: a respondent goes to one place');
  }

  /** Jumps go forward: a target at or before the condition's slide is refused at its words (`at`). */
  #forward(condition: Condition, action: Action, at: number): void {
    if (action.action !== 'skip_to') return;
    const from = this.#slides.indexOf(condition.slide);
    const to = this.#slides.findIndex((slide) => slide.id === action.slideId);
    if (to > from) return;
    const end = this.#at;
    this.#at = at;
    // Point at the slide's own words, past the verb ("skip to Q1" quotes "Q1").
    this.#acceptAny(MOVE_VERBS);
    this.#acceptAny([...MOVE_ADVERBS, 'back']);
    this.#acceptAny(MOVE_TO);
    const quoted = this.#at < end ? this.#at : at;
    this.#at = quoted;
    this.#fail(
      `a slide after ${condition.slide.id}: jumps go forward only (a respondent who left ${condition.slide.id} cannot be sent back to it or before it)`,
    );
  }

  /** Where an arrow points: a slide, or the end ("Yes -> Q4", "No -> end"). */
  #target(): Action {
    if (this.#startsAction()) return this.#action();
    if (this.#acceptAny(['the end', 'end'])) {
      this.#acceptAny(ENDINGS.flatMap((noun) => [`of the ${noun}`, `of ${noun}`]));
      return { action: 'end' };
    }
    return { action: 'skip_to', slideId: this.#slide().id };
  }

  /**
   * "Based on the answer to Q2: Yes -> Q4, No -> end" (Google Forms' "go to section based on answer"):
   * one rule per answer listed, each sending those who gave it to its slide.
   */
  #basedOn(): { condition: Condition; action: Action }[] {
    const named = this.#acceptAny(['the answer to', 'the answers to', 'the response to', 'answers to', 'answer to']);
    // "Go to section based on answer: Sales -> section 5": the slide is the one the answers belong to.
    const unnamed = !named && this.#acceptAny(['the answer', 'answer', 'the answers', 'answers']) !== undefined;
    let slide: Slide;
    if (unnamed) {
      this.#acceptAny([':', ',', '-']);
      const mark = this.#at;
      const first = this.#optionAnywhere();
      if (!first) this.#fail('an answer of one slide, as in "Sales -> section 5"');
      slide = first.slide;
      this.#at = mark;
    } else {
      slide = this.#slide();
    }
    this.#acceptAny([':', ',', '-']);
    const rules: { condition: Condition; action: Action }[] = [];
    do {
      this.#acceptAny(['if', 'when']);
      this.#acceptAny([
        'they chose',
        'they pick',
        'they picked',
        'they selected',
        'they answer',
        'they answered',
        'it is',
      ]);
      const condition = this.#valuePredicate(slide);
      if (!this.#acceptAny(['->', ':', 'goes to', 'go to', 'to', 'skip to', 'jump to', 'then', '=', 'means'])) {
        this.#fail('an arrow and where it goes, as in "Yes -> Q4" or "No -> end"');
      }
      this.#accept('go to') || this.#accept('skip to');
      const at = this.#at;
      const action = this.#target();
      this.#forward(condition, action, at);
      rules.push({ condition, action });
    } while (this.#acceptAny([',', ';', 'and', 'or']) !== undefined && !this.#done() && !this.#startsRule());
    return rules;
  }

  /** "Q2: if …": a slide named before a colon is what the rule's answers belong to ("it"). */
  #slideHeading(): void {
    const mark = this.#at;
    try {
      const slide = this.#slide();
      if (this.#accept(':')) {
        this.#lastSlide = slide;
        return;
      }
    } catch (error) {
      if (!(error instanceof InstructionError)) throw error;
    }
    this.#at = mark;
  }

  /** Whether a new rule starts here (after a separator). */
  #startsRule(): boolean {
    const token = this.#peek();
    return token?.kind === 'word' && ['if', 'when', 'otherwise', 'else', 'based', 'depending'].includes(token.value);
  }

  /**
   * One condition, or several joined by "or" (each its own rule with the same action: the first to
   * match decides, which is what "or" means). Two joined by "and" are refused: a rule tests one
   * answer, and the format has no AND.
   */
  #conditions(): Condition[] {
    const conditions = [this.#condition()];
    for (;;) {
      const mark = this.#at;
      this.#accept(',');
      const joiner = this.#acceptAny(['or if', 'or when', 'or', 'and if', 'and when', 'and also', 'and']);
      if (!joiner) {
        this.#at = mark;
        return conditions;
      }
      const next = this.#tryCondition();
      if (!next) {
        this.#at = mark;
        return conditions;
      }
      if (joiner.startsWith('or') && next.slide !== conditions[0]?.slide) {
        this.#at = mark;
        this.#accept(',');
        this.#fail(
          'conditions on one slide: a rule is tried when a respondent leaves its slide, so an "or" across two ' +
            'slides is two rules, one on each slide, that may skip different questions: write them as two rules',
        );
      }
      if (joiner.startsWith('and')) {
        this.#at = mark;
        this.#accept(',');
        this.#fail(
          'one condition per rule: the skip-logic format cannot require two answers at once (an AND); ' +
            'write a rule for one slide, or ask for the jump on each slide separately',
        );
      }
      conditions.push(next);
    }
  }

  /** A condition if one follows (the position is left after it); undefined, and nothing consumed, if not. */
  #tryCondition(): Condition | undefined {
    const mark = this.#at;
    try {
      return this.#condition();
    } catch (error) {
      if (!(error instanceof InstructionError)) throw error;
      this.#at = mark;
      return undefined;
    }
  }

  // --- actions -------------------------------------------------------------------------------

  #startsAction(): boolean {
    const token = this.#peek();
    return (
      token?.kind === 'word' &&
      [
        'skip',
        'jump',
        'go',
        'move',
        'continue',
        'proceed',
        'end',
        'finish',
        'stop',
        'send',
        'take',
        'submit',
        'terminate',
        'exit',
        'branch',
        'redirect',
        'route',
      ].includes(token.value)
    );
  }

  #action(): Action {
    const what = ENDINGS;
    const ends = ['end', 'finish', 'stop', 'submit', 'terminate', 'exit', 'close', 'complete'];
    const toEnd = [
      'go to',
      'skip to',
      'jump to',
      'move to',
      'send them to',
      'take them to',
      'branch to',
      'redirect to',
    ];
    if (
      this.#acceptAny([
        ...ends.flatMap((verb) => [
          ...what.flatMap((noun) => [`${verb} the ${noun}`, `${verb} ${noun}`]),
          `${verb} it`,
        ]),
        ...ends,
        ...toEnd.flatMap((verb) => [`${verb} the end`, `${verb} end`]),
      ])
    ) {
      this.#acceptAny([...what.flatMap((noun) => [`of the ${noun}`, `of ${noun}`]), 'there', 'right away', 'early']);
      return { action: 'end' };
    }
    const verb = this.#acceptAny(MOVE_VERBS);
    if (!verb) return this.#fail(ACTION_EXPECTED);
    this.#acceptAny(MOVE_ADVERBS);
    if (this.#acceptAny(MOVE_TO)) {
      this.#acceptAny(['the end']) && this.#fail(ACTION_EXPECTED);
      return { action: 'skip_to', slideId: this.#slide().id };
    }
    if (verb === 'skip') {
      // "skip Q3": past it, to the slide after it (the end, after the last).
      const skipped = this.#slide();
      const next = this.#slides[this.#slides.indexOf(skipped) + 1];
      return next ? { action: 'skip_to', slideId: next.id } : { action: 'end' };
    }
    return this.#fail(`"to" and a slide after "${verb}", as in "${verb} to Q4"`);
  }

  // --- slides and options --------------------------------------------------------------------

  #number(): number | undefined {
    const token = this.#peek();
    if (token?.kind === 'number' && /^\d+$/.test(token.value)) {
      this.#at++;
      return Number(token.value);
    }
    if (token?.kind === 'word' && NUMBER_WORDS.includes(token.value)) {
      this.#at++;
      return NUMBER_WORDS.indexOf(token.value) + 1;
    }
    return undefined;
  }

  /** The `n`th of `list`; a number past its end is refused, quoting the reference from `start`. */
  #nth(list: readonly Slide[], n: number, noun: string, start: number): Slide {
    const slide = list[n - 1];
    if (!slide) {
      this.#at = start;
      this.#fail(`a ${noun} of this poll: it has ${list.length} ${noun}${list.length === 1 ? '' : 's'}`);
    }
    return slide;
  }

  #slide(): Slide {
    this.#accept('the answer to') || this.#accept('the answers to') || this.#accept('the rating of');
    const start = this.#at;
    if (this.#accept('q') || this.#accept('question') || this.#accept('question #') || this.#accept('question no')) {
      const n = this.#number();
      if (n !== undefined) return this.#nth(this.#questions, n, 'question', start);
      this.#at = start;
    }
    if (this.#acceptAny(['question number', 'question no', 'q no', 'item'])) {
      const n = this.#number();
      if (n !== undefined) return this.#nth(this.#questions, n, 'question', start);
      this.#at = start;
    }
    // Survey tools call them sections (Google Forms) or pages: each is a slide here.
    if (this.#acceptAny(['slide', 'slide #', 'slide number', 'section', 'page', 'screen'])) {
      const n = this.#number();
      if (n !== undefined) return this.#nth(this.#slides, n, 'slide', start);
      this.#at = start;
    }
    if (this.#accept('the')) {
      const token = this.#peek();
      const ordinal = token?.kind === 'word' ? ORDINALS.indexOf(token.value) : -1;
      const last = token?.kind === 'word' && (token.value === 'last' || token.value === 'final');
      if (ordinal >= 0 || last) {
        this.#at++;
        const noun = this.#acceptAny(['question', 'slide', 'section', 'page', 'screen', 'one']);
        if (noun) {
          const list = noun === 'question' || noun === 'one' ? this.#questions : this.#slides;
          const named = list === this.#questions ? 'question' : 'slide';
          if (last) return this.#nth(list, list.length, named, start);
          return this.#nth(list, ordinal + 1, named, start);
        }
      }
      this.#at = start;
    }
    // "satisfaction (Q2)": the reference in brackets says which slide the words before it mean.
    const bracketed = this.#bracketedReference();
    if (bracketed) return bracketed;
    if (this.#acceptAny(['it', 'that', 'that question', 'this question', 'the same question']) && this.#lastSlide) {
      return this.#lastSlide;
    }
    this.#acceptAny(['the', 'their', 'our', 'your', 'his', 'her']);
    const token = this.#peek();
    if (token?.kind === 'quoted') {
      const wanted = normalise(token.value);
      const byText = this.#slides.filter((slide) => normalise(slide.text) === wanted);
      const byId = this.#slides.filter((slide) => slide.id.toLowerCase() === token.value.toLowerCase());
      const found = byText.length === 1 ? byText[0] : byId.length === 1 ? byId[0] : undefined;
      if (found) {
        this.#at++;
        return found;
      }
    }
    if (token?.kind === 'word') {
      // The slide's whole text, then the longest description ("their comfort with our tools"), then an id.
      const described = this.#slideByWords() ?? this.#slideByDescription();
      if (described) return described;
      const byId = this.#slides.find((slide) => slide.id.toLowerCase() === token.value);
      if (byId) {
        this.#at++;
        // "the lunch question", "lunch slide": the noun after an id says nothing more.
        this.#acceptAny(['question', 'slide', 'section', 'page']);
        return byId;
      }
    }
    this.#at = start;
    return this.#fail(SLIDE_EXPECTED);
  }

  /** `words (Q2)`: the slide in brackets, the words before it passed over (at most six). */
  #bracketedReference(): Slide | undefined {
    for (let offset = 0; offset <= 6; offset++) {
      const token = this.#peek(offset);
      if (!token || (token.kind !== 'word' && token.value !== '(')) return undefined;
      if (token.value !== '(') continue;
      const mark = this.#at;
      this.#at += offset + 1;
      try {
        const slide = this.#slide();
        if (this.#accept(')')) return slide;
      } catch (error) {
        if (!(error instanceof InstructionError)) throw error;
      }
      this.#at = mark;
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
  #slideByDescription(): Slide | undefined {
    const words: string[] = [];
    for (let offset = 0; offset < 8; offset++) {
      const token = this.#peek(offset);
      if (token?.kind !== 'word' || DESCRIPTION_STOPS.has(token.value)) break;
      words.push(token.value);
    }
    while (words.length > 0) {
      const content = words.filter((word) => !DESCRIPTION_FILLERS.has(word)).flatMap((word) => word.split('-'));
      if (content.length > 0) {
        const candidates = this.#slides.filter((slide) => {
          const own = `${slide.id} ${slide.text}`
            .toLowerCase()
            .split(/[^\p{L}\p{N}]+/u)
            .filter(Boolean);
          return content.every((word) => own.some((candidate) => sameWord(word, candidate)));
        });
        if (candidates.length === 1) {
          this.#at += words.length;
          return candidates[0];
        }
      }
      words.pop();
    }
    return undefined;
  }

  /** A slide named by its text without quotes ("If How do you feel is below 2"): the longest exact match. */
  #slideByWords(): Slide | undefined {
    const texts = this.#slides.map((slide) => ({
      slide,
      words: normalise(slide.text)
        .replace(/[?!.,:]/g, '')
        .split(' '),
    }));
    for (let length = 12; length >= 2; length--) {
      const words = this.#wordsAhead(length);
      if (words.length < length) continue;
      const found = texts.filter((entry) => entry.words.join(' ') === words.join(' '));
      if (found.length === 1) {
        this.#at += length;
        this.#accept('?');
        return found[0]?.slide;
      }
    }
    return undefined;
  }

  /** The values of the next `count` word (or number) tokens, fewer if something else comes first. */
  #wordsAhead(count: number): string[] {
    const words: string[] = [];
    for (let offset = 0; offset < count; offset++) {
      const token = this.#peek(offset);
      if (!token || (token.kind !== 'word' && token.kind !== 'number')) break;
      words.push(token.value);
    }
    return words;
  }

  /**
   * An option of `slide`: its label (in quotes or not, in any case, several words too), its id, or a
   * word of exactly one option's label when nothing else matches ("satisfied" for "Very satisfied"
   * when no other label has it). A quoted text that names none is refused, listing the options; so is
   * a word several labels share.
   */
  #option(slide: Slide): string | undefined {
    const options = 'options' in slide ? slide.options : [];
    const mark = this.#at;
    const found = this.#optionAfterArticle(slide, options);
    if (found === undefined) this.#at = mark;
    return found;
  }

  #optionAfterArticle(slide: Slide, options: readonly { id: string; label: string }[]): string | undefined {
    const article = this.#peek(1) !== undefined && this.#acceptAny(['the']) !== undefined;
    const token = this.#peek();
    if (article && token?.kind !== 'word') return undefined;
    if (!token || (token.kind !== 'quoted' && token.kind !== 'word' && token.kind !== 'number')) return undefined;
    if (token.kind === 'quoted') {
      const wanted = normalise(token.value);
      const found =
        options.find((option) => normalise(option.label) === wanted) ??
        options.find((option) => option.id.toLowerCase() === wanted) ??
        this.#uniqueByWord(slide, wanted, token.value);
      if (found) {
        this.#at++;
        return found.id;
      }
      const labels = options.map((option) => `"${option.label}"`).join(', ');
      return this.#fail(
        options.length > 0
          ? `an option of ${slide.id}: one of ${labels}`
          : `something slide ${slide.id} (a ${slide.kind.replace('_', '-')} slide) can be answered with`,
      );
    }
    // Unquoted: the longest run of words that is a whole label, then an id, then a word of one label.
    for (let length = 6; length >= 1; length--) {
      const words = this.#wordsAhead(length);
      if (words.length < length) continue;
      const wanted = normalise(words.join(' '));
      const found = options.find((option) => normalise(option.label).replace(/[?!.,:]/g, '') === wanted);
      if (found) {
        this.#at += length;
        return found.id;
      }
    }
    const byId = options.find((option) => option.id.toLowerCase() === token.value);
    if (byId) {
      this.#at++;
      return byId.id;
    }
    if (token.kind === 'word' && !NOT_OPTION_WORDS.has(token.value)) {
      const found = this.#uniqueByWord(slide, token.value, token.value);
      if (found) {
        this.#at++;
        return found.id;
      }
    }
    return undefined;
  }

  /** The one option whose label has `word` as a whole word; refused when several have it. */
  #uniqueByWord(slide: Slide, word: string, written: string) {
    const options = 'options' in slide ? slide.options : [];
    if (word.length < 3) return undefined;
    const having = options.filter((option) =>
      normalise(option.label)
        .split(/[\s,/-]+/)
        .includes(word),
    );
    if (having.length > 1) {
      this.#fail(
        `one option: "${written}" is in ${having.map((option) => `"${option.label}"`).join(' and ')}; write the whole label`,
      );
    }
    return having[0];
  }

  /** `"A", "B" or "C"`: at least one option. */
  #options(slide: Slide): string[] {
    const first = this.#option(slide);
    if (first === undefined) this.#fail(`an option of ${slide.id}, by its label in quotes or its id`);
    const chosen = [first];
    for (;;) {
      const mark = this.#at;
      this.#accept(',');
      if (!this.#acceptAny(['or', 'and', 'nor', '/']) && this.#at === mark) break;
      this.#acceptAny(['option', 'the option']);
      const next = this.#option(slide);
      if (next === undefined) {
        this.#at = mark;
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
  #optionAnywhere(): { slide: Slide; optionId: string } | undefined {
    const token = this.#peek();
    if (!token) return undefined;
    const mark = this.#at;
    const labelled = (wanted: string) =>
      this.#slides.flatMap((slide) =>
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
      this.#acceptAny(['the', 'a', 'an']);
      for (let count = 6; count >= 1 && matches.length === 0; count--) {
        const words = this.#wordsAhead(count);
        if (words.length < count || NOT_OPTION_WORDS.has(words[0] as string)) continue;
        matches = labelled(normalise(words.join(' ')));
        length = count;
      }
    }
    if (matches.length === 1) {
      this.#at += length;
      return { slide: matches[0]!.slide, optionId: matches[0]!.option.id };
    }
    if (matches.length > 1) {
      const label = matches[0]!.option.label;
      this.#fail(`the slide of "${label}", an option of several slides: say which, as in "chose \\"${label}\\" on Q2"`);
    }
    this.#at = mark;
    return undefined;
  }

  // --- conditions ----------------------------------------------------------------------------

  #condition(): Condition {
    const start = this.#at;
    const condition = this.#conditionOfAnyForm();
    if (condition.slide.kind === 'content') {
      this.#at = start;
      this.#fail(
        `a slide that takes answers: ${condition.slide.id} is a content slide, which no respondent answers, so no rule can test it`,
      );
    }
    this.#lastSlide = condition.slide;
    return condition;
  }

  #conditionOfAnyForm(): Condition {
    const tops = [
      'the top choice',
      'the first choice',
      'the top-ranked option',
      'the top ranked option',
      'the top pick',
      'the option ranked first',
    ];
    if (this.#acceptAny(tops.flatMap((phrase) => [`${phrase} on`, `${phrase} in`, `${phrase} for`]))) {
      return this.#predicate(this.#slide());
    }
    if (this.#subject()) return this.#subjectCondition();
    const optionFirst = this.#optionFirstCondition();
    if (optionFirst) return optionFirst;
    const slide = this.#slide();
    this.#acceptAny(['answer', 'rating', 'score', 'response', 'feedback', 'comment', 'comments', 'text']);
    return this.#predicate(slide);
  }

  /**
   * Conditions that name the answer before the slide: ""Opening keynote" is selected in Q3",
   * "Single sign-on is ranked first in Q4", "nothing is ticked on Q3", or an option alone that one
   * slide has ("If Engineering, go to section 2"). Undefined, nothing consumed, when it is not one.
   */
  #optionFirstCondition(): Condition | undefined {
    const mark = this.#at;
    if (this.#acceptAny(['nothing', 'no option', 'no options', 'none of the options', 'no answer'])) {
      if (this.#acceptAny(['is', 'was', 'are', 'were']) && this.#acceptAny(CHOSEN_WORDS)) {
        if (this.#acceptAny(['on', 'in', 'for', 'at'])) return { slide: this.#slide(), operator: 'not_answered' };
      }
      this.#at = mark;
      return undefined;
    }
    // The words up to "is selected"/"is ranked first" are the option; the slide follows.
    let look = this.#at;
    while (look < this.#tokens.length && look - this.#at < 7) {
      const value = this.#tokens[look]?.value;
      if (value === 'is' || value === 'was' || value === 'are' || value === 'were') break;
      if (value === ',' || value === 'then') {
        look = this.#tokens.length;
        break;
      }
      look++;
    }
    if (look > this.#at && look < this.#tokens.length) {
      this.#at = look + 1;
      const negated = this.#accept('not');
      const otherPlace =
        this.#peek()?.value === 'ranked' && !['first', 'top', 'highest'].includes(this.#peek(1)?.value ?? '');
      if (otherPlace && ['last', 'second', 'third', 'bottom', 'lowest'].includes(this.#peek(1)?.value ?? '')) {
        this.#fail('"ranked first": a condition on a ranking tests which option came first, not where the others came');
      }
      const ranked = this.#acceptAny([
        'ranked first',
        'ranked top',
        'ranked highest',
        'ranked number one',
        'ranked 1st',
      ]);
      const chosen = ranked ?? this.#acceptAny(CHOSEN_WORDS);
      if (chosen && this.#acceptAny(['on', 'in', 'for', 'at', 'by'])) {
        const optionsAt = mark;
        const located = this.#optionsThenSlide(optionsAt, this.#at);
        if (located.options.length === 1) {
          return {
            slide: located.slide,
            operator: negated ? 'not_equals' : 'equals',
            value: located.options[0] as string,
          };
        }
        if (!negated) return { slide: located.slide, operator: 'includes', value: located.options };
      }
      this.#at = mark;
    }
    // An option alone, followed by the action: the one slide that has it.
    const alone = this.#optionAnywhere();
    if (alone) {
      const next = this.#peek();
      if (next === undefined || next.value === ',' || next.value === 'then' || this.#startsAction()) {
        return { slide: alone.slide, operator: 'equals', value: alone.optionId };
      }
    }
    this.#at = mark;
    return undefined;
  }

  #subject(): boolean {
    const token = this.#peek();
    if (token?.kind !== 'word') return false;
    if (SUBJECTS.includes(token.value)) {
      this.#at++;
      return true;
    }
    const start = this.#at;
    this.#acceptAny(['the', 'a', 'an', 'any', 'each', 'every']);
    const noun = this.#peek();
    if (noun?.kind === 'word' && SUBJECT_NOUNS.includes(noun.value)) {
      this.#at++;
      return true;
    }
    this.#at = start;
    return false;
  }

  /** After "they": chose / rated / answered / did not answer … */
  #subjectCondition(): Condition {
    if (
      this.#acceptAny([
        'did not answer',
        'does not answer',
        'do not answer',
        'have not answered',
        'has not answered',
        'did not respond to',
        'does not respond to',
        'did not reply to',
        'did not fill in',
        'did not fill out',
        'skipped',
        'skip',
        'skips',
        'left',
        'leave',
        'leaves',
      ])
    ) {
      const slide = this.#slide();
      this.#accept('blank') || this.#accept('empty') || this.#accept('unanswered');
      return { slide, operator: 'not_answered' };
    }
    const wrote = this.#acceptAny([
      'wrote something in',
      'wrote anything in',
      'wrote in',
      'typed something in',
      'typed in',
      'posted in',
      'posted a question in',
      'posted on',
      'asked something on',
      'asked something in',
      'asked a question on',
      'asked a question in',
      'asked anything on',
      'asked on',
      'commented on',
      'left a comment on',
      'left a comment in',
    ]);
    if (wrote) return { slide: this.#slide(), operator: 'answered' };
    const silent = ['did not', 'does not', 'do not'].flatMap((not) =>
      [
        'ask anything on',
        'ask anything in',
        'ask a question on',
        'ask a question in',
        'write anything in',
        'write anything on',
        'post in',
        'post anything in',
        'comment on',
      ].map((verb) => `${not} ${verb}`),
    );
    if (this.#acceptAny(silent)) return { slide: this.#slide(), operator: 'not_answered' };
    // "they are on the Free plan", "they are joining Sales": an option one slide has.
    const being = [
      'are on',
      'is on',
      'are in',
      'is in',
      'are using',
      'is using',
      'use',
      'uses',
      'are joining',
      'is joining',
      'will join',
      'joined',
      'work in',
      'works in',
      'are from',
      'is from',
      'attended',
      'went to',
    ];
    const verbAt = this.#at;
    if (this.#acceptAny(being)) {
      const found = this.#optionAnywhere();
      if (!found) {
        this.#at = verbAt;
        this.#fail('an answer a slide of this poll has, as in "they are on the Free plan"');
      }
      // "the Free plan": a word of the slide's own text after the answer says nothing more.
      const next = this.#peek();
      const own = `${found.slide.id} ${found.slide.text}`.toLowerCase();
      if (next?.kind === 'word' && own.includes(next.value)) this.#at++;
      return { slide: found.slide, operator: 'equals', value: found.optionId };
    }
    const yesNo = this.#yesNoCondition();
    if (yesNo) return yesNo;
    const valueThenSlide = this.#valueThenSlide();
    if (valueThenSlide) return valueThenSlide;
    const choosing = ['choose', 'pick', 'select', 'vote for', 'tick', 'check', 'mark'];
    const negated = this.#acceptAny(
      ['did not', 'does not', 'do not', 'has not', 'have not'].flatMap((not) =>
        [...choosing, 'chosen', 'picked', 'selected', 'ticked', 'checked'].map((verb) => `${not} ${verb}`),
      ),
    );
    const chose =
      negated ??
      this.#acceptAny([
        'chose',
        'choose',
        'chooses',
        'has chosen',
        'have chosen',
        'picked',
        'pick',
        'picks',
        'selected',
        'select',
        'selects',
        'has selected',
        'have selected',
        'voted for',
        'vote for',
        'votes for',
        'ticked',
        'tick',
        'ticks',
        'checked',
        'check',
        'checks',
        'marked',
        'mark',
        'marks',
        'went with',
        'go with',
        'goes with',
        'opted for',
        'opt for',
        'opts for',
      ]);
    if (chose) {
      const anyOf = this.#acceptAny(['any of', 'one of', 'either', 'at least one of']) !== undefined;
      const located = this.#locatedOptions();
      if (negated) {
        if (located.options.length > 1) this.#fail('one option after "did not choose"');
        return { slide: located.slide, operator: 'not_equals', value: located.options[0] as string };
      }
      if (anyOf || located.options.length > 1)
        return { slide: located.slide, operator: 'includes', value: located.options };
      return { slide: located.slide, operator: 'equals', value: located.options[0] as string };
    }
    this.#refuseCorrectness();
    if (this.#acceptAny(['rated', 'rate', 'rates', 'gave', 'give', 'gives', 'scored', 'score', 'scores'])) {
      this.#refusePoints();
      const slide = this.#ratedSlide();
      this.#accept('a') || this.#accept('an');
      const comparison = this.#comparison(slide);
      if (!comparison) this.#fail('a rating, such as "below 3", "at least 4" or "5"');
      return { slide, ...comparison };
    }
    if (
      this.#acceptAny([
        'answered with',
        'answers with',
        'responded with',
        'responds with',
        'replied with',
        'replies with',
        'said',
        'says',
        'say',
        'replied',
        'replies',
      ])
    ) {
      // "they said "Yes" to Q2", "they answered with 5 on Q2": a value, then its slide.
      const valueAt = this.#at;
      let look = this.#at + 1;
      while (look < this.#tokens.length && !['to', 'on', 'for', 'in'].includes(this.#tokens[look]?.value ?? '')) look++;
      if (look >= this.#tokens.length) this.#fail('a value and its slide, as in "they said \\"Yes\\" to Q2"');
      this.#at = look + 1;
      const slide = this.#slide();
      const after = this.#at;
      this.#at = valueAt;
      const predicate = this.#valuePredicate(slide);
      this.#at = after;
      return predicate;
    }
    if (
      this.#acceptAny([
        'answered',
        'answer',
        'answers',
        'responded to',
        'respond to',
        'responds to',
        'filled in',
        'filled out',
      ])
    ) {
      // "they answered "Yes" to Q2" or "they answered Q2".
      const token = this.#peek();
      if (token?.kind === 'quoted' || token?.kind === 'number') {
        const mark = this.#at;
        this.#at++;
        if (this.#acceptAny(['to', 'on', 'for', 'in'])) {
          const slide = this.#slide();
          this.#at = mark;
          const predicate = this.#valuePredicate(slide);
          this.#acceptAny(['to', 'on', 'for', 'in']);
          this.#slide();
          return predicate;
        }
        this.#at = mark;
      }
      return { slide: this.#slide(), operator: 'answered' };
    }
    return this.#fail(
      '"chose", "did not choose", "rated", "answered" or "did not answer" after the subject, as in "they chose \\"Pizza\\" on Q1"',
    );
  }

  /** "they got Q1 right": whether an answer is correct is not in the format (it tests the options chosen). */
  #refuseCorrectness(): void {
    const mark = this.#at;
    if (!this.#acceptAny(['got', 'get', 'gets', 'had', 'answered'])) return;
    try {
      this.#slide();
      if (['right', 'correct', 'wrong', 'incorrect', 'correctly', 'incorrectly'].includes(this.#peek()?.value ?? '')) {
        this.#fail(
          'the options chosen: a condition tests which options were chosen ("If Q1 is \\"Paris\\""), not whether the answer was right',
        );
      }
    } catch (error) {
      if (!(error instanceof InstructionError) || error.expected.startsWith('the options chosen')) throw error;
    }
    this.#at = mark;
  }

  /** "scored more than 2 points": a quiz score is not an answer to a slide, which is all a rule tests. */
  #refusePoints(): void {
    const comparing = new Set([
      'more',
      'less',
      'fewer',
      'than',
      'at',
      'least',
      'most',
      'over',
      'under',
      'above',
      'below',
      'exactly',
    ]);
    for (let offset = 0; offset < 5; offset++) {
      const token = this.#peek(offset);
      if (!token) return;
      if (token.value === 'points' || token.value === 'point') {
        this.#at += offset;
        this.#fail(
          'a slide and its rating: a quiz score (points) is not an answer to a slide, which is all a rule tests',
        );
      }
      if (token.kind !== 'number' && !comparing.has(token.value)) return;
    }
  }

  /**
   * What "they rated …" rates: a slide, or "us"/"it" when the deck has one rating scale (no
   * statements) to mean — "they scored us 0-6".
   */
  #ratedSlide(): Slide {
    const mark = this.#at;
    if (this.#acceptAny(['us', 'it', 'the product', 'the event', 'the service'])) {
      const scales = this.#slides.filter((slide) => slide.kind === 'scale' && slide.statements.length === 0);
      const next = this.#peek();
      const rating =
        next?.kind === 'number' ||
        next?.value === 'a' ||
        next?.value === 'an' ||
        COMPARISON_PREFIXES.has(next?.value ?? '');
      if (scales.length === 1 && rating) return scales[0] as Slide;
      this.#at = mark;
    }
    return this.#slide();
  }

  /**
   * "they answer Paris on Q1", "they answered 5 to Q2": a value, then its slide. Undefined, nothing
   * consumed, when the words are not that.
   */
  #valueThenSlide(): Condition | undefined {
    const mark = this.#at;
    if (!this.#acceptAny(['answered', 'answer', 'answers', 'put', 'entered', 'enter'])) return undefined;
    const valueAt = this.#at;
    let look = this.#at;
    const preposition = (index: number) => ['to', 'on', 'for', 'in'].includes(this.#tokens[index]?.value ?? '');
    while (look < this.#tokens.length && look - valueAt < 6 && !preposition(look)) look++;
    if (look === valueAt || look >= this.#tokens.length) {
      this.#at = mark;
      return undefined;
    }
    try {
      this.#at = look + 1;
      const slide = this.#slide();
      const after = this.#at;
      this.#at = valueAt;
      const condition = this.#valuePredicate(slide);
      if (this.#at !== look) {
        this.#at = mark;
        return undefined;
      }
      this.#at = after;
      return condition;
    } catch (error) {
      if (!(error instanceof InstructionError)) throw error;
      this.#at = mark;
      return undefined;
    }
  }

  /**
   * "they need a laptop", "they don't need a laptop": the words of a yes/no question ("Do you need
   * a laptop?") said of the respondent, meaning its options that start with "Yes" (or "No").
   */
  #yesNoCondition(): Condition | undefined {
    const mark = this.#at;
    const nots = ['did not', 'does not', 'do not', 'will not', 'would not', 'are not', 'is not'];
    const negated = this.#acceptAny(nots) !== undefined;
    const words = this.#wordsAhead(8);
    for (let length = words.length; length >= 1; length--) {
      const phrase = words.slice(0, length).join(' ');
      const slide = this.#slides.find((candidate) => {
        const text = normalise(candidate.text).replace(/[?!.]/g, '');
        return ['do', 'does', 'did', 'will', 'would', 'are', 'is', 'have', 'can'].some(
          (aux) => text === `${aux} you ${phrase}`,
        );
      });
      if (!slide || !('options' in slide)) continue;
      const prefix = negated ? 'no' : 'yes';
      const matching = slide.options.filter((option) => normalise(option.label).split(/[\s,]+/)[0] === prefix);
      if (matching.length === 0) continue;
      this.#at += length;
      return matching.length === 1
        ? { slide, operator: 'equals', value: matching[0]?.id as string }
        : { slide, operator: 'includes', value: matching.map((option) => option.id) };
    }
    this.#at = mark;
    return undefined;
  }

  /** `"Pizza" on Q1`, `on Q1 "Pizza"`, or `"Pizza"` alone when one slide has that option. */
  #locatedOptions(): { slide: Slide; options: string[] } {
    if (this.#acceptAny(['on', 'in', 'for', 'at'])) {
      const slide = this.#slide();
      return { slide, options: this.#options(slide) };
    }
    const mark = this.#at;
    const alone = this.#optionAnywhere();
    if (alone) {
      // More options of the same slide may follow ("Pizza" or "Sushi"), and then the slide after all.
      this.#at = mark;
      const options = this.#options(alone.slide);
      if (!this.#acceptAny(['on', 'in', 'for', 'at'])) return { slide: alone.slide, options };
      return this.#optionsThenSlide(mark, this.#at);
    }
    // Options by id need their slide: "pizza on Q1".
    const peeked = this.#peek();
    if (peeked && (peeked.kind === 'word' || peeked.kind === 'quoted')) {
      let look = this.#at + 1;
      while (look < this.#tokens.length && !['on', 'in', 'for', 'at'].includes(this.#tokens[look]!.value)) look++;
      if (look < this.#tokens.length) return this.#optionsThenSlide(mark, look + 1);
    }
    return this.#fail('an option in quotes and its slide, as in "\\"Pizza\\" on Q1"');
  }

  /** Options written before their slide: the slide (at `slideAt`) is read first, then the options against it. */
  #optionsThenSlide(optionsAt: number, slideAt: number): { slide: Slide; options: string[] } {
    this.#at = slideAt;
    const slide = this.#slide();
    const after = this.#at;
    this.#at = optionsAt;
    const options = this.#options(slide);
    this.#at = after;
    return { slide, options };
  }

  /** After a slide: is below 3 / is "Pizza" / was skipped / is any of / includes … */
  #predicate(slide: Slide): Condition {
    if (slide.kind === 'open_ended' || slide.kind === 'qa') {
      const token = this.#peek();
      if (token && ['mentions', 'mention', 'says', 'talks', 'refers', 'contains', 'includes'].includes(token.value)) {
        this.#fail(
          `"answered" or "not answered": a condition on ${slide.id} (${slide.kind === 'qa' ? 'Q&A' : 'open-ended'}) tests whether it was answered, not what the answer says`,
        );
      }
    }
    if (
      this.#acceptAny([
        'does not include',
        'does not contain',
        'do not include',
        'did not include',
        'does not equal',
        'is not equal to',
        'not equal to',
        '!=',
        'excludes',
        'does not have',
      ])
    ) {
      return this.#negatedValue(slide);
    }
    const contains = this.#acceptAny([
      'includes any of',
      'contains any of',
      'includes',
      'include',
      'included',
      'contains',
      'contain',
      'has selected',
      'has chosen',
      'has ticked',
      'has checked',
      'had selected',
    ]);
    if (contains) return { slide, operator: 'includes', value: this.#options(slide) };
    if (this.#acceptAny(['has an answer', 'has a response', 'has any answer', 'has been answered', 'got an answer'])) {
      return { slide, operator: 'answered' };
    }
    if (this.#acceptAny(['has no answer', 'has no response', 'has not been answered', 'got no answer'])) {
      return { slide, operator: 'not_answered' };
    }
    const be = this.#acceptAny(['is', 'was', 'are', 'were', 'gets', 'got', 'has', 'had', 'will be', 'comes back']);
    this.#acceptAny(['answered with', 'answered as', 'rated as']);
    // "is not sure": an option whose label starts with "not" is that option, not a negation.
    const labelled = this.#peek()?.value === 'not' ? this.#optionsIfAny(slide) : undefined;
    if (labelled) {
      return labelled.length > 1
        ? { slide, operator: 'includes', value: labelled }
        : { slide, operator: 'equals', value: labelled[0] as string };
    }
    const not =
      this.#accept('not') ||
      this.#acceptAny([
        'anything but',
        'anything other than',
        'anything except',
        'other than',
        'something other than',
      ]) !== undefined;
    if (
      this.#acceptAny([
        'skipped',
        'unanswered',
        'left unanswered',
        'left blank',
        'left empty',
        'empty',
        'blank',
        'been skipped',
      ])
    ) {
      return { slide, operator: not ? 'answered' : 'not_answered' };
    }
    if (this.#acceptAny(['answered', 'been answered'])) return { slide, operator: not ? 'not_answered' : 'answered' };
    if (!be && this.#acceptAny(['has no answer', 'has not been answered'])) return { slide, operator: 'not_answered' };
    this.#acceptAny(['rated', 'scored', 'given', 'marked as', 'marked', 'set to', 'answered with', 'answered as']);
    if (not) return this.#negatedValue(slide);
    return this.#valuePredicate(slide);
  }

  /** After "not", "does not include", "!=": one option or a rating, not chosen or not given. */
  #negatedValue(slide: Slide): Condition {
    this.#acceptAny(['equal to', 'the option', 'option', 'the answer']);
    const option = this.#option(slide);
    if (option !== undefined) return { slide, operator: 'not_equals', value: option };
    const n = this.#signedNumber();
    if (n !== undefined) return { slide, operator: 'not_equals', value: n };
    return this.#fail('an option or a rating after "not"');
  }

  /** An option (or options), or a rating comparison. */
  #valuePredicate(slide: Slide): Condition {
    this.#acceptAny(['equal to', 'equals', 'equal', '=', 'exactly', 'set to', 'matches']);
    if (this.#acceptAny(['any of', 'one of', 'either', 'among', 'any one of', 'at least one of']))
      return { slide, operator: 'includes', value: this.#options(slide) };
    const comparison = this.#comparison(slide);
    if (comparison) return { slide, ...comparison };
    const options = this.#optionsIfAny(slide);
    // A ranking's answer, as conditions see it, is the option ranked first: "has "Mobile app" ranked first".
    if (options)
      this.#acceptAny(['ranked first', 'ranked top', 'at the top', 'on top', 'first', 'as first', 'as the top choice']);
    if (options) {
      return options.length > 1
        ? { slide, operator: 'includes', value: options }
        : { slide, operator: 'equals', value: options[0] as string };
    }
    return this.#fail(CONDITION_EXPECTED);
  }

  #optionsIfAny(slide: Slide): string[] | undefined {
    const mark = this.#at;
    const prefixes = ['the option', 'the options', 'option', 'options', 'the answer', 'answer', 'choice', 'the choice'];
    this.#acceptAny(prefixes);
    if (this.#option(slide) === undefined) {
      this.#at = mark;
      return undefined;
    }
    this.#at = mark;
    this.#acceptAny(prefixes);
    return this.#options(slide);
  }

  #signedNumber(): number | undefined {
    const token = this.#peek();
    if (token?.kind === 'number') {
      this.#at++;
      return Number(token.value);
    }
    return this.#number();
  }

  /**
   * below 3 / at least 4 / 4 or more / exactly 5 / 5 / > 2, and a run of ratings that reaches an end
   * of the scale ("1 or 2", "9-10", "between 0 and 6" on 0–10: one comparison). A rating outside
   * the scale, or a run in its middle, is refused at its words.
   */
  #comparison(slide?: Slide): { operator: Operator; value: number } | undefined {
    const mark = this.#at;
    const prefix = this.#acceptAny([...COMPARISON_PREFIXES.keys()]);
    const between = prefix === undefined && this.#acceptAny(['between', 'from']) !== undefined;
    const numberAt = this.#at;
    const n = this.#signedNumber();
    if (n === undefined) {
      this.#at = mark;
      return undefined;
    }
    const range = this.#rangeEnd(n, between);
    this.#acceptAny(['stars', 'star', 'points', 'out of 5', 'out of 10', 'on the scale']);
    const scale = slide?.kind === 'scale' ? slide : undefined;
    const outside = (value: number) => scale !== undefined && (value < scale.min || value > scale.max);
    if (outside(n) || (range !== undefined && outside(range))) {
      this.#at = outside(n) ? numberAt : this.#at - 1;
      this.#fail(`a rating on ${scale?.id}'s scale, from ${scale?.min} to ${scale?.max}`);
    }
    if (range !== undefined) {
      const [low, high] = n <= range ? [n, range] : [range, n];
      if (scale && low === scale.min) return { operator: 'at_most', value: high };
      if (scale && high === scale.max) return { operator: 'at_least', value: low };
      this.#at = between ? mark : numberAt;
      this.#fail(
        `one comparison: ${low} to ${high} is a range in the middle of the scale, and a rule holds one comparison. ` +
          `Write a rule for each side ("below ${low}", "above ${high}"), with the in-range jump as "otherwise"`,
      );
    }
    if (between) {
      this.#at = mark;
      return undefined;
    }
    if (prefix !== undefined) return { operator: COMPARISON_PREFIXES.get(prefix) as Operator, value: n };
    if (this.#acceptAny(['or more', 'or higher', 'or above', 'or better', 'or greater', 'and above', 'and up', '+'])) {
      return { operator: 'at_least', value: n };
    }
    if (this.#acceptAny(['or less', 'or lower', 'or below', 'or fewer', 'or worse', 'and below', 'and under'])) {
      return { operator: 'at_most', value: n };
    }
    return { operator: 'equals', value: n };
  }

  /**
   * The other end of a run of ratings after `n`: "or 2", "-6" (written "0-6"), "to 6", "and 6"
   * (after "between"), "or 9" only when adjacent ("1 or 2"). Undefined when none follows.
   */
  #rangeEnd(n: number, between: boolean): number | undefined {
    const mark = this.#at;
    const token = this.#peek();
    const previous = this.#tokens[this.#at - 1];
    if (token?.kind === 'number' && token.value.startsWith('-') && previous && token.start === previous.end) {
      this.#at++;
      return -Number(token.value);
    }
    const joiner = this.#acceptAny(between ? ['and', 'to', '-'] : ['or', 'to', 'through', '-']);
    if (joiner) {
      const m = this.#signedNumber();
      if (m !== undefined && (between || joiner !== 'or' || Math.abs(m - n) === 1)) return m;
    }
    this.#at = mark;
    return undefined;
  }
}

/** The words before a rating that say how it is compared ("below 3", "at least 4"). */
const COMPARISON_PREFIXES = new Map<string, Operator>(
  (
    [
      ['less_than', ['below', 'under', 'less than', 'lower than', 'smaller than', 'fewer than', '<']],
      ['greater_than', ['above', 'over', 'more than', 'greater than', 'higher than', 'bigger than', '>']],
      ['at_least', ['at least', 'no less than', 'not less than', 'not below', '>=']],
      ['at_most', ['at most', 'no more than', 'not more than', 'not above', '<=']],
      ['equals', ['exactly', 'equal to', 'equals', '=']],
    ] as const
  ).flatMap(([operator, words]) => words.map((word) => [word, operator] as const)),
);

/** The verbs of a jump ("skip to Q4"), the words that may follow them, and the word before the slide. */
const MOVE_VERBS = [
  'skip',
  'jump',
  'go',
  'move',
  'continue',
  'proceed',
  'send them',
  'take them',
  'send the respondent',
  'take the respondent',
  'branch',
  'redirect',
  'route',
];
const MOVE_ADVERBS = ['straight', 'directly', 'right', 'ahead', 'forward'];
const MOVE_TO = ['to', 'on to', 'onto', 'at', 'with', 'straight to', '->', 'over to'];

/** What a respondent finishes: "end the survey", "submit the form". */
const ENDINGS = ['poll', 'survey', 'questionnaire', 'quiz', 'form', 'session', 'test'];

/** How an answer is said to be chosen ("is selected", "was ticked"). */
const CHOSEN_WORDS = ['selected', 'chosen', 'picked', 'ticked', 'checked', 'marked', 'the answer', 'the choice'];

/** Words after which a slide's description ends: its verb, a preposition, a connective. */
const DESCRIPTION_STOPS = new Set([
  'is',
  'was',
  'are',
  'were',
  'has',
  'had',
  'gets',
  'got',
  'equals',
  'includes',
  'contains',
  'on',
  'in',
  'for',
  'at',
  'then',
  'if',
  'and',
  'or',
  'not',
  'did',
  'does',
  'above',
  'below',
  'under',
  'over',
  'a',
  'an',
]);
/** Words of a description that only say "a slide" or point at it. */
const DESCRIPTION_FILLERS = new Set([
  'the',
  'their',
  'our',
  'your',
  'question',
  'slide',
  'rating',
  'score',
  'answer',
  'section',
  'page',
  'one',
  'with',
  'about',
  'of',
  'to',
  'for',
  'you',
  'we',
  'they',
]);

/** Whether two words are the same for naming a slide: equal, or sharing their first five letters. */
function sameWord(a: string, b: string): boolean {
  if (a === b) return true;
  return a.length >= 5 && b.length >= 5 && a.slice(0, 5) === b.slice(0, 5);
}

/** Words that end a condition rather than name an option ("If Q1 is pizza, then skip…"). */
const NOT_OPTION_WORDS = new Set([
  'then',
  'skip',
  'jump',
  'go',
  'end',
  'and',
  'or',
  'if',
  'to',
  'on',
  'in',
  'for',
  'at',
  'the',
  'a',
  'an',
  'not',
  'is',
  'was',
  'option',
  'answer',
  'question',
  'slide',
]);

/** Case, spaces and a closing `?` or `.` do not matter when text is compared. */
function normalise(text: string): string {
  return text
    .toLowerCase()
    .replace(/[’]/g, "'")
    .replace(/\s+/g, ' ')
    .replace(/[?.!]+$/, '')
    .trim();
}

/** The conditions an instruction says, and for each the user's words it was read from. */
export interface ReadInstruction {
  conditions: BranchCondition[];
  /** `sources[i]`: the words of the instruction that `conditions[i]` was read from. */
  sources: string[];
}

/**
 * Reads `instruction` against the poll's slides: the conditions it says, in order, each with an id
 * `rule-<n>`, and the words each was read from. Throws an {@link InstructionError} naming the words
 * it could not read and, when a small change to them reads, suggesting it.
 */
export function readInstruction(instruction: string, slides: readonly Slide[]): ReadInstruction {
  try {
    return new Parser(instruction, slides).parse();
  } catch (error) {
    if (!(error instanceof InstructionError) || error.suggestion !== undefined) throw error;
    const suggestion = closestReading(instruction, slides, error);
    throw suggestion === undefined ? error : new InstructionError(error.fragment, error.expected, suggestion);
  }
}

/** The conditions an instruction says ({@link readInstruction} without the sources). */
export function parseInstruction(instruction: string, slides: readonly Slide[]): BranchCondition[] {
  return readInstruction(instruction, slides).conditions;
}

/**
 * The words of the instruction language, for suggestions: a word the parser could not read is
 * compared with these (and with the poll's ids and labels) to find the reading it was probably
 * meant as. Kept beside the grammar; a word missing here only means no suggestion for its typos.
 */
const KEYWORDS = [
  'if',
  'when',
  'whenever',
  'then',
  'otherwise',
  'else',
  'and',
  'or',
  'not',
  'is',
  'was',
  'are',
  'were',
  'skip',
  'jump',
  'go',
  'move',
  'continue',
  'proceed',
  'end',
  'finish',
  'stop',
  'submit',
  'to',
  'the',
  'poll',
  'survey',
  'quiz',
  'form',
  'questionnaire',
  'question',
  'slide',
  'section',
  'page',
  'last',
  'chose',
  'choose',
  'chooses',
  'picked',
  'selected',
  'selects',
  'ticked',
  'checked',
  'voted',
  'answered',
  'answer',
  'rated',
  'rates',
  'scored',
  'gave',
  'skipped',
  'blank',
  'empty',
  'includes',
  'contains',
  'equals',
  'below',
  'under',
  'above',
  'over',
  'least',
  'most',
  'more',
  'less',
  'than',
  'exactly',
  'option',
  'any',
  'of',
  'they',
  'respondent',
  'respondents',
  ...ORDINALS,
  ...NUMBER_WORDS,
];

/** Edit distance with transpositions ("belwo" is one edit from "below"), or `limit + 1` when past it. */
function editDistance(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  const rows: number[][] = [Array.from({ length: b.length + 1 }, (_, index) => index)];
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      const above = rows[i - 1] as number[];
      let value = Math.min((above[j] as number) + 1, (row[j - 1] as number) + 1, (above[j - 1] as number) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        value = Math.min(value, ((rows[i - 2] as number[])[j - 2] as number) + 1);
      }
      row.push(value);
    }
    rows.push(row);
  }
  const distance = (rows[a.length] as number[])[b.length] as number;
  return distance > limit ? limit + 1 : distance;
}

/** Words a typo of `word` may have meant: the closest of `vocabulary`, within a third of its length. */
function nearWords(word: string, vocabulary: ReadonlySet<string>): string[] {
  const lower = word.toLowerCase();
  if (lower.length < 3) return [];
  const limit = Math.max(1, Math.floor(lower.length / 3));
  const scored: { word: string; distance: number }[] = [];
  for (const candidate of vocabulary) {
    if (candidate === lower) continue;
    const distance = editDistance(lower, candidate, limit);
    if (distance <= limit) scored.push({ word: candidate, distance });
  }
  return scored.sort((a, b) => a.distance - b.distance).map((entry) => entry.word);
}

/**
 * The closest instruction the parser reads, when one word of the refused part (from the fragment
 * on) is a typo of a known word, an id or a label, or is one word too many: each such change is
 * tried, and the first that reads is the suggestion. Undefined when none does.
 */
function closestReading(instruction: string, slides: readonly Slide[], error: InstructionError): string | undefined {
  const vocabulary = new Set<string>(KEYWORDS);
  for (const slide of slides) {
    vocabulary.add(slide.id.toLowerCase());
    if ('options' in slide) {
      for (const option of slide.options) {
        vocabulary.add(option.id.toLowerCase());
        for (const word of option.label.toLowerCase().split(/\s+/)) if (word) vocabulary.add(word);
      }
    }
  }
  const from = Math.max(0, instruction.indexOf(error.fragment));
  const words = [...instruction.matchAll(/[\p{L}][\p{L}\p{N}'’-]*/gu)].filter((match) => (match.index ?? 0) >= from);
  const reads = (candidate: string) => {
    try {
      new Parser(candidate, slides).parse();
      return true;
    } catch {
      return false;
    }
  };
  for (const match of words.slice(0, 8)) {
    const at = match.index ?? 0;
    const word = match[0];
    const before = instruction.slice(0, at);
    const after = instruction.slice(at + word.length);
    for (const replacement of nearWords(word, vocabulary).slice(0, 3)) {
      const candidate = `${before}${matchCase(word, replacement)}${after}`;
      if (reads(candidate)) return candidate;
    }
  }
  return undefined;
}

/** `replacement` in the letter case `word` was written in (all capitals, a capital first, or lower). */
function matchCase(word: string, replacement: string): string {
  if (word.length > 1 && word === word.toUpperCase()) return replacement.toUpperCase();
  if (word[0] && word[0] === word[0].toUpperCase()) return replacement[0]?.toUpperCase() + replacement.slice(1);
  return replacement;
}
