/**
 * The GIFT and Aiken readers (server/src/modules/decks/formats/gift.ts, aiken.ts): the blind dev
 * fixtures (fixtures/decks/blind/gift-aiken, README.md there) question by question, then each rule of
 * the formats on its own.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MAX_BANK_QUESTIONS } from '../../src/modules/decks/bank.js';
import { readAiken } from '../../src/modules/decks/formats/aiken.js';
import { readGift } from '../../src/modules/decks/formats/gift.js';
import {
  choiceOf,
  correctLabelsOf,
  expectBankMatches,
  labelsOf,
  only,
  readBankExpectation,
  refusal,
  slideOf,
} from '../support/bank-expectations.js';

const BLIND = join(import.meta.dirname, '../fixtures/decks/blind/gift-aiken');

/**
 * Every file of the blind set: the development files, and the holdout (`gift-moodle-export`,
 * `aiken-lms-export`), scored once unread (41/41 with Moodle XML's, after two misreadings were
 * found and fixed: fixtures/decks/blind/README.md) and read by these tests since.
 */
const DEV_FIXTURES = [
  { file: 'gift-moodle-export.gift', read: readGift },
  { file: 'aiken-lms-export.txt', read: readAiken },
  { file: 'gift-careful-teacher.gift', read: readGift },
  { file: 'gift-word-trainer.gift', read: readGift },
  { file: 'gift-broken.gift', read: readGift },
  { file: 'aiken-careful-teacher.txt', read: readAiken },
  { file: 'aiken-word-trainer.txt', read: readAiken },
  { file: 'aiken-broken.txt', read: readAiken },
];

describe('blind dev fixtures', () => {
  it.each(DEV_FIXTURES)('$file reads as its expect.json says', ({ file, read }) => {
    const bank = read(readFileSync(join(BLIND, file), 'utf8'));
    expectBankMatches(bank, readBankExpectation(join(BLIND, file.replace(/\.[a-z]+$/, '.expect.json'))));
  });
});

