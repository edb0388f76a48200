import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tallyKey } from '../../src/modules/answers/tallies.js';
import { answersApi, count, expectValidationError, startAnswersServer } from '../support/answers.js';
import { answerVariantsContent, sampleContent } from '../support/polls.js';
import type { TestServer } from '../support/server.js';
import { expectOk, expectStatus, testClient } from '../support/test-client.js';

/**
 * Answers and a poll that changes: the deck locked once a poll has answers (`poll_has_responses`),
 * and an answer judged against a poll that changed before it was written (deleted, closed, returned
 * to draft, a new deck, a new title only).
 */

let t: TestServer;
let apiKey: string;
const api = testClient(() => t.api, { apiKey: () => apiKey });

beforeAll(async () => {
  ({ t, apiKey } = await startAnswersServer());
});
afterAll(() => t?.close());

const { publishedPoll, vote, respond, storedState, expectNothingChanges } = answersApi(() => ({ t, apiKey }));

describe('poll_has_responses', () => {
  it('locks the deck once a poll has answers, while the title can still change', async () => {
    const { id: pollId } = await publishedPoll();
    // Before any answer, the deck may change.
    const edited = answerVariantsContent();
    edited.questions[0] = { ...edited.questions[0]!, text: 'Where shall we eat today?' };
    const early = await api.request('PATCH /polls/{id}', { params: { id: pollId }, body: { content: edited } });
    expect(early.status).toBe(200);

    expect((await respond(pollId, { voterId: 'v', slideId: 'nps', scaleValue: 8 })).status).toBe(201);
    const before = expectOk(await api.request('GET /polls/{id}', { params: { id: pollId } }));

    const changed = await api.request('PATCH /polls/{id}', {
      params: { id: pollId },
      body: { content: sampleContent() },
    });
    expectStatus(changed, 409);
    expect(changed.body.error.code).toBe('poll_has_responses');
    const withTitle = await api.request('PATCH /polls/{id}', {
      params: { id: pollId },
      body: { title: 'Renamed', content: sampleContent() },
    });
    expect(withTitle.status).toBe(409);
    expect((await api.request('GET /polls/{id}', { params: { id: pollId } })).body).toEqual(before);

    const renamed = await api.request('PATCH /polls/{id}', { params: { id: pollId }, body: { title: 'Renamed' } });
    expectStatus(renamed, 200);
    expect(renamed.body.title).toBe('Renamed');
    expect(renamed.body.content).toEqual(before.content);
  });

  it('counts a vote as an answer too', async () => {
    const { id: pollId } = await publishedPoll();
    expect((await vote(pollId, { voterId: 'v', slideId: 'lunch', optionIds: ['pizza'] })).status).toBe(201);
    const changed = await api.request('PATCH /polls/{id}', {
      params: { id: pollId },
      body: { content: sampleContent() },
    });
    expectStatus(changed, 409);
    expect(changed.body.error.code).toBe('poll_has_responses');
  });
});

/**
 * A poll can change between the moment an answer is judged against it and the moment the answer is
 * written: a PATCH that commits while the answer waits in the group-commit queue, or a change made
 * through another process whose cache invalidation has not arrived yet. Changing the row behind this
 * server's cache reproduces that window exactly: the cached poll says one thing, the database another.
 */
describe('a poll that changed after the answer was judged', () => {
  async function changeBehindTheCache(
    pollId: string,
    changes: { status?: 'draft' | 'closed'; title?: string; content?: unknown },
  ) {
    await t.server.deps.db
      .updateTable('polls')
      .set({
        ...(changes.status ? { status: changes.status } : {}),
        ...(changes.title ? { title: changes.title } : {}),
        ...(changes.content ? { content: JSON.stringify(changes.content) } : {}),
        updated_at: new Date(Date.now() + 1),
      })
      .where('id', '=', pollId)
      .execute();
  }

  /** A published poll whose cached copy is warm, so the next answer is judged against the cache. */
  async function cachedPoll() {
    const { id: pollId } = await publishedPoll();
    expect((await api.request('GET /polls/{id}', { params: { id: pollId } })).status).toBe(200);
    return pollId;
  }

  it('answers 404, not 500, when the poll was deleted', async () => {
    const pollId = await cachedPoll();
    await t.server.deps.db.deleteFrom('polls').where('id', '=', pollId).execute();
    const voted = await vote(pollId, { voterId: 'v', slideId: 'lunch', optionIds: ['pizza'] });
    expectStatus(voted, 404);
    expect(voted.body.error).toEqual({ code: 'not_found', message: 'Poll not found' });
    const responded = await respond(pollId, { voterId: 'v', slideId: 'nps', scaleValue: 3 });
    expect(responded.status).toBe(404);
  });

  it('answers 409 poll_closed / poll_not_published when the poll was closed or returned to draft', async () => {
    const closed = await cachedPoll();
    await changeBehindTheCache(closed, { status: 'closed' });
    await expectNothingChanges(closed, async () => {
      const res = await vote(closed, { voterId: 'v', slideId: 'lunch', optionIds: ['pizza'] });
      expectStatus(res, 409);
      expect(res.body.error.code).toBe('poll_closed');
    });

    const draft = await cachedPoll();
    await changeBehindTheCache(draft, { status: 'draft' });
    await expectNothingChanges(draft, async () => {
      const res = await respond(draft, { voterId: 'v', slideId: 'nps', scaleValue: 3 });
      expectStatus(res, 409);
      expect(res.body.error.code).toBe('poll_not_published');
    });
  });

  it('judges the answer again against the new deck', async () => {
    const pollId = await cachedPoll();
    const content: { questions: Record<string, unknown>[] } = answerVariantsContent();
    content.questions[0] = {
      ...content.questions[0],
      options: [
        { id: 'pizza', label: 'Pizza' },
        { id: 'ramen', label: 'Ramen' },
      ],
    };
    await changeBehindTheCache(pollId, { content });

    await expectNothingChanges(pollId, async () => {
      const gone = await vote(pollId, { voterId: 'v', slideId: 'lunch', optionIds: ['sushi'] });
      expectValidationError(gone, 'optionIds', /'sushi' is not an option of slide 'lunch'/);
    });
    expect((await vote(pollId, { voterId: 'v', slideId: 'lunch', optionIds: ['ramen'] })).status).toBe(201);
    expect((await storedState(pollId)).tallies).toEqual({
      [`lunch/${tallyKey.answers}`]: count(1),
      [`lunch/${tallyKey.option('ramen')}`]: count(1),
    });
  });

  it('still accepts the answer when only the title changed', async () => {
    const pollId = await cachedPoll();
    await changeBehindTheCache(pollId, { title: 'New title' });
    expect((await vote(pollId, { voterId: 'v', slideId: 'lunch', optionIds: ['pizza'] })).status).toBe(201);
    expect((await storedState(pollId)).stats).toEqual({ voters: 1, answers: 1 });
  });
});
