import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../support/assertions.js';
import { askMeAnythingContent } from '../support/decks.js';
import { rawCall } from '../support/http.js';
import { UNLIMITED } from '../support/limits.js';
import { issuedToken, oauthClient } from '../support/oauth.js';
import { pollPublisher } from '../support/polls.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { type BodyOf, expectOk, expectStatus, slideOf, testClient } from '../support/test-client.js';

/**
 * `DELETE /polls/{id}/answers`: a poll tried out before going live is emptied of its answers and
 * aggregates, and can be edited and answered again. Every table the answers fill is checked in the
 * database, so an aggregate forgotten by the reset fails here.
 */

let t: TestServer;
const api = testClient(() => t.api);
let apiKey: string;

beforeAll(async () => {
  // Many answers per test: lift the per-key limit so 429s don't interfere.
  t = await startTestServer(UNLIMITED);
  ({ apiKey } = await t.workspace('pro'));
});
afterAll(() => t?.close());

/** The deck with an unmoderated Q&A slide, so questions show (and take upvotes) at once. */
const publishedPoll = pollPublisher(() => ({ api: t.api, apiKey, title: 'Dry run', content: askMeAnythingContent() }));

async function vote(pollId: string, body: BodyOf<'POST /polls/{id}/votes'>, key = apiKey) {
  return expectOk(await api.request('POST /polls/{id}/votes', { params: { id: pollId }, apiKey: key, body }), 201);
}

async function respond(pollId: string, body: BodyOf<'POST /polls/{id}/responses'>) {
  return expectOk(await api.request('POST /polls/{id}/responses', { params: { id: pollId }, apiKey, body }), 201);
}

/** A vote, a response to every answerable kind, two Q&A questions and an upvote: every aggregate. */
async function answerEverything(pollId: string, voterId: string): Promise<void> {
  await vote(pollId, { voterId, slideId: 'lunch', optionIds: ['pizza'] });
  await respond(pollId, { voterId, slideId: 'capital', optionIds: ['paris'] });
  await respond(pollId, { voterId, slideId: 'mood', scaleValues: { work: 4 } });
  await respond(pollId, { voterId, slideId: 'rank', rankingOrder: ['b', 'a', 'c'] });
  await respond(pollId, { voterId, slideId: 'words', text: 'tacos' });
  const question = await respond(pollId, { voterId, slideId: 'ama', text: 'When is lunch?' });
  await respond(pollId, { voterId, slideId: 'ama', text: 'Who pays?' });
  const upvote = await api.request('POST /polls/{id}/questions/{questionId}/upvotes', {
    params: { id: pollId, questionId: question.id },
    apiKey,
    body: { voterId: `${voterId}-fan` },
  });
  expectStatus(upvote, 201);
}

/**
 * Rows of the poll in every table with a `poll_id` column — found in the catalog, so a table added
 * later is checked too — and its questions' upvotes, straight from the database.
 */
async function storedRows(pollId: string): Promise<Record<string, number>> {
  const db = t.server.deps.db;
  const tables = await sql<{ table_name: string }>`
    select table_name from information_schema.columns
    where column_name = 'poll_id' and table_schema = current_schema()
    order by table_name`.execute(db);
  const counts: Record<string, number> = {};
  for (const { table_name: table } of tables.rows) {
    const row = await sql<{ n: string | number }>`
      select count(*) as n from ${sql.table(table)} where poll_id = ${pollId}`.execute(db);
    counts[table] = Number(row.rows[0]?.n);
  }
  const upvotes = await db
    .selectFrom('question_upvotes')
    .innerJoin('answers', 'answers.id', 'question_upvotes.question_id')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('answers.poll_id', '=', pollId)
    .executeTakeFirstOrThrow();
  counts.question_upvotes = Number(upvotes.n);
  return counts;
}

/** The tables answers fill (migration 0002): each must have rows before a reset. */
const answerTables = [
  'answers',
  'slide_tallies',
  'open_text_counts',
  'word_counts',
  'poll_voters',
  'poll_stats',
  'question_upvotes',
];

/** Tables still holding rows of the poll. */
const nonEmpty = (rows: Record<string, number>) => Object.keys(rows).filter((table) => rows[table] !== 0);