describe('GIFT: kinds of question', () => {
  it('a choice with = and ~ is a quiz, the = answers correct', () => {
    const question = only(readGift('Pick one {~a =b ~c}'));
    expect(choiceOf(question)).toEqual({
      kind: 'choice',
      text: 'Pick one',
      options: [{ label: 'a' }, { label: 'b' }, { label: 'c' }],
      correct: [1],
      multiple: false,
    });
    expect(question.changes).toEqual([]);
  });

  it('a choice with only ~ answers has no correct option', () => {
    const question = only(readGift('Which do you like? {~tea ~coffee}'));
    expect(choiceOf(question).correct).toEqual([]);
    expect(choiceOf(question).multiple).toBe(false);
  });

  it('weights: every positive weight is correct, and partial weights are reported as simplified', () => {
    const question = only(readGift('Noble gases? {~%50%Neon ~%50%Argon ~%-50%Nitrogen ~%0%Oxygen}'));
    expect(correctLabelsOf(question)).toEqual(['Neon', 'Argon']);
    expect(choiceOf(question).multiple).toBe(true);
    expect(question.changes.map((change) => change.reason)).toEqual(['weights_simplified']);
    expect(question.changes[0]!.message).toMatch(/^Question 1 /);
  });

  it('weights of 100 and 0 only are not a simplification, and a decimal comma is a weight', () => {
    const whole = only(readGift('Q {~%100%right ~%0%wrong}'));
    expect(correctLabelsOf(whole)).toEqual(['right']);
    expect(whole.changes).toEqual([]);
    const comma = only(readGift('Q {~%33,5%a ~%66,5%b ~c}'));
    expect(correctLabelsOf(comma)).toEqual(['a', 'b']);
    expect(comma.changes.map((change) => change.reason)).toEqual(['weights_simplified']);
  });

  it.each([
    ['{T}', 'True'],
    ['{TRUE}', 'True'],
    ['{F}', 'False'],
    ['{FALSE}', 'False'],
    ['{F#Wrong, it floats.#Right.}', 'False'],
    ['{TRUE####General feedback}', 'True'],
    ['{T#Yes: 2=2, as Moodle reads it}', 'True'],
  ])('true/false %s', (block, right) => {
    const question = only(readGift(`Ice sinks. ${block}`));
    expect(labelsOf(question)).toEqual(['True', 'False']);
    expect(correctLabelsOf(question)).toEqual([right]);
    expect(slideOf(question).text).toBe('Ice sinks.');
  });

  it('short answer becomes open-ended, its accepted answers dropped', () => {
    const question = only(readGift('Symbol for sodium? {=Na =na#Yes}'));
    expect(slideOf(question)).toEqual({ kind: 'open_ended', text: 'Symbol for sodium?' });
    expect(question.changes.map((change) => change.reason)).toEqual(['answers_dropped']);
    expect(question.changes[0]!.message).toContain('Na, na');
  });

  it('essay becomes open-ended with no change', () => {
    const question = only(readGift('Explain diffusion. {}'));
    expect(slideOf(question)).toEqual({ kind: 'open_ended', text: 'Explain diffusion.' });
    expect(question.changes).toEqual([]);
    expect(slideOf(only(readGift('Explain. {####Mention particles.}'))).kind).toBe('open_ended');
  });

  it('a description (no answer block) is a content slide; a file needs some GIFT syntax besides', () => {
    const bank = readGift('::Intro::Welcome!\n\nBreak time\n\nQ {T}');
    expect(bank.questions.map((question) => question.slide?.kind)).toEqual(['content', 'content', 'choice']);
    expect(bank.questions[0]!.name).toBe('Intro');
    expect(slideOf(bank.questions[1]!)).toEqual({ kind: 'content', text: 'Break time' });
  });

  it.each([
    ['Match them. {=Iron -> Fe =Gold -> Au}', /matching/],
    ['Density of water? {#1:0.05}', /numerical/],
    ['Density of water? {#=1:0.05 =%50%1:0.5}', /numerical/],
    ['Particles in a {=solid ~gas} vibrate.', /missing-word/],
  ])('%s is skipped as unsupported, its message naming the kind', (gift, kind) => {
    const question = only(readGift(gift));
    expect(question.slide).toBeUndefined();
    expect(question.skipped?.reason).toBe('unsupported_kind');
    expect(question.skipped?.message).toMatch(kind);
    expect(question.skipped?.message).toMatch(/^Question 1 is .*, which Pollkit has no slide for\.$/);
  });

  it('the matching message reads as a sentence', () => {
    const bank = readGift('Q {T}\n\n::Match::Match. {=a -> b =c -> d}');
    expect(bank.questions[1]!.skipped?.message).toBe(
      'Question 2 is a matching question, which Pollkit has no slide for.',
    );
    expect(bank.questions[1]!.name).toBe('Match');
  });
});

