/**
 * The deck writers (the `write…` functions in server/src/modules/decks/formats/): exact GIFT and Aiken text on small
 * decks, what each writer skips and why, Moodle XML and QTI parsed back, and GIFT (Aiken, Moodle XML)
 * read back by Pollkit's own readers. deck-qti-schema.test.ts validates the QTI package against the
 * XSDs.
 */
import type { PollContent } from '@pollkit/contracts';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { strFromU8, unzipSync } from 'fflate';
import { parse as parseGift } from 'gift-pegjs';
import { describe, expect, it } from 'vitest';
import type { BankSlide } from '../../src/modules/decks/bank.js';
import type { DeckFile, DeckToWrite } from '../../src/modules/decks/deck-file.js';
import { readAiken } from '../../src/modules/decks/formats/aiken.js';
import { writeAiken } from '../../src/modules/decks/formats/aiken-writer.js';
import { readGift } from '../../src/modules/decks/formats/gift.js';
import { creditShares, writeGift } from '../../src/modules/decks/formats/gift-writer.js';
import { readMoodleXml } from '../../src/modules/decks/formats/moodle-xml.js';
import { cdata, writeMoodleXml } from '../../src/modules/decks/formats/moodle-xml-writer.js';
import { collapseWhitespace, plainTextOfHtml } from '../../src/modules/decks/formats/plain-text.js';
import { qtiIdentifier, writeQti } from '../../src/modules/decks/formats/qti-writer.js';
import { deckToWrite } from '../support/decks.js';

/** A deck as the API answers it: the slides through the contract's schema (defaults, checks). */
const deckOf = (questions: unknown[], title?: string): DeckToWrite => deckToWrite(questions, { title });

const GIFT_SPECIALS = 'tilde ~ equals = hash # braces { } colon : backslash \\ end';

/** Every slide kind, with what a writer can trip on: specials, `]]>`, `&`, unicode, line breaks, media. */
const SEVEN_KINDS = deckOf(
  [
    {
      id: '1-quiz',
      kind: 'quiz',
      text: `Which are prime? ${GIFT_SPECIALS}\nCDATA end ]]> & more, café 日本 🚀`,
      media: {
        type: 'image',
        url: 'https://example.com/primes.png',
        storedUrl: 'https://media.pollkit.test/primes.webp',
        width: 640,
        height: 480,
      },
      options: [
        { id: 'two', label: '2 ~ two' },
        {
          id: 'three',
          label: '3 = three',
          media: { type: 'image', url: 'https://example.com/3.png', storedUrl: 'https://media.pollkit.test/3.webp' },
        },
        { id: 'four', label: '4 # four {not}' },
      ],
      correctOptionIds: ['two', 'three'],
      timeLimitSec: 45,
      points: 500,
    },
    {
      id: 'lunch',
      kind: 'multiple_choice',
      type: 'multiple',
      text: 'Lunch: {pizza} or soup?',
      options: [
        { id: 'pizza', label: 'Pizza & chips' },
        { id: 'soup', label: 'Soup ]]> stew' },
      ],
    },
    {
      id: 'mood',
      kind: 'scale',
      text: 'Rate these',
      minLabel: 'Not at all',
      maxLabel: 'Very much',
      statements: [
        { id: 'coffee', text: 'Coffee' },
        { id: 'tea-2', text: 'Tea' },
      ],
    },
    {
      id: 'seasons',
      kind: 'ranking',
      text: 'Rank the seasons',
      options: [
        { id: 'spring', label: 'Spring' },
        { id: 'summer', label: 'Summer' },
        { id: 'autumn', label: 'Autumn' },
      ],
    },
    { id: 'why', kind: 'open_ended', text: 'Why?\nTell us: honestly.', maxLength: 280 },
    { id: 'ask', kind: 'qa', text: 'Questions for the speaker' },
    {
      id: 'welcome',
      kind: 'content',
      text: 'Welcome — bienvenue!\nSecond line',
      media: { type: 'youtube', url: 'https://www.youtube.com/watch?v=dQw4w9WgXcQ&t=1' },
    },
  ],
  'Seven kinds & <more>',
);

