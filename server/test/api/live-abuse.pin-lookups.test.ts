import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, onTestFinished, vi } from 'vitest';
import { addressKey } from '../../src/core/client-address.js';
import { randomLoopback, requestFrom, streamStatusFrom } from '../support/from-address.js';
import { type Json, liveServer, otherPin } from '../support/live-abuse.js';

/**
 * What one address can do to a live session by guessing PINs and tokens, each finding of the
 * security review (issue 24) with its regression test: a participant is never refused for other
 * clients' PIN misses; PIN and token lookups are budgeted before they happen, so a burst tests no
 * more than the budget; an IPv6 client is counted by its /64. The rest of the review:
 * live-abuse.participants.test.ts, live-abuse.hosts-and-streams.test.ts.
 * Runs on PGlite, and on PostgreSQL + Redis with TEST_DATABASE_URL and TEST_REDIS_URL.
 */

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
    // their retry, in the same minute: a refusal kept no reservation. They retry ten at once, then five:
    // fifteen at once would again be more lookups in flight than the budget, and whether some of them
    // are then refused depends on how the requests interleave (on Redis, 5 of 15 were, CI 2026-11-29).
    for (let i = 0; i < 10; i++) await rateLimits.release(budgetKey);
    const retried = await Promise.all(Array.from({ length: 10 }, () => s.join(session.pin, classroom)));
    retried.push(...(await Promise.all(Array.from({ length: 5 }, () => s.join(session.pin, classroom)))));
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
