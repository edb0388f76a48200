/**
 * What a question-bank reader (server/src/modules/decks/formats) should make of a file, as the blind
 * fixtures' `*.expect.json` files say it (server/test/fixtures/decks/blind/brief.md), and the check
 * of a reader's `Bank` against it.
 */
import { readFileSync } from 'node:fs';
import { expect } from 'vitest';
import {
  type Bank,
  type BankQuestion,
  BankRefused,
  type BankSlide,
  type SkipReason,
} from '../../src/modules/decks/bank.js';

interface ExpectedSlide {
  /** `quiz`: a choice with a correct option; `multiple_choice`: a choice with none. */
  kind: 'quiz' | 'multiple_choice' | 'open_ended' | 'content';
  text: string;
  /** Option labels in file order. */
  options?: string[];
  /** The labels of the correct options. */
  correct?: string[];
  multiple?: boolean;
  /** `question`, `option:<label>` or `none`. */
  image?: string;
}

interface ExpectedQuestion {
  number: number;
  name?: string;
  line?: number;
  slide?: ExpectedSlide;
  skipped?: SkipReason;
  /** Why it is skipped, in the writer's words (not compared). */
  why?: string;
  /** How it was changed, in the writer's words: the question must have a change. */
  changed?: string;
  note?: string;
}

export interface BankExpectation {
  format: 'gift' | 'aiken' | 'moodle_xml';
  notes?: string;
  /** The file must be refused whole (`BankRefused`); there are no questions then. */
  refused?: boolean;
  why?: string;
  still_imported?: number[];
  questions?: ExpectedQuestion[];
}

export function readBankExpectation(path: string): BankExpectation {
  return JSON.parse(readFileSync(path, 'utf8')) as BankExpectation;
}

/** Words in a `changed` expectation that name one change reason; others only need some change. */
const CHANGE_REASONS_BY_WORDING = [{ pattern: /answers? dropped/i, reason: 'answers_dropped' }] as const;

/**
 * The bank holds exactly the expected questions, in order, each checked field by field: number,
 * name (absent when the expectation has none), line when expected, kind, text, option labels,
 * correct labels, `multiple` when expected, images when expected, skip reason, and a change when one
 * is expected. Each failure names the question, so one run lists what is wrong with which.
 */
export function expectBankMatches(bank: Bank, expectation: BankExpectation): void {
  const expected = expectation.questions ?? [];
  expect(
    bank.questions.map((question) => question.number),
    'question numbers',
  ).toEqual(expected.map((question) => question.number));
  expected.forEach((expectedQuestion, index) => {
    expectQuestionMatches(bank.questions[index]!, expectedQuestion);
  });
}

function expectQuestionMatches(actual: BankQuestion, expected: ExpectedQuestion): void {
  const where = `question ${expected.number}`;
  expect(actual.number, `${where}: number`).toBe(expected.number);
  expect(actual.name, `${where}: name`).toBe(expected.name);
  if (expected.line !== undefined) expect(actual.line, `${where}: line`).toBe(expected.line);

  if (expected.skipped !== undefined) {
    expect(actual.slide, `${where}: skipped, so no slide`).toBeUndefined();
    expect(actual.skipped?.reason, `${where}: skip reason (${actual.skipped?.message})`).toBe(expected.skipped);
    expect(actual.skipped?.message.length, `${where}: skip message`).toBeGreaterThan(0);
  } else {
    expect(actual.skipped, `${where}: not skipped (${actual.skipped?.message})`).toBeUndefined();
    expect(actual.slide, `${where}: slide`).toBeDefined();
    expectSlideMatches(actual.slide!, expected.slide!, where);
  }

  if (expected.changed !== undefined) {
    expect(actual.changes.length, `${where}: changed (${expected.changed})`).toBeGreaterThan(0);
    for (const { pattern, reason } of CHANGE_REASONS_BY_WORDING) {
      if (pattern.test(expected.changed)) {
        expect(
          actual.changes.map((change) => change.reason),
          `${where}: change reason`,
        ).toContain(reason);
      }
    }
    for (const change of actual.changes) expect(change.message.length, `${where}: change message`).toBeGreaterThan(0);
  }
}

function expectSlideMatches(actual: BankSlide, expected: ExpectedSlide, where: string): void {
  expect(kindOf(actual), `${where}: kind`).toBe(expected.kind);
  expect(actual.text, `${where}: text`).toBe(expected.text);
  if (actual.kind === 'choice') {
    const labels = actual.options.map((option) => option.label);
    expect(labels, `${where}: options`).toEqual(expected.options);
    expect(
      actual.correct.map((index) => labels[index]),
      `${where}: correct`,
    ).toEqual(expected.correct ?? []);
    if (expected.multiple !== undefined) expect(actual.multiple, `${where}: multiple`).toBe(expected.multiple);
  } else {
    expect(expected.options, `${where}: options expected on a ${actual.kind} slide`).toBeUndefined();
  }
  if (expected.image !== undefined) expectImagesMatch(actual, expected.image, where);
}

function kindOf(slide: BankSlide): ExpectedSlide['kind'] {
  if (slide.kind !== 'choice') return slide.kind;
  return slide.correct.length > 0 ? 'quiz' : 'multiple_choice';
}

/** `image`: `none` (no image anywhere), `question` (on the slide) or `option:<label>` (on that option). */
function expectImagesMatch(actual: BankSlide, image: string, where: string): void {
  const options = actual.kind === 'choice' ? actual.options : [];
  const withImages = options.filter((option) => option.image !== undefined).map((option) => option.label);
  if (image === 'none') {
    expect(actual.image, `${where}: no image on the slide`).toBeUndefined();
    expect(withImages, `${where}: no image on an option`).toEqual([]);
  } else if (image === 'question') {
    expect(
      actual.image && 'bytes' in actual.image ? actual.image.bytes.length : 0,
      `${where}: image on the slide`,
    ).toBeGreaterThan(0);
  } else if (image.startsWith('option:')) {
    expect(withImages, `${where}: image on an option`).toContain(image.slice('option:'.length));
  } else {
    throw new Error(`${where}: unknown image expectation "${image}"`);
  }
}

/** The one question of a file that has one. */
export function only(bank: Bank): BankQuestion {
  expect(bank.questions).toHaveLength(1);
  return bank.questions[0]!;
}

/** The slide a question became; fails if it was skipped. */
export function slideOf(question: BankQuestion): BankSlide {
  expect(question.skipped, question.skipped?.message).toBeUndefined();
  return question.slide!;
}

export function choiceOf(question: BankQuestion): Extract<BankSlide, { kind: 'choice' }> {
  const slide = slideOf(question);
  if (slide.kind !== 'choice') throw new Error(`expected a choice, got ${slide.kind}`);
  return slide;
}

export function labelsOf(question: BankQuestion): string[] {
  return choiceOf(question).options.map((option) => option.label);
}

export function correctLabelsOf(question: BankQuestion): string[] {
  const slide = choiceOf(question);
  return slide.correct.map((index) => slide.options[index]!.label);
}

/** What a reader refused the file with; fails if it read the file instead. */
export function refusal(read: () => unknown): BankRefused {
  try {
    read();
  } catch (error) {
    expect(error).toBeInstanceOf(BankRefused);
    return error as BankRefused;
  }
  throw new Error('the file was not refused');
}