const SMALL = deckOf([
  {
    id: 'capital',
    kind: 'quiz',
    text: 'Capital of France?',
    options: [
      { id: 'paris', label: 'Paris' },
      { id: 'lyon', label: 'Lyon' },
    ],
    correctOptionIds: ['paris'],
  },
  {
    id: 'primes',
    kind: 'quiz',
    text: 'Which are prime?',
    options: [
      { id: 'two', label: '2' },
      { id: 'three', label: '3' },
      { id: 'four', label: '4' },
      { id: 'five', label: '5' },
    ],
    correctOptionIds: ['two', 'three', 'five'],
  },
  {
    id: 'lunch',
    kind: 'multiple_choice',
    text: 'Lunch?',
    options: [
      { id: 'pizza', label: 'Pizza' },
      { id: 'soup', label: 'Soup' },
    ],
  },
  { id: 'why', kind: 'open_ended', text: 'Why?' },
  { id: 'intro', kind: 'content', text: 'Welcome' },
]);

function textOf(file: DeckFile): string {
  expect(typeof file.body).toBe('string');
  return file.body as string;
}

function skippedOf(file: DeckFile) {
  return file.skipped.map(({ number, slideId, kind }) => ({ number, slideId, kind }));
}

/** Moodle's answer grades in %, question_bank::fraction_options (negatives allowed too). */
const MOODLE_GRADES = [
  100, 90, 83.33333, 80, 75, 70, 66.66667, 60, 50, 40, 33.33333, 30, 25, 20, 16.66667, 14.28571, 12.5, 11.11111, 10, 5,
];

describe('creditShares', () => {
  it.each(Array.from({ length: 20 }, (_, index) => index + 1))(
    '%i correct options: shares on Moodle’s grade list adding up to exactly 100',
    (count) => {
      const shares = creditShares(count)!;
      expect(shares).toHaveLength(count);
      const steps = shares.map((share) => Math.round(Number(share) * 100_000));
      expect(steps.reduce((sum, step) => sum + step, 0)).toBe(10_000_000);
      for (const share of shares) {
        // Moodle's import accepts a grade within 0.00001 (as a fraction) of a list entry.
        expect(
          MOODLE_GRADES.some((grade) => Math.abs(Number(share) - grade) / 100 < 0.00001),
          share,
        ).toBe(true);
        expect(share).toMatch(/^\d+(\.\d{1,5})?$/);
      }
    },
  );

  it('has none past 20 correct options (5 % is Moodle’s smallest step)', () => {
    expect(creditShares(21)).toBeNull();
    expect(creditShares(0)).toBeNull();
  });
});

