import { PassThrough } from 'node:stream';
import type { RespondentRecord } from '@pollkit/contracts';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/modules/api-keys/api-keys.service.js';
import { erasedColumns, impersonalColumns } from '../../src/modules/respondents/erasure-coverage.js';
import { expectError } from '../support/assertions.js';
import { askMeAnythingContent } from '../support/decks.js';
import { rawCall } from '../support/http.js';
import { UNLIMITED } from '../support/limits.js';
import { pollPublisher } from '../support/polls.js';
import { expectAggregatesMatchRecount } from '../support/recount.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { type ApiResponse, expectStatus, testClient } from '../support/test-client.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';
import { createEndpoint } from '../support/webhooks.js';

/**
 * Respondents (issue 28, point 3): `GET /respondents/{id}` lists every kind of record one person left
 * in the workspace — by voter id, participant id or respondentId — and `DELETE /respondents/{id}`
 * erases them in one transaction: answers with their share of every aggregate (checked against a
 * recount from the answers left), questions and upvotes, participant names and tokens, and their
 * values in stored JSON (webhook payloads, the delivery log, idempotent replies). The catalog test at
 * the end fails on any column that could hold a respondent and that erasure does not know.
 */

let t: TestServer;
const api = testClient(() => t.api);
let apiKey: string;
let workspaceId: string;
const logOut = new PassThrough();
let log = '';
logOut.on('data', (chunk: Buffer) => {
  log += chunk.toString('utf8');
});
let receiver: WebhookReceiver;

beforeAll(async () => {
  t = await startTestServer(
    {
      ...UNLIMITED,
      LOG_LEVEL: 'info',
      LOG_FORMAT: 'json',
      WEBHOOK_ALLOW_HTTP: 'true',
      WEBHOOK_ALLOW_LOOPBACK: 'true',
    },
    { logOut },
  );
  ({ apiKey, id: workspaceId } = await t.workspace('pro'));
  receiver = await WebhookReceiver.start();
});
afterAll(async () => {
  await t?.close();
  await receiver?.close();
});

const publishedPoll = pollPublisher(() => ({ api: t.api, apiKey, title: 'Privacy', content: askMeAnythingContent() }));

async function post(path: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await rawCall<{ id: string }>('POST', `${t.api}${path}`, { apiKey, body, headers });
  expect(res.status, res.text).toBe(201);
  return res.body;
}

/** A self-paced session of the poll, started; answers its join link id. */
async function startedSession(pollId: string) {
  const created = await api.request('POST /sessions', { apiKey, body: { pollId, pace: 'audience' } });
  expectStatus(created, 201);
  await api.request('POST /sessions/{id}/control', {
    params: { id: created.body.id },
    apiKey,
    body: { action: 'start' },
  });
  return { sessionId: created.body.id as string, link: String(created.body.joinUrl).split('/').pop() as string };
}

/** Every record of the respondent, walking the pages `limit` at a time. */
async function allRecords(id: string, limit = 100, key = apiKey) {
  const records: RespondentRecord[] = [];
  let cursor: string | null = null;
  do {
    const res: ApiResponse<'GET /respondents/{id}'> = await api.request('GET /respondents/{id}', {
      params: { id },
      query: { limit, cursor: cursor ?? undefined },
      apiKey: key,
    });
    expectStatus(res, 200);
    records.push(...res.body.data);
    cursor = res.body.nextCursor;
  } while (cursor);
  return records;
}

/**
 * One respondent, "ada@example.com", in every kind of record: API answers of every kind, a question
 * and an upvote on someone else's; and a live participant who joined with that respondentId and a
 * name, voted, wrote a text and upvoted. Bob answers beside her, and upvotes her question.
 */