describe('GIFT: text', () => {
  it.each([
    ['\\:', ':'],
    ['\\=', '='],
    ['\\~', '~'],
    ['\\#', '#'],
    ['\\{', '{'],
    ['\\}', '}'],
    ['\\\\', '\\'],
  ])('the escape %s in the text and an answer is %s', (escaped, char) => {
    const question = only(readGift(`Is x${escaped}y right? {=x${escaped}y ~no}`));
    expect(slideOf(question).text).toBe(`Is x${char}y right?`);
    expect(labelsOf(question)).toEqual([`x${char}y`, 'no']);
  });

  it('\\n is a line break, shown as a space', () => {
    expect(slideOf(only(readGift('First\\nsecond {T}'))).text).toBe('First second');
  });

  it('an escaped backslash before a brace leaves the brace a brace', () => {
    const question = only(readGift('Path C:\\\\ {=yes ~no}'));
    expect(slideOf(question).text).toBe('Path C:\\');
    expect(labelsOf(question)).toEqual(['yes', 'no']);
  });

  it('an unknown escape is kept as written', () => {
    expect(slideOf(only(readGift('Regex \\d+ {T}'))).text).toBe('Regex \\d+');
  });

  it('escaped colons inside a name do not end it', () => {
    const question = only(readGift('::Time 10\\:30::What time? {=10\\:30 ~11\\:00}'));
    expect(question.name).toBe('Time 10:30');
    expect(labelsOf(question)).toEqual(['10:30', '11:00']);
  });

  it('[html] text and its answers become plain text', () => {
    const question = only(
      readGift('::Q::[html]<p>Heat makes <b>particles</b> move &amp; &lt;b&gt;</p>{=<i>faster</i> ~slower}'),
    );
    expect(slideOf(question).text).toBe('Heat makes particles move & <b>');
    expect(labelsOf(question)).toEqual(['faster', 'slower']);
  });

  it('[markdown] emphasis, code, links, headings and bullets are removed', () => {
    const question = only(
      readGift(
        '[markdown]## Unit 4\\n**One thing** you are _still_ *unsure* about? See [the notes](http\\://x.test/n) or `man ls`.{}',
      ),
    );
    expect(slideOf(question).text).toBe('Unit 4 One thing you are still unsure about? See the notes or man ls.');
  });

  it('[markdown] keeps snake_case words, lone asterisks and escaped markup', () => {
    const question = only(readGift('[markdown]Is snake_case_name 2 * 3 or \\*literal\\*?{T}'));
    expect(slideOf(question).text).toBe('Is snake_case_name 2 * 3 or *literal*?');
  });

  it('[plain] and [moodle] text is kept as written, only whitespace collapsed', () => {
    expect(slideOf(only(readGift('[plain]Is <b> a tag?   Yes. {T}'))).text).toBe('Is <b> a tag? Yes.');
    expect(slideOf(only(readGift('[moodle]Tom   and Jerry {T}'))).text).toBe('Tom and Jerry');
  });

  it.each([
    ['<!-- <b>note</b> -->Shown', 'Shown'],
    ['<script>if (a<b) x()</script>Shown', 'Shown'],
    ['<style>p>b\\{color: red\\}</style><p>Shown</p>', 'Shown'],
    ['Is 1 <b <c', 'Is 1 <b <c'],
    ['<a <b>Shown', 'Shown'],
    ['<!-- never closed <b>x</b>', '<!-- never closed x'],
    ['<script>never ended', 'never ended'],
  ])('[html] %s reads as plainTextOfHtml reads it', (html, text) => {
    expect(slideOf(only(readGift(`[html]${html}{}`))).text).toBe(text);
  });

  it('an answer may name its own format', () => {
    const question = only(readGift('Which is bold? {=[html]<b>this</b> ~that}'));
    expect(labelsOf(question)).toEqual(['this', 'that']);
  });

  it('untagged (Moodle format) text with HTML is shown as Moodle shows it, unless that empties it', () => {
    expect(slideOf(only(readGift('Tom &amp; <b>Jerry</b> {T}'))).text).toBe('Tom & Jerry');
    expect(labelsOf(only(readGift('Which tag makes text bold? {=<b> ~<i>}')))).toEqual(['<b>', '<i>']);
  });

  it('feedback and general feedback are not part of any text', () => {
    const question = only(readGift('Q? {=a#good ~b#bad ####Read chapter 2.}'));
    expect(labelsOf(question)).toEqual(['a', 'b']);
    expect(correctLabelsOf(question)).toEqual(['a']);
  });

  it('a multi-line question is one line of text; answers may be on their own lines', () => {
    const question = only(readGift('Which of these is\na cold desert?\n{\n  ~Sahara\n  =Antarctic\n}'));
    expect(slideOf(question).text).toBe('Which of these is a cold desert?');
    expect(labelsOf(question)).toEqual(['Sahara', 'Antarctic']);
  });
});