describe('GIFT', () => {
  it('writes a small deck exactly', () => {
    const file = writeGift(SMALL);
    expect(file.skipped).toEqual([]);
    expect(textOf(file)).toBe(
      [
        '::capital::Capital of France?{',
        '\t=Paris',
        '\t~Lyon',
        '}',
        '',
        '::primes::Which are prime?{',
        '\t~%33.33334%2',
        '\t~%33.33333%3',
        '\t~%-100%4',
        '\t~%33.33333%5',
        '}',
        '',
        '::lunch::Lunch?{',
        '\t~Pizza',
        '\t~Soup',
        '}',
        '',
        '::why::Why?{}',
        '',
        '::intro::Welcome',
        '',
      ].join('\n'),
    );
  });

  it('escapes its special characters and writes line breaks as \\n', () => {
    const file = writeGift(deckOf([{ id: 'specials', kind: 'content', text: `${GIFT_SPECIALS}\nnext line` }]));
    expect(textOf(file)).toBe(
      '::specials::tilde \\~ equals \\= hash \\# braces \\{ \\} colon \\: backslash \\\\ end\\nnext line\n',
    );
  });

  it('writes a slide whose text would be read as markup, a format or a weight as escaped [html]', () => {
    const file = writeGift(
      deckOf([
        {
          id: 'tags',
          kind: 'quiz',
          text: 'Which tag is <b>?',
          options: [
            { id: 'bold', label: 'Bold & strong' },
            { id: 'off', label: '%50 off' },
          ],
          correctOptionIds: ['bold'],
        },
        { id: 'format', kind: 'content', text: '[plain] is a GIFT format\nsecond' },
      ]),
    );
    expect(textOf(file)).toBe(
      [
        '::tags::[html]Which tag is &lt;b&gt;?{',
        '\t=Bold &amp; strong',
        '\t~&\\#37;50 off',
        '}',
        '',
        '::format::[html]&\\#91;plain] is a GIFT format<br>second',
        '',
      ].join('\n'),
    );
  });

  it('skips scale, ranking and Q&A slides, and writes the rest of the seven kinds without their media', () => {
    const file = writeGift(SEVEN_KINDS);
    expect(skippedOf(file)).toEqual([
      { number: 3, slideId: 'mood', kind: 'scale' },
      { number: 4, slideId: 'seasons', kind: 'ranking' },
      { number: 6, slideId: 'ask', kind: 'qa' },
    ]);
    for (const skipped of file.skipped) expect(skipped.message).toMatch(/^[A-Z].+\.$/);
    const text = textOf(file);
    expect(text.match(/^::[^:]+::/gm)).toEqual(['::1-quiz::', '::lunch::', '::why::', '::welcome::']);
    expect(text).not.toContain('https://');
    expect(text).toContain('::why::Why?\\nTell us\\: honestly.{}');
  });

  it('leaves no quiz out silently when Moodle cannot share its marks', () => {
    const options = Array.from({ length: 22 }, (_, index) => ({ id: `o${index}`, label: `Option ${index}` }));
    const deck = deckOf([
      { id: 'many', kind: 'quiz', text: 'All but one', options, correctOptionIds: options.slice(1).map((o) => o.id) },
    ]);
    for (const file of [writeGift(deck), writeMoodleXml(deck)]) {
      expect(skippedOf(file)).toEqual([{ number: 1, slideId: 'many', kind: 'quiz' }]);
      expect(file.skipped[0]!.message).toContain('21');
    }
  });

  it('is read by gift-pegjs as choices (none correct for a poll), an essay and a description', () => {
    const questions = parseGift(textOf(writeGift(SEVEN_KINDS)));
    expect(questions.map((question) => [question.type, question.title])).toEqual([
      ['MC', '1-quiz'],
      ['MC', 'lunch'],
      ['Essay', 'why'],
      ['Description', 'welcome'],
    ]);
    const [quiz, poll] = questions as Extract<(typeof questions)[number], { type: 'MC' }>[];
    expect(quiz!.choices.map((choice) => [choice.text.text, choice.weight])).toEqual([
      ['2 ~ two', 50],
      ['3 = three', 50],
      ['4 # four {not}', -100],
    ]);
    expect(poll!.choices.map((choice) => [choice.text.text, choice.isCorrect, choice.weight])).toEqual([
      ['Pizza & chips', false, null],
      ['Soup ]]> stew', false, null],
    ]);
    expect(quiz!.stem.text).toBe(SEVEN_KINDS.content.questions[0]!.text);
  });
});

/**
 * What Pollkit's readers should make of a written choice, open-ended or content slide. Moodle XML
 * writes a video or link as a link showing its address (Moodle's media filter makes a player of it),
 * which a reader takes for part of the text.
 */
function expectedBankSlide(slide: PollContent['questions'][number], linksInText = false): BankSlide {
  const link = linksInText && slide.media && slide.media.type !== 'image' ? ` ${slide.media.url}` : '';
  const text = collapseWhitespace(slide.text) + link;
  switch (slide.kind) {
    case 'quiz':
    case 'multiple_choice': {
      const correctIds: string[] = slide.kind === 'quiz' ? slide.correctOptionIds : [];
      return expect.objectContaining({
        kind: 'choice',
        text,
        options: slide.options.map((option) => expect.objectContaining({ label: collapseWhitespace(option.label) })),
        correct: slide.options.flatMap((option, index) => (correctIds.includes(option.id) ? [index] : [])),
      });
    }
    case 'open_ended':
    case 'content':
      return expect.objectContaining({ kind: slide.kind, text });
    default:
      throw new Error(`${slide.kind} slides are not written`);
  }
}

