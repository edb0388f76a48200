import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { insertParticipants } from '../../src/modules/sessions/participants.repository.js';
import { expectError } from '../support/assertions.js';
import { randomLoopback } from '../support/from-address.js';
import { closeStreams, liveServer } from '../support/live-abuse.js';
import { pollPublisher, sampleContent } from '../support/polls.js';
import { type BodyOf, errorDetails, expectOk, expectStatus, slideOf, testClient } from '../support/test-client.js';

/**
 * What a hostile audience can do to a live session, each finding of the security review (issue 24)
 * with its regression test: scores say nothing of the slide on screen before its results are shown;
 * joins per address, participants per session and questions per participant and per address are
 * capped; a host locks joins and removes participants. The rest of the review:
 * live-abuse.pin-lookups.test.ts, live-abuse.hosts-and-streams.test.ts.
 * Runs on PGlite, and on PostgreSQL + Redis with TEST_DATABASE_URL and TEST_REDIS_URL.
 */

afterEach(closeStreams);

/** The typed client of the server `s` of a test group. */
const apiOf = (s: Awaited<ReturnType<typeof liveServer>>) => testClient(s.t.api);

describe('quiz points before the results are shown', () => {
  let s: Awaited<ReturnType<typeof liveServer>>;
  beforeAll(async () => {
    s = await liveServer({ LIVE_PIN_MISSES_PER_IP_PER_MINUTE: '1000' });
  });
  afterAll(() => s?.t.close());

  it('are not in a rejoin, a stream or an answer’s receipt: probes cannot find the right option', async () => {
    const session = await s.session();
    const probes = await Promise.all([0, 1, 2, 3].map(() => s.join(session.pin)));
    const tokens = probes.map((p) => p.body.participantToken as string);
    await s.control(session, 'start');
    await s.control(session, 'next'); // the quiz: `capital`, Paris is right
    const options = ['paris', 'lyon', 'lyon', 'paris'];
    for (const [i, token] of tokens.entries()) {
      const receipt = await s.answer(session.pin, token, { slideId: 'capital', optionIds: [options[i]] });
      expect(receipt.status).toBe(201);
      expect(JSON.stringify(receipt.body)).not.toMatch(/points|score|correct/i);
      expect(Object.keys(receipt.body).sort()).toEqual([
        'createdAt',
        'id',
        'participantId',
        'progress',
        'sessionId',
        'slideId',
      ]);
      // A presenter-paced session has no walk to report.
      expect(receipt.body.progress).toBeNull();
    }
    const scores = async () =>
      Promise.all(tokens.map(async (token) => (await s.join(session.pin, undefined, token)).body.participant.score));
    expect(await scores()).toEqual([0, 0, 0, 0]);
    const watching = await s.stream(session.pin, { 'x-participant-token': tokens[0] as string });
    const slide = await watching.next('slide');
    // The slide says what the question is worth (`points`), never who earned what or the answer.
    expect(slide.rawData).not.toMatch(/correctOptionIds|"score"|"correct"|leaderboard/);

    await s.control(session, 'showResults');
    const shown = await scores();
    expect(shown[0]).toBeGreaterThan(0);
    expect(shown[3]).toBeGreaterThan(0);
    expect([shown[1], shown[2]]).toEqual([0, 0]);
    // Moving on keeps the earlier slide's points in the score; the new slide's stay hidden.
    await s.control(session, 'next');
    expect((await scores())[0]).toBe(shown[0]);
  });
});

