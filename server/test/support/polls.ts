import type { Slide } from '@pollkit/contracts';
import { newId } from '../../src/db/ids.js';
import type { PendingAnswer } from '../../src/modules/answers/answer-writer.js';
import { deltasFor } from '../../src/modules/answers/tallies.js';
import type { ContentInput } from './decks.js';
import { type BodyOf, expectStatus, testClient } from './test-client.js';

/**
 * Published polls the tests share, and answers written straight to an AnswerWriter. The decks
 * themselves are in decks.ts.
 */

// The decks moved to decks.ts; re-exported here for the files that still import them from here
// (the ones being split: answers.*, live-sessions.*, live-abuse.*, webhooks.*, fuzz, pages-i18n.*).
export {
  answerVariantsContent,
  type ContentInput,
  type SlideInput,
  sampleContent,
} from './decks.js';

/** What creating and publishing a poll takes. */
export interface PollToPublish {
  /** The API's base URL, a TestServer's `api`. */
  api: string;
  apiKey: string;
  title: string;
  content: ContentInput;
  /** The rest of the poll's body (settings, theme…), when the test needs them. */
  extra?: Omit<BodyOf<'POST /polls'>, 'title' | 'content'>;
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
async function publishedPoll({ api, apiKey, title, content, extra }: PollToPublish): Promise<PublishedPoll> {
  const client = testClient(api, { apiKey });
  const created = await client.request('POST /polls', { body: { title, content, ...extra } });
  expectStatus(created, 201);
  const published = await client.request('PATCH /polls/{id}', {
    params: { id: created.body.id },
    body: { publish: true },
  });
  expectStatus(published, 200);
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
