import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tallyKey } from '../../src/modules/answers/tallies.js';
import { answersApi, count, expectValidationError, startAnswersServer } from '../support/answers.js';
import type { TestServer } from '../support/server.js';
import { errorDetails, expectOk, expectStatus } from '../support/test-client.js';

/**
 * Responses (POST /polls/{id}/responses) of every kind but a vote, as the API takes and refuses
 * them: quiz, scale (with statements), ranking, open-ended and Q&A, each bound checked, and the
 * field each kind takes named when another is sent. A refused answer stores nothing. Votes:
 * answers.votes.test.ts.
 */

let t: TestServer;
let apiKey: string;
let otherKey: string;

beforeAll(async () => {
  ({ t, apiKey, otherKey } = await startAnswersServer());
});
afterAll(() => t?.close());

const { publishedPoll, respond, listResponses, storedState, expectNothingChanges } = answersApi(() => ({ t, apiKey }));

describe('responses', () => {
  it('quiz: takes known options and counts correct answers; unknown options are 422', async () => {
    const { id: pollId } = await publishedPoll();
    const right = await respond(pollId, { voterId: 'v1', slideId: 'capital', optionIds: ['paris'] });
    expect(right.status).toBe(201);
    expect(right.body).toEqual({
      id: expect.stringMatching(/^rsp_[0-9A-HJKMNP-TV-Z]{26}$/),
      pollId,
      slideId: 'capital',
      voterId: 'v1',
      createdAt: expect.any(String),
    });
    expect((await respond(pollId, { voterId: 'v2', slideId: 'capital', optionIds: ['lyon'] })).status).toBe(201);

    await expectNothingChanges(pollId, async () => {
      const unknown = await respond(pollId, { voterId: 'v3', slideId: 'capital', optionIds: ['marseille'] });
      expectValidationError(unknown, 'optionIds', /'marseille' is not an option/);
      const dup = await respond(pollId, { voterId: 'v3', slideId: 'capital', optionIds: ['paris', 'paris'] });
      expectValidationError(dup, 'optionIds');
      const empty = await respond(pollId, { voterId: 'v3', slideId: 'capital', optionIds: [] });
      expectValidationError(empty, 'optionIds');
    });
    expect((await storedState(pollId)).tallies).toEqual({
      [`capital/${tallyKey.answers}`]: count(2),
      [`capital/${tallyKey.option('paris')}`]: count(1),
      [`capital/${tallyKey.option('lyon')}`]: count(1),
      [`capital/${tallyKey.correct}`]: count(1),
    });
  });

  it('scale: an integer within [min, max]; out of range and fractions are 422', async () => {
    const { id: pollId } = await publishedPoll();
    for (const [voterId, scaleValue] of [
      ['lo', 0],
      ['hi', 10],
      ['mid', 7],
    ] as const) {
      expect((await respond(pollId, { voterId, slideId: 'nps', scaleValue })).status).toBe(201);
    }
    await expectNothingChanges(pollId, async () => {
      for (const scaleValue of [-1, 11, 1000]) {
        const res = await respond(pollId, { voterId: 'x', slideId: 'nps', scaleValue });
        expectValidationError(res, 'scaleValue', /whole numbers from 0 to 10/);
      }
      expectValidationError(await respond(pollId, { voterId: 'x', slideId: 'nps', scaleValue: 7.5 }), 'scaleValue');
      expectValidationError(await respond(pollId, { voterId: 'x', slideId: 'nps', scaleValue: '7' }), 'scaleValue');
      // A scale without statements takes one rating, not a map.
      const map = await respond(pollId, { voterId: 'x', slideId: 'nps', scaleValues: { work: 3 } });
      expectValidationError(map, 'scaleValues', /takes `scaleValue`/);
    });
    expect((await storedState(pollId)).tallies).toEqual({
      [`nps/${tallyKey.answers}`]: count(3, 17),
      [`nps/${tallyKey.rating(0)}`]: count(1),
      [`nps/${tallyKey.rating(10)}`]: count(1),
      [`nps/${tallyKey.rating(7)}`]: count(1),
    });
  });

  it('scale with statements: a rating for every statement, each within range', async () => {
    const { id: pollId } = await publishedPoll();
    expect((await respond(pollId, { voterId: 'v1', slideId: 'feel', scaleValues: { pay: -2, team: 2 } })).status).toBe(
      201,
    );
    expect((await respond(pollId, { voterId: 'v2', slideId: 'feel', scaleValues: { team: 1, pay: 0 } })).status).toBe(
      201,
    );
    expect((await respond(pollId, { voterId: 'v1', slideId: 'mood', scaleValues: { work: 5 } })).status).toBe(201);

    await expectNothingChanges(pollId, async () => {
      const missing = await respond(pollId, { voterId: 'x', slideId: 'feel', scaleValues: { pay: 1 } });
      expectValidationError(missing, 'scaleValues', /missing: team/);
      const none = await respond(pollId, { voterId: 'x', slideId: 'feel', scaleValues: {} });
      expectValidationError(none, 'scaleValues', /missing: pay, team/);
      const unknown = await respond(pollId, {
        voterId: 'x',
        slideId: 'feel',
        scaleValues: { pay: 1, team: 1, bonus: 1 },
      });
      expectValidationError(unknown, 'scaleValues.bonus', /'bonus' is not a statement/);
      const high = await respond(pollId, { voterId: 'x', slideId: 'feel', scaleValues: { pay: 3, team: 1 } });
      expectValidationError(high, 'scaleValues.pay', /from -2 to 2/);
      const low = await respond(pollId, { voterId: 'x', slideId: 'mood', scaleValues: { work: 0 } });
      expectValidationError(low, 'scaleValues.work', /from 1 to 5/);
      const fraction = await respond(pollId, { voterId: 'x', slideId: 'feel', scaleValues: { pay: 0.5, team: 1 } });
      expectValidationError(fraction, 'scaleValues.pay');
      const single = await respond(pollId, { voterId: 'x', slideId: 'feel', scaleValue: 1 });
      expectValidationError(single, 'scaleValue', /takes `scaleValues`/);
    });

    expect((await storedState(pollId)).tallies).toEqual({
      [`feel/${tallyKey.answers}`]: count(2),
      [`feel/${tallyKey.statement('pay')}`]: count(2, -2),
      [`feel/${tallyKey.statement('team')}`]: count(2, 3),
      [`feel/${tallyKey.statementRating('pay', -2)}`]: count(1),
      [`feel/${tallyKey.statementRating('pay', 0)}`]: count(1),
      [`feel/${tallyKey.statementRating('team', 2)}`]: count(1),
      [`feel/${tallyKey.statementRating('team', 1)}`]: count(1),
      [`mood/${tallyKey.answers}`]: count(1),
      [`mood/${tallyKey.statement('work')}`]: count(1, 5),
      [`mood/${tallyKey.statementRating('work', 5)}`]: count(1),
    });
  });

  it('scale with statements named like Object.prototype members still needs a rating for each', async () => {
    const { id: pollId } = await publishedPoll({
      content: {
        questions: [
          {
            id: 'odd',
            kind: 'scale',
            text: 'Rate',
            min: 1,
            max: 3,
            statements: [
              { id: 'constructor', text: 'A' },
              { id: 'toString', text: 'B' },
            ],
          },
        ],
      },
    });
    await expectNothingChanges(pollId, async () => {
      const none = await respond(pollId, { voterId: 'x', slideId: 'odd', scaleValues: {} });
      expectValidationError(none, 'scaleValues', /missing: constructor, toString/);
      const half = await respond(pollId, { voterId: 'x', slideId: 'odd', scaleValues: { toString: 2 } });
      expectValidationError(half, 'scaleValues', /missing: constructor/);
    });
    const full = await respond(pollId, { voterId: 'x', slideId: 'odd', scaleValues: { constructor: 1, toString: 3 } });
    expect(full.status).toBe(201);
    const listed = await listResponses(pollId);
    expect(expectOk(listed).data[0]?.scaleValues).toEqual({ constructor: 1, toString: 3 });
  });

  it('ranking: a permutation of the options; missing, repeated and unknown options are 422', async () => {
    const { id: pollId } = await publishedPoll();
    expect((await respond(pollId, { voterId: 'v1', slideId: 'rank', rankingOrder: ['b', 'c', 'a'] })).status).toBe(201);
    expect((await respond(pollId, { voterId: 'v2', slideId: 'rank', rankingOrder: ['b', 'a', 'c'] })).status).toBe(201);
    await expectNothingChanges(pollId, async () => {
      for (const rankingOrder of [
        [],
        ['a', 'b'],
        ['a', 'a', 'b'],
        ['a', 'b', 'c', 'a'],
        ['a', 'b', 'd'],
        ['a', 'b', 'c', 'd'],
      ]) {
        const res = await respond(pollId, { voterId: 'x', slideId: 'rank', rankingOrder });
        expectValidationError(res, 'rankingOrder', /Order every option of slide 'rank' once: a, b, c/);
      }
      const wrongField = await respond(pollId, { voterId: 'x', slideId: 'rank', optionIds: ['a', 'b', 'c'] });
      expectValidationError(wrongField, 'optionIds', /takes `rankingOrder`, not `optionIds`/);
    });
    expect((await storedState(pollId)).tallies).toEqual({
      [`rank/${tallyKey.answers}`]: count(2),
      [`rank/${tallyKey.rank('a')}`]: count(2, 5),
      [`rank/${tallyKey.rank('b')}`]: count(2, 2),
      [`rank/${tallyKey.rank('c')}`]: count(2, 5),
    });
  });

  it('open_ended: text within maxLength, white space normalised; too long or blank is 422', async () => {
    const { id: pollId } = await publishedPoll();
    const padded = await respond(pollId, { voterId: 'v1', slideId: 'words', text: '  Great   pizza\n\tvery  great ' });
    expectStatus(padded, 201);
    const atLimit = 'x'.repeat(40);
    expect((await respond(pollId, { voterId: 'v2', slideId: 'words', text: atLimit })).status).toBe(201);
    expect((await respond(pollId, { voterId: 'v3', slideId: 'words', text: 'great pizza very great' })).status).toBe(
      201,
    );

    await expectNothingChanges(pollId, async () => {
      const long = await respond(pollId, { voterId: 'x', slideId: 'words', text: 'x'.repeat(41) });
      expectValidationError(long, 'text', /at most 40 characters/);
      for (const text of ['', '   ', '\n\t ']) {
        expectValidationError(await respond(pollId, { voterId: 'x', slideId: 'words', text }), 'text');
      }
      expectValidationError(await respond(pollId, { voterId: 'x', slideId: 'words', text: 42 }), 'text');
      const wrongField = await respond(pollId, { voterId: 'x', slideId: 'words', optionIds: ['a'] });
      expectValidationError(wrongField, 'optionIds', /takes `text`/);
    });

    const listed = await listResponses(pollId, { voterId: 'v1' });
    expect(expectOk(listed).data).toEqual([
      {
        id: padded.body.id,
        pollId,
        slideId: 'words',
        voterId: 'v1',
        kind: 'open_ended',
        text: 'Great pizza very great',
        status: 'approved',
        flagged: false,
        createdAt: padded.body.createdAt,
      },
    ]);
    const state = await storedState(pollId);
    // Texts are counted as given (normalised); words are counted lower-cased, once per answer.
    expect(state.texts).toEqual({
      'words/Great pizza very great': 1,
      'words/great pizza very great': 1,
      [`words/${atLimit}`]: 1,
    });
    expect(state.words).toEqual({ 'words/great': 2, 'words/pizza': 2, 'words/very': 2, [`words/${atLimit}`]: 1 });
    expect(state.tallies).toEqual({ [`words/${tallyKey.answers}`]: count(3) });
  });

  it('qa: a question per request, several per voter; moderated slides list them as pending', async () => {
    const { id: pollId } = await publishedPoll();
    const asked = await respond(pollId, { voterId: 'v1', slideId: 'ask', text: ' Is   lunch paid? ' });
    expectStatus(asked, 201);
    expect(asked.body.id).toMatch(/^rsp_/);
    expect((await respond(pollId, { voterId: 'v1', slideId: 'ask', text: 'And dinner?' })).status).toBe(201);
    const open = await respond(pollId, { voterId: 'v1', slideId: 'open', text: 'Anything goes?' });
    expectStatus(open, 201);

    const moderated = await listResponses(pollId, { slideId: 'ask' });
    expect(expectOk(moderated).data.map((r) => r)).toEqual([
      expect.objectContaining({ kind: 'qa', text: 'And dinner?', status: 'pending', upvotes: 0 }),
      expect.objectContaining({ id: asked.body.id, kind: 'qa', text: 'Is lunch paid?', status: 'pending', upvotes: 0 }),
    ]);
    const unmoderated = await listResponses(pollId, { slideId: 'open' });
    expect(expectOk(unmoderated).data).toEqual([
      {
        id: open.body.id,
        pollId,
        slideId: 'open',
        voterId: 'v1',
        kind: 'qa',
        text: 'Anything goes?',
        status: 'approved',
        flagged: false,
        upvotes: 0,
        createdAt: open.body.createdAt,
      },
    ]);

    await expectNothingChanges(pollId, async () => {
      expectValidationError(await respond(pollId, { voterId: 'v1', slideId: 'ask', text: '  ' }), 'text');
      const long = await respond(pollId, { voterId: 'v1', slideId: 'ask', text: 'q'.repeat(1001) });
      expectValidationError(long, 'text', /at most 1000 characters/);
      const wrongField = await respond(pollId, { voterId: 'v1', slideId: 'ask', scaleValue: 3 });
      expectValidationError(wrongField, 'scaleValue', /takes `text`, not `scaleValue`/);
    });
    const state = await storedState(pollId);
    expect(state.tallies).toEqual({ [`ask/${tallyKey.answers}`]: count(2), [`open/${tallyKey.answers}`]: count(1) });
    expect(state.stats).toEqual({ voters: 1, answers: 3 });
  });

  it('refuses content slides, multiple_choice (pointing at /votes), unknown slides and bad bodies', async () => {
    const { id: pollId } = await publishedPoll();
    await expectNothingChanges(pollId, async () => {
      const content = await respond(pollId, { voterId: 'v', slideId: 'intro', text: 'hello' });
      expectValidationError(content, 'slideId', /content slide and takes no answers/);

      const choice = await respond(pollId, { voterId: 'v', slideId: 'lunch', optionIds: ['pizza'] });
      expectValidationError(choice, 'slideId');
      expect(choice.body.error.message).toContain('POST /polls/{id}/votes');

      const unknown = await respond(pollId, { voterId: 'v', slideId: 'nope', text: 'x' });
      expectStatus(unknown, 404);
      expect(unknown.body.error.code).toBe('not_found');

      const foreign = await respond(pollId, { voterId: 'v', slideId: 'words', text: 'x' }, otherKey);
      expect(foreign.status).toBe(404);

      const twoFields = await respond(pollId, { voterId: 'v', slideId: 'nps', scaleValue: 3, text: 'three' });
      expectStatus(twoFields, 422);
      expect(errorDetails(twoFields).formErrors).toEqual(['Send exactly one answer field, not scaleValue and text']);
      const noField = await respond(pollId, { voterId: 'v', slideId: 'nps' });
      expectStatus(noField, 422);
      expect(errorDetails(noField).formErrors[0]).toMatch(/Send the answer field/);

      expectValidationError(await respond(pollId, { slideId: 'nps', scaleValue: 3 }), 'voterId');
      expectValidationError(await respond(pollId, { voterId: 'v', slideId: 'nps', scaleValue: 3, extra: 1 }), 'extra');
      expectValidationError(
        await respond(pollId, { voterId: 'v', slideId: 'rank', rankingOrder: 'a,b,c' }),
        'rankingOrder',
      );
    });
  });

  it('names the field a slide takes when another is sent, for every kind', async () => {
    const { id: pollId } = await publishedPoll();
    await expectNothingChanges(pollId, async () => {
      const cases: [Record<string, unknown>, string, string][] = [
        [{ slideId: 'capital', text: 'Paris' }, 'text', 'optionIds'],
        [{ slideId: 'nps', optionIds: ['a'] }, 'optionIds', 'scaleValue'],
        [{ slideId: 'mood', rankingOrder: ['work'] }, 'rankingOrder', 'scaleValues'],
        [{ slideId: 'rank', scaleValue: 1 }, 'scaleValue', 'rankingOrder'],
        [{ slideId: 'words', scaleValues: { a: 1 } }, 'scaleValues', 'text'],
        [{ slideId: 'ask', optionIds: ['a'] }, 'optionIds', 'text'],
      ];
      for (const [answer, sent, expected] of cases) {
        const res = await respond(pollId, { voterId: 'v', ...answer });
        expectValidationError(res, sent);
        expect(res.body.error.message).toContain(`takes \`${expected}\`, not \`${sent}\``);
      }
    });
  });
});
