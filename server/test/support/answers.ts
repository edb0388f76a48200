import type { ErrorEnvelope, ValidationErrorDetails } from '@pollkit/contracts';
import { expect } from 'vitest';
import { toNumber } from '../../src/db/database.js';
import type { AsError } from './assertions.js';
import type { HttpResponse } from './http.js';
import { answerVariantsContent, pollPublisher } from './polls.js';
import { startTestServer, type TestServer } from './server.js';
import { testClient } from './test-client.js';

/**
 * The server and the requests of the answers API tests (server/test/api/answers.*.test.ts): votes
 * and responses sent and listed, and everything the writer stored for a poll, read straight from
 * the database, to check that a refused answer stored nothing.
 */

interface AnswersServer {
  t: TestServer;
  apiKey: string;
  otherKey: string;
}

export async function startAnswersServer(): Promise<AnswersServer> {
  const t = await startTestServer();
  // These files make a few hundred requests a minute: more than the default limit allows one key.
  const { apiKey } = await t.workspace('enterprise', { rateLimitPerMinute: 100_000 });
  const { apiKey: otherKey } = await t.workspace('pro');
  return { t, apiKey, otherKey };
}

/** The requests, on the server `current` answers once the file's beforeAll has started it. */
export function answersApi(current: () => { t: TestServer; apiKey: string }) {
  const publishedPoll = pollPublisher(() => ({
    api: current().t.api,
    apiKey: current().apiKey,
    title: 'Answers',
    content: answerVariantsContent(),
  }));

  const api = testClient(() => current().t.api);
  // Unchecked, all four: the tests send bodies and queries the routes refuse (a missing voterId,
  // `limit=abc`, a forged cursor) as well as valid ones.
  const vote = (pollId: string, body: unknown, key = current().apiKey) =>
    api.unchecked('POST /polls/{id}/votes', { params: { id: pollId }, apiKey: key, body });
  const respond = (pollId: string, body: unknown, key = current().apiKey) =>
    api.unchecked('POST /polls/{id}/responses', { params: { id: pollId }, apiKey: key, body });
  const listVotes = (pollId: string, query: Record<string, unknown> = {}, key = current().apiKey) =>
    api.unchecked('GET /polls/{id}/votes', { params: { id: pollId }, query, apiKey: key });
  const listResponses = (pollId: string, query: Record<string, unknown> = {}, key = current().apiKey) =>
    api.unchecked('GET /polls/{id}/responses', { params: { id: pollId }, query, apiKey: key });

  /** Everything the writer touches for one poll, read straight from the database. */
  async function storedState(pollId: string) {
    const db = current().t.server.deps.db;
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

  return { publishedPoll, vote, respond, listVotes, listResponses, storedState, expectNothingChanges };
}

export const count = (n: number, total = 0) => ({ count: n, total });

/**
 * The response is a 422 `validation_failed` naming `field`, and its type narrows to the error
 * envelope. Its body is read as the envelope: a body that is not one fails the expectations below.
 */
export function expectValidationError<R extends HttpResponse<unknown>>(
  res: R,
  field: string,
  messagePart?: RegExp,
): asserts res is AsError<R> {
  expect(res.status).toBe(422);
  const { error } = res.body as ErrorEnvelope;
  expect(error.code).toBe('validation_failed');
  expect(Object.keys((error.details as ValidationErrorDetails).fieldErrors)).toContain(field);
  if (messagePart) expect(error.message).toMatch(messagePart);
}