describe('GIFT: layout', () => {
  it('comment lines are ignored, also inside an answer block and as its first line', () => {
    const bank = readGift(
      ['// header', '::A::Q1 {', '// first line of the block', '~a', '  // between answers', '=b', '}'].join('\n'),
    );
    const question = only(bank);
    expect(question.line).toBe(2);
    expect(labelsOf(question)).toEqual(['a', 'b']);
    expect(correctLabelsOf(question)).toEqual(['b']);
  });

  it('$CATEGORY lines and comment-only blocks are not questions and take no number', () => {
    const bank = readGift('$CATEGORY: $course$/top/Unit 1\n\n// notes\n// more\n\n::Q::Q {T}\n\n$CATEGORY: x\n\nR {F}');
    expect(bank.questions.map((question) => [question.number, question.line])).toEqual([
      [1, 6],
      [2, 10],
    ]);
  });

  it('lines are 1-based, counted past blank lines, comments and whitespace-only lines', () => {
    const bank = readGift('\n\n// c\nQ1 {T}\n   \n\t\n// c\n\nQ2\n{\n~a\n=b\n}\n');
    expect(bank.questions.map((question) => question.line)).toEqual([4, 9]);
  });

  it('CRLF, lone CR and a BOM read like LF', () => {
    const lf = readGift('::One::Q1? {\n=a\n~b\n}\n\n::Two::Q2 {T}\n');
    expect(readGift(`\ufeff${'::One::Q1? {\r\n=a\r\n~b\r\n}\r\n\r\n::Two::Q2 {T}\r\n'}`)).toEqual(lf);
    expect(readGift('::One::Q1? {\r=a\r~b\r}\r\r::Two::Q2 {T}\r')).toEqual(lf);
    expect(JSON.stringify(lf)).not.toMatch(/\\r|\ufeff/);
  });

  it('questions are numbered in file order, skipped ones included', () => {
    const bank = readGift('A {T}\n\nB {=x -> y =z -> w}\n\nC {\n\n=a}\n\nD {F}');
    expect(
      bank.questions.map((question) => [question.number, question.slide?.kind ?? question.skipped?.reason]),
    ).toEqual([
      [1, 'choice'],
      [2, 'unsupported_kind'],
      [3, 'malformed'],
      [4, 'malformed'],
      [5, 'choice'],
    ]);
  });
});

describe('GIFT: broken questions', () => {
  it('an unclosed { is malformed, with its line, and the next question still reads', () => {
    const bank = readGift('// c\n::Plants::Which gas? {\n=CO2\n~O2\n\n::Equator::Through Brazil. {T}');
    expect(bank.questions[0]).toEqual({
      number: 1,
      line: 2,
      skipped: {
        reason: 'malformed',
        message: 'Question 1, on line 2, opens an answer block with { on line 2 but never closes it.',
      },
      changes: [],
    });
    expect(bank.questions[1]!.name).toBe('Equator');
    expect(correctLabelsOf(bank.questions[1]!)).toEqual(['True']);
  });

  it.each([
    ['a } without a {', 'Longest river? =Nile ~Congo}', /closing } on line 1 with no \{ before it/],
    ['a } after the answer block', 'Q {T} and }', /closing } on line 1/],
    ['a { inside an answer block', 'Q {=a {~b}', /second \{ on line 1/],
    ['a name never closed', '::Name Q {T}', /never ends with ::/],
    ['no text before the answers', '{=a ~b}', /no question text/],
    ['an answer block of neither kind', 'Capital? {Paris}', /neither true\/false/],
    ['text before the first answer', 'Capital? {Paris ~Lyon}', /before the first = or ~/],
    ['an empty answer', 'Capital? {=Paris ~}', /no text after its = or ~/],
    ['a name and nothing else', '::Only a name::', /has no text/],
  ])('%s is malformed', (_, gift, problem) => {
    const question = only(readGift(gift));
    expect(question.skipped?.reason).toBe('malformed');
    expect(question.skipped?.message).toMatch(problem);
    expect(question.name).toBeUndefined();
    const withNext = readGift(`${gift}\n\n::Next::Next {T}`);
    expect(withNext.questions.map((next) => next.name)).toEqual([undefined, 'Next']);
  });

  it('the line of an unclosed { is the line it is on', () => {
    const question = only(readGift('Long\nquestion\ntext {\n=a'));
    expect(question.line).toBe(1);
    expect(question.skipped?.message).toContain('{ on line 3');
  });
});