describe('joins, participants, questions', () => {
  let s: Awaited<ReturnType<typeof liveServer>>;
  beforeAll(async () => {
    s = await liveServer({
      LIVE_PIN_MISSES_PER_IP_PER_MINUTE: '1000',
      LIVE_JOINS_PER_IP_PER_MINUTE: '3',
      LIVE_QA_QUESTIONS_PER_PARTICIPANT_PER_MINUTE: '2',
      LIVE_MAX_PARTICIPANTS_DEFAULT: '50',
      LIVE_MAX_PARTICIPANTS_CEILING: '100',
    });
  });
  afterAll(() => s?.t.close());

  it('budget new participants per address; rejoins with a token are not new', async () => {
    const session = await s.session();
    const address = randomLoopback();
    const first = await s.join(session.pin, address);
    for (let i = 0; i < 2; i++) expect((await s.join(session.pin, address)).status).toBe(200);
    const fourth = await s.join(session.pin, address);
    expect(fourth.status).toBe(429);
    expect(fourth.body.error.code).toBe('rate_limited');
    expect((await s.join(session.pin, address, first.body.participantToken)).status).toBe(200);
    expect((await s.join(session.pin, randomLoopback())).status).toBe(200);
  });

  it('cap participants per session: one past maxParticipants is 409 session_full, however many join at once', async () => {
    const session = await s.session({ maxParticipants: 5 });
    expect(session.maxParticipants).toBe(5);
    const joins = await Promise.all(Array.from({ length: 20 }, () => s.join(session.pin)));
    expect(joins.filter((j) => j.status === 200)).toHaveLength(5);
    const full = joins.filter((j) => j.status === 409);
    expect(full).toHaveLength(15);
    expect(full[0]?.body.error).toMatchObject({ code: 'session_full', details: { maxParticipants: 5 } });
    const now = await apiOf(s).request('GET /sessions/{id}', { params: { id: session.id }, apiKey: s.apiKey });
    expect(now.body).toMatchObject({ participantCount: 5, maxParticipants: 5, joinsLocked: false });
    // A participant who joined resumes with its token, full or not.
    const token = joins.find((j) => j.status === 200)?.body.participantToken as string;
    expect((await s.join(session.pin, undefined, token)).status).toBe(200);
  });

  it('cap participants when joins arrive as batches side by side (one statement per batch; on PostgreSQL, concurrent)', async () => {
    const capped = await s.session({ maxParticipants: 25 });
    const locked = await s.session({ maxParticipants: 25 });
    const lock = await apiOf(s).request('PATCH /sessions/{id}', {
      params: { id: locked.id },
      body: { joinsLocked: true },
      headers: { 'x-host-token': locked.hostToken },
    });
    expect(lock.status, lock.text).toBe(200);
    const { db } = s.t.server.deps;
    const newcomer = (sessionId: string, n: number) => ({
      id: `par_batch_${sessionId}_${n}`,
      session_id: sessionId,
      token_hash: randomBytes(16).toString('hex'),
      name: `P${n}`,
      respondent_id: null,
    });
    // Eight batches of ten for a cap of 25, each batch also asking a seat in a session whose joins are locked.
    const batches = Array.from({ length: 8 }, (_, b) => [
      ...Array.from({ length: 10 }, (_, i) => newcomer(capped.id, b * 10 + i)),
      newcomer(locked.id, b),
    ]);
    const seated = (await Promise.all(batches.map((batch) => insertParticipants(db, batch)))).flat();
    expect(seated.filter((row) => row.session_id === capped.id)).toHaveLength(25);
    expect(seated.filter((row) => row.session_id === locked.id)).toHaveLength(0);
    // Within a batch, seats go to the first asked: no batch has a later newcomer seated before an earlier one.
    for (const batch of batches) {
      const got = batch.map((n) => seated.some((row) => row.id === n.id));
      expect(got.indexOf(false) === -1 || !got.slice(got.indexOf(false), 10).includes(true)).toBe(true);
    }
    const now = await apiOf(s).request('GET /sessions/{id}', { params: { id: capped.id }, apiKey: s.apiKey });
    expect(now.body).toMatchObject({ participantCount: 25, maxParticipants: 25 });
    const stored = await db
      .selectFrom('session_participants')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('session_id', '=', capped.id)
      .executeTakeFirstOrThrow();
    expect(Number(stored.n)).toBe(25);
    expect((await s.join(capped.pin)).body.error).toMatchObject({ code: 'session_full' });
  });

  it('take the server’s default cap, and refuse one above its ceiling', async () => {
    expect((await s.session()).maxParticipants).toBe(50);
    const poll = await pollPublisher(() => ({
      api: s.t.api,
      apiKey: s.apiKey,
      title: 'Big',
      content: sampleContent(),
    }))();
    const refused = await apiOf(s).request('POST /sessions', {
      apiKey: s.apiKey,
      body: { pollId: poll.id, maxParticipants: 101 },
    });
    expectError(refused, 422, 'validation_failed');
    expect(errorDetails(refused).fieldErrors.maxParticipants).toBeDefined();
  });

  it('let the host lock joins (those who joined carry on) and change the cap, never below who joined', async () => {
    const session = await s.session();
    const inside = await s.join(session.pin);
    await s.control(session, 'start');
    const patch = (body: BodyOf<'PATCH /sessions/{id}'>) =>
      apiOf(s).request('PATCH /sessions/{id}', {
        params: { id: session.id },
        body,
        headers: { 'x-host-token': session.hostToken },
      });
    const locked = await patch({ joinsLocked: true });
    expectStatus(locked, 200);
    expect(locked.body.joinsLocked).toBe(true);
    const late = await s.join(session.pin);
    expect(late.status).toBe(409);
    expect(late.body.error.code).toBe('joins_locked');
    const token = inside.body.participantToken as string;
    expect((await s.join(session.pin, undefined, token)).status).toBe(200);
    expect((await s.answer(session.pin, token, { slideId: 'lunch', optionIds: ['sushi'] })).status).toBe(201);
    expect(expectOk(await patch({ joinsLocked: false })).joinsLocked).toBe(false);
    expect((await s.join(session.pin)).status).toBe(200);

    expectError(await patch({ maxParticipants: 1 }), 422, 'validation_failed');
    expect(expectOk(await patch({ maxParticipants: 2 })).maxParticipants).toBe(2);
    expect((await s.join(session.pin)).status).toBe(409);
    expectError(await patch({}), 422, 'validation_failed');
  });

  it('limit Q&A questions per participant per minute, not per address', async () => {
    const session = await s.session();
    const address = randomLoopback();
    const asker = (await s.join(session.pin, address)).body.participantToken as string;
    const other = (await s.join(session.pin, address)).body.participantToken as string;
    await s.control(session, 'start');
    const goto = await apiOf(s).request('POST /sessions/{id}/control', {
      params: { id: session.id },
      body: { action: 'goto', slideIndex: 5 },
      headers: { 'x-host-token': session.hostToken },
    });
    expect(goto.status).toBe(200);
    const ask = (token: string, text: string) => s.answer(session.pin, token, { slideId: 'ask', text }, address);
    expect((await ask(asker, 'One?')).status).toBe(201);
    expect((await ask(asker, 'Two?')).status).toBe(201);
    const third = await ask(asker, 'Three?');
    expect(third.status).toBe(429);
    expect(third.body.error).toMatchObject({ code: 'rate_limited', details: { limit: 2 } });
    expect((await ask(other, 'Mine?')).status).toBe(201);
  });
});

