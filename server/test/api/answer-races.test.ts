import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toNumber } from '../../src/db/database.js';
import { AnswerWriter } from '../../src/modules/answers/answer-writer.js';
import { tallyKey } from '../../src/modules/answers/tallies.js';
import { raceContent, type SlideInput } from '../support/decks.js';
import { UNLIMITED_WORKSPACE } from '../support/limits.js';
import { pendingVote, pollPublisher } from '../support/polls.js';
import { startTestServer, type TestServer, usingPostgres } from '../support/server.js';
import {
  type ApiResponse,
  type BodyOf,
  expectOk,
  expectStatus,
  hasStatus,
  slideOf,
  testClient,
} from '../support/test-client.js';

/**
 * One answer per voter per slide must hold when identical answers race: on PGlite (one connection,
 * one flush at a time) and on PostgreSQL, where several group-commit flushes run in parallel
 * transactions and the unique index alone decides. Run with TEST_DATABASE_URL for the proof.
 */
let t: TestServer;
const api = testClient(() => t.api);
let apiKey: string;

beforeAll(async () => {
  t = await startTestServer();
  // Hundreds of requests within a minute from one key: an Enterprise override lifts the limit.
  ({ apiKey } = await t.workspace('enterprise', UNLIMITED_WORKSPACE));
});
afterAll(() => t?.close());

const publishedPoll = pollPublisher(() => ({ api: t.api, apiKey, title: 'Race', content: raceContent() }));

const vote = (pollId: string, body: BodyOf<'POST /polls/{id}/votes'>, apiUrl = t.api) =>
  testClient(apiUrl).request('POST /polls/{id}/votes', { params: { id: pollId }, apiKey, body });
const respond = (pollId: string, body: BodyOf<'POST /polls/{id}/responses'>) =>
  api.request('POST /polls/{id}/responses', { params: { id: pollId }, apiKey, body });

async function tallies(pollId: string): Promise<Record<string, number>> {
  const rows = await t.server.deps.db.selectFrom('slide_tallies').selectAll().where('poll_id', '=', pollId).execute();
  return Object.fromEntries(rows.map((row) => [`${row.slide_id}/${row.key}`, toNumber(row.count)]));
}

async function pollStats(pollId: string) {
  const row = await t.server.deps.db
    .selectFrom('poll_stats')
    .selectAll()
    .where('poll_id', '=', pollId)
    .executeTakeFirst();
  return row ? { voters: toNumber(row.voters), answers: toNumber(row.answers) } : null;
}

async function storedAnswers(pollId: string) {
  return t.server.deps.db
    .selectFrom('answers')
    .select(['slide_id', 'voter_id', 'value'])
    .where('poll_id', '=', pollId)
    .execute();
}

function statusCounts(statuses: number[]): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const status of statuses) counts[status] = (counts[status] ?? 0) + 1;
  return counts;
}

