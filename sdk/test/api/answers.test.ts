import Papa from 'papaparse';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { sampleContent } from '../../../server/test/support/polls.js';
import { startTestServer, type TestServer } from '../../../server/test/support/server.js';
import { createClient, type PollkitClient, PollkitError, type PollResults } from '../../src/index.js';

let t: TestServer;
let client: PollkitClient;

beforeAll(async () => {
  t = await startTestServer();
  const { apiKey } = await t.workspace('pro');
  client = createClient({ apiKey, baseUrl: t.url });
});
afterAll(() => t?.close());

/** The routes of issue 3 reached through the SDK alone: methods and types come from the contracts. */
describe('votes, responses, results, export and questions through the SDK', () => {
  it('casts votes and responses, lists them, reads results and exports the CSV', async () => {
    const poll = await client.polls.create({ title: 'SDK answers', content: sampleContent() });
    await client.polls.update({ id: poll.id, publish: true });

    const receipt = await client.votes.cast({ id: poll.id, voterId: 'ada', slideId: 'lunch', optionIds: ['pizza'] });
    expect(receipt).toMatchObject({ pollId: poll.id, slideId: 'lunch', voterId: 'ada' });
    expect(receipt.id).toMatch(/^vote_/);
    await client.votes.cast({ id: poll.id, voterId: 'bob', slideId: 'lunch', optionIds: ['sushi'] });
    await client.votes.cast({ id: poll.id, voterId: 'cyd', slideId: 'lunch', optionIds: ['pizza'] });
    await client.responses.create({ id: poll.id, voterId: 'ada', slideId: 'mood', scaleValues: { work: 4 } });
    await client.responses.create({ id: poll.id, voterId: 'ada', slideId: 'rank', rankingOrder: ['c', 'a', 'b'] });
    await client.responses.create({ id: poll.id, voterId: 'ada', slideId: 'words', text: 'Ship it' });

    const duplicate = await client.votes
      .cast({ id: poll.id, voterId: 'ada', slideId: 'lunch', optionIds: ['sushi'] })
      .catch((error: unknown) => error);
    expect(duplicate).toBeInstanceOf(PollkitError);
    expect((duplicate as PollkitError).status).toBe(409);
    expect((duplicate as PollkitError).code).toBe('already_responded');

    const votes = await client.votes.list({ id: poll.id, slideId: 'lunch', limit: 2 });
    expect(votes.data).toHaveLength(2);
    expect(votes.nextCursor).not.toBeNull();
    const rest = await client.votes.list({ id: poll.id, slideId: 'lunch', cursor: votes.nextCursor ?? undefined });
    expect([...votes.data, ...rest.data].map((v) => v.voterId).sort()).toEqual(['ada', 'bob', 'cyd']);

    const responses = await client.responses.list({ id: poll.id, voterId: 'ada' });
    expect(responses.data.map((r) => r.kind).sort()).toEqual(['open_ended', 'ranking', 'scale']);

    const results = await client.results.get({ id: poll.id });
    expectTypeOf(results).toEqualTypeOf<PollResults>();
    expect(results.totalVoters).toBe(3);
    const lunch = results.slides.find((s) => s.slideId === 'lunch');
    expect(lunch?.kind === 'multiple_choice' && lunch.options.map((o) => [o.id, o.count])).toEqual([
      ['pizza', 2],
      ['sushi', 1],
    ]);

    const csv = await client.results.export({ id: poll.id });
    expectTypeOf(csv).toEqualTypeOf<string>();
    const rows = Papa.parse<string[]>(csv.trim(), { newline: '\r\n' }).data;
    expect(rows[0]).toEqual(['Slide', 'Question', 'Type', 'Answer / Label', 'Count / Value']);
    expect(rows).toContainEqual(['1', 'Where shall we eat?', 'multiple_choice', 'Pizza', '2']);
    expect(rows).toContainEqual(['5', 'One word?', 'open_ended', 'Ship it', '1']);
  });

  it('asks, moderates and upvotes Q&A questions', async () => {
    const poll = await client.polls.create({ title: 'SDK Q&A', content: sampleContent() });
    await client.polls.update({ id: poll.id, publish: true });
    const asked = await client.responses.create({
      id: poll.id,
      voterId: 'ada',
      slideId: 'ask',
      text: 'When is lunch?',
    });

    const pending = await client.questions.list({ id: poll.id, status: 'pending' });
    expect(pending.data.map((q) => q.id)).toEqual([asked.id]);

    const approved = await client.questions.moderate({ id: poll.id, questionId: asked.id, status: 'approved' });
    expect(approved.status).toBe('approved');
    const upvoted = await client.questions.upvote({ id: poll.id, questionId: asked.id, voterId: 'bob' });
    expect(upvoted.upvotes).toBe(1);
    const again = await client.questions
      .upvote({ id: poll.id, questionId: asked.id, voterId: 'bob' })
      .catch((error: unknown) => error as PollkitError);
    expect(again).toBeInstanceOf(PollkitError);
    expect((again as PollkitError).code).toBe('already_upvoted');
  });

  it('gets 402 upgrade_required from export on a free workspace', async () => {
    const free = await t.workspace('free');
    const freeClient = createClient({ apiKey: free.apiKey, baseUrl: t.url });
    const error = await freeClient.results.export({ id: 'poll_01AAAAAAAAAAAAAAAAAAAAAAAA' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PollkitError);
    expect((error as PollkitError).status).toBe(402);
    expect((error as PollkitError).code).toBe('upgrade_required');
  });
});

/** Issue 28: single deletes and a respondent's access and erasure, through the SDK alone. */
describe('deletes and respondents through the SDK', () => {
  it('deletes a vote and a response, lists a respondent’s records and erases them', async () => {
    const poll = await client.polls.create({ title: 'SDK privacy', content: sampleContent() });
    await client.polls.update({ id: poll.id, publish: true });
    const vote = await client.votes.cast({ id: poll.id, voterId: 'eve', slideId: 'lunch', optionIds: ['pizza'] });
    const text = await client.responses.create({ id: poll.id, voterId: 'eve', slideId: 'words', text: 'Hello' });
    await client.responses.create({ id: poll.id, voterId: 'eve', slideId: 'mood', scaleValues: { work: 2 } });

    expect(await client.votes.delete({ id: poll.id, voteId: vote.id })).toEqual({
      id: vote.id,
      pollId: poll.id,
      deleted: true,
    });
    expect(await client.responses.delete({ id: poll.id, responseId: text.id })).toMatchObject({ deleted: true });

    const records = await client.respondents.get({ id: 'eve' });
    expect(records.data.map((record) => record.type)).toEqual(['response']);
    const erased = await client.respondents.erase({ id: 'eve' });
    expect(erased).toMatchObject({ id: 'eve', erased: { votes: 0, responses: 1, questions: 0, participants: 0 } });
    // The SDK sends an Idempotency-Key with each POST: the stored replies naming eve were rewritten.
    expect(erased.erased.redacted).toBeGreaterThan(0);
    expect((await client.respondents.get({ id: 'eve' })).data).toEqual([]);
    expect((await client.results.get({ id: poll.id })).totalVoters).toBe(0);
  });
});