describe('Q&A questions per address', () => {
  let s: Awaited<ReturnType<typeof liveServer>>;
  beforeAll(async () => {
    s = await liveServer({
      LIVE_PIN_MISSES_PER_IP_PER_MINUTE: '1000',
      LIVE_QA_QUESTIONS_PER_PARTICIPANT_PER_MINUTE: '2',
      LIVE_QA_QUESTIONS_PER_IP_PER_MINUTE: '4',
    });
  });
  afterAll(() => s?.t.close());

  it('are capped for all the participants behind one address together; another address asks on', async () => {
    const session = await s.session();
    const address = randomLoopback();
    const elsewhere = randomLoopback();
    const joined = await Promise.all([address, address, address, elsewhere].map((from) => s.join(session.pin, from)));
    const [first, second, third, other] = joined.map((j) => j.body.participantToken as string) as [
      string,
      string,
      string,
      string,
    ];
    await s.control(session, 'start');
    const goto = await apiOf(s).request('POST /sessions/{id}/control', {
      params: { id: session.id },
      body: { action: 'goto', slideIndex: 5 },
      headers: { 'x-host-token': session.hostToken },
    });
    expect(goto.status).toBe(200);
    const ask = (token: string, text: string, from = address) =>
      s.answer(session.pin, token, { slideId: 'ask', text }, from);
    // Two participants ask their two each: the address's four.
    for (const [token, name] of [
      [first, 'first'],
      [second, 'second'],
    ] as const) {
      for (const n of [1, 2]) expect((await ask(token, `${name} ${n}?`)).status).toBe(201);
    }
    // A third participant of the same address has questions of its own left, but the address has none.
    const refused = await ask(third, 'Third?');
    expect(refused.status).toBe(429);
    expect(refused.body.error).toMatchObject({
      code: 'rate_limited',
      message: expect.stringMatching(/4 questions a minute from one address/),
      details: { limit: 4, resetAt: expect.any(String) },
    });
    expect(new Date(refused.body.error.details.resetAt).getTime()).toBeGreaterThan(0);
    expect((await ask(other, 'Elsewhere?', elsewhere)).status).toBe(201);
    // Nothing refused was stored.
    const questions = await apiOf(s).request('GET /sessions/{id}/questions', {
      params: { id: session.id },
      headers: { 'x-host-token': session.hostToken },
    });
    expectStatus(questions, 200);
    expect(questions.body.data.map((q) => q.text).sort()).toEqual(
      ['Elsewhere?', 'first 1?', 'first 2?', 'second 1?', 'second 2?'].sort(),
    );
  });
});