describe('identical votes racing over HTTP', () => {
  it('25 voters, each racing two identical votes: one 201 and one 409 each, every voter counted once', async () => {
    const { id: pollId } = await publishedPoll();
    const voters = Array.from({ length: 25 }, (_, i) => `voter-${i}`);
    // Pair by pair: the second request arrives while the first is being written, so on PostgreSQL
    // the two usually travel in different, concurrent transactions.
    for (const voterId of voters) {
      const body = { voterId, slideId: 'lunch', optionIds: [voterId.endsWith('7') ? 'sushi' : 'pizza'] };
      const pair = await Promise.all([vote(pollId, body), vote(pollId, body)]);
      expect(pair.map((res) => res.status).sort()).toEqual([201, 409]);
      expect(pair.find((res) => hasStatus(res, 409))?.body.error.code).toBe('already_responded');
    }
    const sushi = voters.filter((v) => v.endsWith('7')).length;
    expect(await tallies(pollId)).toEqual({
      [`lunch/${tallyKey.answers}`]: 25,
      [`lunch/${tallyKey.option('pizza')}`]: 25 - sushi,
      [`lunch/${tallyKey.option('sushi')}`]: sushi,
    });
    expect(await pollStats(pollId)).toEqual({ voters: 25, answers: 25 });
    const listed = await api.request('GET /polls/{id}/votes', {
      params: { id: pollId },
      query: { limit: 100 },
      apiKey,
    });
    expectStatus(listed, 200);
    expect(listed.body.data.map((v: { voterId: string }) => v.voterId).sort()).toEqual([...voters].sort());
  });

  it('all pairs at once (one burst, batched together): still one 201 per voter', async () => {
    const { id: pollId } = await publishedPoll();
    const voters = Array.from({ length: 25 }, (_, i) => `burst-${i}`);
    const requests = voters.flatMap((voterId) => {
      const body = { voterId, slideId: 'toppings', optionIds: ['basil', 'olives'] };
      return [vote(pollId, body), vote(pollId, body)];
    });
    const results = await Promise.all(requests);
    for (let i = 0; i < voters.length; i++) {
      const pair = [results[2 * i]?.status, results[2 * i + 1]?.status];
      expect(pair.sort()).toEqual([201, 409]);
    }
    expect(await tallies(pollId)).toEqual({
      [`toppings/${tallyKey.answers}`]: 25,
      [`toppings/${tallyKey.option('basil')}`]: 25,
      [`toppings/${tallyKey.option('olives')}`]: 25,
    });
    expect(await pollStats(pollId)).toEqual({ voters: 25, answers: 25 });
  });

  it('ten identical requests from one voter: exactly one 201, nine 409', async () => {
    for (const [slideId, send] of [
      ['lunch', (pollId: string) => vote(pollId, { voterId: 'eager', slideId: 'lunch', optionIds: ['pizza'] })],
      [
        'rank',
        (pollId: string) => respond(pollId, { voterId: 'eager', slideId: 'rank', rankingOrder: ['b', 'a', 'c'] }),
      ],
    ] as const) {
      const { id: pollId } = await publishedPoll();
      const results = await Promise.all(Array.from({ length: 10 }, () => send(pollId)));
      expect(statusCounts(results.map((res) => res.status))).toEqual({ 201: 1, 409: 9 });
      expect(
        results.filter((res) => hasStatus(res, 409)).every((res) => res.body.error.code === 'already_responded'),
      ).toBe(true);
      expect(await storedAnswers(pollId)).toHaveLength(1);
      expect((await tallies(pollId))[`${slideId}/${tallyKey.answers}`]).toBe(1);
      expect(await pollStats(pollId)).toEqual({ voters: 1, answers: 1 });
    }
  });

  it.runIf(usingPostgres)(
    'identical votes sent to two servers on one database: the unique index decides across processes',
    async () => {
      const other = await startTestServer({ DATABASE_URL: t.databaseUrl });
      try {
        const { id: pollId } = await publishedPoll();
        const voters = Array.from({ length: 20 }, (_, i) => `split-${i}`);
        const results = await Promise.all(
          voters.flatMap((voterId) => {
            const body = { voterId, slideId: 'lunch', optionIds: ['sushi'] };
            return [vote(pollId, body, t.api), vote(pollId, body, other.api)];
          }),
        );
        for (let i = 0; i < voters.length; i++) {
          expect([results[2 * i]?.status, results[2 * i + 1]?.status].sort()).toEqual([201, 409]);
        }
        expect(await tallies(pollId)).toEqual({
          [`lunch/${tallyKey.answers}`]: 20,
          [`lunch/${tallyKey.option('sushi')}`]: 20,
        });
        expect(await pollStats(pollId)).toEqual({ voters: 20, answers: 20 });
      } finally {
        await other.close();
      }
    },
  );
});

/**
 * Where racing duplicates land relative to group-commit batches, placed exactly by driving a writer
 * of our own on the server's real database: in one batch (one INSERT holds both), or in separate
 * batches flushed as concurrent transactions (on PostgreSQL the second waits on the first's index entry).
 */
