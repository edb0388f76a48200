import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toNumber } from '../../src/db/database.js';
import { tallyKey } from '../../src/modules/answers/tallies.js';
import { call } from '../support/http.js';
import { answerVariantsContent, pollPublisher, sampleContent } from '../support/polls.js';
import { startTestServer, type TestServer } from '../support/server.js';

let t: TestServer;
let apiKey: string;
let otherKey: string;

beforeAll(async () => {
  t = await startTestServer();
  // This file makes a few hundred requests a minute: more than the default limit allows one key.
  ({ apiKey } = await t.workspace('enterprise', { rateLimitPerMinute: 100_000 }));
  ({ apiKey: otherKey } = await t.workspace('pro'));
});
afterAll(() => t?.close());

const publishedPoll = pollPublisher(() => ({
  api: t.api,
  apiKey,
  title: 'Answers',
  content: answerVariantsContent(),
}));

const vote = (pollId: string, body: unknown, key = apiKey) =>
  call('POST', `${t.api}/polls/${pollId}/votes`, { apiKey: key, body });
const respond = (pollId: string, body: unknown, key = apiKey) =>
  call('POST', `${t.api}/polls/${pollId}/responses`, { apiKey: key, body });
const listVotes = (pollId: string, query = '', key = apiKey) =>
  call('GET', `${t.api}/polls/${pollId}/votes${query}`, { apiKey: key });
const listResponses = (pollId: string, query = '', key = apiKey) =>
  call('GET', `${t.api}/polls/${pollId}/responses${query}`, { apiKey: key });

/** Everything the writer touches for one poll, read straight from the database. */
async function storedState(pollId: string) {
  const db = t.server.deps.db;
  const [answers, tallies, stats, voters, texts, words] = await Promise.all([
    db
      .selectFrom('answers')
      .select(['id', 'slide_id', 'voter_id', 'value', 'status'])
      .where('poll_id', '=', pollId)
      .orderBy('id')
      .execute(),
    db.selectFrom('slide_tallies').selectAll().where('poll_id', '=', pollId).execute(),
    db.selectFrom('poll_stats').selectAll().where('poll_id', '=', pollId).executeTakeFirst(),
    db.selectFrom('poll_voters').select('voter_id').where('poll_id', '=', pollId).orderBy('voter_id').execute(),
    db.selectFrom('open_text_counts').selectAll().where('poll_id', '=', pollId).execute(),
    db.selectFrom('word_counts').selectAll().where('poll_id', '=', pollId).execute(),
  ]);
  return {
    answers,
    /** `slideId/key` -> { count, total } */
    tallies: Object.fromEntries(
      tallies.map((row) => [`${row.slide_id}/${row.key}`, { count: toNumber(row.count), total: row.total }]),
    ),
    stats: stats ? { voters: toNumber(stats.voters), answers: toNumber(stats.answers) } : null,
    voters: voters.map((row) => row.voter_id),
    texts: Object.fromEntries(texts.map((row) => [`${row.slide_id}/${row.text}`, toNumber(row.count)])),
    words: Object.fromEntries(words.map((row) => [`${row.slide_id}/${row.word}`, toNumber(row.count)])),
  };
}

const count = (n: number, total = 0) => ({ count: n, total });

/** Runs `refuse`, expects every request in it to have been refused, and checks nothing was stored. */
async function expectNothingChanges(pollId: string, refuse: () => Promise<void>) {
  const before = await storedState(pollId);
  const votesBefore = (await listVotes(pollId)).body;
  const responsesBefore = (await listResponses(pollId)).body;
  await refuse();
  expect(await storedState(pollId)).toEqual(before);
  expect((await listVotes(pollId)).body).toEqual(votesBefore);
  expect((await listResponses(pollId)).body).toEqual(responsesBefore);
}

function expectValidationError(res: { status: number; body: any }, field: string, messagePart?: RegExp) {
  expect(res.status).toBe(422);
  expect(res.body.error.code).toBe('validation_failed');
  expect(Object.keys(res.body.error.details.fieldErrors)).toContain(field);
  if (messagePart) expect(res.body.error.message).toMatch(messagePart);
}