describe('removing a participant', () => {
  let s: Awaited<ReturnType<typeof liveServer>>;
  beforeAll(async () => {
    s = await liveServer({ LIVE_PIN_MISSES_PER_IP_PER_MINUTE: '1000' });
  });
  afterAll(() => s?.t.close());

  it('ends its token and its streams at once; its answers stay; it may join again only as someone new', async () => {
    const session = await s.session();
    const joined = await s.join(session.pin);
    const token = joined.body.participantToken as string;
    const id = joined.body.participant.id as string;
    await s.control(session, 'start');
    expect((await s.answer(session.pin, token, { slideId: 'lunch', optionIds: ['pizza'] })).status).toBe(201);
    const watching = await s.stream(session.pin, { 'x-participant-token': token });
    await watching.next('slide');

    const api = apiOf(s);
    const removed = await api.request('DELETE /sessions/{id}/participants/{participantId}', {
      params: { id: session.id, participantId: id },
      headers: { 'x-host-token': session.hostToken },
    });
    expectStatus(removed, 200);
    expect(removed.body).toMatchObject({ sessionId: session.id, participantId: id, removedAt: expect.any(String) });
    await watching.closed;
    const refused = await s.answer(session.pin, token, { slideId: 'lunch', optionIds: ['sushi'] });
    expect(refused.status).toBe(401);
    expect(refused.body.error.code).toBe('invalid_participant_token');
    const again = await s.join(session.pin, undefined, token);
    expect(again.body.resumed).toBe(false);
    expect(again.body.participant.id).not.toBe(id);
    const results = await api.request('GET /polls/{id}/results', { params: { id: session.pollId }, apiKey: s.apiKey });
    expect(slideOf(expectOk(results).slides, 'lunch', 'multiple_choice').totalAnswers).toBe(1);
    // Removing again changes nothing; nobody else's participant, nor an unknown one, can be removed.
    const twice = await api.request('DELETE /sessions/{id}/participants/{participantId}', {
      params: { id: session.id, participantId: id },
      apiKey: s.apiKey,
    });
    expect(expectOk(twice).removedAt).toBe(removed.body.removedAt);
    const elsewhere = await s.session();
    expectError(
      await api.request('DELETE /sessions/{id}/participants/{participantId}', {
        params: { id: elsewhere.id, participantId: id },
        headers: { 'x-host-token': elsewhere.hostToken },
      }),
      404,
      'not_found',
    );
    expectError(
      await api.request('DELETE /sessions/{id}/participants/{participantId}', {
        params: { id: session.id, participantId: id },
        headers: { 'x-host-token': elsewhere.hostToken },
      }),
      401,
      'invalid_host_token',
    );
  });
});