describe('duplicates inside one batch and across concurrent batches', () => {
  it('two identical answers in the same batch: the first is accepted, the second is a duplicate', async () => {
    const poll = await publishedPoll();
    const writer = new AnswerWriter(t.server.deps.db, { maxBatch: 100, maxConcurrentFlushes: 1 });
    // The first write takes the only flush slot alone; everything submitted meanwhile waits and is
    // flushed together as the next batch.
    const opener = writer.write(pendingVote(poll, 'opener', ['chili']), poll.version);
    const batch = [];
    for (let i = 0; i < 10; i++) {
      batch.push(writer.write(pendingVote(poll, `same-${i}`, ['olives']), poll.version));
      batch.push(writer.write(pendingVote(poll, `same-${i}`, ['basil']), poll.version));
    }
    expect(await opener).toBe('accepted');
    const outcomes = await Promise.all(batch);
    for (let i = 0; i < 10; i++) expect([outcomes[2 * i], outcomes[2 * i + 1]]).toEqual(['accepted', 'duplicate']);
    await writer.drained();

    expect(await tallies(poll.id)).toEqual({
      [`toppings/${tallyKey.answers}`]: 11,
      [`toppings/${tallyKey.option('olives')}`]: 10,
      [`toppings/${tallyKey.option('chili')}`]: 1,
    });
    expect(await pollStats(poll.id)).toEqual({ voters: 11, answers: 11 });
    expect(writer.retries).toBe(0);
  });

  it('identical answers each in its own concurrent transaction: exactly one accepted', async () => {
    const poll = await publishedPoll();
    const writer = new AnswerWriter(t.server.deps.db, { maxBatch: 1, maxConcurrentFlushes: 8 });
    for (let round = 0; round < 5; round++) {
      const voterId = `solo-${round}`;
      const outcomes = await Promise.all(
        Array.from({ length: 8 }, () => writer.write(pendingVote(poll, voterId, ['chili']), poll.version)),
      );
      expect(outcomes.filter((o) => o === 'accepted')).toHaveLength(1);
      expect(outcomes.filter((o) => o === 'duplicate')).toHaveLength(7);
    }
    await writer.drained();
    expect(await tallies(poll.id)).toEqual({
      [`toppings/${tallyKey.answers}`]: 5,
      [`toppings/${tallyKey.option('chili')}`]: 5,
    });
    expect(await pollStats(poll.id)).toEqual({ voters: 5, answers: 5 });
    expect(writer.retries).toBe(0);
  });
});

describe('many voters on two polls at once', () => {
  it('300 concurrent requests: all 201, no deadlock, counters equal what was accepted', async () => {
    const [a, b] = [await publishedPoll(), await publishedPoll()];
    const orders = [
      ['olives', 'basil'],
      ['basil', 'olives'],
      ['chili', 'olives', 'basil'],
      ['basil', 'chili'],
      ['olives'],
    ];
    const texts = ['great pizza', 'pizza again', 'great team', 'more chili please'];
    const voters = Array.from({ length: 100 }, (_, i) => `crowd-${i}`);
    const retriesBefore = t.server.deps.answerWriter.retries;

    // Per voter: a vote on each poll (options in varying order, so each request's counter rows come
    // in a different order) and one open-ended answer on one of them (shared words: hot rows).
    const requests = voters.flatMap((voterId, i) => {
      const optionIds = orders[i % orders.length] as string[];
      return [
        () => vote(a.id, { voterId, slideId: 'toppings', optionIds }),
        () => vote(b.id, { voterId, slideId: 'toppings', optionIds: [...optionIds].reverse() }),
        () => respond(i % 2 === 0 ? a.id : b.id, { voterId, slideId: 'words', text: texts[i % texts.length] }),
      ];
    });
    // Interleave the three kinds across both polls rather than sending them in blocks.
    const shuffled = requests.map((send, index) => ({ send, key: (index * 7919) % requests.length }));
    shuffled.sort((x, y) => x.key - y.key);
    const results = await Promise.all(shuffled.map(({ send }) => send()));

    expect(statusCounts(results.map((res) => res.status))).toEqual({ 201: 300 });
    expect(t.server.deps.answerWriter.retries - retriesBefore).toBe(0);

    for (const [poll, textsOf] of [
      [a, (i: number) => i % 2 === 0],
      [b, (i: number) => i % 2 === 1],
    ] as const) {
      const optionCount = (option: string) =>
        voters.filter((_, i) => (orders[i % orders.length] as string[]).includes(option)).length;
      const textVoters = voters.filter((_, i) => textsOf(i));
      expect(await tallies(poll.id)).toEqual({
        [`toppings/${tallyKey.answers}`]: 100,
        [`toppings/${tallyKey.option('olives')}`]: optionCount('olives'),
        [`toppings/${tallyKey.option('basil')}`]: optionCount('basil'),
        [`toppings/${tallyKey.option('chili')}`]: optionCount('chili'),
        [`words/${tallyKey.answers}`]: textVoters.length,
      });
      expect(await pollStats(poll.id)).toEqual({ voters: 100, answers: 100 + textVoters.length });
      expect(await storedAnswers(poll.id)).toHaveLength(100 + textVoters.length);

      const words = await t.server.deps.db
        .selectFrom('word_counts')
        .select(['word', 'count'])
        .where('poll_id', '=', poll.id)
        .execute();
      const expectedWords: Record<string, number> = {};
      voters.forEach((_, i) => {
        if (!textsOf(i)) return;
        for (const word of new Set((texts[i % texts.length] as string).split(' '))) {
          expectedWords[word] = (expectedWords[word] ?? 0) + 1;
        }
      });
      expect(Object.fromEntries(words.map((w) => [w.word, toNumber(w.count)]))).toEqual(expectedWords);
    }
  });

  it('answers racing title changes of their poll are judged again and all accepted', async () => {
    const poll = await publishedPoll();
    const voters = Array.from({ length: 60 }, (_, i) => `renamed-${i}`);
    const sends = voters.map((voterId) => () => vote(poll.id, { voterId, slideId: 'lunch', optionIds: ['pizza'] }));
    const rename = () =>
      api.request('PATCH /polls/{id}', { params: { id: poll.id }, apiKey, body: { title: 'Renamed mid-race' } });
    const results = await Promise.all([...sends.slice(0, 30), rename, ...sends.slice(30)].map((send) => send()));
    expect(statusCounts(results.map((res) => res.status))).toEqual({ 200: 1, 201: 60 });
    expect(await pollStats(poll.id)).toEqual({ voters: 60, answers: 60 });
  });
});

