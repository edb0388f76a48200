import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../support/assertions.js';
import { branchingDeck, condition } from '../support/decks.js';
import { rawCall } from '../support/http.js';
import { UNLIMITED } from '../support/limits.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { errorDetails, expectOk, expectStatus, testClient } from '../support/test-client.js';

/**
 * Branching over real HTTP, with no provider configured (the rule-based parser drafts):
 * `POST /polls/{id}/branch`, `PATCH /polls/{id}` `{ branching }` and `GET /polls/{id}/next-slide`
 * walking respondents through a branched poll from their stored answers.
 */

let t: TestServer;
const api = testClient(() => t.api);
let apiKey: string;
let freeKey: string;

beforeAll(async () => {
  // The per-workspace draft limit is tested in branching-limits.test.ts.
  t = await startTestServer(UNLIMITED);
  ({ apiKey } = await t.workspace('pro'));
  ({ apiKey: freeKey } = await t.workspace('free'));
});
afterAll(() => t?.close());

async function createPoll(key = apiKey): Promise<string> {
  const res = await api.request('POST /polls', {
    apiKey: key,
    body: { title: 'Branched', content: { questions: branchingDeck } },
  });
  expectStatus(res, 201);
  return res.body.id;
}

async function branch(pollId: string, instruction: string, key = apiKey) {
  return api.request('POST /polls/{id}/branch', { params: { id: pollId }, apiKey: key, body: { instruction } });
}

describe('POST /polls/{id}/branch without a provider', () => {
  it('drafts conditions with the rules, checked against the poll, and stores nothing', async () => {
    const pollId = await createPoll();
    const res = await branch(pollId, 'If Q2 is below 3, skip to Q4; otherwise if Q2 is 5, end the poll');
    expectStatus(res, 200);
    expect(res.body).toEqual({
      data: {
        source: 'rules',
        draftJson: {
          conditions: [
            condition('rule-1', 'mood', 'less_than', 3, 'drinks'),
            condition('rule-2', 'mood', 'equals', 5, 'end'),
          ],
        },
        // What was understood, in the poll's words, for a host to check before applying it.
        report: {
          rules: [
            {
              id: 'rule-1',
              source: 'If Q2 is below 3, skip to Q4',
              reading: 'If “How do you feel?” is below 3, skip to “Drinks?”',
            },
            {
              id: 'rule-2',
              source: 'otherwise if Q2 is 5, end the poll',
              reading: 'If “How do you feel?” is 5, end the poll',
            },
          ],
          ignored: [],
          corrected: [],
        },
      },
    });
    const poll = await api.request('GET /polls/{id}', { params: { id: pollId }, apiKey });
    expectStatus(poll, 200);
    expect(poll.body.branching).toBeNull();
  });

  it('reads an instruction as people write it, and reports the clauses that add no rule', async () => {
    const pollId = await createPoll();
    const res = await branch(
      pollId,
      'Hey team! 🙌 Anyone who picks Pizza should go straight to the capital question. Otherwise carry on as normal, thanks!!',
    );
    expectStatus(res, 200);
    expect(expectOk(res).data.draftJson.conditions).toEqual([
      condition('rule-1', 'lunch', 'equals', 'pizza', 'capital'),
    ]);
    expect(expectOk(res).data.report.rules).toEqual([
      {
        id: 'rule-1',
        source: 'Anyone who picks Pizza should go straight to the capital question',
        reading: 'If “Where shall we eat?” is “Pizza”, skip to “Capital of France?”',
      },
    ]);
    expect(expectOk(res).data.report.ignored).toEqual([
      { text: 'Otherwise carry on as normal, thanks', why: expect.stringContaining('adds none') },
    ]);
  });

  it('answers 422 quoting the words it could not read, with the form it expects', async () => {
    const pollId = await createPoll();
    const res = await branch(pollId, 'If Q2 is purple, skip to Q4');
    expectError(res, 422, 'validation_failed');
    expect(res.body.error.message).toContain('"purple, skip to Q4"');
    expect(res.body.error.message).toContain('Q2 is below 3');
    expect(errorDetails(res).fieldErrors.instruction![0]).toBe(res.body.error.message);
    expect(errorDetails(res).fragment).toBe('purple, skip to Q4');
  });

  it('answers 422 at the words of a jump backwards', async () => {
    const pollId = await createPoll();
    const res = await branch(pollId, 'If Q3 is "Paris", skip to Q1');
    expectError(res, 422, 'validation_failed');
    expect(errorDetails(res).fragment).toBe('Q1');
    expect(res.body.error.message).toMatch(/jumps go forward only/);
  });

  it('refuses a rule that can never apply by quoting the words of both rules, not their numbers', async () => {
    const pollId = await createPoll();
    const res = await branch(pollId, 'If Q2 is 4 or more, skip to Q5; if Q2 is 5, end the poll');
    expectError(res, 422, 'validation_failed');
    expect(res.body.error.message).toContain('"if Q2 is 5, end the poll" can never apply');
    expect(res.body.error.message).toContain('caught first by "If Q2 is 4 or more, skip to Q5"');
    expect(res.body.error.message).not.toMatch(/rule-\d/);
  });

  it('reads a typing slip of its own words, and reports it', async () => {
    const pollId = await createPoll();
    const res = await branch(pollId, 'If Q2 is below 3, skpi to Q4');
    expectStatus(res, 200);
    expect(expectOk(res).data.report.corrected).toEqual([{ from: 'skpi', to: 'skip' }]);
    expect(expectOk(res).data.draftJson.conditions).toHaveLength(1);
  });

  it('suggests the closest reading when a small change to a label reads', async () => {
    const pollId = await createPoll();
    const res = await branch(pollId, 'If Q1 is "Piza", skip to Q3');
    expectError(res, 422, 'validation_failed');
    expect(res.body.error.details).toMatchObject({
      reason: 'no_such_option',
      suggestion: 'If Q1 is "Pizza", skip to Q3',
    });
    expect(res.body.error.message).toContain('Did you mean "If Q1 is "Pizza", skip to Q3"?');
  });

  it('refuses two readings that differ, naming both, and says why in details.reason', async () => {
    const pollId = await createPoll();
    // The deck starts with a content slide: "Q5" is the fifth question or the fifth slide.
    const res = await branch(pollId, 'If they did not answer Q2, skip to Q5');
    expectError(res, 422, 'validation_failed');
    expect(errorDetails(res).reason).toBe('ambiguous');
    expect(res.body.error.message).toContain('counting questions');
    expect(res.body.error.message).toContain('counting every slide');
  });

  it('caps the instruction’s length, and is Pro and Enterprise only', async () => {
    const pollId = await createPoll();
    const long = await branch(pollId, `If Q2 is below 3, skip to Q4. ${'x'.repeat(2000)}`);
    expectError(long, 422, 'validation_failed');
    expect(errorDetails(long).fieldErrors.instruction).toBeDefined();
    // The free plan has no API access at all: 402 before anything is looked up.
    expectError(await branch(pollId, 'If Q2 is below 3, skip to Q4', freeKey), 402, 'upgrade_required');
    expectError(await branch('poll_01AAAAAAAAAAAAAAAAAAAAAAAA', 'If Q2 is below 3, skip to Q4'), 404, 'not_found');
  });
});

