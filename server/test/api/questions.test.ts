import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ContentInput } from '../support/decks.js';
import { UNLIMITED } from '../support/limits.js';
import { pollPublisher } from '../support/polls.js';
import { startTestServer, type TestServer } from '../support/server.js';
import {
  type ApiResponse,
  errorDetails,
  errorOf,
  expectOk,
  expectStatus,
  slideOf,
  testClient,
} from '../support/test-client.js';

let t: TestServer;
const api = testClient(() => t.api);
let apiKey: string;
let otherApiKey: string;

beforeAll(async () => {
  // Each test makes dozens of calls with one key: lift the per-key limit so 429s don't interfere.
  t = await startTestServer(UNLIMITED);
  ({ apiKey } = await t.workspace('pro'));
  ({ apiKey: otherApiKey } = await t.workspace('pro'));
});
afterAll(() => t?.close());

/** Q&A slides of every flavour, plus an open-ended slide whose answers are not questions. */
function qaContent(): ContentInput {
  return {
    questions: [
      { id: 'open', kind: 'qa', text: 'Ask anything', moderated: false, allowUpvotes: true },
      { id: 'mod', kind: 'qa', text: 'Ask the board', moderated: true, allowUpvotes: true },
      { id: 'quiet', kind: 'qa', text: 'No voting here', moderated: false, allowUpvotes: false },
      { id: 'words', kind: 'open_ended', text: 'One word?', maxLength: 40, render: 'list' },
    ],
  };
}

const publishedPoll = pollPublisher(() => ({ api: t.api, apiKey, title: 'Town hall', content: qaContent() }));

async function ask(pollId: string, slideId: string, voterId: string, text: string): Promise<string> {
  const res = await api.request('POST /polls/{id}/responses', {
    params: { id: pollId },
    apiKey,
    body: { voterId, slideId, text },
  });
  expectStatus(res, 201);
  return res.body.id;
}

/** Unchecked: some tests send a query the route refuses. */
const listQuestions = (pollId: string, query: Record<string, unknown> = {}, key = apiKey) =>
  api.unchecked('GET /polls/{id}/questions', { params: { id: pollId }, query, apiKey: key });

/** Unchecked: some tests send a status the route refuses. */
const moderate = (pollId: string, questionId: string, status: unknown, key = apiKey) =>
  api.unchecked('PATCH /polls/{id}/questions/{questionId}', {
    params: { id: pollId, questionId },
    apiKey: key,
    body: { status },
  });

const upvote = (pollId: string, questionId: string, voterId: string, key = apiKey) =>
  api.request('POST /polls/{id}/questions/{questionId}/upvotes', {
    params: { id: pollId, questionId },
    apiKey: key,
    body: { voterId },
  });

/** The question as stored, read through the API, and how many upvote rows it has. */
async function stored(pollId: string, questionId: string) {
  const all = await listQuestions(pollId, { limit: 100 });
  expectStatus(all, 200);
  const question = all.body.data.find((q: { id: string }) => q.id === questionId);
  const upvoteRows = await t.server.deps.db
    .selectFrom('question_upvotes')
    .select('voter_id')
    .where('question_id', '=', questionId)
    .execute();
  return { question: question!, upvoteRows: upvoteRows.length };
}

/**
 * What the results read for a Q&A slide: the partial index `answers_top_questions` (approved
 * questions only, most upvoted first). Also checked through GET /polls/{id}/results once that route
 * is served.
 */
async function approvedQuestionIds(pollId: string, slideId: string): Promise<string[]> {
  const rows = await t.server.deps.db
    .selectFrom('answers')
    .select('id')
    .where('poll_id', '=', pollId)
    .where('slide_id', '=', slideId)
    .where('slide_kind', '=', 'qa')
    .where('status', '=', 'approved')
    .orderBy('upvotes', 'desc')
    .orderBy('id')
    .execute();
  const ids = rows.map((row) => row.id);
  const results = await api.request('GET /polls/{id}/results', { params: { id: pollId }, apiKey });
  expectStatus(results, 200);
  const slide = slideOf(results.body.slides, slideId, 'qa');
  expect(slide.questions.map((q) => q.id)).toEqual(ids);
  return ids;
}