describe('votes', () => {
  it('records a vote: 201 with the receipt, listed, counted once', async () => {
    const { id: pollId } = await publishedPoll();
    const res = await vote(pollId, { voterId: 'ada', slideId: 'lunch', optionIds: ['sushi'] });
    expect(res.status).toBe(201);
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
    const listed = await listVotes(pollId, '?voterId=v2');
    expect(listed.body.data.map((v: { optionIds: string[] }) => v.optionIds)).toEqual([['chili', 'olives']]);
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
      expect(slide.status).toBe(404);
      expect(slide.body.error).toEqual({ code: 'not_found', message: "Slide 'dessert' not found in this poll" });

      const foreign = await vote(pollId, { voterId: 'v', slideId: 'lunch', optionIds: ['pizza'] }, otherKey);
      expect(foreign.status).toBe(404);
      expect(foreign.body.error).toEqual({ code: 'not_found', message: 'Poll not found' });
    });
    const unknown = await vote('poll_01AAAAAAAAAAAAAAAAAAAAAAAA', { voterId: 'v', slideId: 'lunch', optionIds: ['a'] });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('not_found');
  });

  it('refuses a draft poll (409 poll_not_published) and a closed one (409 poll_closed), then takes votes once reopened', async () => {
    const draft = await call('POST', `${t.api}/polls`, {
      apiKey,
      body: { title: 'Draft', content: answerVariantsContent() },
    });
    const draftId: string = draft.body.id;
    await expectNothingChanges(draftId, async () => {
      for (const send of [
        () => vote(draftId, { voterId: 'v', slideId: 'lunch', optionIds: ['pizza'] }),
        () => respond(draftId, { voterId: 'v', slideId: 'nps', scaleValue: 3 }),
      ]) {
        const res = await send();
        expect(res.status).toBe(409);
        expect(res.body.error.code).toBe('poll_not_published');
      }
    });

    const { id: pollId } = await publishedPoll();
    expect((await call('PATCH', `${t.api}/polls/${pollId}`, { apiKey, body: { closed: true } })).status).toBe(200);
    await expectNothingChanges(pollId, async () => {
      for (const send of [
        () => vote(pollId, { voterId: 'v', slideId: 'lunch', optionIds: ['pizza'] }),
        () => respond(pollId, { voterId: 'v', slideId: 'nps', scaleValue: 3 }),
      ]) {
        const res = await send();
        expect(res.status).toBe(409);
        expect(res.body.error).toEqual({ code: 'poll_closed', message: expect.stringMatching(/closed/) });
      }
    });

    expect((await call('PATCH', `${t.api}/polls/${pollId}`, { apiKey, body: { publish: true } })).status).toBe(200);
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
      expect(again.status).toBe(409);
      expect(again.body.error).toEqual({
        code: 'already_responded',
        message: "This voter already answered slide 'lunch'",
      });
      // A different choice is still a second answer.
      const changed = await vote(pollId, { voterId: 'ada', slideId: 'lunch', optionIds: ['sushi'] });
      expect(changed.status).toBe(409);
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
        expect(again.status).toBe(409);
        expect(again.body.error.code).toBe('already_responded');
      }
    });
    // Several questions by one voter are fine.
    for (const text of ['First?', 'Second?', 'First?']) {
      expect((await respond(pollId, { voterId: 'ada', slideId: 'ask', text })).status).toBe(201);
    }
    expect((await listResponses(pollId, '?slideId=ask&voterId=ada')).body.data).toHaveLength(3);
  });
});

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
    expect(listed.body.data[0].scaleValues).toEqual({ constructor: 1, toString: 3 });
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
    expect(padded.status).toBe(201);
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

    const listed = await listResponses(pollId, '?voterId=v1');
    expect(listed.body.data).toEqual([
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
    expect(asked.status).toBe(201);
    expect(asked.body.id).toMatch(/^rsp_/);
    expect((await respond(pollId, { voterId: 'v1', slideId: 'ask', text: 'And dinner?' })).status).toBe(201);
    const open = await respond(pollId, { voterId: 'v1', slideId: 'open', text: 'Anything goes?' });
    expect(open.status).toBe(201);

    const moderated = await listResponses(pollId, '?slideId=ask');
    expect(moderated.body.data.map((r: { text: string; status: string; upvotes: number; kind: string }) => r)).toEqual([
      expect.objectContaining({ kind: 'qa', text: 'And dinner?', status: 'pending', upvotes: 0 }),
      expect.objectContaining({ id: asked.body.id, kind: 'qa', text: 'Is lunch paid?', status: 'pending', upvotes: 0 }),
    ]);
    const unmoderated = await listResponses(pollId, '?slideId=open');
    expect(unmoderated.body.data).toEqual([
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
      expect(unknown.status).toBe(404);
      expect(unknown.body.error.code).toBe('not_found');

      const foreign = await respond(pollId, { voterId: 'v', slideId: 'words', text: 'x' }, otherKey);
      expect(foreign.status).toBe(404);

      const twoFields = await respond(pollId, { voterId: 'v', slideId: 'nps', scaleValue: 3, text: 'three' });
      expect(twoFields.status).toBe(422);
      expect(twoFields.body.error.details.formErrors).toEqual([
        'Send exactly one answer field, not scaleValue and text',
      ]);
      const noField = await respond(pollId, { voterId: 'v', slideId: 'nps' });
      expect(noField.status).toBe(422);
      expect(noField.body.error.details.formErrors[0]).toMatch(/Send the answer field/);

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

describe('poll_has_responses', () => {
  it('locks the deck once a poll has answers, while the title can still change', async () => {
    const { id: pollId } = await publishedPoll();
    // Before any answer, the deck may change.
    const edited: { questions: Record<string, unknown>[] } = answerVariantsContent();
    edited.questions[0] = { ...edited.questions[0], text: 'Where shall we eat today?' };
    const early = await call('PATCH', `${t.api}/polls/${pollId}`, { apiKey, body: { content: edited } });
    expect(early.status).toBe(200);

    expect((await respond(pollId, { voterId: 'v', slideId: 'nps', scaleValue: 8 })).status).toBe(201);
    const before = (await call('GET', `${t.api}/polls/${pollId}`, { apiKey })).body;

    const changed = await call('PATCH', `${t.api}/polls/${pollId}`, { apiKey, body: { content: sampleContent() } });
    expect(changed.status).toBe(409);
    expect(changed.body.error.code).toBe('poll_has_responses');
    const withTitle = await call('PATCH', `${t.api}/polls/${pollId}`, {
      apiKey,
      body: { title: 'Renamed', content: sampleContent() },
    });
    expect(withTitle.status).toBe(409);
    expect((await call('GET', `${t.api}/polls/${pollId}`, { apiKey })).body).toEqual(before);

    const renamed = await call('PATCH', `${t.api}/polls/${pollId}`, { apiKey, body: { title: 'Renamed' } });
    expect(renamed.status).toBe(200);
    expect(renamed.body.title).toBe('Renamed');
    expect(renamed.body.content).toEqual(before.content);
  });

  it('counts a vote as an answer too', async () => {
    const { id: pollId } = await publishedPoll();
    expect((await vote(pollId, { voterId: 'v', slideId: 'lunch', optionIds: ['pizza'] })).status).toBe(201);
    const changed = await call('PATCH', `${t.api}/polls/${pollId}`, { apiKey, body: { content: sampleContent() } });
    expect(changed.status).toBe(409);
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
    expect((await call('GET', `${t.api}/polls/${pollId}`, { apiKey })).status).toBe(200);
    return pollId;
  }

  it('answers 404, not 500, when the poll was deleted', async () => {
    const pollId = await cachedPoll();
    await t.server.deps.db.deleteFrom('polls').where('id', '=', pollId).execute();
    const voted = await vote(pollId, { voterId: 'v', slideId: 'lunch', optionIds: ['pizza'] });
    expect(voted.status).toBe(404);
    expect(voted.body.error).toEqual({ code: 'not_found', message: 'Poll not found' });
    const responded = await respond(pollId, { voterId: 'v', slideId: 'nps', scaleValue: 3 });
    expect(responded.status).toBe(404);
  });

  it('answers 409 poll_closed / poll_not_published when the poll was closed or returned to draft', async () => {
    const closed = await cachedPoll();
    await changeBehindTheCache(closed, { status: 'closed' });
    await expectNothingChanges(closed, async () => {
      const res = await vote(closed, { voterId: 'v', slideId: 'lunch', optionIds: ['pizza'] });
      expect(res.status).toBe(409);
      expect(res.body.error.code).toBe('poll_closed');
    });

    const draft = await cachedPoll();
    await changeBehindTheCache(draft, { status: 'draft' });
    await expectNothingChanges(draft, async () => {
      const res = await respond(draft, { voterId: 'v', slideId: 'nps', scaleValue: 3 });
      expect(res.status).toBe(409);
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

describe('listing votes and responses', () => {
  it('pages votes newest first and filters by slide, voter and both', async () => {
    const { id: pollId } = await publishedPoll();
    const cast: { id: string; voterId: string; slideId: string }[] = [];
    for (const [voterId, slideId, optionIds] of [
      ['ann', 'lunch', ['pizza']],
      ['ben', 'lunch', ['sushi']],
      ['ann', 'toppings', ['basil', 'chili']],
      ['cat', 'lunch', ['pizza']],
      ['ben', 'toppings', ['olives']],
    ] as const) {
      const res = await vote(pollId, { voterId, slideId, optionIds });
      expect(res.status).toBe(201);
      cast.push(res.body);
    }
    const newestFirst = [...cast].reverse();

    const pages: { id: string }[][] = [];
    let cursor: string | null = null;
    do {
      const res = await listVotes(pollId, `?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      expect(res.status).toBe(200);
      pages.push(res.body.data);
      cursor = res.body.nextCursor;
    } while (cursor);
    expect(pages.map((page) => page.length)).toEqual([2, 2, 1]);
    expect(pages.flat().map((v) => v.id)).toEqual(newestFirst.map((v) => v.id));

    const ids = async (query: string) => (await listVotes(pollId, query)).body.data.map((v: { id: string }) => v.id);
    const expected = (keep: (v: (typeof cast)[0]) => boolean) => newestFirst.filter(keep).map((v) => v.id);
    expect(await ids('?slideId=lunch')).toEqual(expected((v) => v.slideId === 'lunch'));
    expect(await ids('?voterId=ann')).toEqual(expected((v) => v.voterId === 'ann'));
    expect(await ids('?slideId=toppings&voterId=ben')).toEqual(
      expected((v) => v.slideId === 'toppings' && v.voterId === 'ben'),
    );
    expect(await ids('?voterId=nobody')).toEqual([]);

    // Filters and pages combine.
    const first = await listVotes(pollId, '?slideId=lunch&limit=2');
    expect(first.body.data.map((v: { id: string }) => v.id)).toEqual(
      expected((v) => v.slideId === 'lunch').slice(0, 2),
    );
    const second = await listVotes(pollId, `?slideId=lunch&limit=2&cursor=${first.body.nextCursor}`);
    expect(second.body).toEqual({
      data: [expect.objectContaining({ voterId: 'ann', slideId: 'lunch' })],
      nextCursor: null,
    });

    // Votes are not responses.
    expect((await listResponses(pollId)).body).toEqual({ data: [], nextCursor: null });
  });

  it('pages responses newest first with the field of each kind', async () => {
    const { id: pollId } = await publishedPoll();
    const sent: [string, Record<string, unknown>][] = [
      ['quiz', { slideId: 'capital', optionIds: ['paris'] }],
      ['scale', { slideId: 'nps', scaleValue: 6 }],
      ['scale', { slideId: 'feel', scaleValues: { pay: -1, team: 0 } }],
      ['ranking', { slideId: 'rank', rankingOrder: ['c', 'b', 'a'] }],
      ['open_ended', { slideId: 'words', text: 'tasty' }],
      ['qa', { slideId: 'ask', text: 'Why?' }],
    ];
    const created: string[] = [];
    for (const [, answer] of sent) {
      const res = await respond(pollId, { voterId: 'ann', ...answer });
      expect(res.status).toBe(201);
      created.push(res.body.id);
    }
    expect((await respond(pollId, { voterId: 'ben', slideId: 'nps', scaleValue: 2 })).status).toBe(201);

    const all = await listResponses(pollId, '?voterId=ann&limit=100');
    expect(all.body.nextCursor).toBeNull();
    const expected = sent
      .map(([kind, answer], index) => {
        const { slideId, ...field } = answer;
        return {
          id: created[index],
          pollId,
          slideId,
          voterId: 'ann',
          kind,
          ...field,
          ...(kind === 'qa' ? { status: 'pending', flagged: false, upvotes: 0 } : {}),
          ...(kind === 'open_ended' ? { status: 'approved', flagged: false } : {}),
          createdAt: expect.any(String),
        };
      })
      .reverse();
    expect(all.body.data).toEqual(expected);

    const pages: string[] = [];
    let cursor: string | null = null;
    let requests = 0;
    do {
      const res = await listResponses(pollId, `?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      expect(res.status).toBe(200);
      expect(res.body.data.length).toBeLessThanOrEqual(2);
      pages.push(...res.body.data.map((r: { id: string }) => r.id));
      cursor = res.body.nextCursor;
      requests += 1;
    } while (cursor);
    expect(requests).toBe(4);
    expect(pages).toHaveLength(7);
    expect(pages).toEqual([...pages].sort().reverse());
    expect(pages.slice(1)).toEqual([...created].reverse());

    const both = await listResponses(pollId, '?slideId=nps&voterId=ben');
    expect(both.body.data).toEqual([expect.objectContaining({ voterId: 'ben', slideId: 'nps', scaleValue: 2 })]);
  });

  it('refuses forged cursors and bad limits with 422, and another workspace’s poll with 404', async () => {
    const { id: pollId } = await publishedPoll();
    expect((await vote(pollId, { voterId: 'v', slideId: 'lunch', optionIds: ['pizza'] })).status).toBe(201);
    expect((await respond(pollId, { voterId: 'v', slideId: 'nps', scaleValue: 1 })).status).toBe(201);
    const voteCursor = (await listVotes(pollId, '?limit=1')).body;
    const responseCursor = (await listResponses(pollId, '?limit=1')).body;
    // One item each: no next page.
    expect(voteCursor.nextCursor).toBeNull();
    expect(responseCursor.nextCursor).toBeNull();

    const forged = [
      'not-a-cursor',
      Buffer.from('vote_123').toString('base64url'),
      Buffer.from(pollId).toString('base64url'),
      // A response id is not a vote cursor, and the other way round.
      Buffer.from('rsp_01AAAAAAAAAAAAAAAAAAAAAAAA').toString('base64url'),
    ];
    for (const cursor of forged) {
      expectValidationError(await listVotes(pollId, `?cursor=${cursor}`), 'cursor');
    }
    expectValidationError(
      await listResponses(pollId, `?cursor=${Buffer.from('vote_01AAAAAAAAAAAAAAAAAAAAAAAA').toString('base64url')}`),
      'cursor',
    );
    expectValidationError(await listVotes(pollId, '?limit=0'), 'limit');
    expectValidationError(await listResponses(pollId, '?limit=101'), 'limit');
    expectValidationError(await listResponses(pollId, '?limit=abc'), 'limit');
    expectValidationError(await listVotes(pollId, '?colour=red'), 'colour');

    for (const list of [listVotes, listResponses]) {
      const foreign = await list(pollId, '', otherKey);
      expect(foreign.status).toBe(404);
      expect(foreign.body.error.code).toBe('not_found');
      const unknown = await list('poll_01AAAAAAAAAAAAAAAAAAAAAAAA');
      expect(unknown.status).toBe(404);
    }
  });
});
