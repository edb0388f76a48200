import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it, onTestFinished, vi } from 'vitest';
import { addressKey } from '../../src/core/client-address.js';
import { insertParticipants } from '../../src/modules/live/participants.repository.js';
import { expectError } from '../support/assertions.js';
import { ManualClock } from '../support/clock.js';
import { randomLoopback, requestFrom, streamStatusFrom } from '../support/from-address.js';
import { call, type JsonResponse } from '../support/http.js';
import { pollPublisher, sampleContent } from '../support/polls.js';
import { startTestServer, type TestServerOptions } from '../support/server.js';
import { openSse, type SseStream } from '../support/sse.js';

/**
 * What a hostile audience, a stolen host token or one address can do to a live session, each
 * finding of the security review (issue 24) with its regression test: a participant is never
 * refused for other clients' PIN misses; PIN lookups are budgeted before they happen, so a burst
 * tests no more than the budget; scores say nothing of the slide on screen before its results are
 * shown; joins per address, participants per session, questions per participant and streams are
 * capped; a host removes participants and locks joins; a host token outlives its session only to
 * read it, for a while, and can be rotated; the hub forgets sessions nobody follows.
 * Runs on PGlite, and on PostgreSQL + Redis with TEST_DATABASE_URL and TEST_REDIS_URL.
 */

type Json = Record<string, any>;

const streams: SseStream[] = [];
afterEach(() => {
  for (const stream of streams.splice(0)) stream.close();
});

/** A server with the limits of one test group, a Pro workspace, and its helpers. */
async function liveServer(env: Record<string, string> = {}, options: TestServerOptions = {}) {
  const t = await startTestServer(
    {
      RATE_LIMIT_PER_MINUTE: '1000000',
      LIVE_RATE_LIMIT_PER_IP_PER_MINUTE: '1000000',
      ...env,
    },
    // Held still unless a test brings its own: a burst's count is all in one rate-limit window
    // however long the machine takes to send it.
    { clock: new ManualClock(), ...options },
  );
  const { apiKey } = await t.workspace('pro');
  const port = new URL(t.url).port;
  const publish = pollPublisher(() => ({ api: t.api, apiKey, title: 'Abuse', content: sampleContent() }));
  const session = async (body: Json = {}) => {
    const poll = await publish();
    const res = await call('POST', `${t.api}/sessions`, { apiKey, body: { pollId: poll.id, ...body } });
    expect(res.status, res.text).toBe(201);
    return res.body as Json & { id: string; pin: string; hostToken: string };
  };
  const control = (s: { id: string; hostToken: string }, action: string) =>
    call('POST', `${t.api}/sessions/${s.id}/control`, { body: { action }, headers: { 'x-host-token': s.hostToken } });
  const join = (pin: string, from = randomLoopback(), token?: string) =>
    requestFrom(
      from,
      port,
      'POST',
      `/api/v1/live/${pin}/join`,
      { name: 'P' },
      token ? { 'x-participant-token': token } : {},
    );
  const answer = (pin: string, token: string, body: Json, from = '127.0.0.1') =>
    requestFrom(from, port, 'POST', `/api/v1/live/${pin}/answers`, body, { 'x-participant-token': token });
  const stream = async (pin: string, headers: Record<string, string> = {}) => {
    const opened = await openSse(`${t.api}/live/${pin}/events`, headers);
    streams.push(opened);
    return opened;
  };
  return { t, apiKey, port, session, control, join, answer, stream };
}

/** A PIN no session has: the first of 000000, 000001, … that is not `pin`. */
function otherPin(pin: string, offset = 0): string {
  return String((Number(pin) + 1 + offset) % 1_000_000).padStart(6, '0');
}