describe('PATCH /polls/{id} { branching }', () => {
  it('stores skip logic that fits, refuses what does not (naming where), and removes it with null', async () => {
    const pollId = await createPoll();
    const draft = await branch(pollId, 'If they did not answer slide 3, skip to slide 6');
    const stored = await api.request('PATCH /polls/{id}', {
      params: { id: pollId },
      apiKey,
      body: { branching: expectOk(draft).data.draftJson },
    });
    expectStatus(stored, 200);
    expect(stored.body.branching).toEqual(expectOk(draft).data.draftJson);

    const bad = await api.request('PATCH /polls/{id}', {
      params: { id: pollId },
      apiKey,
      body: {
        branching: {
          conditions: [condition('r1', 'lunch', 'less_than', 2, 'end')],
        },
      },
    });
    expectError(bad, 422, 'validation_failed');
    expect(errorDetails(bad).fieldErrors['branching.conditions.0.if.operator']![0]).toMatch(
      /does not fit slide 'lunch'/,
    );
    expect(expectOk(await api.request('GET /polls/{id}', { params: { id: pollId }, apiKey })).branching).toEqual(
      expectOk(draft).data.draftJson,
    );

    // New slides must still fit the stored skip logic.
    const shorter = await api.request('PATCH /polls/{id}', {
      params: { id: pollId },
      apiKey,
      body: { content: { questions: branchingDeck.filter((slide) => slide.id !== 'rank') } },
    });
    expectError(shorter, 422, 'validation_failed');
    expect(shorter.body.error.message).toMatch(/break the poll’s skip logic/);

    const cleared = await api.request('PATCH /polls/{id}', {
      params: { id: pollId },
      apiKey,
      body: { branching: null },
    });
    expectStatus(cleared, 200);
    expect(cleared.body.branching).toBeNull();
  });
});