describe('round trips through Pollkit’s readers', () => {
  const roundTripped = SEVEN_KINDS.content.questions.filter((slide) =>
    ['quiz', 'multiple_choice', 'open_ended', 'content'].includes(slide.kind),
  );

  it('GIFT: choice, quiz, open-ended and content slides keep kind, text, options and correct answers', () => {
    const bank = readGift(textOf(writeGift(SEVEN_KINDS)));
    expect(bank.questions.map((question) => question.name)).toEqual(roundTripped.map((slide) => slide.id));
    expect(bank.questions.map((question) => question.slide)).toEqual(
      roundTripped.map((slide) => expectedBankSlide(slide)),
    );
    expect(bank.questions.flatMap((question) => question.changes.map((change) => change.reason))).toEqual([
      'weights_simplified',
    ]);
  });

  it('GIFT: text written as [html] comes back as written', () => {
    const deck = deckOf([
      {
        id: 'tags',
        kind: 'quiz',
        text: 'Is <b> a tag? AT&amp;T\n[html] too',
        options: [
          { id: 'yes', label: '<yes>' },
          { id: 'no', label: '%0 no -> never' },
        ],
        correctOptionIds: ['yes'],
      },
      { id: 'md', kind: 'content', text: '[markdown] *stays*' },
    ]);
    const bank = readGift(textOf(writeGift(deck)));
    expect(bank.questions.map((question) => question.slide)).toEqual(
      deck.content.questions.map((slide) => expectedBankSlide(slide)),
    );
  });

  it('Aiken: a single-answer quiz keeps text, options and answer', () => {
    const bank = readAiken(textOf(writeAiken(SMALL)));
    expect(bank.questions.map((question) => question.slide)).toEqual([expectedBankSlide(SMALL.content.questions[0]!)]);
  });

  it('Moodle XML: choice, quiz, open-ended and content slides keep kind, text, options and correct answers', () => {
    const bank = readMoodleXml(textOf(writeMoodleXml(SEVEN_KINDS)));
    expect(bank.questions.map((question) => question.name)).toEqual(roundTripped.map((slide) => slide.id));
    expect(bank.questions.map((question) => question.slide)).toEqual(
      roundTripped.map((slide) => expectedBankSlide(slide, true)),
    );
  });
});

describe('Aiken', () => {
  it('writes a small deck exactly, skipping all but the single-answer quiz', () => {
    const file = writeAiken(SMALL);
    expect(textOf(file)).toBe(['Capital of France?', 'A. Paris', 'B. Lyon', 'ANSWER: A', ''].join('\n'));
    expect(skippedOf(file)).toEqual([
      { number: 2, slideId: 'primes', kind: 'quiz' },
      { number: 3, slideId: 'lunch', kind: 'multiple_choice' },
      { number: 4, slideId: 'why', kind: 'open_ended' },
      { number: 5, slideId: 'intro', kind: 'content' },
    ]);
    expect(file.skipped[0]!.message).toContain('3');
  });

  it('puts text on one line, letters the options and skips what Aiken would misread', () => {
    const options = (count: number) => Array.from({ length: count }, (_, i) => ({ id: `o${i}`, label: `Option ${i}` }));
    const file = writeAiken(
      deckOf([
        {
          id: 'lines',
          kind: 'quiz',
          text: 'First line\nsecond  line',
          options: [
            { id: 'a', label: 'One\ntwo' },
            { id: 'b', label: 'Three' },
          ],
          correctOptionIds: ['b'],
        },
        { id: 'z', kind: 'quiz', text: 'Twenty-six', options: options(26), correctOptionIds: ['o25'] },
        { id: 'too-many', kind: 'quiz', text: 'Twenty-seven', options: options(27), correctOptionIds: ['o0'] },
        {
          id: 'option-like',
          kind: 'quiz',
          text: 'A. looks like an option',
          options: options(2),
          correctOptionIds: ['o0'],
        },
        { id: 'answer-like', kind: 'quiz', text: 'ANSWER: B?', options: options(2), correctOptionIds: ['o0'] },
        { id: 'short', kind: 'quiz', text: '?', options: options(2), correctOptionIds: ['o0'] },
      ]),
    );
    const text = textOf(file);
    expect(
      text.startsWith('First line second line\nA. One two\nB. Three\nANSWER: B\n\nTwenty-six\nA. Option 0\n'),
    ).toBe(true);
    expect(text.endsWith('Z. Option 25\nANSWER: Z\n')).toBe(true);
    expect(skippedOf(file).map((skipped) => skipped.slideId)).toEqual([
      'too-many',
      'option-like',
      'answer-like',
      'short',
    ]);
  });

  it('skips every kind but quiz on the seven-kind deck, and the multi-answer quiz', () => {
    const file = writeAiken(SEVEN_KINDS);
    expect(file.body).toBe('');
    expect(skippedOf(file).map((skipped) => skipped.number)).toEqual([1, 2, 3, 4, 5, 6, 7]);
  });
});

const xml = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  parseTagValue: false,
  parseAttributeValue: false,
  isArray: (name) => ['question', 'answer', 'simpleChoice', 'value', 'assessmentItemRef', 'resource'].includes(name),
});