describe('answers racing a change of the deck', () => {
  it('never stores an answer the new deck does not have: either the change wins or it is refused', async () => {
    const outcomes = { changed: 0, refused: 0 };
    for (let round = 0; round < 6; round++) {
      const poll = await publishedPoll();
      const withoutSushi = raceContent();
      withoutSushi.questions[0] = {
        ...(withoutSushi.questions[0] as Extract<SlideInput, { kind: 'multiple_choice' }>),
        options: [
          { id: 'pizza', label: 'Pizza' },
          { id: 'ramen', label: 'Ramen' },
        ],
      };
      const votes = Array.from(
        { length: 12 },
        (_, i) => () => vote(poll.id, { voterId: `deck-${i}`, slideId: 'lunch', optionIds: ['sushi'] }),
      );
      const patch = () =>
        api.request('PATCH /polls/{id}', { params: { id: poll.id }, apiKey, body: { content: withoutSushi } });
      // The change goes out at a different point of the burst each round.
      const order: Array<() => Promise<ApiResponse<'POST /polls/{id}/votes' | 'PATCH /polls/{id}'>>> = [...votes];
      order.splice(round * 2, 0, patch);
      const results = await Promise.all(order.map((send) => send()));
      const patched = results[round * 2];
      const voteStatuses = results.filter((_, i) => i !== round * 2).map((res) => res.status);
      expect(voteStatuses.every((status) => status === 201 || status === 422)).toBe(true);

      const stored = await storedAnswers(poll.id);
      const current = expectOk(await api.request('GET /polls/{id}', { params: { id: poll.id }, apiKey }));
      const lunchOptions = () =>
        slideOf(current.content.questions, 'lunch', 'multiple_choice').options.map((o) => o.id);
      if (patched?.status === 200) {
        outcomes.changed += 1;
        // The change committed first: no vote for the removed option got in, before or after.
        expect(stored).toEqual([]);
        expect(voteStatuses.every((status) => status === 422)).toBe(true);
        expect(await tallies(poll.id)).toEqual({});
        expect(lunchOptions()).toEqual(['pizza', 'ramen']);
      } else {
        outcomes.refused += 1;
        const refused = patched!;
        expectStatus(refused, 409);
        expect(refused.body.error.code).toBe('poll_has_responses');
        // Votes got in first, so the deck stayed as it was, and the votes after the refusal still fit it.
        expect(lunchOptions()).toEqual(['pizza', 'sushi']);
        expect(stored.length).toBe(voteStatuses.filter((status) => status === 201).length);
        expect(stored.length).toBeGreaterThan(0);
      }
    }
    expect(outcomes.changed + outcomes.refused).toBe(6);
  });
});

/**
 * An answer the database refuses (here a NUL byte, which PostgreSQL refuses in text; validation is
 * meant to stop it before the writer, but this writer is driven directly) must fail alone: the batch
 * it shares is split in halves until it is alone, and everyone else's answer is stored once.
 */