describe('PIN lookups', () => {
  let s: Awaited<ReturnType<typeof liveServer>>;
  beforeAll(async () => {
    s = await liveServer({ LIVE_PIN_MISSES_PER_IP_PER_MINUTE: '10' });
  });
  afterAll(() => s?.t.close());

  it('never refuse a participant with a valid token for other clients’ misses behind the same address', async () => {
    const session = await s.session();
    expect((await s.control(session, 'start')).status).toBe(200);
    const venue = randomLoopback();
    const joined = await s.join(session.pin, venue);
    expect(joined.status).toBe(200);
    const token: string = joined.body.participantToken;
    // Someone else behind the venue's address guesses PINs until the budget is spent.
    for (let i = 0; i < 12; i++) await s.join(otherPin(session.pin, i), venue);
    expect((await s.join(otherPin(session.pin, 99), venue)).status).toBe(429);
    // The participant carries on: answer, rejoin with its token, stream.
    const vote = await s.answer(session.pin, token, { slideId: 'lunch', optionIds: ['pizza'] }, venue);
    expect(vote.status, JSON.stringify(vote.body)).toBe(201);
    const back = await s.join(session.pin, venue, token);
    expect(back.status, JSON.stringify(back.body)).toBe(200);
    expect(back.body.resumed).toBe(true);
    const events = await streamStatusFrom(venue, s.port, `/api/v1/live/${session.pin}/events`, {
      'x-participant-token': token,
    });
    expect(events).toBe(200);
  });

  it('budget tokens that name nobody before they are looked up; participants behind the address carry on', async () => {
    const session = await s.session();
    await s.control(session, 'start');
    const venue = randomLoopback();
    const ada = (await s.join(session.pin, venue)).body.participantToken as string;
    expect((await s.answer(session.pin, ada, { slideId: 'lunch', optionIds: ['pizza'] }, venue)).status).toBe(201);
    // Ada's row is no longer in the hub's ten-second cache: her token is known from her answer.
    s.t.server.deps.liveHub.catchUp();
    const bob = (await s.join(session.pin, venue)).body.participantToken as string;
    const forged = () => `ptk_${randomBytes(32).toString('base64url')}`;
    const vote = { slideId: 'lunch', optionIds: ['sushi'] };
    // Random tokens on the real PIN: each costs a lookup, so the budget (10) runs out after ten …
    for (let i = 0; i < 10; i++) {
      const miss = await s.answer(session.pin, forged(), vote, venue);
      expect(miss.status, JSON.stringify(miss.body)).toBe(401);
      expect(miss.body.error.code).toBe('invalid_participant_token');
    }
    // … and the eleventh is refused before any lookup, as is a burst, and a join (one budget).
    const refused = await s.answer(session.pin, forged(), vote, venue);
    expect(refused.status).toBe(429);
    expect(refused.body.error).toMatchObject({
      code: 'rate_limited',
      details: { limit: 10, resetAt: expect.any(String) },
    });
    const burst = await Promise.all(Array.from({ length: 30 }, () => s.answer(session.pin, forged(), vote, venue)));
    expect(burst.map((res) => res.status)).toEqual(Array(30).fill(429));
    expect((await s.join(session.pin, venue)).status).toBe(429);
    // The participants behind the same address are not refused: Ada (known to the gate) and Bob
    // (just joined, in the hub's cache) answer, rejoin and stream.
    expect((await s.answer(session.pin, bob, vote, venue)).status).toBe(201);
    const back = await s.join(session.pin, venue, ada);
    expect(back.status, JSON.stringify(back.body)).toBe(200);
    expect(back.body.resumed).toBe(true);
    const events = await streamStatusFrom(venue, s.port, `/api/v1/live/${session.pin}/events`, {
      'x-participant-token': ada,
    });
    expect(events).toBe(200);
    // Another address has a budget of its own.
    expect((await s.answer(session.pin, forged(), vote, randomLoopback())).status).toBe(401);
  });

  it('reserve a token’s lookup before it: a burst of concurrent random tokens costs no more than the budget', async () => {
    const session = await s.session();
    await s.control(session, 'start');
    const address = randomLoopback();
    const tokens = Array.from({ length: 60 }, () => `ptk_${randomBytes(32).toString('base64url')}`);
    const answers = await Promise.all(
      tokens.map((token) => s.answer(session.pin, token, { slideId: 'lunch', optionIds: ['pizza'] }, address)),
    );
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((status) => status === 401).length).toBeLessThanOrEqual(10);
    expect(statuses.filter((status) => status === 429).length).toBeGreaterThanOrEqual(50);
  });

  it('turn a classroom’s burst of joins away only while it is in flight: the refused give their reservations back', async () => {
    const session = await s.session();
    const classroom = randomLoopback();
    const budgetKey = `pin-lookup:${addressKey(classroom)}`;
    const rateLimits = s.t.server.deps.rateLimits;
    // Ten joins of the classroom are being looked up (their reservations held, as in flight) …
    for (let i = 0; i < 10; i++) await rateLimits.hit(budgetKey);
    // … so fifteen more at that moment are refused, before any lookup …
    const refused = await Promise.all(Array.from({ length: 15 }, () => s.join(session.pin, classroom)));
    expect(refused.map((res) => res.status)).toEqual(Array(15).fill(429));
    // … and once the ten are through (the PIN named a session: reservations back), the fifteen get in on
    // their retry, in the same minute: a refusal kept no reservation.
    for (let i = 0; i < 10; i++) await rateLimits.release(budgetKey);
    const retried = await Promise.all(Array.from({ length: 15 }, () => s.join(session.pin, classroom)));
    expect(retried.map((res) => res.status)).toEqual(Array(15).fill(200));
    // Misses still count: ten wrong PINs, then the budget is spent for this address.
    for (let i = 0; i < 10; i++) expect((await s.join(otherPin(session.pin, i), classroom)).status).toBe(404);
    expect((await s.join(otherPin(session.pin, 99), classroom)).status).toBe(429);
  });

  it('know the tokens they issued: a room answering its first question at once, long after joining, is not budgeted', async () => {
    const session = await s.session();
    expect((await s.control(session, 'start')).status).toBe(200);
    const room = randomLoopback();
    const tokens: string[] = [];
    for (let i = 0; i < 25; i++) {
      const joined = await s.join(session.pin, room);
      expect(joined.status, JSON.stringify(joined.body)).toBe(200);
      tokens.push(joined.body.participantToken);
    }
    // Past the hub's ten seconds of holding a participant row (PARTICIPANT_CACHE_TTL_MS): what a room
    // does between joining and the first question. No participant opened a stream. The server runs in
    // this process: moving the wall clock on (timers stay real) ages its caches without a wait.
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 10_500 });
    onTestFinished(() => {
      vi.useRealTimers();
    });
    // The address's ten lookups are in flight (held, as a burst of its first answers would hold
    // them): an answer budgeted as a stranger's token would be refused now.
    const budgetKey = `pin-lookup:${addressKey(room)}`;
    const rateLimits = s.t.server.deps.rateLimits;
    for (let i = 0; i < 10; i++) await rateLimits.hit(budgetKey);
    const answered = await Promise.all(
      tokens.map((token) => s.answer(session.pin, token, { slideId: 'lunch', optionIds: ['pizza'] }, room)),
    );
    expect(answered.map((res) => res.status)).toEqual(Array(25).fill(201));
    for (let i = 0; i < 10; i++) await rateLimits.release(budgetKey);
  });

  it('over budget, answer a real PIN exactly as a wrong one: the same 429, nothing to tell them apart', async () => {
    const session = await s.session();
    const address = randomLoopback();
    for (let i = 0; i < 10; i++) expect((await s.join(otherPin(session.pin, i), address)).status).toBe(404);
    const real = await s.join(session.pin, address);
    const wrong = await s.join(otherPin(session.pin, 50), address);
    expect(real.status).toBe(429);
    expect(wrong.status).toBe(429);
    const strip = (body: Json) => ({ ...body.error, details: { ...body.error.details, resetAt: undefined } });
    expect(strip(real.body)).toEqual(strip(wrong.body));
    // A token that names nobody is an anonymous lookup too: no way around the budget.
    const forged = await s.join(session.pin, address, `ptk_${'A'.repeat(43)}`);
    expect(forged.status).toBe(429);
  });

  it('are reserved before the lookup: a burst of 200 concurrent guesses tests no more PINs than the budget', async () => {
    const session = await s.session();
    const address = randomLoopback();
    const guesses = Array.from({ length: 199 }, (_, i) => otherPin(session.pin, i));
    // The real PIN is sent last: with the budget checked before the lookup, it is over budget.
    const answers = await Promise.all([...guesses, session.pin].map((pin) => s.join(pin, address)));
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((status) => status === 404).length).toBeLessThanOrEqual(10);
    expect(statuses.filter((status) => status === 429).length).toBeGreaterThanOrEqual(189);
    expect(statuses.at(-1)).toBe(429);
    expect(answers.some((a) => a.body?.participantToken)).toBe(false);
  });

  it('count an IPv6 client by its /64, and an IPv4-mapped one as its IPv4', () => {
    expect(addressKey('2001:db8:1:2:aaaa:bbbb:cccc:dddd')).toBe('2001:db8:1:2::/64');
    expect(addressKey('2001:db8:1:2::1')).toBe('2001:db8:1:2::/64');
    expect(addressKey('2001:0DB8:0001:0002:0000:0000:0000:0001%eth0')).toBe('2001:db8:1:2::/64');
    expect(addressKey('2001:db8:1:3::1')).toBe('2001:db8:1:3::/64');
    expect(addressKey('::ffff:192.0.2.7')).toBe('192.0.2.7');
    expect(addressKey('::ffff:c000:207')).toBe('192.0.2.7');
    expect(addressKey('192.0.2.7')).toBe('192.0.2.7');
    expect(addressKey('::1')).toBe('0:0:0:0::/64');
  });
});

