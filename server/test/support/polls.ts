import type { Slide } from '@pollkit/contracts';
import { expect } from 'vitest';
import type { z } from 'zod';
import { newId } from '../../src/db/ids.js';
import type { PendingAnswer } from '../../src/modules/answers/answer-writer.js';
import { deltasFor } from '../../src/modules/answers/tallies.js';
import { call } from './http.js';

/**
 * Decks and published polls the tests share. Every deck is a function returning fresh objects, so a
 * test that edits its copy cannot change the deck the next test gets.
 */

/** A slide as a client sends it: the kind's defaults may be left out. */
export type SlideInput = z.input<typeof Slide>;

/** A poll's `content` as a client sends it. */
export interface ContentInput {
  questions: SlideInput[];
}

/** A small valid deck with one slide of every kind, followed by `extraSlides`. */
export function sampleContent(...extraSlides: SlideInput[]): ContentInput {
  return {
    questions: [
      {
        id: 'lunch',
        kind: 'multiple_choice',
        text: 'Where shall we eat?',
        type: 'single',
        options: [
          { id: 'pizza', label: 'Pizza' },
          { id: 'sushi', label: 'Sushi' },
        ],
      },
      {
        id: 'capital',
        kind: 'quiz',
        text: 'Capital of France?',
        options: [
          { id: 'paris', label: 'Paris' },
          { id: 'lyon', label: 'Lyon' },
        ],
        correctOptionIds: ['paris'],
        timeLimitSec: 20,
        points: 500,
        speedBonus: true,
      },
      {
        id: 'mood',
        kind: 'scale',
        text: 'How do you feel?',
        min: 1,
        max: 5,
        minLabel: 'Bad',
        maxLabel: 'Great',
        statements: [{ id: 'work', text: 'About work' }],
      },
      {
        id: 'rank',
        kind: 'ranking',
        text: 'Rank these',
        options: [
          { id: 'a', label: 'A' },
          { id: 'b', label: 'B' },
          { id: 'c', label: 'C' },
        ],
      },
      { id: 'words', kind: 'open_ended', text: 'One word?', maxLength: 40, render: 'cloud' },
      { id: 'ask', kind: 'qa', text: 'Questions?', moderated: true, allowUpvotes: true },
      { id: 'intro', kind: 'content', text: 'Welcome' },
      ...extraSlides,
    ],
  };
}

/** The multiple-choice variant sampleContent() lacks: `multiple`, several options per answer. */
function toppingsSlide(): SlideInput {
  return {
    id: 'toppings',
    kind: 'multiple_choice',
    text: 'Which toppings?',
    type: 'multiple',
    options: [
      { id: 'olives', label: 'Olives' },
      { id: 'basil', label: 'Basil' },
      { id: 'chili', label: 'Chili' },
    ],
  };
}

/** sampleContent() plus a `multiple` multiple-choice slide (`toppings`): what the answer races vote on. */
export function raceContent(): ContentInput {
  return sampleContent(toppingsSlide());
}

/**
 * sampleContent() plus the slide variants it lacks, so that answer validation meets every shape:
 * multiple-choice `multiple`, a scale without statements, a negative scale with two statements, open Q&A.
 */
export function answerVariantsContent(): ContentInput {
  return sampleContent(
    toppingsSlide(),
    { id: 'nps', kind: 'scale', text: 'Recommend us?', min: 0, max: 10, statements: [] },
    {
      id: 'feel',
      kind: 'scale',
      text: 'Rate',
      min: -2,
      max: 2,
      statements: [
        { id: 'pay', text: 'Pay' },
        { id: 'team', text: 'Team' },
      ],
    },
    { id: 'open', kind: 'qa', text: 'Ask away', moderated: false, allowUpvotes: false },
  );
}

/**
 * sampleContent() plus the variants whose results aggregate differently: multiple-choice `multiple`,
 * a negative scale without statements, a scale with two statements, unmoderated Q&A.
 */