function wellFormed(text: string): void {
  expect(XMLValidator.validate(text)).toBe(true);
}

describe('Moodle XML', () => {
  const file = writeMoodleXml(SEVEN_KINDS);
  const body = textOf(file);
  // fast-xml-parser's output has no types: the documents are walked field by field (`any`).
  const questions = xml.parse(body).quiz.question as any[];

  it('is well-formed and skips scale, ranking and Q&A slides', () => {
    wellFormed(body);
    expect(skippedOf(file)).toEqual([
      { number: 3, slideId: 'mood', kind: 'scale' },
      { number: 4, slideId: 'seasons', kind: 'ranking' },
      { number: 6, slideId: 'ask', kind: 'qa' },
    ]);
    expect(questions.map((question) => [question['@type'], question.name.text])).toEqual([
      ['multichoice', '1-quiz'],
      ['multichoice', 'lunch'],
      ['essay', 'why'],
      ['description', 'welcome'],
    ]);
  });

  it('grades a quiz’s correct options to 100 in all and a poll’s options 0', () => {
    const [quiz, poll] = questions;
    expect(quiz.single).toBe('false');
    expect(quiz.answer.map((answer: any) => answer['@fraction'])).toEqual(['50', '50', '-100']);
    expect(poll.single).toBe('false');
    expect(poll.answer.map((answer: any) => answer['@fraction'])).toEqual(['0', '0']);
    const single = xml.parse(textOf(writeMoodleXml(SMALL))).quiz.question as any[];
    expect(single[0].single).toBe('true');
    expect(single[0].answer.map((answer: any) => answer['@fraction'])).toEqual(['100', '0']);
    expect(single[1].answer.map((answer: any) => answer['@fraction'])).toEqual([
      '33.33334',
      '33.33333',
      '-100',
      '33.33333',
    ]);
    expect(single[2].single).toBe('true');
  });

  it('keeps text (with `]]>`, `&`, unicode and line breaks) as HTML, with images as stored-copy <img>', () => {
    const [quiz, poll, essay, description] = questions;
    const html = quiz.questiontext.text as string;
    expect(plainTextOfHtml(html)).toBe(collapseWhitespace(SEVEN_KINDS.content.questions[0]!.text));
    expect(html).toContain('<br>');
    expect(html).toContain('<img src="https://media.pollkit.test/primes.webp" alt="" width="640" height="480">');
    expect(quiz.answer[1].text).toBe('3 = three<br><img src="https://media.pollkit.test/3.webp" alt="">');
    expect(plainTextOfHtml(poll.answer[1].text)).toBe('Soup ]]> stew');
    expect(essay.responseformat).toBe('plain');
    expect(description.questiontext.text).toContain('<a href="https://www.youtube.com/watch?v=dQw4w9WgXcQ&amp;t=1">');
  });
  it('splits a `]]>` across CDATA sections and leaves out characters XML cannot hold', () => {
    const wrapped = `<t>${cdata('a]]>b\u0007c')}</t>`;
    wellFormed(wrapped);
    expect(xml.parse(wrapped).t).toBe('a]]>bc');
    const bell = textOf(writeMoodleXml(deckOf([{ id: 'bell', kind: 'content', text: 'ding\u0007 dong' }])));
    expect(bell).toContain('<p>ding dong</p>');
  });
});