describe('GIFT: files that are not GIFT', () => {
  it.each([
    ['empty', ''],
    ['blank', ' \n\r\n\t'],
    ['a BOM only', '\ufeff'],
    ['binary', 'PK\u0003\u0004\u0000\u0000\u0008\u0000'],
    ['only comments and a category', '// hello\n$CATEGORY: x\n'],
    ['plain prose', 'Dear parents,\n\nthe trip is on Monday.'],
    ['an Aiken file', 'Which?\nA) x\nB) y\nANSWER: A'],
  ])('%s is refused whole', (_, text) => {
    const refused = refusal(() => readGift(text));
    expect(refused.message.length).toBeGreaterThan(0);
    expect(refused.problems.length).toBeGreaterThan(0);
  });
});

describe('GIFT and Aiken: large files', () => {
  it('a file of 1,000 questions reads; one of 1,001 is refused, naming the limit and where question 1,001 starts', () => {
    const question = '::Q::[markdown]Which **one** is _right_ \\{x\\}?{\n// why\n~%50%a#fb\n~b\n=c####general\n}\n\n';
    const bank = readGift(question.repeat(MAX_BANK_QUESTIONS));
    expect(bank.questions.length).toBe(MAX_BANK_QUESTIONS);
    expect(bank.questions.at(-1)!.slide?.kind).toBe('choice');
    const refused = refusal(() => readGift(question.repeat(20_000)));
    expect(refused.message).toContain(`more than ${MAX_BANK_QUESTIONS} questions`);
    expect(refused.problems[0]?.line).toBe(MAX_BANK_QUESTIONS * 7 + 1);
  });

  it.each([
    ['markdown markers with no closer', '[markdown]', '*a _b `c [d ](e ** __ ~~ ``` <f '],
    ['tags never closed', '[html]', 'a<b '],
    ['tags never closed, in Moodle format', '', '<b <i '],
    ['comments never closed', '[html]', '<!--x> '],
    ['scripts never ended', '[html]', '<script>x '],
    ['tags closed only inside comments', '[html]', '<a<!-->--> '],
    ['scripts ended only inside comments', '[html]', '<script><!--</script>--> '],
  ])('a 2 MiB GIFT question of %s reads, linearly', (_, format, unit) => {
    const text = `${format}${unit.repeat(Math.ceil((2 * 1024 * 1024) / unit.length))}{}`;
    expect(only(readGift(text)).number).toBe(1);
  });

  it('an Aiken file of 1,000 questions reads; one of 1,001 is refused, naming the limit', () => {
    const question = 'Which one?\nA) a\nB) b\nC) c\nANSWER: B\n\n';
    expect(readAiken(question.repeat(MAX_BANK_QUESTIONS)).questions.length).toBe(MAX_BANK_QUESTIONS);
    const refused = refusal(() => readAiken(question.repeat(40_000)));
    expect(refused.message).toContain(`more than ${MAX_BANK_QUESTIONS} questions`);
    expect(refused.problems[0]?.line).toBe(MAX_BANK_QUESTIONS * 6 + 1);
  });
});