describe('an answer the database refuses, inside a batch', () => {
  it('fails alone with the database error; the other answers are stored and counted once', async () => {
    const poll = await publishedPoll();
    const writer = new AnswerWriter(t.server.deps.db, { maxBatch: 100, maxConcurrentFlushes: 1 });
    const opener = writer.write(pendingVote(poll, 'opener', ['chili']), poll.version);
    const voters = Array.from({ length: 64 }, (_, i) => (i === 9 || i === 40 ? `bad\u0000${i}` : `good-${i}`));
    const outcomes = await Promise.allSettled(
      voters.map((voterId) => writer.write(pendingVote(poll, voterId, ['basil']), poll.version)),
    );
    expect(await opener).toBe('accepted');
    await writer.drained();

    for (const [i, outcome] of outcomes.entries()) {
      if (i === 9 || i === 40) {
        // invalid_byte_sequence_for_encoding, on PGlite and PostgreSQL alike
        expect(outcome).toMatchObject({ status: 'rejected', reason: { code: '22021' } });
      } else {
        expect(outcome).toEqual({ status: 'fulfilled', value: 'accepted' });
      }
    }
    // The opener, the batch of 64, and its bisection down to two bad answers: 2 · (2·log2(64)) at
    // most, against 64 item-by-item retries.
    expect(writer.flushes - 2).toBeLessThanOrEqual(2 * 2 * 6);
    expect(await tallies(poll.id)).toEqual({
      [`toppings/${tallyKey.answers}`]: 63,
      [`toppings/${tallyKey.option('basil')}`]: 62,
      [`toppings/${tallyKey.option('chili')}`]: 1,
    });
    expect(await pollStats(poll.id)).toEqual({ voters: 63, answers: 63 });
    expect(writer.retries).toBe(0);
  });

  it("puts the refused answer's source in quarantine: its later answers never share a batch with others'", async () => {
    const poll = await publishedPoll();
    const writer = new AnswerWriter(t.server.deps.db, { maxBatch: 100, maxConcurrentFlushes: 1 });
    await expect(writer.write(pendingVote(poll, 'b\u0000first', ['basil']), poll.version, 'B')).rejects.toMatchObject({
      code: '22021',
    });
    expect(writer.isQuarantined('B')).toBe(true);
    expect(writer.isQuarantined('A')).toBe(false);

    const flushesBefore = writer.flushes;
    const a = Array.from({ length: 50 }, (_, i) =>
      writer.write(pendingVote(poll, `a-${i}`, ['basil']), poll.version, 'A'),
    );
    const b = Array.from({ length: 10 }, (_, i) =>
      writer.write(pendingVote(poll, i % 5 === 2 ? `b\u0000${i}` : `b-${i}`, ['chili']), poll.version, 'B'),
    );
    const [aOutcomes, bOutcomes] = await Promise.all([Promise.allSettled(a), Promise.allSettled(b)]);
    await writer.drained();

    expect(aOutcomes.every((outcome) => outcome.status === 'fulfilled' && outcome.value === 'accepted')).toBe(true);
    expect(bOutcomes.filter((outcome) => outcome.status === 'rejected')).toHaveLength(2);
    // A's 50 answers went in at most two batches (the first submit flushes at once, the rest wait
    // for it) and none failed; every statement that failed, and B's bisection, ran in B's lane.
    const mainFlushes = writer.flushes - flushesBefore - writer.quarantineFlushes;
    expect(mainFlushes).toBeLessThanOrEqual(2);
    expect(writer.quarantineFlushes).toBeGreaterThanOrEqual(3);
    expect(writer.isQuarantined('A')).toBe(false);
    expect(await pollStats(poll.id)).toEqual({ voters: 58, answers: 58 });
  });

  it('lets a source out of quarantine when the quarantine ends', async () => {
    const poll = await publishedPoll();
    const writer = new AnswerWriter(t.server.deps.db, { maxConcurrentFlushes: 1, quarantineMs: 50 });
    await expect(writer.write(pendingVote(poll, '\u0000', ['basil']), poll.version, 'B')).rejects.toBeDefined();
    expect(writer.isQuarantined('B')).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect(writer.isQuarantined('B')).toBe(false);
    expect(await writer.write(pendingVote(poll, 'b-back', ['basil']), poll.version, 'B')).toBe('accepted');
  });
});