describe('IPv6 clients behind a trusted proxy', () => {
  let s: Awaited<ReturnType<typeof liveServer>>;
  beforeAll(async () => {
    s = await liveServer({ LIVE_PIN_MISSES_PER_IP_PER_MINUTE: '3', TRUST_PROXY: '127.0.0.1' });
  });
  afterAll(() => s?.t.close());

  it('share one PIN budget across their /64, and a neighbouring /64 has its own', async () => {
    const session = await s.session();
    const from = (xff: string, pin: string) =>
      requestFrom('127.0.0.1', s.port, 'POST', `/api/v1/live/${pin}/join`, {}, { 'x-forwarded-for': xff });
    // Three misses from three addresses of one /64 spend its budget …
    for (const host of ['1', '2', '3'])
      expect((await from(`2001:db8:aa:1::${host}`, otherPin(session.pin))).status).toBe(404);
    expect((await from('2001:db8:aa:1::ffff', otherPin(session.pin))).status).toBe(429);
    // … and not the next network's.
    expect((await from('2001:db8:aa:2::1', otherPin(session.pin))).status).toBe(404);
  });
});

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
    const now = await call('GET', `${s.t.api}/sessions/${session.id}`, { apiKey: s.apiKey });
    expect(now.body).toMatchObject({ participantCount: 5, maxParticipants: 5, joinsLocked: false });
    // A participant who joined resumes with its token, full or not.
    const token = joins.find((j) => j.status === 200)?.body.participantToken as string;
    expect((await s.join(session.pin, undefined, token)).status).toBe(200);
  });

  it('cap participants when joins arrive as batches side by side (one statement per batch; on PostgreSQL, concurrent)', async () => {
    const capped = await s.session({ maxParticipants: 25 });
    const locked = await s.session({ maxParticipants: 25 });
    const lock = await call('PATCH', `${s.t.api}/sessions/${locked.id}`, {
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
    const now = await call('GET', `${s.t.api}/sessions/${capped.id}`, { apiKey: s.apiKey });
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
    const refused = await call('POST', `${s.t.api}/sessions`, {
      apiKey: s.apiKey,
      body: { pollId: poll.id, maxParticipants: 101 },
    });
    expectError(refused, 422, 'validation_failed');
    expect(refused.body.error.details.fieldErrors.maxParticipants).toBeDefined();
  });

  it('let the host lock joins (those who joined carry on) and change the cap, never below who joined', async () => {
    const session = await s.session();
    const inside = await s.join(session.pin);
    await s.control(session, 'start');
    const patch = (body: Json) =>
      call('PATCH', `${s.t.api}/sessions/${session.id}`, { body, headers: { 'x-host-token': session.hostToken } });
    const locked = await patch({ joinsLocked: true });
    expect(locked.status, locked.text).toBe(200);
    expect(locked.body.joinsLocked).toBe(true);
    const late = await s.join(session.pin);
    expect(late.status).toBe(409);
    expect(late.body.error.code).toBe('joins_locked');
    const token = inside.body.participantToken as string;
    expect((await s.join(session.pin, undefined, token)).status).toBe(200);
    expect((await s.answer(session.pin, token, { slideId: 'lunch', optionIds: ['sushi'] })).status).toBe(201);
    expect((await patch({ joinsLocked: false })).body.joinsLocked).toBe(false);
    expect((await s.join(session.pin)).status).toBe(200);

    expectError(await patch({ maxParticipants: 1 }), 422, 'validation_failed');
    expect((await patch({ maxParticipants: 2 })).body.maxParticipants).toBe(2);
    expect((await s.join(session.pin)).status).toBe(409);
    expectError(await patch({}), 422, 'validation_failed');
  });

  it('limit Q&A questions per participant per minute, not per address', async () => {
    const session = await s.session();
    const address = randomLoopback();
    const asker = (await s.join(session.pin, address)).body.participantToken as string;
    const other = (await s.join(session.pin, address)).body.participantToken as string;
    await s.control(session, 'start');
    const goto = await call('POST', `${s.t.api}/sessions/${session.id}/control`, {
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
    const goto = await call('POST', `${s.t.api}/sessions/${session.id}/control`, {
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
    const questions = await call('GET', `${s.t.api}/sessions/${session.id}/questions`, {
      headers: { 'x-host-token': session.hostToken },
    });
    expect(questions.status, questions.text).toBe(200);
    expect(questions.body.data.map((q: Json) => q.text).sort()).toEqual(
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

    const removed = await call('DELETE', `${s.t.api}/sessions/${session.id}/participants/${id}`, {
      headers: { 'x-host-token': session.hostToken },
    });
    expect(removed.status, removed.text).toBe(200);
    expect(removed.body).toMatchObject({ sessionId: session.id, participantId: id, removedAt: expect.any(String) });
    await watching.closed;
    const refused = await s.answer(session.pin, token, { slideId: 'lunch', optionIds: ['sushi'] });
    expect(refused.status).toBe(401);
    expect(refused.body.error.code).toBe('invalid_participant_token');
    const again = await s.join(session.pin, undefined, token);
    expect(again.body.resumed).toBe(false);
    expect(again.body.participant.id).not.toBe(id);
    const results = await call('GET', `${s.t.api}/polls/${session.pollId}/results`, { apiKey: s.apiKey });
    expect(results.body.slides[0].totalAnswers).toBe(1);
    // Removing again changes nothing; nobody else's participant, nor an unknown one, can be removed.
    const twice = await call('DELETE', `${s.t.api}/sessions/${session.id}/participants/${id}`, { apiKey: s.apiKey });
    expect(twice.body.removedAt).toBe(removed.body.removedAt);
    const elsewhere = await s.session();
    expectError(
      await call('DELETE', `${s.t.api}/sessions/${elsewhere.id}/participants/${id}`, {
        headers: { 'x-host-token': elsewhere.hostToken },
      }),
      404,
      'not_found',
    );
    expectError(
      await call('DELETE', `${s.t.api}/sessions/${session.id}/participants/${id}`, {
        headers: { 'x-host-token': elsewhere.hostToken },
      }),
      401,
      'invalid_host_token',
    );
  });
});

describe('host tokens', () => {
  let s: Awaited<ReturnType<typeof liveServer>>;
  let short: Awaited<ReturnType<typeof liveServer>>;
  /** The short-lived tokens' server ends sessions and expires their host tokens by this clock. */
  const shortClock = new ManualClock();
  beforeAll(async () => {
    [s, short] = await Promise.all([
      liveServer({ LIVE_PIN_MISSES_PER_IP_PER_MINUTE: '1000' }),
      liveServer(
        { LIVE_PIN_MISSES_PER_IP_PER_MINUTE: '1000', LIVE_HOST_TOKEN_TTL_AFTER_END_MS: '300' },
        { clock: shortClock },
      ),
    ]);
  });
  afterAll(() => Promise.all([s?.t.close(), short?.t.close()]));

  const asHost = (server: typeof s, method: string, path: string, token: string, body?: Json): Promise<JsonResponse> =>
    call(method, `${server.t.api}${path}`, { body, headers: { 'x-host-token': token } });

  it('after the end read the session and nothing else: no deck, no questions, no moderation, no control', async () => {
    const session = await s.session();
    await s.control(session, 'start');
    await s.control(session, 'end');
    const read = await asHost(s, 'GET', `/sessions/${session.id}`, session.hostToken);
    expect(read.status).toBe(200);
    expect(read.body.status).toBe('ended');
    for (const [method, path, body] of [
      ['GET', `/sessions/${session.id}/deck`],
      ['GET', `/sessions/${session.id}/questions`],
      ['GET', `/sessions/${session.id}/qr.svg`],
      ['POST', `/sessions/${session.id}/control`, { action: 'next' }],
      ['PATCH', `/sessions/${session.id}`, { joinsLocked: true }],
      ['POST', `/sessions/${session.id}/host-token`],
    ] as const) {
      const res = await asHost(s, method, path, session.hostToken, body as Json | undefined);
      expect(res.status, `${method} ${path}`).toBe(401);
      expect(res.body.error.code).toBe('invalid_host_token');
    }
    // A workspace credential still reads everything.
    expect((await call('GET', `${s.t.api}/sessions/${session.id}/deck`, { apiKey: s.apiKey })).status).toBe(200);
  });

  it('expire a while after the end (LIVE_HOST_TOKEN_TTL_AFTER_END_MS)', async () => {
    const session = await short.session();
    await short.control(session, 'end');
    shortClock.advance(400);
    const expired = await asHost(short, 'GET', `/sessions/${session.id}`, session.hostToken);
    expect(expired.status).toBe(401);
    expect(expired.body.error.message).toMatch(/expired/);
  });

  it('rotate: the new token works at once, the old one never again', async () => {
    const session = await s.session();
    const rotated = await asHost(s, 'POST', `/sessions/${session.id}/host-token`, session.hostToken);
    expect(rotated.status, rotated.text).toBe(200);
    expect(rotated.body.sessionId).toBe(session.id);
    expect(rotated.body.hostToken).toMatch(/^pht_/);
    expect(rotated.body.hostToken).not.toBe(session.hostToken);
    expectError(await asHost(s, 'GET', `/sessions/${session.id}`, session.hostToken), 401, 'invalid_host_token');
    expect((await asHost(s, 'GET', `/sessions/${session.id}`, rotated.body.hostToken)).status).toBe(200);
    // With a workspace credential too; an ended session's token is not rotated.
    const byKey = await call('POST', `${s.t.api}/sessions/${session.id}/host-token`, { apiKey: s.apiKey });
    expect(byKey.status).toBe(200);
    await call('POST', `${s.t.api}/sessions/${session.id}/control`, { apiKey: s.apiKey, body: { action: 'end' } });
    expectError(
      await call('POST', `${s.t.api}/sessions/${session.id}/host-token`, { apiKey: s.apiKey }),
      409,
      'invalid_session_state',
    );
  });
});

describe('event streams', () => {
  let s: Awaited<ReturnType<typeof liveServer>>;
  beforeAll(async () => {
    s = await liveServer({
      LIVE_PIN_MISSES_PER_IP_PER_MINUTE: '1000',
      LIVE_STREAMS_PER_PARTICIPANT: '2',
      LIVE_ANONYMOUS_STREAMS_PER_IP: '2',
      LIVE_MAX_STREAMS_PER_PROCESS: '6',
    });
  });
  afterAll(() => s?.t.close());

  it('are capped per participant, per address without a token, and per process: 429 in the envelope', async () => {
    const session = await s.session();
    await s.control(session, 'start');
    const token = (await s.join(session.pin)).body.participantToken as string;
    const mine = { 'x-participant-token': token };
    const [a, b] = [await s.stream(session.pin, mine), await s.stream(session.pin, mine)];
    expect([a.status, b.status]).toEqual([200, 200]);
    const third = await s.stream(session.pin, mine);
    expect(third.status).toBe(429);
    expect(third.error.error).toMatchObject({ code: 'rate_limited', details: { limit: 2 } });
    // A closed tab gives its place back.
    a.close();
    await waitFor(async () => (await s.stream(session.pin, mine)).status === 200);

    const viewers = [await s.stream(session.pin), await s.stream(session.pin)];
    expect(viewers.map((v) => v.status)).toEqual([200, 200]);
    expect((await s.stream(session.pin)).status).toBe(429);

    // Two participant streams and two anonymous ones are open. Participants stop one short of the
    // process's 6: the last place is kept for the presenter, whom a full room must not lock out.
    const other = { 'x-participant-token': (await s.join(session.pin)).body.participantToken as string };
    expect((await s.stream(session.pin, other)).status).toBe(200);
    const crowded = await s.stream(session.pin, other);
    expect(crowded.status).toBe(429);
    expect(crowded.error.error.message).toMatch(/5 event streams/);
    const presenter = async () => {
      const opened = await openSse(`${s.t.api}/sessions/${session.id}/events`, { 'x-host-token': session.hostToken });
      streams.push(opened);
      return opened;
    };
    expect((await presenter()).status).toBe(200);
    const full = await presenter();
    expect(full.status).toBe(429);
    expect(full.error.error.message).toMatch(/6 event streams/);
    expect(s.t.server.deps.liveHub.streamCap).toEqual({ cap: 6, refusedAtCap: 2 });
  });
});

describe('the live hub', () => {
  let s: Awaited<ReturnType<typeof liveServer>>;
  beforeAll(async () => {
    s = await liveServer({ LIVE_PIN_MISSES_PER_IP_PER_MINUTE: '1000' });
  });
  afterAll(() => s?.t.close());

  it('forgets the sessions nobody follows any more, ended ones among them', async () => {
    const hub = s.t.server.deps.liveHub;
    for (let i = 0; i < 5; i++) {
      const session = await s.session();
      await s.join(session.pin);
      await s.control(session, 'start');
      await s.control(session, 'end');
    }
    expect(hub.sizes.sessions).toBeGreaterThanOrEqual(5);
    hub.sweep(Date.now() + 11 * 60_000);
    expect(hub.sizes).toMatchObject({ sessions: 0, pins: 0, announced: 0 });
  });
});

async function waitFor(check: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