describe('Aiken', () => {
  it('reads text, options with either label style, and the answer', () => {
    const question = only(readAiken('Which year?\nA) 1961\nB. 1989\nC)1991\nANSWER: B'));
    expect(question).toEqual({
      number: 1,
      line: 1,
      slide: {
        kind: 'choice',
        text: 'Which year?',
        options: [{ label: '1961' }, { label: '1989' }, { label: '1991' }],
        correct: [1],
        multiple: false,
      },
      changes: [],
    });
  });

  it('is plain text: no escapes, no HTML, whitespace collapsed', () => {
    const question = only(readAiken('Is   <b>this</b> \\{x\\} &amp; {=y}?\nA)\t<i>yes</i>  \nB) no\nANSWER: A'));
    expect(slideOf(question).text).toBe('Is <b>this</b> \\{x\\} &amp; {=y}?');
    expect(labelsOf(question)).toEqual(['<i>yes</i>', 'no']);
  });

  it('BOM, CRLF, tabs, indentation and extra blank lines', () => {
    const bank = readAiken(
      '\ufeff  Q1?  \r\n\tA.\tone\r\n  B.  two\r\n  ANSWER:  b  \r\n\r\n\r\n\r\nQ2?\r\nA) x\r\nB) y\r\nANSWER: A',
    );
    expect(
      bank.questions.map((question) => [question.line, slideOf(question).text, correctLabelsOf(question)]),
    ).toEqual([
      [1, 'Q1?', ['two']],
      [8, 'Q2?', ['x']],
    ]);
  });

  it('question text over several lines is one text; a blank line between text and options is allowed', () => {
    const bank = readAiken('First line\nsecond line\nA) x\nB) y\nANSWER: A\n\nQ?\n\nA) x\n\nB) y\n\nANSWER: B');
    expect(bank.questions.map((question) => slideOf(question).text)).toEqual(['First line second line', 'Q?']);
  });

  it('a label-like start inside text is not an option', () => {
    const question = only(readAiken('A.S.A.P. means?\nA) As soon as possible\nB) Later\nANSWER: A'));
    expect(slideOf(question).text).toBe('A.S.A.P. means?');
  });

  it.each([
    ['no ANSWER line', 'Q?\nA) x\nB) y', /no ANSWER: line/],
    ['an ANSWER naming no option', 'Q?\nA) x\nB) y\nANSWER: E', /ANSWER: E, but it has no option E/],
    ['an ANSWER with no letter', 'Q?\nA) x\nANSWER:', /names no option/],
    ['an ANSWER with two letters', 'Q?\nA) x\nB) y\nANSWER: A, B', /not one option letter/],
    ['no options', 'Q?\nANSWER: A', /no options/],
    ['options with no text before them', 'A) x\nB) y\nANSWER: A', /no question text/],
    ['an option with no text', 'Q?\nA) x\nB)\nANSWER: A', /option B with no text/],
    ['two options with one letter', 'Q?\nA) x\nA) y\nANSWER: A', /two options labelled A/],
  ])('%s is malformed, and does not swallow its neighbours', (_, broken, problem) => {
    const bank = readAiken(`Before?\nA) b\nANSWER: A\n\n${broken}\n\nAfter?\nA) a\nB) b\nANSWER: B`);
    expect(bank.questions.map((question) => question.slide?.kind ?? question.skipped?.reason)).toEqual([
      'choice',
      'malformed',
      'choice',
    ]);
    expect(bank.questions[1]!.line).toBe(5);
    expect(bank.questions[1]!.skipped?.message).toMatch(/^Question 2, on line 5, /);
    expect(bank.questions[1]!.skipped?.message).toMatch(problem);
    expect(slideOf(bank.questions[2]!).text).toBe('After?');
  });

  it('a question without ANSWER directly followed by the next (no blank line) still lets it read', () => {
    const bank = readAiken('Q1?\nA) x\nB) y\nQ2?\nA) p\nB) q\nANSWER: B');
    expect(bank.questions.map((question) => [question.line, question.slide?.kind ?? question.skipped?.reason])).toEqual(
      [
        [1, 'malformed'],
        [4, 'choice'],
      ],
    );
  });

  it('a stray paragraph before a question is its own malformed question', () => {
    const bank = readAiken('History quiz\n\nQ?\nA) x\nANSWER: A');
    expect(bank.questions.map((question) => question.skipped?.reason ?? slideOf(question).text)).toEqual([
      'malformed',
      'Q?',
    ]);
  });

  it.each([
    ['empty', ''],
    ['blank', '\r\n \n'],
    ['binary', '\u0000\u0001\u0002ANSWER: A'],
    ['prose with no ANSWER line', 'Dear parents,\nA) the trip\nB) the fair'],
    ['a GIFT file', '::Q::Which? {=a ~b}'],
  ])('%s is refused whole', (_, text) => {
    const refused = refusal(() => readAiken(text));
    expect(refused.message.length).toBeGreaterThan(0);
    expect(refused.problems.length).toBeGreaterThan(0);
  });
});
