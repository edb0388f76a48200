import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tallyKey } from '../../src/modules/answers/tallies.js';
import { answersApi, count, expectValidationError, startAnswersServer } from '../support/answers.js';
import { answerVariantsContent } from '../support/polls.js';
import type { TestServer } from '../support/server.js';
import { expectOk, expectStatus, testClient } from '../support/test-client.js';

/**
 * Votes (POST /polls/{id}/votes) as the API takes and refuses them: the receipt, counting, what does
 * not fit the slide, drafts and closed polls, malformed bodies; and one answer per voter per slide,
 * for every kind but Q&A. A refused answer stores nothing. The other kinds: answers.responses.test.ts.
 */

let t: TestServer;
let apiKey: string;
let otherKey: string;
const api = testClient(() => t.api, { apiKey: () => apiKey });

beforeAll(async () => {
  ({ t, apiKey, otherKey } = await startAnswersServer());
});
afterAll(() => t?.close());

const { publishedPoll, vote, respond, listVotes, listResponses, storedState, expectNothingChanges } = answersApi(
  () => ({ t, apiKey }),
);

describe('votes', () => {
  it('records a vote: 201 with the receipt, listed, counted once', async () => {
    const { id: pollId } = await publishedPoll();
    const res = await vote(pollId, { voterId: 'ada', slideId: 'lunch', optionIds: ['sushi'] });
    expectStatus(res, 201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^vote_[0-9A-HJKMNP-TV-Z]{26}$/),
      pollId,
      slideId: 'lunch',
      voterId: 'ada',
      createdAt: expect.any(String),
    });
    expect(Math.abs(new Date(res.body.createdAt).getTime() - Date.now())).toBeLessThan(60_000);

    const listed = await listVotes(pollId);
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual({ data: [{ ...res.body, optionIds: ['sushi'] }], nextCursor: null });

    const state = await storedState(pollId);
    expect(state.tallies).toEqual({
      [`lunch/${tallyKey.answers}`]: count(1),
      [`lunch/${tallyKey.option('sushi')}`]: count(1),
    });
    expect(state.stats).toEqual({ voters: 1, answers: 1 });
    expect(state.voters).toEqual(['ada']);
  });

  it('takes one or more distinct options on a `multiple` slide and counts each chosen option', async () => {
    const { id: pollId } = await publishedPoll();
    expect((await vote(pollId, { voterId: 'v1', slideId: 'toppings', optionIds: ['olives'] })).status).toBe(201);
    expect((await vote(pollId, { voterId: 'v2', slideId: 'toppings', optionIds: ['chili', 'olives'] })).status).toBe(
      201,
    );
    expect(
      (await vote(pollId, { voterId: 'v3', slideId: 'toppings', optionIds: ['olives', 'basil', 'chili'] })).status,
    ).toBe(201);

    const { tallies, stats } = await storedState(pollId);
    expect(tallies).toEqual({
      [`toppings/${tallyKey.answers}`]: count(3),
      [`toppings/${tallyKey.option('olives')}`]: count(3),
      [`toppings/${tallyKey.option('basil')}`]: count(1),
      [`toppings/${tallyKey.option('chili')}`]: count(2),
    });
    expect(stats).toEqual({ voters: 3, answers: 3 });
    const listed = await listVotes(pollId, { voterId: 'v2' });
    expect(expectOk(listed).data.map((v) => v.optionIds)).toEqual([['chili', 'olives']]);
  });

  it('refuses votes that do not fit the slide with 422, storing nothing', async () => {
    const { id: pollId } = await publishedPoll();
    // One accepted vote first, so "nothing changes" compares against real counters.
    expect((await vote(pollId, { voterId: 'seed', slideId: 'lunch', optionIds: ['pizza'] })).status).toBe(201);

    await expectNothingChanges(pollId, async () => {
      // `single` takes exactly one option.
      const two = await vote(pollId, { voterId: 'v', slideId: 'lunch', optionIds: ['pizza', 'sushi'] });
      expectValidationError(two, 'optionIds', /exactly one/);
      const none = await vote(pollId, { voterId: 'v', slideId: 'lunch', optionIds: [] });
      expectValidationError(none, 'optionIds');
      // `multiple` takes distinct options.
      const dup = await vote(pollId, { voterId: 'v', slideId: 'toppings', optionIds: ['olives', 'olives'] });
      expectValidationError(dup, 'optionIds', /once/);
      const dupSingle = await vote(pollId, { voterId: 'v', slideId: 'lunch', optionIds: ['pizza', 'pizza'] });
      expectValidationError(dupSingle, 'optionIds');
      // Unknown options, including another slide's.
      const unknown = await vote(pollId, { voterId: 'v', slideId: 'lunch', optionIds: ['tacos'] });
      expectValidationError(unknown, 'optionIds', /'tacos' is not an option of slide 'lunch'/);
      const elsewhere = await vote(pollId, { voterId: 'v', slideId: 'lunch', optionIds: ['olives'] });
      expectValidationError(elsewhere, 'optionIds');
      const partlyUnknown = await vote(pollId, { voterId: 'v', slideId: 'toppings', optionIds: ['basil', 'ham'] });
      expectValidationError(partlyUnknown, 'optionIds', /'ham'/);
    });
  });

  it('sends every other answerable kind to POST /polls/{id}/responses, and refuses content slides', async () => {
    const { id: pollId } = await publishedPoll();
    await expectNothingChanges(pollId, async () => {
      const expectations: [string, string][] = [
        ['capital', 'optionIds'],
        ['mood', 'scaleValues'],
        ['nps', 'scaleValue'],
        ['rank', 'rankingOrder'],
        ['words', 'text'],
        ['ask', 'text'],
      ];
      for (const [slideId, field] of expectations) {
        const res = await vote(pollId, { voterId: 'v', slideId, optionIds: ['paris'] });
        expectValidationError(res, 'slideId');
        expect(res.body.error.message).toContain('POST /polls/{id}/responses');
        expect(res.body.error.message).toContain(`\`${field}\``);
      }
      const content = await vote(pollId, { voterId: 'v', slideId: 'intro', optionIds: ['x'] });
      expectValidationError(content, 'slideId', /content slide and takes no answers/);
    });
  });

  it('answers 404 for an unknown slide, an unknown poll and another workspace’s poll', async () => {
    const { id: pollId } = await publishedPoll();
    await expectNothingChanges(pollId, async () => {
      const slide = await vote(pollId, { voterId: 'v', slideId: 'dessert', optionIds: ['pizza'] });
      expectStatus(slide, 404);
      expect(slide.body.error).toEqual({ code: 'not_found', message: "Slide 'dessert' not found in this poll" });

      const foreign = await vote(pollId, { voterId: 'v', slideId: 'lunch', optionIds: ['pizza'] }, otherKey);
      expectStatus(foreign, 404);
      expect(foreign.body.error).toEqual({ code: 'not_found', message: 'Poll not found' });
    });
    const unknown = await vote('poll_01AAAAAAAAAAAAAAAAAAAAAAAA', { voterId: 'v', slideId: 'lunch', optionIds: ['a'] });
    expectStatus(unknown, 404);
    expect(unknown.body.error.code).toBe('not_found');
  });

  it('refuses a draft poll (409 poll_not_published) and a closed one (409 poll_closed), then takes votes once reopened', async () => {
    const draft = await api.request('POST /polls', { body: { title: 'Draft', content: answerVariantsContent() } });
    const draftId: string = expectOk(draft).id;
    await expectNothingChanges(draftId, async () => {
      for (const send of [
        () => vote(draftId, { voterId: 'v', slideId: 'lunch', optionIds: ['pizza'] }),
        () => respond(draftId, { voterId: 'v', slideId: 'nps', scaleValue: 3 }),
      ]) {
        const res = await send();
        expectStatus(res, 409);
        expect(res.body.error.code).toBe('poll_not_published');
      }
    });

    const { id: pollId } = await publishedPoll();
    expect((await api.request('PATCH /polls/{id}', { params: { id: pollId }, body: { closed: true } })).status).toBe(
      200,
    );
    await expectNothingChanges(pollId, async () => {
      for (const send of [
        () => vote(pollId, { voterId: 'v', slideId: 'lunch', optionIds: ['pizza'] }),
        () => respond(pollId, { voterId: 'v', slideId: 'nps', scaleValue: 3 }),
      ]) {
        const res = await send();
        expectStatus(res, 409);
        expect(res.body.error).toEqual({ code: 'poll_closed', message: expect.stringMatching(/closed/) });
      }
    });

    expect((await api.request('PATCH /polls/{id}', { params: { id: pollId }, body: { publish: true } })).status).toBe(
      200,
    );
    expect((await vote(pollId, { voterId: 'v', slideId: 'lunch', optionIds: ['pizza'] })).status).toBe(201);
  });

  it('refuses malformed vote bodies with 422 naming the field', async () => {
    const { id: pollId } = await publishedPoll();
    await expectNothingChanges(pollId, async () => {
      const cases: [unknown, string][] = [
        [{ slideId: 'lunch', optionIds: ['pizza'] }, 'voterId'],
        [{ voterId: '', slideId: 'lunch', optionIds: ['pizza'] }, 'voterId'],
        [{ voterId: 'x'.repeat(201), slideId: 'lunch', optionIds: ['pizza'] }, 'voterId'],
        [{ voterId: 42, slideId: 'lunch', optionIds: ['pizza'] }, 'voterId'],
        [{ voterId: 'v', optionIds: ['pizza'] }, 'slideId'],
        [{ voterId: 'v', slideId: ['lunch'], optionIds: ['pizza'] }, 'slideId'],
        [{ voterId: 'v', slideId: 'lunch' }, 'optionIds'],
        [{ voterId: 'v', slideId: 'lunch', optionIds: 'pizza' }, 'optionIds'],
        [{ voterId: 'v', slideId: 'lunch', optionIds: [1] }, 'optionIds.0'],
        [{ voterId: 'v', slideId: 'lunch', optionIds: ['pizza'], weight: 2 }, 'weight'],
        [{ voterId: 'v', slideId: 'lunch', optionIds: ['pizza'], text: 'hi' }, 'text'],
      ];
      for (const [body, field] of cases) expectValidationError(await vote(pollId, body), field);
    });
  });
});