async function seedAda(email: string) {
  const poll = await publishedPoll();
  const voteId = (await post(`/polls/${poll.id}/votes`, { voterId: email, slideId: 'lunch', optionIds: ['pizza'] })).id;
  await post(`/polls/${poll.id}/responses`, { voterId: email, slideId: 'capital', optionIds: ['paris'] });
  await post(`/polls/${poll.id}/responses`, { voterId: email, slideId: 'mood', scaleValues: { work: 4 } });
  await post(`/polls/${poll.id}/responses`, { voterId: email, slideId: 'rank', rankingOrder: ['b', 'a', 'c'] });
  await post(`/polls/${poll.id}/responses`, { voterId: email, slideId: 'words', text: 'Ada loves tacos' });
  await post(`/polls/${poll.id}/votes`, { voterId: 'bob', slideId: 'lunch', optionIds: ['pizza'] });
  await post(`/polls/${poll.id}/responses`, { voterId: 'bob', slideId: 'words', text: 'Bob loves tacos' });
  const adaQuestion = await post(`/polls/${poll.id}/responses`, { voterId: email, slideId: 'ama', text: 'Ada asks' });
  const bobQuestion = await post(`/polls/${poll.id}/responses`, { voterId: 'bob', slideId: 'ama', text: 'Bob asks' });
  await post(`/polls/${poll.id}/questions/${bobQuestion.id}/upvotes`, { voterId: email });
  await post(`/polls/${poll.id}/questions/${adaQuestion.id}/upvotes`, { voterId: 'bob' });

  // Live: a second poll's session, joined through the link's ?rid= (the page sends it as respondentId).
  const livePoll = await publishedPoll();
  const { sessionId, link } = await startedSession(livePoll.id);
  const joined = await api.request('POST /live/{pin}/join', {
    params: { pin: link },
    body: { name: 'Ada Lovelace', respondentId: email },
  });
  expectStatus(joined, 200);
  const headers = { 'x-participant-token': joined.body.participantToken as string };
  const liveVote = await api.request('POST /live/{pin}/answers', {
    params: { pin: link },
    body: { slideId: 'lunch', optionIds: ['sushi'] },
    headers,
  });
  expectStatus(liveVote, 201);
  for (const slideId of ['capital', 'mood', 'rank']) {
    expect(
      (await api.request('POST /live/{pin}/advance', { params: { pin: link }, body: { slideId }, headers })).status,
    ).toBe(200);
  }
  const liveText = await api.request('POST /live/{pin}/answers', {
    params: { pin: link },
    body: { slideId: 'words', text: 'Lovelace was here' },
    headers,
  });
  expectStatus(liveText, 201);
  // Someone else in the same room, so the session's aggregates keep rows after the erasure.
  const other = await api.request('POST /live/{pin}/join', { params: { pin: link }, body: { name: 'Carl' } });
  expectStatus(other, 200);
  await api.request('POST /live/{pin}/answers', {
    params: { pin: link },
    body: { slideId: 'lunch', optionIds: ['sushi'] },
    headers: { 'x-participant-token': other.body.participantToken },
  });
  return {
    poll,
    livePoll,
    voteId,
    adaQuestion,
    bobQuestion,
    sessionId,
    link,
    participantId: joined.body.participant.id as string,
    token: joined.body.participantToken as string,
  };
}

async function storedText(table: string, column: string): Promise<string> {
  const rows = await sql<{ v: unknown }>`select ${sql.ref(column)} as v from ${sql.table(table)}`.execute(
    t.server.deps.db,
  );
  return JSON.stringify(rows.rows.map((row) => row.v));
}