describe('QTI package', () => {
  const file = writeQti(SEVEN_KINDS);
  const files = unzipSync(file.body as Uint8Array);
  const text = (name: string) => strFromU8(files[name]!);
  const itemNames = [
    'items/slide_1_hquiz.xml',
    'items/slide_lunch.xml',
    'items/slide_mood_scoffee.xml',
    'items/slide_mood_stea_h2.xml',
    'items/slide_seasons.xml',
    'items/slide_why.xml',
    'items/slide_welcome.xml',
  ];

  it('holds the manifest, the test, one item a slide (a statement for scales) and the report', () => {
    expect(file.body).toBeInstanceOf(Uint8Array);
    expect(Object.keys(files)).toEqual(['imsmanifest.xml', 'test.xml', ...itemNames, 'report.json']);
    for (const name of Object.keys(files).filter((name) => name.endsWith('.xml'))) wellFormed(text(name));
    expect(skippedOf(file)).toEqual([{ number: 6, slideId: 'ask', kind: 'qa' }]);
    expect(JSON.parse(text('report.json'))).toEqual(file.skipped);
  });

  it('writes report.json as [] when nothing is skipped, and the same bytes every time', () => {
    const small = writeQti(SMALL);
    expect(JSON.parse(strFromU8(unzipSync(small.body as Uint8Array)['report.json']!))).toEqual([]);
    expect(writeQti(SMALL).body).toEqual(small.body);
  });

  it('lists the items in deck order in the test and the manifest', () => {
    const test = xml.parse(text('test.xml')).assessmentTest;
    // fast-xml-parser's output has no types: the documents are walked field by field (`any`).
    const refs = test.testPart.assessmentSection.assessmentItemRef as any[];
    expect(refs.map((ref) => ref['@href'])).toEqual(itemNames);
    expect(refs[0].timeLimits['@maxTime']).toBe('45');
    expect(refs[0].weight['@value']).toBe('500');
    expect(test['@title']).toBe('Seven kinds & <more>');
    const resources = xml.parse(text('imsmanifest.xml')).manifest.resources.resource as any[];
    expect(resources.map((resource) => [resource['@type'], resource['@href']])).toEqual([
      ['imsqti_test_xmlv2p1', 'test.xml'],
      ...itemNames.map((name) => ['imsqti_item_xmlv2p1', name]),
    ]);
  });

  it('gives items QTI identifiers and keeps the Pollkit ids as labels', () => {
    const items = itemNames.map((name) => xml.parse(text(name)).assessmentItem);
    for (const item of items) expect(item['@identifier']).toMatch(/^[A-Za-z_][A-Za-z0-9_]*$/);
    expect(items.map((item) => item['@label'])).toEqual([
      '1-quiz',
      'lunch',
      'mood/coffee',
      'mood/tea-2',
      'seasons',
      'why',
      'welcome',
    ]);
    expect(qtiIdentifier('a-b')).not.toBe(qtiIdentifier('a_b'));
    expect(qtiIdentifier('a_hb')).not.toBe(qtiIdentifier('a-b'));
  });

  it('maps each kind to its interaction', () => {
    const [quiz, poll, coffee, tea, ranking, openEnded, content] = itemNames.map(
      (name) => xml.parse(text(name)).assessmentItem,
    );
    expect(quiz.responseDeclaration['@cardinality']).toBe('multiple');
    expect(quiz.responseDeclaration.correctResponse.value).toEqual(['choice_two', 'choice_three']);
    expect(quiz.responseProcessing['@template']).toContain('match_correct');
    // An element of fast-xml-parser's untyped output (`any`).
    expect(quiz.itemBody.choiceInteraction.simpleChoice.map((choice: any) => choice['@identifier'])).toEqual([
      'choice_two',
      'choice_three',
      'choice_four',
    ]);
    expect(poll.responseDeclaration.correctResponse).toBeUndefined();
    expect(poll.responseProcessing).toBeUndefined();
    expect(poll.itemBody.choiceInteraction['@maxChoices']).toBe('0');
    for (const scale of [coffee, tea]) {
      expect(scale.responseDeclaration['@baseType']).toBe('integer');
      expect(scale.itemBody.sliderInteraction['@lowerBound']).toBe('1');
      expect(scale.itemBody.sliderInteraction['@upperBound']).toBe('5');
    }
    expect(tea.itemBody.sliderInteraction.prompt).toBe('Tea');
    expect(ranking.responseDeclaration['@cardinality']).toBe('ordered');
    expect(ranking.itemBody.orderInteraction.simpleChoice).toHaveLength(3);
    expect(openEnded.itemBody.extendedTextInteraction['@expectedLength']).toBe('280');
    expect(content.responseDeclaration).toBeUndefined();
    expect(Object.keys(content.itemBody)).toEqual(['p']);
  });

  it('escapes text and refers to images by their stored copy', () => {
    const quiz = text('items/slide_1_hquiz.xml');
    expect(quiz).toContain('CDATA end ]]&gt; &amp; more, café 日本 🚀');
    expect(quiz).toContain('<img src="https://media.pollkit.test/primes.webp" alt="" width="640" height="480"/>');
    expect(quiz).toContain('3 = three<br/><img src="https://media.pollkit.test/3.webp" alt=""/>');
    expect(text('items/slide_welcome.xml')).toContain('Welcome — bienvenue!<br/>Second line');
  });
});
