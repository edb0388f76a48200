import type { BranchCondition, Slide } from '@pollkit/contracts';

/**
 * The rule-based reader of skip logic in plain English: a hand-written recursive-descent parser
 * over a small tokenizer, so that every phrase it accepts is a production below and every refusal
 * names the words it could not read and what it expected there. Hand-written rather than generated:
 * the language is small, the productions need the poll (a slide reference must resolve to a slide,
 * an option to one of that slide's options), and the error messages are the product.
 *
 *   instruction := rule (separator rule)*
 *   rule        := ("if" | "when") condition [","] ["then"] action
 *                | action ("if" | "when") condition
 *                | ("otherwise" | "else") [","] (("if" | "when") condition [","] ["then"] action | action)
 *   condition   := slide predicate                       Q2 is below 3, Q1 is "Pizza", Q4 was skipped
 *                | subject verb …                        they chose "Pizza" on Q1, they did not answer Q2
 *   action      := ("skip" | "jump" | "go" | "move" | "continue") ["straight"] ["ahead"] "to" slide
 *                | "skip" slide                          the slide after it
 *                | "end" ["the" ("poll" | "survey")] | "finish" … | "stop" …
 *   slide       := Q2 | question 2 | slide 3 | the second question | the last slide | an id | "quoted text"
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
  ) {
    super(`Could not understand "${fragment}": expected ${expected}`);
  }
}

type TokenKind = 'word' | 'number' | 'quoted' | 'symbol';
interface Token {
  kind: TokenKind;
  /** Lower-cased for words; the digits for numbers; the inner text for quoted strings. */
  value: string;
  /** Offset in the instruction, for quoting the rest of the clause in errors. */
  start: number;
}

const TOKEN =
  /\s*(?:(["“”'‘’])(.*?)(?:["“”'‘’])|(-?\d+(?:\.\d+)?)|(<=|>=|[<>=;,.:+])|([\p{L}\p{N}_#-]+(?:['’][\p{L}]+)?))/uy;

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
    if (match[2] !== undefined) tokens.push({ kind: 'quoted', value: match[2], start });
    else if (match[3] !== undefined) tokens.push({ kind: 'number', value: match[3], start });
    else if (match[4] !== undefined) tokens.push({ kind: 'symbol', value: match[4], start });
    else if (match[5] !== undefined) splitWord(match[5], start, tokens);
    position = TOKEN.lastIndex;
  }
  return tokens;
}