describe('one answer per voter per slide', () => {
  it('answers 409 already_responded to a second vote, and accepts the voter elsewhere and other voters', async () => {
    const { id: pollId } = await publishedPoll();
    const first = await vote(pollId, { voterId: 'ada', slideId: 'lunch', optionIds: ['pizza'] });
    expect(first.status).toBe(201);

    await expectNothingChanges(pollId, async () => {
      const again = await vote(pollId, { voterId: 'ada', slideId: 'lunch', optionIds: ['pizza'] });
      expectStatus(again, 409);
      expect(again.body.error).toEqual({
        code: 'already_responded',
        message: "This voter already answered slide 'lunch'",
      });
      // A different choice is still a second answer.
      const changed = await vote(pollId, { voterId: 'ada', slideId: 'lunch', optionIds: ['sushi'] });
      expectStatus(changed, 409);
      expect(changed.body.error.code).toBe('already_responded');
    });

    expect((await vote(pollId, { voterId: 'ada', slideId: 'toppings', optionIds: ['basil'] })).status).toBe(201);
    expect((await vote(pollId, { voterId: 'bob', slideId: 'lunch', optionIds: ['pizza'] })).status).toBe(201);
    // The same voter id in another poll is a different respondent.
    const { id: otherPoll } = await publishedPoll();
    expect((await vote(otherPoll, { voterId: 'ada', slideId: 'lunch', optionIds: ['pizza'] })).status).toBe(201);

    const state = await storedState(pollId);
    expect(state.tallies[`lunch/${tallyKey.option('pizza')}`]).toEqual(count(2));
    expect(state.tallies[`lunch/${tallyKey.option('sushi')}`]).toBeUndefined();
    expect(state.stats).toEqual({ voters: 2, answers: 3 });
  });

  it('holds for every response kind but Q&A', async () => {
    const { id: pollId } = await publishedPoll();
    const answers: Record<string, unknown>[] = [
      { slideId: 'capital', optionIds: ['paris'] },
      { slideId: 'mood', scaleValues: { work: 4 } },
      { slideId: 'nps', scaleValue: 9 },
      { slideId: 'feel', scaleValues: { pay: 1, team: 2 } },
      { slideId: 'rank', rankingOrder: ['c', 'a', 'b'] },
      { slideId: 'words', text: 'tasty' },
    ];
    for (const answer of answers) {
      expect((await respond(pollId, { voterId: 'ada', ...answer })).status).toBe(201);
    }
    await expectNothingChanges(pollId, async () => {
      for (const answer of answers) {
        const again = await respond(pollId, { voterId: 'ada', ...answer });
        expectStatus(again, 409);
        expect(again.body.error.code).toBe('already_responded');
      }
    });
    // Several questions by one voter are fine.
    for (const text of ['First?', 'Second?', 'First?']) {
      expect((await respond(pollId, { voterId: 'ada', slideId: 'ask', text })).status).toBe(201);
    }
    expect(expectOk(await listResponses(pollId, { slideId: 'ask', voterId: 'ada' })).data).toHaveLength(3);
  });
});