describe('asking questions', () => {
  it('lets one voter ask several; unmoderated questions are approved, moderated ones pending', async () => {
    const { id: pollId } = await publishedPoll();
    const first = await ask(pollId, 'open', 'ann', 'When is the next release?');
    const second = await ask(pollId, 'open', 'ann', '  Will   there be  pizza? ');
    const held = await ask(pollId, 'mod', 'ann', 'Why the reorg?');
    await api.request('POST /polls/{id}/responses', {
      params: { id: pollId },
      apiKey,
      body: { voterId: 'ann', slideId: 'words', text: 'great' },
    });

    const res = await listQuestions(pollId);
    expectStatus(res, 200);
    expect(res.body.nextCursor).toBeNull();
    // Newest first; the open-ended answer is not a question.
    expect(res.body.data.map((q: { id: string }) => q.id)).toEqual([held, second, first]);
    expect(res.body.data[1]).toEqual({
      id: second,
      pollId,
      slideId: 'open',
      voterId: 'ann',
      text: 'Will there be pizza?',
      status: 'approved',
      flagged: false,
      upvotes: 0,
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
    expect(res.body.data[0]).toMatchObject({ slideId: 'mod', status: 'pending', upvotes: 0 });
  });

  it('keeps a moderated question out of the results until it is approved, and out again once dismissed', async () => {
    const { id: pollId } = await publishedPoll();
    const questionId = await ask(pollId, 'mod', 'bob', 'Is the office moving?');
    expect(await approvedQuestionIds(pollId, 'mod')).toEqual([]);

    const approved = await moderate(pollId, questionId, 'approved');
    expectStatus(approved, 200);
    expect(await approvedQuestionIds(pollId, 'mod')).toEqual([questionId]);

    const dismissed = await moderate(pollId, questionId, 'dismissed');
    expectStatus(dismissed, 200);
    expect(await approvedQuestionIds(pollId, 'mod')).toEqual([]);
  });
});

describe('listing questions', () => {
  it('pages newest first across pages and filters by slide and status', async () => {
    const { id: pollId } = await publishedPoll();
    const asked: string[] = [];
    for (let i = 0; i < 5; i++) asked.push(await ask(pollId, 'open', `voter-${i}`, `Open question ${i}`));
    for (let i = 0; i < 2; i++) asked.push(await ask(pollId, 'mod', `voter-${i}`, `Held question ${i}`));
    const newestFirst = [...asked].reverse();

    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page: ApiResponse<'GET /polls/{id}/questions'> = await listQuestions(pollId, {
        limit: 3,
        cursor: cursor ?? undefined,
      });
      expectStatus(page, 200);
      expect(page.body.data.length).toBeLessThanOrEqual(3);
      seen.push(...page.body.data.map((q: { id: string }) => q.id));
      cursor = page.body.nextCursor;
      pages++;
    } while (cursor !== null);
    expect(pages).toBe(3);
    expect(seen).toEqual(newestFirst);

    const bySlide = await listQuestions(pollId, { slideId: 'mod' });
    expect(expectOk(bySlide).data.map((q: { id: string }) => q.id)).toEqual(newestFirst.slice(0, 2));

    const pending = await listQuestions(pollId, { status: 'pending' });
    expect(expectOk(pending).data.map((q: { id: string }) => q.id)).toEqual(newestFirst.slice(0, 2));

    const approvedOpen = await listQuestions(pollId, { status: 'approved', slideId: 'open', limit: 2 });
    expect(expectOk(approvedOpen).data.map((q: { id: string }) => q.id)).toEqual(newestFirst.slice(2, 4));
    const approvedOpenNext = await listQuestions(pollId, {
      status: 'approved',
      slideId: 'open',
      limit: 2,
      cursor: expectOk(approvedOpen).nextCursor,
    });
    expect(expectOk(approvedOpenNext).data.map((q: { id: string }) => q.id)).toEqual(newestFirst.slice(4, 6));

    const dismissed = await listQuestions(pollId, { status: 'dismissed' });
    expect(dismissed.body).toEqual({ data: [], nextCursor: null });
  });

  it('refuses a bad status or cursor (422) and an unknown or foreign poll (404)', async () => {
    const { id: pollId } = await publishedPoll();
    const badStatus = await listQuestions(pollId, { status: 'hidden' });
    expectStatus(badStatus, 422);
    expect(errorDetails(badStatus).fieldErrors.status).toBeDefined();

    const forgedCursor = await listQuestions(pollId, { cursor: Buffer.from('poll_x').toString('base64url') });
    expectStatus(forgedCursor, 422);
    expect(errorDetails(forgedCursor).fieldErrors.cursor).toBeDefined();

    const unknown = await listQuestions('poll_01AAAAAAAAAAAAAAAAAAAAAAAA');
    expectStatus(unknown, 404);
    expect(unknown.body.error.code).toBe('not_found');

    const foreign = await listQuestions(pollId, {}, otherApiKey);
    expectStatus(foreign, 404);
    expect(foreign.body.error.code).toBe('not_found');
  });
});

describe('moderating questions', () => {
  it('approves, dismisses and returns a question to pending', async () => {
    const { id: pollId } = await publishedPoll();
    const questionId = await ask(pollId, 'mod', 'cat', 'Can we get standing desks?');

    const approved = await moderate(pollId, questionId, 'approved');
    expectStatus(approved, 200);
    expect(approved.body).toMatchObject({ id: questionId, pollId, slideId: 'mod', status: 'approved', upvotes: 0 });
    expect(expectOk(approved).text).toBe('Can we get standing desks?');

    // Approving twice is harmless: the status is simply set.
    expect(expectOk(await moderate(pollId, questionId, 'approved')).status).toBe('approved');
    expect(expectOk(await moderate(pollId, questionId, 'dismissed')).status).toBe('dismissed');
    expect(expectOk(await moderate(pollId, questionId, 'pending')).status).toBe('pending');
    expect((await stored(pollId, questionId)).question.status).toBe('pending');
  });

  it('404s a question that does not exist in this poll or is not a question, 422s a bad status', async () => {
    const { id: pollId } = await publishedPoll();
    const { id: otherPollId } = await publishedPoll();
    const questionId = await ask(pollId, 'mod', 'dan', 'What about remote work?');
    const elsewhere = await ask(otherPollId, 'mod', 'dan', 'Asked in another poll');
    const answer = await api.request('POST /polls/{id}/responses', {
      params: { id: pollId },
      apiKey,
      body: { voterId: 'dan', slideId: 'words', text: 'fine' },
    });
    expectStatus(answer, 201);

    for (const id of ['rsp_01AAAAAAAAAAAAAAAAAAAAAAAA', elsewhere, answer.body.id]) {
      const res = await moderate(pollId, id, 'approved');
      expectStatus(res, 404);
      expect(res.body).toEqual({ error: { code: 'not_found', message: 'Question not found' } });
    }
    expect((await stored(otherPollId, elsewhere)).question.status).toBe('pending');

    const badStatus = await moderate(pollId, questionId, 'deleted');
    expectStatus(badStatus, 422);
    expect(badStatus.body.error.code).toBe('validation_failed');
    expect(errorDetails(badStatus).fieldErrors.status).toBeDefined();

    // A vote's id is not a question's id: it names no question, so 404 like any unknown id.
    const badId = await moderate(pollId, 'vote_01AAAAAAAAAAAAAAAAAAAAAAAA', 'approved');
    expectStatus(badId, 404);
    expect(badId.body.error).toEqual({ code: 'not_found', message: 'Question not found' });

    const foreign = await moderate(pollId, questionId, 'approved', otherApiKey);
    expectStatus(foreign, 404);
    expect((await stored(pollId, questionId)).question.status).toBe('pending');
  });

  it('still moderates once the poll is closed', async () => {
    const { id: pollId } = await publishedPoll();
    const questionId = await ask(pollId, 'mod', 'eve', 'Thanks for the session?');
    const closed = await api.request('PATCH /polls/{id}', { params: { id: pollId }, apiKey, body: { closed: true } });
    expectStatus(closed, 200);

    const approved = await moderate(pollId, questionId, 'approved');
    expectStatus(approved, 200);
    expect(expectOk(approved).status).toBe('approved');
    expect(await approvedQuestionIds(pollId, 'mod')).toEqual([questionId]);
  });
});

describe('upvoting questions', () => {
  it('counts one upvote per voter', async () => {
    const { id: pollId } = await publishedPoll();
    const questionId = await ask(pollId, 'open', 'fay', 'Budget for training?');

    const first = await upvote(pollId, questionId, 'gus');
    expectStatus(first, 201);
    expect(first.body).toMatchObject({ id: questionId, pollId, slideId: 'open', voterId: 'fay', upvotes: 1 });

    const again = await upvote(pollId, questionId, 'gus');
    expectStatus(again, 409);
    expect(again.body.error.code).toBe('already_upvoted');
    expect(await stored(pollId, questionId)).toMatchObject({ question: { upvotes: 1 }, upvoteRows: 1 });

    // The asker may upvote their own question, once, like anyone else.
    const asker = await upvote(pollId, questionId, 'fay');
    expectStatus(asker, 201);
    expect(expectOk(asker).upvotes).toBe(2);
  });

  it('orders the approved questions the results read by upvotes', async () => {
    const { id: pollId } = await publishedPoll();
    const quiet = await ask(pollId, 'open', 'hal', 'First, and unpopular');
    const popular = await ask(pollId, 'open', 'hal', 'Second, and popular');
    expect((await upvote(pollId, popular, 'ida')).status).toBe(201);
    expect(await approvedQuestionIds(pollId, 'open')).toEqual([popular, quiet]);
  });

  it('accepts exactly one of racing upvotes by the same voter', async () => {
    const { id: pollId } = await publishedPoll();
    const questionId = await ask(pollId, 'open', 'jay', 'Racing question');

    const results = await Promise.all(Array.from({ length: 4 }, () => upvote(pollId, questionId, 'kim')));
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([201, 409, 409, 409]);
    for (const refused of results.filter((r) => r.status === 409)) {
      expect(errorOf(refused).code).toBe('already_upvoted');
    }
    expect(await stored(pollId, questionId)).toMatchObject({ question: { upvotes: 1 }, upvoteRows: 1 });
  });

  it('counts every one of racing upvotes by different voters', async () => {
    const { id: pollId } = await publishedPoll();
    const questionId = await ask(pollId, 'open', 'lee', 'Popular question');
    const voters = Array.from({ length: 8 }, (_, i) => `racer-${i}`);

    const results = await Promise.all(voters.map((voter) => upvote(pollId, questionId, voter)));
    expect(results.map((r) => r.status)).toEqual(voters.map(() => 201));
    // Each upvote saw the count right after its own increment: 1..n, each once.
    expect(results.map((r) => expectOk(r).upvotes).sort((a, b) => a - b)).toEqual(voters.map((_, i) => i + 1));
    expect(await stored(pollId, questionId)).toMatchObject({
      question: { upvotes: voters.length },
      upvoteRows: voters.length,
    });
  });

  it('refuses upvotes on a slide without them (409 upvotes_disabled) and changes nothing', async () => {
    const { id: pollId } = await publishedPoll();
    const questionId = await ask(pollId, 'quiet', 'max', 'No votes please');
    const res = await upvote(pollId, questionId, 'ned');
    expectStatus(res, 409);
    expect(res.body.error.code).toBe('upvotes_disabled');
    expect(await stored(pollId, questionId)).toMatchObject({ question: { upvotes: 0 }, upvoteRows: 0 });
  });

  it('404s pending, dismissed, unknown and non-question ids, and changes nothing', async () => {
    const { id: pollId } = await publishedPoll();
    const pending = await ask(pollId, 'mod', 'oli', 'Still pending');
    const dismissed = await ask(pollId, 'open', 'oli', 'Off topic');
    expect((await moderate(pollId, dismissed, 'dismissed')).status).toBe(200);
    const answer = await api.request('POST /polls/{id}/responses', {
      params: { id: pollId },
      apiKey,
      body: { voterId: 'oli', slideId: 'words', text: 'ok' },
    });
    expectStatus(answer, 201);

    for (const id of [pending, dismissed, answer.body.id, 'rsp_01AAAAAAAAAAAAAAAAAAAAAAAA']) {
      const res = await upvote(pollId, id, 'pat');
      expectStatus(res, 404);
      expect(res.body.error.code).toBe('not_found');
    }
    expect(await stored(pollId, pending)).toMatchObject({ question: { upvotes: 0 }, upvoteRows: 0 });
    expect(await stored(pollId, dismissed)).toMatchObject({ question: { upvotes: 0 }, upvoteRows: 0 });

    // Once approved, the same question takes the upvote.
    expect((await moderate(pollId, pending, 'approved')).status).toBe(200);
    const accepted = await upvote(pollId, pending, 'pat');
    expectStatus(accepted, 201);
    expect(expectOk(accepted).upvotes).toBe(1);
  });

  it('refuses upvotes on a closed poll (409 poll_closed) or a draft (409 poll_not_published)', async () => {
    const { id: pollId } = await publishedPoll();
    const questionId = await ask(pollId, 'open', 'quinn', 'Before closing');

    expect(
      (await api.request('PATCH /polls/{id}', { params: { id: pollId }, apiKey, body: { closed: true } })).status,
    ).toBe(200);
    const closed = await upvote(pollId, questionId, 'ray');
    expectStatus(closed, 409);
    expect(closed.body.error.code).toBe('poll_closed');

    expect(
      (await api.request('PATCH /polls/{id}', { params: { id: pollId }, apiKey, body: { publish: false } })).status,
    ).toBe(200);
    const draft = await upvote(pollId, questionId, 'ray');
    expectStatus(draft, 409);
    expect(draft.body.error.code).toBe('poll_not_published');

    expect(await stored(pollId, questionId)).toMatchObject({ question: { upvotes: 0 }, upvoteRows: 0 });
  });

  it("404s another workspace's poll and changes nothing", async () => {
    const { id: pollId } = await publishedPoll();
    const questionId = await ask(pollId, 'open', 'sam', 'Mine alone');
    const res = await upvote(pollId, questionId, 'tom', otherApiKey);
    expectStatus(res, 404);
    expect(res.body.error.code).toBe('not_found');
    expect(await stored(pollId, questionId)).toMatchObject({ question: { upvotes: 0 }, upvoteRows: 0 });
  });

  it('validates the body: voterId is required, unknown fields are refused', async () => {
    const { id: pollId } = await publishedPoll();
    const questionId = await ask(pollId, 'open', 'uma', 'Validated');
    const missing = await api.unchecked('POST /polls/{id}/questions/{questionId}/upvotes', {
      params: { id: pollId, questionId },
      apiKey,
      body: {},
    });
    expectStatus(missing, 422);
    expect(errorDetails(missing).fieldErrors.voterId).toBeDefined();
    const extra = await api.unchecked('POST /polls/{id}/questions/{questionId}/upvotes', {
      params: { id: pollId, questionId },
      apiKey,
      body: { voterId: 'vic', weight: 5 },
    });
    expectStatus(extra, 422);
    expect(errorDetails(extra).fieldErrors.weight).toBeDefined();
    expect(await stored(pollId, questionId)).toMatchObject({ question: { upvotes: 0 }, upvoteRows: 0 });
  });
});