async function waitFor(check: () => Promise<boolean>, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('access: GET /respondents/{id}', () => {
  it('lists every kind of record, by respondentId, by voter id and by participant id, page by page', async () => {
    const email = 'ada.access@example.com';
    const seeded = await seedAda(email);
    const records = await allRecords(email);
    const types = records.map((record) => record.type);
    expect(types).toEqual([
      'participant',
      'vote',
      'vote',
      'response',
      'response',
      'response',
      'response',
      'response',
      'question',
      'upvote',
    ]);
    expect(records[0]).toMatchObject({
      type: 'participant',
      id: seeded.participantId,
      sessionId: seeded.sessionId,
      pollId: seeded.livePoll.id,
      name: 'Ada Lovelace',
      respondentId: email,
      removedAt: null,
    });
    expect(records.find((r) => r.type === 'vote' && r.voterId === email)).toMatchObject({
      id: seeded.voteId,
      optionIds: ['pizza'],
      sessionId: null,
    });
    expect(records.find((r) => r.type === 'vote' && r.voterId === seeded.participantId)).toMatchObject({
      optionIds: ['sushi'],
      sessionId: seeded.sessionId,
    });
    expect(records.find((r) => r.type === 'question')).toMatchObject({ text: 'Ada asks', upvotes: 1 });
    expect(records.find((r) => r.type === 'upvote')).toMatchObject({
      questionId: seeded.bobQuestion.id,
      voterId: email,
    });

    // Pages of two walk the same records, in the same order.
    expect(await allRecords(email, 2)).toEqual(records);
    // By participant id: the participant and its live answers.
    const byParticipant = await allRecords(seeded.participantId);
    expect(byParticipant.map((r) => r.type)).toEqual(['participant', 'vote', 'response']);
    // An unknown respondent has no records; a cursor that is not ours is a 422.
    expect(await allRecords('nobody@example.com')).toEqual([]);
    expectError(
      await api.request('GET /respondents/{id}', {
        params: { id: email },
        query: { cursor: 'bm90LWEtY3Vyc29y' },
        apiKey,
      }),
      422,
      'validation_failed',
    );
  });

  it('keeps the respondent’s id out of the access log: the path carries a hash', async () => {
    const email = 'ada.logged@example.com';
    await api.request('GET /respondents/{id}', { params: { id: email }, apiKey });
    await api.request('DELETE /respondents/{id}', { params: { id: email }, apiKey });
    await waitFor(async () => log.includes('/respondents/sha256:'), 'the access log');
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(log).toContain('/api/v1/respondents/sha256:');
    expect(log).not.toContain(email);
    expect(log).not.toContain(encodeURIComponent(email));
  });

  it('refuses a respondentId at join that PostgreSQL could not store, or that is too long', async () => {
    const poll = await publishedPoll();
    const { link } = await startedSession(poll.id);
    for (const respondentId of ['a\u0000b', '\ud800', 'x'.repeat(201), '']) {
      expectError(
        await api.request('POST /live/{pin}/join', { params: { pin: link }, body: { respondentId } }),
        422,
        'validation_failed',
      );
    }
  });
});

describe('erasure: DELETE /respondents/{id}', () => {
  it('erases every record, keeps every aggregate equal to a recount, redacts stored JSON, and is idempotent', async () => {
    const endpoint = await createEndpoint(t, apiKey, { url: `${receiver.url}/privacy`, events: ['*'] });
    receiver.secrets = [endpoint.secret];
    const email = 'ada.erased@example.com';
    const seeded = await seedAda(email);
    // An idempotent request whose stored reply names her.
    const other = await publishedPoll();
    await post(
      `/polls/${other.id}/votes`,
      { voterId: email, slideId: 'lunch', optionIds: ['sushi'] },
      { 'idempotency-key': 'ada-key-2' },
    );
    // Her data sits in the JSON tables before the erasure.
    await waitFor(
      async () => (await storedText('webhook_deliveries', 'payload')).includes(email),
      'deliveries naming her',
    );
    await waitFor(
      async () => receiver.received.some((d) => d.body.includes('Ada Lovelace') || d.body.includes(email)),
      'a delivery',
    );
    expect(await storedText('idempotency_keys', 'response_body')).toContain(email);
    // A receiver that echoes what it got leaves her in the delivery log's excerpt of her delivery too.
    const herAttempt = sql`select min(a.id) from webhook_attempts a join webhook_deliveries d on d.id = a.delivery_id
      where position(${JSON.stringify(email)} in d.payload) > 0`;
    await waitFor(
      async () => (await sql<{ min: string | null }>`${herAttempt}`.execute(t.server.deps.db)).rows[0]?.min != null,
      'an attempt of her delivery logged',
    );
    await sql`update webhook_attempts set response_excerpt = ${`echo: {"voterId":"${email}","name":"Ada Lovelace"} from ${email}.`}
      where id = (${herAttempt})`.execute(t.server.deps.db);

    const erased = await api.request('DELETE /respondents/{id}', { params: { id: email }, apiKey });
    expectStatus(erased, 200);
    expect(erased.body.id).toBe(email);
    expect(erased.body.erased).toMatchObject({
      votes: 3, // API vote on each poll, live vote
      responses: 5, // four API responses, one live text
      questions: 1,
      upvotes: 1,
      participants: 1,
    });
    expect(erased.body.erased.redacted).toBeGreaterThan(0);

    // Nothing of hers is left to list, and the aggregates equal a recount of what is left.
    expect(await allRecords(email)).toEqual([]);
    // By participant id, the participant record is left, blanked and removed (its seat stays counted).
    expect(await allRecords(seeded.participantId)).toEqual([
      expect.objectContaining({ type: 'participant', name: null, respondentId: null, removedAt: expect.any(String) }),
    ]);
    await expectAggregatesMatchRecount(t.server.deps.db);
    // Bob's question lost her upvote; his answers stand.
    const questions = await api.request('GET /polls/{id}/questions', { params: { id: seeded.poll.id }, apiKey });
    expectStatus(questions, 200);
    expect(questions.body.data.map((q: { text: string; upvotes: number }) => [q.text, q.upvotes])).toEqual([
      ['Bob asks', 0],
    ]);
    const participant = await t.server.deps.db
      .selectFrom('session_participants')
      .selectAll()
      .where('id', '=', seeded.participantId)
      .executeTakeFirstOrThrow();
    expect([participant.name, participant.respondent_id, participant.removed_at === null]).toEqual([null, null, false]);

    // Her token no longer works.
    expectError(
      await api.request('POST /live/{pin}/answers', {
        params: { pin: seeded.link },
        body: { slideId: 'ama', text: 'Still here?' },
        headers: { 'x-participant-token': seeded.token },
      }),
      401,
      'invalid_participant_token',
    );

    // Stored JSON no longer holds her id, name or texts (the respondent.erased event's own id aside,
    // which is purged once delivered: below).
    const notErasedEvent = sql`event_type <> 'respondent.erased'`;
    const payloads = await sql<{
      payload: string;
    }>`select payload from webhook_deliveries where ${notErasedEvent}`.execute(t.server.deps.db);
    const stored = [
      JSON.stringify(payloads.rows),
      await storedText('webhook_event_batches', 'payloads'),
      await storedText('webhook_attempts', 'response_excerpt'),
      await storedText('webhook_attempts', 'error'),
      await storedText('idempotency_keys', 'response_body'),
    ].join('\n');
    for (const value of [email, seeded.participantId, 'Ada Lovelace', 'Ada loves tacos', 'Lovelace was here']) {
      expect(stored).not.toContain(value);
    }
    expect(stored).toContain('[erased]');
    // Bob's data is untouched.
    expect(stored).toContain('Bob loves tacos');
    // The idempotent request still replays (rewritten), rather than voting again.
    const replay = await api.request('POST /polls/{id}/votes', {
      params: { id: other.id },
      apiKey,
      body: { voterId: email, slideId: 'lunch', optionIds: ['sushi'] },
      headers: { 'idempotency-key': 'ada-key-2' },
    });
    expectStatus(replay, 201);
    expect(replay.body.voterId).toBe('[erased]');

    // The respondent.erased event reaches the receiver with the id, and its stored copy is then purged.
    await waitFor(async () => receiver.received.some((d) => d.event?.type === 'respondent.erased'), 'the event');
    const event = receiver.received.find((d) => d.event?.type === 'respondent.erased');
    expect(event?.verified).toBe(true);
    expect(event?.event?.data).toEqual({ id: email, erased: erased.body.erased });
    await waitFor(async () => {
      const rows = await t.server.deps.db
        .selectFrom('webhook_deliveries')
        .select(['payload', 'status'])
        .where('event_type', '=', 'respondent.erased')
        .execute();
      return rows.length > 0 && rows.every((row) => row.status === 'succeeded' && !row.payload.includes(email));
    }, 'the purge of the delivered event');

    // A second erasure finds nothing, answers zeros and sends no event.
    const again = await api.request('DELETE /respondents/{id}', { params: { id: email }, apiKey });
    expectStatus(again, 200);
    expect(again.body.erased).toEqual({
      votes: 0,
      responses: 0,
      questions: 0,
      upvotes: 0,
      participants: 0,
      redacted: 0,
    });
    const events = await t.server.deps.db
      .selectFrom('webhook_deliveries')
      .select('id')
      .where('event_type', '=', 'respondent.erased')
      .execute();
    expect(events).toHaveLength(1);
  });

  it('erases by participant id alone', async () => {
    const poll = await publishedPoll();
    const { link } = await startedSession(poll.id);
    const joined = await api.request('POST /live/{pin}/join', { params: { pin: link }, body: { name: 'Nameless' } });
    expectStatus(joined, 200);
    await api.request('POST /live/{pin}/answers', {
      params: { pin: link },
      body: { slideId: 'lunch', optionIds: ['pizza'] },
      headers: { 'x-participant-token': joined.body.participantToken },
    });
    const erased = await api.request('DELETE /respondents/{id}', {
      params: { id: joined.body.participant.id },
      apiKey,
    });
    expectStatus(erased, 200);
    expect(erased.body.erased).toMatchObject({ votes: 1, participants: 1 });
    await expectAggregatesMatchRecount(t.server.deps.db);
  });

  it('is race-safe with the answer writer: every aggregate equals a recount afterwards', async () => {
    const poll = await publishedPoll();
    const voter = 'racer@example.com';
    const answersOf = (voterId: string) => [
      { path: 'votes', body: { voterId, slideId: 'lunch', optionIds: ['pizza'] } },
      { path: 'responses', body: { voterId, slideId: 'capital', optionIds: ['paris'] } },
      { path: 'responses', body: { voterId, slideId: 'mood', scaleValues: { work: 3 } } },
      { path: 'responses', body: { voterId, slideId: 'rank', rankingOrder: ['c', 'a', 'b'] } },
      { path: 'responses', body: { voterId, slideId: 'words', text: 'racing words here' } },
      { path: 'responses', body: { voterId, slideId: 'ama', text: 'racing question' } },
    ];
    let erasedAnswers = 0;
    for (let round = 0; round < 5; round++) {
      const answers = [...answersOf(voter), ...answersOf(`${voter}-${round}`), ...answersOf(voter)].map(
        ({ path, body }) => rawCall('POST', `${t.api}/polls/${poll.id}/${path}`, { apiKey, body }),
      );
      const erasure = new Promise((resolve) => setTimeout(resolve, round * 3)).then(() =>
        api.request('DELETE /respondents/{id}', { params: { id: voter }, apiKey }),
      );
      const [erased, ...results] = await Promise.all([erasure, ...answers]);
      expectStatus(erased, 200);
      for (const res of results) expect([201, 409]).toContain(res.status);
      erasedAnswers += erased.body.erased.votes + erased.body.erased.responses + erased.body.erased.questions;
      await expectAggregatesMatchRecount(t.server.deps.db);
    }
    // The erasures met answers (the rounds overlap: what committed after one erasure meets the next).
    expect(erasedAnswers).toBeGreaterThan(0);
    // Whatever came after the last erasure is erased by the next, leaving a recount still equal.
    await api.request('DELETE /respondents/{id}', { params: { id: voter }, apiKey });
    expect(await allRecords(voter)).toEqual([]);
    await expectAggregatesMatchRecount(t.server.deps.db);
  });
});

describe('abuse', () => {
  it('keeps workspaces apart: another workspace neither sees nor erases the respondent', async () => {
    const email = 'ada.private@example.com';
    await seedAda(email);
    const before = await allRecords(email);
    const stranger = await t.workspace('pro');
    expect(await allRecords(email, 100, stranger.apiKey)).toEqual([]);
    const erased = await api.request('DELETE /respondents/{id}', { params: { id: email }, apiKey: stranger.apiKey });
    expectStatus(erased, 200);
    expect(Object.values(erased.body.erased)).toEqual([0, 0, 0, 0, 0, 0]);
    expect(await allRecords(email)).toEqual(before);
  });

  it('needs responses:read to read and respondents:erase to erase', async () => {
    const { secret: reader } = await createApiKey(t.server.deps.db, {
      workspaceId,
      name: 'reader',
      scopes: ['responses:read', 'responses:write'],
    });
    const { secret: polls } = await createApiKey(t.server.deps.db, {
      workspaceId,
      name: 'polls',
      scopes: ['polls:read'],
    });
    expect((await api.request('GET /respondents/{id}', { params: { id: 'x' }, apiKey: reader })).status).toBe(200);
    expectError(
      await api.request('DELETE /respondents/{id}', { params: { id: 'x' }, apiKey: reader }),
      403,
      'insufficient_scope',
    );
    expectError(
      await api.request('GET /respondents/{id}', { params: { id: 'x' }, apiKey: polls }),
      403,
      'insufficient_scope',
    );
  });
});

describe('catalog', () => {
  it('knows every column that can hold a respondent: a table added later cannot be forgotten', async () => {
    const jsonTables = ['webhook_event_batches', 'webhook_deliveries', 'webhook_attempts', 'idempotency_keys'];
    const rows = await sql<{ table_name: string; column_name: string }>`
      select table_name, column_name from information_schema.columns
      where table_schema = current_schema()
        and (column_name like '%voter_id%' or column_name like '%participant%' or column_name = 'respondent_id'
             or (table_name in (${sql.join(jsonTables)})
                 and (data_type in ('text', 'json', 'jsonb', 'character varying') or data_type = 'ARRAY')))
      order by table_name, column_name`.execute(t.server.deps.db);
    const known = new Set([...Object.keys(erasedColumns), ...Object.keys(impersonalColumns)]);
    const unknown = rows.rows
      .map((row) => `${row.table_name}.${row.column_name}`)
      .filter((column) => !known.has(column));
    expect(unknown, 'columns erasure does not handle (modules/respondents/erasure-coverage.ts)').toEqual([]);
    // Every column said to be erased exists (a rename would otherwise leave the map stale).
    const found = new Set(rows.rows.map((row) => `${row.table_name}.${row.column_name}`));
    expect(Object.keys(erasedColumns).filter((column) => !found.has(column))).toEqual([]);
  });
});
