import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answersApi, expectValidationError, startAnswersServer } from '../support/answers.js';
import type { TestServer } from '../support/server.js';
import { expectOk, expectStatus } from '../support/test-client.js';

/**
 * Listing votes and responses (GET /polls/{id}/votes, /responses): newest first, paged, filtered by
 * slide and voter, each kind's field; forged cursors, bad limits and another workspace's poll refused.
 */

let t: TestServer;
let apiKey: string;
let otherKey: string;

beforeAll(async () => {
  ({ t, apiKey, otherKey } = await startAnswersServer());
});
afterAll(() => t?.close());

const { publishedPoll, vote, respond, listVotes, listResponses } = answersApi(() => ({ t, apiKey }));

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
      expectStatus(res, 201);
      cast.push(res.body);
    }
    const newestFirst = [...cast].reverse();

    const pages: { id: string }[][] = [];
    let cursor: string | null = null;
    do {
      const res = await listVotes(pollId, { limit: 2, ...(cursor ? { cursor } : {}) });
      expectStatus(res, 200);
      pages.push(res.body.data);
      cursor = res.body.nextCursor;
    } while (cursor);
    expect(pages.map((page) => page.length)).toEqual([2, 2, 1]);
    expect(pages.flat().map((v) => v.id)).toEqual(newestFirst.map((v) => v.id));

    const ids = async (query: Record<string, string>) => expectOk(await listVotes(pollId, query)).data.map((v) => v.id);
    const expected = (keep: (v: (typeof cast)[0]) => boolean) => newestFirst.filter(keep).map((v) => v.id);
    expect(await ids({ slideId: 'lunch' })).toEqual(expected((v) => v.slideId === 'lunch'));
    expect(await ids({ voterId: 'ann' })).toEqual(expected((v) => v.voterId === 'ann'));
    expect(await ids({ slideId: 'toppings', voterId: 'ben' })).toEqual(
      expected((v) => v.slideId === 'toppings' && v.voterId === 'ben'),
    );
    expect(await ids({ voterId: 'nobody' })).toEqual([]);

    // Filters and pages combine.
    const first = expectOk(await listVotes(pollId, { slideId: 'lunch', limit: 2 }));
    expect(first.data.map((v) => v.id)).toEqual(expected((v) => v.slideId === 'lunch').slice(0, 2));
    const second = await listVotes(pollId, { slideId: 'lunch', limit: 2, cursor: first.nextCursor });
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
      expectStatus(res, 201);
      created.push(res.body.id);
    }
    expect((await respond(pollId, { voterId: 'ben', slideId: 'nps', scaleValue: 2 })).status).toBe(201);

    const all = expectOk(await listResponses(pollId, { voterId: 'ann', limit: 100 }));
    expect(all.nextCursor).toBeNull();
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
    expect(all.data).toEqual(expected);

    const pages: string[] = [];
    let cursor: string | null = null;
    let requests = 0;
    do {
      const res = await listResponses(pollId, { limit: 2, ...(cursor ? { cursor } : {}) });
      expectStatus(res, 200);
      expect(res.body.data.length).toBeLessThanOrEqual(2);
      pages.push(...res.body.data.map((r) => r.id));
      cursor = res.body.nextCursor;
      requests += 1;
    } while (cursor);
    expect(requests).toBe(4);
    expect(pages).toHaveLength(7);
    expect(pages).toEqual([...pages].sort().reverse());
    expect(pages.slice(1)).toEqual([...created].reverse());

    const both = await listResponses(pollId, { slideId: 'nps', voterId: 'ben' });
    expect(expectOk(both).data).toEqual([expect.objectContaining({ voterId: 'ben', slideId: 'nps', scaleValue: 2 })]);
  });

  it('refuses forged cursors and bad limits with 422, and another workspace’s poll with 404', async () => {
    const { id: pollId } = await publishedPoll();
    expect((await vote(pollId, { voterId: 'v', slideId: 'lunch', optionIds: ['pizza'] })).status).toBe(201);
    expect((await respond(pollId, { voterId: 'v', slideId: 'nps', scaleValue: 1 })).status).toBe(201);
    const voteCursor = expectOk(await listVotes(pollId, { limit: 1 }));
    const responseCursor = expectOk(await listResponses(pollId, { limit: 1 }));
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
      expectValidationError(await listVotes(pollId, { cursor }), 'cursor');
    }
    expectValidationError(
      await listResponses(pollId, { cursor: Buffer.from('vote_01AAAAAAAAAAAAAAAAAAAAAAAA').toString('base64url') }),
      'cursor',
    );
    expectValidationError(await listVotes(pollId, { limit: 0 }), 'limit');
    expectValidationError(await listResponses(pollId, { limit: 101 }), 'limit');
    expectValidationError(await listResponses(pollId, { limit: 'abc' }), 'limit');
    expectValidationError(await listVotes(pollId, { colour: 'red' }), 'colour');

    for (const list of [listVotes, listResponses]) {
      const foreign = await list(pollId, {}, otherKey);
      expectStatus(foreign, 404);
      expect(foreign.body.error.code).toBe('not_found');
      const unknown = await list('poll_01AAAAAAAAAAAAAAAAAAAAAAAA');
      expect(unknown.status).toBe(404);
    }
  });
});