describe('rule ids', () => {
  it('are unique: PATCH refuses a repeated id with 422 at the repeat, naming it, and stores nothing', async () => {
    const pollId = await createPoll();
    const repeated = {
      conditions: [
        condition('rule-1', 'mood', 'less_than', 3, 'drinks'),
        condition('keep', 'lunch', 'equals', 'pizza', 'capital'),
        condition('rule-1', 'mood', 'equals', 5, 'end'),
      ],
    };
    const res = await api.request('PATCH /polls/{id}', {
      params: { id: pollId },
      apiKey,
      body: { branching: repeated },
    });
    expectError(res, 422, 'validation_failed');
    expect(errorDetails(res).fieldErrors).toEqual({
      'branching.conditions.2.id': ["Rule id 'rule-1' is used more than once (first by conditions.0)"],
    });
    expect(expectOk(await api.request('GET /polls/{id}', { params: { id: pollId }, apiKey })).branching).toBeNull();
    // With the ids told apart, the same rules are stored.
    const distinct = { conditions: repeated.conditions.map((rule, index) => ({ ...rule, id: `r${index}` })) };
    const stored = await api.request('PATCH /polls/{id}', {
      params: { id: pollId },
      apiKey,
      body: { branching: distinct },
    });
    expectStatus(stored, 200);
  });

  it('of a draft are clear of the poll’s stored rules, so the draft can be added to them', async () => {
    const pollId = await createPoll();
    const stored = { conditions: [condition('rule-1', 'lunch', 'equals', 'pizza', 'capital')] };
    expect(
      (await api.request('PATCH /polls/{id}', { params: { id: pollId }, apiKey, body: { branching: stored } })).status,
    ).toBe(200);
    const draft = await branch(pollId, 'If Q2 is below 3, skip to Q4; otherwise if Q2 is 5, end the poll');
    expectStatus(draft, 200);
    expect(expectOk(draft).data.draftJson.conditions).toEqual([
      condition('rule-2', 'mood', 'less_than', 3, 'drinks'),
      condition('rule-3', 'mood', 'equals', 5, 'end'),
    ]);
    const merged = { conditions: [...stored.conditions, ...expectOk(draft).data.draftJson.conditions] };
    const both = await api.request('PATCH /polls/{id}', {
      params: { id: pollId },
      apiKey,
      body: { branching: merged },
    });
    expectStatus(both, 200);
    expect(both.body.branching).toEqual(merged);
    // Numbered on past the highest stored `rule-<n>`, whatever other ids the rules have.
    const next = await branch(pollId, 'If they did not answer the drinks question, end the poll');
    expect(expectOk(next).data.draftJson.conditions.map((rule: { id: string }) => rule.id)).toEqual(['rule-4']);
  });
});

describe('GET /polls/{id}/next-slide', () => {
  it('walks respondents through the branched poll from their stored answers', async () => {
    const pollId = await createPoll();
    const draft = await branch(
      pollId,
      'If Q1 is "Pizza", skip to Q3. If Q2 is below 3, skip to Q4; otherwise if Q2 is 5, end the poll. ' +
        'If they chose any of "Water", "Juice" on Q4, skip to Q6',
    );
    expectStatus(draft, 200);
    await api.request('PATCH /polls/{id}', {
      params: { id: pollId },
      apiKey,
      body: { branching: expectOk(draft).data.draftJson, publish: true },
    });
    const vote = (voterId: string, slideId: string, optionIds: string[]) =>
      api.request('POST /polls/{id}/votes', { params: { id: pollId }, apiKey, body: { voterId, slideId, optionIds } });
    const respond = (voterId: string, slideId: string, scaleValue: number) =>
      api.request('POST /polls/{id}/responses', {
        params: { id: pollId },
        apiKey,
        body: { voterId, slideId, scaleValue },
      });
    const next = async (voterId: string, afterSlideId: string) => {
      const res = await api.request('GET /polls/{id}/next-slide', {
        params: { id: pollId },
        query: { voterId, afterSlideId },
        apiKey,
      });
      expectStatus(res, 200);
      return res.body;
    };

    expect((await vote('ada', 'lunch', ['pizza'])).status).toBe(201);
    expect(await next('ada', 'lunch')).toEqual({ slideId: 'capital' });
    expect((await vote('bob', 'lunch', ['sushi'])).status).toBe(201);
    expect(await next('bob', 'lunch')).toEqual({ slideId: 'mood' });
    // No answer to Q1: no rule matches, the next slide.
    expect(await next('cy', 'lunch')).toEqual({ slideId: 'mood' });

    expect((await respond('bob', 'mood', 2)).status).toBe(201);
    expect(await next('bob', 'mood')).toEqual({ slideId: 'drinks' });
    expect((await respond('dee', 'mood', 5)).status).toBe(201);
    expect(await next('dee', 'mood')).toEqual({ end: true });
    expect((await respond('eve', 'mood', 3)).status).toBe(201);
    expect(await next('eve', 'mood')).toEqual({ slideId: 'capital' });

    expect((await vote('bob', 'drinks', ['soda', 'juice'])).status).toBe(201);
    expect(await next('bob', 'drinks')).toEqual({ slideId: 'feedback' });
    expect((await vote('eve', 'drinks', ['soda'])).status).toBe(201);
    expect(await next('eve', 'drinks')).toEqual({ slideId: 'rank' });

    // After the last slide, the end; an unknown slide is a 404.
    expect(await next('eve', 'thanks')).toEqual({ end: true });
    const unknown = await api.request('GET /polls/{id}/next-slide', {
      params: { id: pollId },
      query: { voterId: 'eve', afterSlideId: 'nope' },
      apiKey,
    });
    expectError(unknown, 404, 'not_found');
    const missing = await rawCall('GET', `${t.api}/polls/${pollId}/next-slide?afterSlideId=lunch`, { apiKey });
    expectError(missing, 422, 'validation_failed');
  });
});