export function resultsContent(): ContentInput {
  return sampleContent(
    {
      id: 'toppings',
      kind: 'multiple_choice',
      text: 'Toppings?',
      type: 'multiple',
      options: [
        { id: 'cheese', label: 'Cheese' },
        { id: 'ham', label: 'Ham' },
        { id: 'olives', label: 'Olives' },
      ],
    },
    { id: 'temp', kind: 'scale', text: 'Too cold or too hot?', min: -2, max: 2 },
    {
      id: 'pulse',
      kind: 'scale',
      text: 'Team pulse',
      min: 1,
      max: 3,
      statements: [
        { id: 'pace', text: 'Pace' },
        { id: 'load', text: 'Workload' },
      ],
    },
    { id: 'ama', kind: 'qa', text: 'Ask me anything', moderated: false, allowUpvotes: true },
  );
}

/**
 * sampleContent() plus a scale without statements and texts a spreadsheet would misread (a formula,
 * quotes, a comma, a leading minus): what the CSV export must escape.
 */
export function csvExportContent(): ContentInput {
  return sampleContent(
    { id: 'temp', kind: 'scale', text: '=HYPERLINK("x") hot, or cold?', min: -2, max: 2 },
    {
      id: 'pick',
      kind: 'multiple_choice',
      text: 'Pick "one", please',
      type: 'multiple',
      options: [
        { id: 'minus', label: '-5 degrees' },
        { id: 'plain', label: 'Plain, with a comma' },
      ],
    },
    { id: 'ama', kind: 'qa', text: 'Ask me anything', moderated: false, allowUpvotes: true },
  );
}

/** What creating and publishing a poll takes. */
export interface PollToPublish {
  /** The API's base URL, a TestServer's `api`. */
  api: string;
  apiKey: string;
  title: string;
  content: unknown;
}

/** A poll a test created and published, with what answering it takes. */
export interface PublishedPoll {
  id: string;
  /** Its slides as the server stored them, with the kinds' defaults filled in. */
  slides: Slide[];
  /** Its `updatedAt` once published: the poll version an answer is written against. */
  version: string;
}

/** Creates a poll and publishes it, asserting the 201 and the 200 on the way. */
async function publishedPoll({ api, apiKey, title, content }: PollToPublish): Promise<PublishedPoll> {
  const created = await call('POST', `${api}/polls`, { apiKey, body: { title, content } });
  expect(created.status).toBe(201);
  const published = await call('PATCH', `${api}/polls/${created.body.id}`, { apiKey, body: { publish: true } });
  expect(published.status).toBe(200);
  return { id: created.body.id, slides: created.body.content.questions, version: published.body.updatedAt };
}

/**
 * A test file's way to publish polls: its server, key, title and deck, which a call may override. The
 * defaults are read at each call because a file's server and key only exist once its beforeAll has run.
 */
export function pollPublisher(
  defaults: () => PollToPublish,
): (overrides?: Partial<PollToPublish>) => Promise<PublishedPoll> {
  return (overrides = {}) => publishedPoll({ ...defaults(), ...overrides });
}

/**
 * A vote on a multiple-choice slide of a published poll, ready for an AnswerWriter: what the answers
 * service hands the writer once the vote is judged. For tests that drive a writer of their own.
 */
export function pendingVote(
  poll: PublishedPoll,
  voterId: string,
  optionIds: string[],
  slideId = 'toppings',
): PendingAnswer {
  const slide = poll.slides.find((s) => s.id === slideId);
  if (!slide) throw new Error(`no slide '${slideId}' in poll ${poll.id}`);
  const value = { optionIds };
  return {
    row: {
      id: newId('vote'),
      poll_id: poll.id,
      slide_id: slideId,
      voter_id: voterId,
      kind: 'vote',
      slide_kind: slide.kind,
      value: JSON.stringify(value),
      status: null,
      created_at: new Date(),
    },
    deltas: deltasFor(slide, value),
  };
}

/**
 * An open-ended answer or a Q&A question (approved) as the responses route hands it to the
 * AnswerWriter (same row, same aggregate deltas): for tests that need thousands without thousands of
 * requests.
 */
export function pendingText(pollId: string, slide: Slide, voterId: string, text: string): PendingAnswer {
  const value = { text };
  return {
    row: {
      id: newId('response'),
      poll_id: pollId,
      slide_id: slide.id,
      voter_id: voterId,
      kind: 'response',
      slide_kind: slide.kind,
      value: JSON.stringify(value),
      status: slide.kind === 'qa' ? 'approved' : null,
      created_at: new Date(),
    },
    deltas: deltasFor(slide, value),
  };
}
