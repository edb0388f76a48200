import { type BranchCondition, PollContent, type Slide } from '@pollkit/contracts';
import type { z } from 'zod';
import type { DeckToWrite } from '../../src/modules/decks/deck-file.js';

/**
 * The decks the tests share: what a poll holds, named for what it is. Every deck is a function
 * returning fresh objects, so a test that edits its copy cannot change the deck the next test gets.
 * A deck only one file needs stays in that file; one two files need comes here.
 *
 * - `sampleContent()`: one slide of every kind, small; most API tests' poll. Its variants add the
 *   slides a subject needs: `raceContent()`, `answerVariantsContent()`, `resultsContent()`,
 *   `csvExportContent()`, `askMeAnythingContent()`, `presenterContent()`.
 * - `manyTextsContent()`: an open-ended slide and a Q&A slide, for thousands of texts (the exports).
 * - `everyKindDeck(imageUrl)`: a slide of every kind as the pages show it, with an image (browser tests).
 * - `branchingDeck`: the deck of the skip-logic tests, and `condition()` to write its rules.
 * - `deckToWrite(questions)`: a stored poll as the deck writers (GIFT, Moodle XML, QTI…) take it.
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
    askMeAnything(),
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
    askMeAnything(),
  );
}

/** An unmoderated Q&A slide, `ama`, that takes upvotes. */
function askMeAnything(): SlideInput {
  return { id: 'ama', kind: 'qa', text: 'Ask me anything', moderated: false, allowUpvotes: true };
}

/** sampleContent() plus an unmoderated Q&A slide with upvotes (`ama`): every answer a respondent can leave. */
export function askMeAnythingContent(): ContentInput {
  return sampleContent(askMeAnything());
}

/**
 * sampleContent() (`capital`, index 1, is a quiz; `ask`, index 5, is moderated Q&A) plus an
 * unmoderated Q&A slide, `open`, index 7: what the presenter's routes moderate and show.
 */
export function presenterContent(): ContentInput {
  return sampleContent({ id: 'open', kind: 'qa', text: 'Anything else?', moderated: false, allowUpvotes: true });
}

/** An open-ended slide (`many`) and an unmoderated Q&A slide (`qs`): what a test pours thousands of texts into. */
export function manyTextsContent(): ContentInput {
  return {
    questions: [
      { id: 'many', kind: 'open_ended', text: 'Say anything', maxLength: 200, render: 'list' },
      { id: 'qs', kind: 'qa', text: 'Questions', moderated: false, allowUpvotes: true },
    ],
  };
}

/**
 * A live session over a deck with a slide of every kind, as the browser tests drive it: one image
 * (served by a stand-in image host on loopback and re-hosted by the server as WebP, as in
 * production) on the content slide. The server must run with MEDIA_ALLOW_LOOPBACK=true.
 */
export function everyKindDeck(imageUrl: string): ContentInput {
  return {
    questions: [
      {
        id: 'welcome',
        kind: 'content',
        text: 'Welcome to the quarterly all-hands',
        media: { type: 'image', url: imageUrl },
      },
      {
        id: 'lunch',
        kind: 'multiple_choice',
        text: 'Where shall we eat after the meeting?',
        type: 'single',
        options: [
          { id: 'pizza', label: 'Pizza' },
          { id: 'sushi', label: 'Sushi' },
          { id: 'tacos', label: 'Tacos' },
        ],
      },
      {
        id: 'toppings',
        kind: 'multiple_choice',
        text: 'Which toppings?',
        type: 'multiple',
        options: [
          { id: 'olives', label: 'Olives' },
          { id: 'basil', label: 'Basil' },
          { id: 'chili', label: 'Chili' },
        ],
      },
      {
        id: 'capital',
        kind: 'quiz',
        text: 'What is the capital of Australia?',
        options: [
          { id: 'sydney', label: 'Sydney' },
          { id: 'canberra', label: 'Canberra' },
          { id: 'melbourne', label: 'Melbourne' },
        ],
        correctOptionIds: ['canberra'],
        timeLimitSec: 60,
        points: 1000,
        speedBonus: false,
      },
      {
        id: 'mood',
        kind: 'scale',
        text: 'How are things going?',
        min: 1,
        max: 5,
        minLabel: 'Badly',
        maxLabel: 'Great',
        statements: [
          { id: 'work', text: 'At work' },
          { id: 'team', text: 'In the team' },
        ],
      },
      {
        id: 'priorities',
        kind: 'ranking',
        text: 'Rank next quarter’s priorities',
        options: [
          { id: 'speed', label: 'Speed' },
          { id: 'quality', label: 'Quality' },
          { id: 'price', label: 'Price' },
        ],
      },
      { id: 'word', kind: 'open_ended', text: 'One word for this quarter?', maxLength: 40, render: 'cloud' },
      { id: 'ask', kind: 'qa', text: 'Questions for the leadership team?', moderated: true, allowUpvotes: true },
    ],
  };
}

/** The deck of the branching tests: the one the instruction examples are written against. */
export { exampleDeck as branchingDeck } from '../fixtures/branching/instruction-examples.js';

/** A branching condition, as the API answers and takes it: `to` a slide id, or 'end'. */
export function condition(
  id: string,
  slideId: string,
  operator: BranchCondition['if']['operator'],
  value: BranchCondition['if']['value'],
  to: string,
): BranchCondition {
  return {
    id,
    if: value === undefined ? { slideId, operator } : { slideId, operator, value },
    // biome-ignore lint/suspicious/noThenProperty: `then` is the field name of the rule's action.
    then: to === 'end' ? { action: 'end' } : { action: 'skip_to', slideId: to },
  };
}

/** A stored poll of `questions` (defaults filled in) as the deck writers take it. */
export function deckToWrite(
  questions: unknown[],
  { title = 'Deck', language = 'en' }: { title?: string; language?: DeckToWrite['language'] } = {},
): DeckToWrite {
  return {
    pollId: 'poll_01J9ZQ4V6Y8X2N3M5K7H9G1F0D',
    title,
    language,
    content: PollContent.parse({ questions }),
    branching: null,
  };
}