/** `Q2` → `q`, `2`; `didn't` → `did`, `not`; `#3` → `3`; anything else lower-cased. */
function splitWord(word: string, start: number, tokens: Token[]): void {
  let lower = word.toLowerCase().replace(/’/g, "'");
  // "Q1's answer": the possessive says nothing.
  if (lower.endsWith("'s")) lower = lower.slice(0, -2);
  const q = /^(q|#)(\d+)$/.exec(lower);
  if (q) {
    // "#2" is the number alone ("question #2"); "Q2" is "q" and the number.
    if (q[1] === 'q') tokens.push({ kind: 'word', value: 'q', start });
    tokens.push({ kind: 'number', value: q[2] as string, start: start + 1 });
    return;
  }
  const negated = /^(did|does|do|is|was|were|are)n't$/.exec(lower);
  if (negated) {
    tokens.push({ kind: 'word', value: negated[1] as string, start }, { kind: 'word', value: 'not', start });
    return;
  }
  tokens.push({ kind: 'word', value: lower, start });
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
const SUBJECTS = ['they', 'someone', 'somebody', 'anyone', 'people', 'respondents', 'voters', 'you', 'he', 'she'];
const SUBJECT_NOUNS = ['respondent', 'voter', 'participant', 'user', 'person'];

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

  parse(): BranchCondition[] {
    const rules: { condition: Condition; action: Action }[] = [];
    this.#skipSeparators();
    if (this.#done()) this.#fail('at least one rule, such as "If Q2 is below 3, skip to Q4"');
    while (!this.#done()) {
      rules.push(...this.#rule(rules.at(-1)?.condition.slide));
      this.#skipSeparators();
    }
    return rules.map(({ condition, action }, index) => ({
      id: `rule-${index + 1}`,
      if:
        condition.value === undefined
          ? { slideId: condition.slide.id, operator: condition.operator }
          : { slideId: condition.slide.id, operator: condition.operator, value: condition.value },
      // biome-ignore lint/suspicious/noThenProperty: `then` is the field name of the rule's action.
      then: action,
    }));
  }

  #skipSeparators(): void {
    while (this.#acceptAny([';', '.', ',', 'and', 'also', 'then']) !== undefined) {
      // Separators between rules carry no meaning.
    }
  }

  #rule(previousSlide: Slide | undefined): { condition: Condition; action: Action }[] {
    if (this.#acceptAny(['otherwise', 'else', 'or else', 'in all other cases', 'in any other case'])) {
      this.#accept(',');
      if (this.#acceptAny(['if', 'when', 'whenever'])) return [this.#conditionThenAction()];
      if (!previousSlide) this.#fail('a rule with a condition before "otherwise"');
      const action = this.#action();
      // Whatever the earlier rules of that slide did not catch: answered or not, this applies.
      return [
        { condition: { slide: previousSlide, operator: 'answered' }, action },
        { condition: { slide: previousSlide, operator: 'not_answered' }, action },
      ];
    }
    if (this.#acceptAny(['if', 'when', 'whenever', 'in case'])) return [this.#conditionThenAction()];
    if (this.#startsAction()) {
      const action = this.#action();
      this.#accept(',');
      if (!this.#acceptAny(['if', 'when', 'whenever', 'for anyone who', 'for those who', 'for people who'])) {
        this.#fail('"if" and a condition after the action, as in "skip to Q4 if Q2 is below 3"');
      }
      return [{ condition: this.#condition(), action }];
    }
    return this.#fail(`a rule starting with "if", such as "If Q2 is below 3, skip to Q4", or ${ACTION_EXPECTED}`);
  }

  #conditionThenAction(): { condition: Condition; action: Action } {
    const condition = this.#condition();
    this.#accept(',');
    this.#acceptAny(['then', 'they should', 'send them', 'take them']);
    this.#accept(',');
    return { condition, action: this.#action() };
  }

  // --- actions -------------------------------------------------------------------------------

  #startsAction(): boolean {
    const token = this.#peek();
    return (
      token?.kind === 'word' &&
      ['skip', 'jump', 'go', 'move', 'continue', 'proceed', 'end', 'finish', 'stop', 'send', 'take'].includes(
        token.value,
      )
    );
  }

  #action(): Action {
    if (
      this.#acceptAny([
        'end the poll',
        'end the survey',
        'end the questionnaire',
        'end the quiz',
        'end it',
        'end',
        'finish the poll',
        'finish the survey',
        'finish',
        'stop the poll',
        'stop the survey',
        'stop',
        'go to the end',
        'skip to the end',
        'jump to the end',
      ])
    ) {
      this.#accept('of the poll') || this.#accept('of the survey');
      return { action: 'end' };
    }
    const verb = this.#acceptAny(['skip', 'jump', 'go', 'move', 'continue', 'proceed', 'send them', 'take them']);
    if (!verb) return this.#fail(ACTION_EXPECTED);
    this.#acceptAny(['straight', 'directly', 'right', 'ahead', 'forward']);
    if (this.#acceptAny(['to', 'on to', 'onto', 'at', 'with'])) {
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
    if (this.#accept('slide') || this.#accept('slide #')) {
      const n = this.#number();
      if (n !== undefined) return this.#nth(this.#slides, n, 'slide', start);
      this.#at = start;
    }
    if (this.#accept('the')) {
      const token = this.#peek();
      const ordinal = token?.kind === 'word' ? ORDINALS.indexOf(token.value) : -1;
      const last = token?.kind === 'word' && token.value === 'last';
      if (ordinal >= 0 || last) {
        this.#at++;
        const noun = this.#acceptAny(['question', 'slide']);
        if (noun) {
          const list = noun === 'slide' ? this.#slides : this.#questions;
          if (last) return this.#nth(list, list.length, noun, start);
          return this.#nth(list, ordinal + 1, noun, start);
        }
      }
      this.#at = start;
    }
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
      const byId = this.#slides.find((slide) => slide.id.toLowerCase() === token.value);
      if (byId) {
        this.#at++;
        return byId;
      }
    }
    return this.#fail(SLIDE_EXPECTED);
  }

  /** An option of `slide`: its label in quotes, or its id. */
  #option(slide: Slide): string | undefined {
    const options = 'options' in slide ? slide.options : [];
    const token = this.#peek();
    if (!token || (token.kind !== 'quoted' && token.kind !== 'word')) return undefined;
    const wanted = token.kind === 'quoted' ? normalise(token.value) : token.value;
    const found =
      options.find((option) => normalise(option.label) === wanted) ??
      options.find((option) => option.id.toLowerCase() === wanted);
    if (!found) {
      if (token.kind === 'quoted') {
        const labels = options.map((option) => `"${option.label}"`).join(', ');
        this.#fail(
          options.length > 0
            ? `an option of ${slide.id}: one of ${labels}`
            : `something slide ${slide.id} (a ${slide.kind.replace('_', '-')} slide) can be answered with`,
        );
      }
      return undefined;
    }
    this.#at++;
    return found.id;
  }

  /** `"A", "B" or "C"`: at least one option. */
  #options(slide: Slide): string[] {
    const first = this.#option(slide);
    if (first === undefined) this.#fail(`an option of ${slide.id}, by its label in quotes or its id`);
    const chosen = [first];
    for (;;) {
      const mark = this.#at;
      this.#accept(',');
      if (!this.#acceptAny(['or', 'and', 'nor']) && this.#at === mark) break;
      const next = this.#option(slide);
      if (next === undefined) {
        this.#at = mark;
        break;
      }
      chosen.push(next);
    }
    return chosen;
  }

  /** An option named without its slide (`they chose "Pizza"`): the one slide that has it. */
  #optionAnywhere(): { slide: Slide; optionId: string } | undefined {
    const token = this.#peek();
    if (token?.kind !== 'quoted') return undefined;
    const wanted = normalise(token.value);
    const matches = this.#slides.flatMap((slide) =>
      'options' in slide
        ? slide.options.filter((option) => normalise(option.label) === wanted).map((option) => ({ slide, option }))
        : [],
    );
    if (matches.length === 1) {
      this.#at++;
      return { slide: matches[0]!.slide, optionId: matches[0]!.option.id };
    }
    if (matches.length > 1) {
      this.#fail(
        `the slide of "${token.value}", an option of several slides: say which, as in "chose \\"${token.value}\\" on Q2"`,
      );
    }
    return undefined;
  }

  // --- conditions ----------------------------------------------------------------------------

  #condition(): Condition {
    if (this.#subject()) return this.#subjectCondition();
    const slide = this.#slide();
    this.#accept('answer') || this.#accept('rating') || this.#accept('score') || this.#accept('response');
    return this.#predicate(slide);
  }

  #subject(): boolean {
    const token = this.#peek();
    if (token?.kind !== 'word') return false;
    if (SUBJECTS.includes(token.value)) {
      this.#at++;
      return true;
    }
    const start = this.#at;
    if (this.#acceptAny(['the', 'a', 'any'])) {
      const noun = this.#peek();
      if (noun?.kind === 'word' && SUBJECT_NOUNS.includes(noun.value)) {
        this.#at++;
        return true;
      }
    }
    this.#at = start;
    return false;
  }

  /** After "they": chose / rated / answered / did not answer … */
  #subjectCondition(): Condition {
    if (this.#acceptAny(['did not answer', 'does not answer', 'do not answer', 'skipped', 'skip', 'skips', 'left'])) {
      const slide = this.#slide();
      this.#accept('blank') || this.#accept('empty') || this.#accept('unanswered');
      return { slide, operator: 'not_answered' };
    }
    const negated = this.#acceptAny(['did not choose', 'did not pick', 'did not select', 'did not vote for']);
    const chose =
      negated ??
      this.#acceptAny([
        'chose',
        'choose',
        'chooses',
        'picked',
        'pick',
        'picks',
        'selected',
        'select',
        'selects',
        'voted for',
        'vote for',
        'votes for',
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
    if (this.#acceptAny(['rated', 'rate', 'rates', 'gave', 'give', 'gives', 'scored', 'score', 'scores'])) {
      const slide = this.#slide();
      this.#accept('a') || this.#accept('an');
      const comparison = this.#comparison();
      if (!comparison) this.#fail('a rating, such as "below 3", "at least 4" or "5"');
      return { slide, ...comparison };
    }
    if (this.#acceptAny(['answered', 'answer', 'answers', 'responded to', 'respond to'])) {
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

  /** After a slide: is below 3 / is "Pizza" / was skipped / is any of … */
  #predicate(slide: Slide): Condition {
    const be = this.#acceptAny(['is', 'was', 'are', 'were', 'gets', 'got', 'has', 'had']);
    const not = this.#accept('not');
    if (this.#acceptAny(['skipped', 'unanswered', 'left blank', 'left empty', 'empty', 'blank', 'been skipped'])) {
      return { slide, operator: not ? 'answered' : 'not_answered' };
    }
    if (this.#acceptAny(['answered', 'been answered'])) return { slide, operator: not ? 'not_answered' : 'answered' };
    if (!be && this.#acceptAny(['has no answer', 'has not been answered'])) return { slide, operator: 'not_answered' };
    this.#acceptAny(['rated', 'scored', 'given']);
    if (not) {
      const option = this.#option(slide);
      if (option !== undefined) return { slide, operator: 'not_equals', value: option };
      const n = this.#signedNumber();
      if (n !== undefined) return { slide, operator: 'not_equals', value: n };
      this.#fail(`an option or a rating after "not"`);
    }
    return this.#valuePredicate(slide);
  }

  /** An option (or options), or a rating comparison. */
  #valuePredicate(slide: Slide): Condition {
    if (this.#acceptAny(['any of', 'one of', 'either', 'among']))
      return { slide, operator: 'includes', value: this.#options(slide) };
    const comparison = this.#comparison();
    if (comparison) return { slide, ...comparison };
    const options = this.#optionsIfAny(slide);
    if (options) {
      return options.length > 1
        ? { slide, operator: 'includes', value: options }
        : { slide, operator: 'equals', value: options[0] as string };
    }
    return this.#fail(CONDITION_EXPECTED);
  }

  #optionsIfAny(slide: Slide): string[] | undefined {
    const mark = this.#at;
    this.#accept('the option');
    if (this.#option(slide) === undefined) {
      this.#at = mark;
      return undefined;
    }
    this.#at = mark;
    this.#accept('the option');
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

  /** below 3 / at least 4 / 4 or more / exactly 5 / 5 / > 2 */
  #comparison(): { operator: Operator; value: number } | undefined {
    const mark = this.#at;
    const prefix = this.#acceptAny([...COMPARISON_PREFIXES.keys()]);
    const n = this.#signedNumber();
    if (n === undefined) {
      this.#at = mark;
      return undefined;
    }
    if (prefix !== undefined) return { operator: COMPARISON_PREFIXES.get(prefix) as Operator, value: n };
    if (this.#acceptAny(['or more', 'or higher', 'or above', 'or better', 'or greater', '+'])) {
      return { operator: 'at_least', value: n };
    }
    if (this.#acceptAny(['or less', 'or lower', 'or below', 'or fewer', 'or worse'])) {
      return { operator: 'at_most', value: n };
    }
    return { operator: 'equals', value: n };
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

/** Case, spaces and a closing `?` or `.` do not matter when text is compared. */
function normalise(text: string): string {
  return text
    .toLowerCase()
    .replace(/[’]/g, "'")
    .replace(/\s+/g, ' ')
    .replace(/[?.!]+$/, '')
    .trim();
}

/**
 * Reads `instruction` against the poll's slides: the conditions it says, in order, each with an id
 * `rule-<n>`. Throws an {@link InstructionError} naming the words it could not read.
 */
export function parseInstruction(instruction: string, slides: readonly Slide[]): BranchCondition[] {
  return new Parser(instruction, slides).parse();
}