describe('DELETE /polls/{id}/answers', () => {
  it('deletes every answer and aggregate; results are those of a poll never answered', async () => {
    const poll = await publishedPoll();
    const untouched = await publishedPoll();
    await answerEverything(poll.id, 'ada');
    await answerEverything(poll.id, 'grace');
    expect(nonEmpty(await storedRows(poll.id))).toEqual(expect.arrayContaining(answerTables));

    const reset = await api.request('DELETE /polls/{id}/answers', { params: { id: poll.id }, apiKey });
    expectStatus(reset, 200);
    expect(reset.body).toEqual({ pollId: poll.id, deleted: { votes: 2, responses: 8, questions: 4, upvotes: 2 } });
    expect(nonEmpty(await storedRows(poll.id))).toEqual([]);

    const results = await api.request('GET /polls/{id}/results', { params: { id: poll.id }, apiKey });
    const fresh = await api.request('GET /polls/{id}/results', { params: { id: untouched.id }, apiKey });
    expectStatus(results, 200);
    expect(results.body).toEqual({ ...fresh.body, pollId: poll.id });
    expect(results.body.totalVoters).toBe(0);
    for (const list of ['votes', 'responses', 'questions']) {
      const listed = await rawCall('GET', `${t.api}/polls/${poll.id}/${list}`, { apiKey });
      expect(listed.status, listed.text).toBe(200);
      expect(listed.body).toEqual({ data: [], nextCursor: null });
    }

    // The poll is still published and takes the same voters again.
    const after = await api.request('GET /polls/{id}', { params: { id: poll.id }, apiKey });
    expectStatus(after, 200);
    expect(after.body.status).toBe('published');
    expect(Date.parse(after.body.updatedAt)).toBeGreaterThan(Date.parse(poll.version));
    await answerEverything(poll.id, 'ada');
    const again = await api.request('GET /polls/{id}/results', { params: { id: poll.id }, apiKey });
    expectStatus(again, 200);
    expect(again.body.totalVoters).toBe(1);
  });

  it('lets a tried-out poll be edited again, and a reset of an unanswered poll deletes nothing', async () => {
    const poll = await publishedPoll();
    await vote(poll.id, { voterId: 'ada', slideId: 'lunch', optionIds: ['pizza'] });
    const edited = askMeAnythingContent();
    edited.questions[0] = { ...edited.questions[0], text: 'Where shall we eat on Friday?' } as never;
    const refused = await api.request('PATCH /polls/{id}', {
      params: { id: poll.id },
      apiKey,
      body: { content: edited },
    });
    expectError(refused, 409, 'poll_has_responses');

    expect(
      (await api.request('PATCH /polls/{id}', { params: { id: poll.id }, apiKey, body: { publish: false } })).status,
    ).toBe(200);
    const reset = await api.request('DELETE /polls/{id}/answers', { params: { id: poll.id }, apiKey });
    expectStatus(reset, 200);
    expect(reset.body.deleted).toEqual({ votes: 1, responses: 0, questions: 0, upvotes: 0 });
    const saved = await api.request('PATCH /polls/{id}', {
      params: { id: poll.id },
      apiKey,
      body: { content: edited, publish: true },
    });
    expectStatus(saved, 200);
    expect(saved.body.content.questions[0]!.text).toBe('Where shall we eat on Friday?');

    // The read cache was dropped: the same voter votes against the edited deck.
    await vote(poll.id, { voterId: 'ada', slideId: 'lunch', optionIds: ['sushi'] });
    const votes = await api.request('GET /polls/{id}/votes', { params: { id: poll.id }, apiKey });
    expectStatus(votes, 200);
    expect(votes.body.data.map((v: { optionIds: string[] }) => v.optionIds)).toEqual([['sushi']]);

    const again = await api.request('DELETE /polls/{id}/answers', { params: { id: poll.id }, apiKey });
    expectStatus(again, 200);
    expect(again.body.deleted).toEqual({ votes: 1, responses: 0, questions: 0, upvotes: 0 });
    const empty = await api.request('DELETE /polls/{id}/answers', { params: { id: poll.id }, apiKey });
    expectStatus(empty, 200);
    expect(empty.body).toEqual({ pollId: poll.id, deleted: { votes: 0, responses: 0, questions: 0, upvotes: 0 } });
  });

  it("answers 404 for another workspace's poll and leaves its answers alone", async () => {
    const poll = await publishedPoll();
    await vote(poll.id, { voterId: 'ada', slideId: 'lunch', optionIds: ['pizza'] });
    const other = await t.workspace('pro');
    expectError(
      await api.request('DELETE /polls/{id}/answers', { params: { id: poll.id }, apiKey: other.apiKey }),
      404,
      'not_found',
    );
    expectError(
      await api.request('DELETE /polls/{id}/answers', { params: { id: 'poll_01AAAAAAAAAAAAAAAAAAAAAAAA' }, apiKey }),
      404,
      'not_found',
    );
    // A malformed id names nothing: the same 404 as an unknown one.
    expectError(await api.request('DELETE /polls/{id}/answers', { params: { id: 'nope' }, apiKey }), 404, 'not_found');
    expect((await storedRows(poll.id)).answers).toBe(1);
  });

  it('needs the responses:write scope', async () => {
    const workspace = await oauthClient(t, 'polls:read polls:write responses:read responses:write', 'dashboard');
    const token = async (scope: string) => (await issuedToken(t, workspace, scope)).access_token;
    const poll = await publishedPoll({ apiKey: workspace.apiKey });
    await vote(poll.id, { voterId: 'ada', slideId: 'lunch', optionIds: ['pizza'] }, workspace.apiKey);

    const reader = await token('polls:read polls:write responses:read');
    const refused = await api.request('DELETE /polls/{id}/answers', { params: { id: poll.id }, apiKey: reader });
    expectError(refused, 403, 'insufficient_scope');
    expect(refused.body.error.details).toEqual({ requiredScope: 'responses:write' });
    expect((await storedRows(poll.id)).answers).toBe(1);

    const writer = await token('responses:write');
    const reset = await api.request('DELETE /polls/{id}/answers', { params: { id: poll.id }, apiKey: writer });
    expectStatus(reset, 200);
    expect(reset.body.deleted.votes).toBe(1);
  });

  it('keeps answers and aggregates consistent when votes race a reset', async () => {
    const poll = await publishedPoll();
    const voters = Array.from({ length: 60 }, (_, i) => `voter-${i}`);
    const vote = (voterId: string) =>
      api.request('POST /polls/{id}/votes', {
        params: { id: poll.id },
        apiKey,
        body: { voterId, slideId: 'lunch', optionIds: [voterId.length % 2 === 0 ? 'pizza' : 'sushi'] },
      });
    // Votes before, during and after two resets, all in flight together.
    const settled = await Promise.all([
      ...voters.slice(0, 20).map(vote),
      api.request('DELETE /polls/{id}/answers', { params: { id: poll.id }, apiKey }),
      ...voters.slice(20, 40).map(vote),
      api.request('DELETE /polls/{id}/answers', { params: { id: poll.id }, apiKey }),
      ...voters.slice(40).map(vote),
    ]);
    for (const res of settled) expect([200, 201], res.text).toContain(res.status);

    // However the writes interleaved, the aggregates describe exactly the answers that remain.
    const stored = await t.server.deps.db
      .selectFrom('answers')
      .select(['voter_id', 'value'])
      .where('poll_id', '=', poll.id)
      .execute();
    const results = await api.request('GET /polls/{id}/results', { params: { id: poll.id }, apiKey });
    expectStatus(results, 200);
    expect(results.body.totalVoters).toBe(stored.length);
    const lunch = slideOf(results.body.slides, 'lunch', 'multiple_choice');
    for (const option of lunch.options) {
      const expected = stored.filter((row) => row.value.optionIds?.includes(option.id)).length;
      expect(option.count, option.id).toBe(expected);
    }
    const stats = await t.server.deps.db
      .selectFrom('poll_stats')
      .selectAll()
      .where('poll_id', '=', poll.id)
      .executeTakeFirst();
    expect(Number(stats?.answers ?? 0)).toBe(stored.length);
    expect(Number(stats?.voters ?? 0)).toBe(stored.length);
  });
});
