import { createHash, randomBytes } from 'node:crypto';
import { createChallenge } from 'altcha-lib/v1';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DatabaseSpentChallenges, JOIN_CHALLENGE_TTL_MS } from '../../src/modules/live/join-challenge.js';
import { type AsError, expectError } from '../support/assertions.js';
import { ManualClock } from '../support/clock.js';
import { sampleContent } from '../support/decks.js';
import { randomLoopback, requestFrom } from '../support/from-address.js';
import { type HttpResponse, rawCall } from '../support/http.js';
import { UNLIMITED } from '../support/limits.js';
import type { CreatedSession } from '../support/live-deck.js';
import { pollPublisher } from '../support/polls.js';
import { startTestServer, type TestServer } from '../support/server.js';
import {
  type ApiResponse,
  type BodyOf,
  errorDetails,
  expectOk,
  expectStatus,
  type OutputOf,
  testClient,
} from '../support/test-client.js';

/**
 * The join challenge (docs/moderation.md, "The join challenge") over real HTTP: a session with
 * `joinChallenge: "pow"` takes a new participant only with the solution of a challenge from
 * `GET /live/{pin}/challenge`; a missing, wrong, forged, expired, replayed or another session's
 * solution is 422 `challenge_failed`; a participant resuming with its token is not asked; turning it
 * off (`PATCH`) lets joins in without; sessions without it are as they were. Runs on PGlite, and on
 * PostgreSQL + Redis with TEST_DATABASE_URL and TEST_REDIS_URL (used challenges then kept in Redis).
 */

let t: TestServer;
const api = testClient(() => t.api);
let apiKey: string;
/** Challenges expire by the server's clock: a test moves it past their five minutes. */
const clock = new ManualClock();

beforeAll(async () => {
  t = await startTestServer(UNLIMITED, { clock });
  ({ apiKey } = await t.workspace('pro'));
});
afterAll(() => t?.close());

const publish = pollPublisher(() => ({ api: t.api, apiKey, title: 'Public', content: sampleContent() }));

/** A join challenge, as `GET /live/{pin}/challenge` hands it out and a 422 `challenge_failed` carries it. */
type Challenge = OutputOf<'GET /live/{pin}/challenge'>;

async function newSession(body: Partial<BodyOf<'POST /sessions'>> = {}): Promise<CreatedSession> {
  const poll = await publish();
  const res = await api.request('POST /sessions', { apiKey, body: { pollId: poll.id, ...body } });
  expectStatus(res, 201);
  return res.body as CreatedSession;
}

function join(
  pin: string,
  body: Partial<BodyOf<'POST /live/{pin}/join'>> = {},
  token?: string,
): Promise<ApiResponse<'POST /live/{pin}/join'>> {
  return api.request('POST /live/{pin}/join', {
    params: { pin },
    body: { name: 'Ada', ...body },
    headers: token ? { 'x-participant-token': token } : {},
  });
}

async function challengeOf(pin: string): Promise<Challenge> {
  const res = await api.request('GET /live/{pin}/challenge', { params: { pin } });
  expectStatus(res, 200);
  return res.body;
}

/** The number that solves a challenge, found with node:crypto (the SDK's solver is tested in sdk/test). */
/** A challenge to solve: the server's, or one a test forges with altcha-lib. */
type Solvable = Pick<Challenge, 'challenge' | 'maxnumber' | 'salt' | 'signature'> & { algorithm: string };

function numberOf(challenge: Solvable): number {
  for (let n = 0; n <= challenge.maxnumber; n++) {
    if (createHash('sha256').update(`${challenge.salt}${n}`).digest('hex') === challenge.challenge) return n;
  }
  throw new Error('no solution');
}

/** What a join sends: ALTCHA's payload, base64 of its JSON. */
function payload(fields: Record<string, unknown>): string {
  return Buffer.from(JSON.stringify(fields)).toString('base64');
}

function solution(challenge: Solvable, number = numberOf(challenge)): string {
  const { algorithm, salt, signature } = challenge;
  return payload({ algorithm, challenge: challenge.challenge, number, salt, signature });
}

function expectChallengeFailed<R extends HttpResponse<unknown>>(res: R, reason: string): asserts res is AsError<R> {
  expectError(res, 422, 'challenge_failed');
  expect(res.body.error.details).toMatchObject({ required: true, reason });
  // A new challenge comes with the refusal: a client solves it and joins without another request.
  expect(errorDetails(res).challenge).toMatchObject({ algorithm: 'SHA-256', maxnumber: expect.any(Number) });
}

describe('a session with the join challenge', () => {
  it('is created with it, says so, and hands out challenges in ALTCHA’s format', async () => {
    const session = await newSession({ joinChallenge: 'pow' });
    expect(session.joinChallenge).toBe('pow');
    const read = await api.request('GET /sessions/{id}', { params: { id: session.id }, apiKey });
    expectStatus(read, 200);
    expect(read.body.joinChallenge).toBe('pow');

    const challenge = await challengeOf(session.pin);
    expect(Object.keys(challenge).sort()).toEqual(
      ['algorithm', 'challenge', 'expiresAt', 'maxnumber', 'salt', 'signature'].sort(),
    );
    expect(challenge.algorithm).toBe('SHA-256');
    expect(challenge.challenge).toMatch(/^[0-9a-f]{64}$/);
    expect(challenge.signature).toMatch(/^[0-9a-f]{64}$/);
    expect(challenge.maxnumber).toBeGreaterThan(1000);
    // Bound to this session, expiring in five minutes (by the server's clock).
    expect(challenge.salt).toContain(`session=${session.id}`);
    const expiresIn = Date.parse(challenge.expiresAt) - clock.now();
    expect(expiresIn).toBeGreaterThan(JOIN_CHALLENGE_TTL_MS - 1_000);
    expect(expiresIn).toBeLessThanOrEqual(JOIN_CHALLENGE_TTL_MS);
    // Each call, a new one.
    expect((await challengeOf(session.pin)).challenge).not.toBe(challenge.challenge);
  });

  it('refuses a join without a solution (422 challenge_failed, details.required), then takes the solved one', async () => {
    const session = await newSession({ joinChallenge: 'pow' });
    const refused = await join(session.pin);
    expectChallengeFailed(refused, 'missing');
    const joined = await join(session.pin, { challenge: solution(errorDetails(refused).challenge as Challenge) });
    expectStatus(joined, 200);
    expect(joined.body.resumed).toBe(false);
    // And one from the challenge route.
    const other = await join(session.pin, { name: 'Grace', challenge: solution(await challengeOf(session.pin)) });
    expectStatus(other, 200);
    const read = await api.request('GET /sessions/{id}', { params: { id: session.id }, apiKey });
    expectStatus(read, 200);
    expect(read.body.participantCount).toBe(2);
  });

  it('refuses a wrong solution, a malformed one and one of another algorithm', async () => {
    const session = await newSession({ joinChallenge: 'pow' });
    const challenge = await challengeOf(session.pin);
    const right = numberOf(challenge);
    expectChallengeFailed(await join(session.pin, { challenge: solution(challenge, right + 1) }), 'invalid');
    expectChallengeFailed(
      await join(session.pin, { challenge: Buffer.from('{"algorithm":').toString('base64') }),
      'invalid',
    );
    expectChallengeFailed(
      await join(session.pin, { challenge: Buffer.from('not json').toString('base64') }),
      'invalid',
    );
    // Not base64 at all: the contract refuses it before the session is looked at.
    expectError(await join(session.pin, { challenge: 'not base64 json' }), 422, 'validation_failed');
    expectChallengeFailed(await join(session.pin, { challenge: payload({ number: right }) }), 'invalid');
    const { salt, signature } = challenge;
    expectChallengeFailed(
      await join(session.pin, {
        challenge: payload({ algorithm: 'SHA-1', challenge: challenge.challenge, number: right, salt, signature }),
      }),
      'invalid',
    );
    // None of them spent the challenge: the right solution still joins.
    expect((await join(session.pin, { challenge: solution(challenge, right) })).status).toBe(200);
    const read = await api.request('GET /sessions/{id}', { params: { id: session.id }, apiKey });
    expectStatus(read, 200);
    expect(read.body.participantCount).toBe(1);
  });

  it('refuses an expired solution', async () => {
    const session = await newSession({ joinChallenge: 'pow' });
    const challenge = await challengeOf(session.pin);
    clock.advance(JOIN_CHALLENGE_TTL_MS + 1_000);
    expectChallengeFailed(await join(session.pin, { challenge: solution(challenge) }), 'expired');
    // A fresh one joins.
    expect((await join(session.pin, { challenge: solution(await challengeOf(session.pin)) })).status).toBe(200);
  });

  it('takes a solution once: a replay is refused, also when both arrive at once', async () => {
    const session = await newSession({ joinChallenge: 'pow' });
    const solved = solution(await challengeOf(session.pin));
    expect((await join(session.pin, { challenge: solved })).status).toBe(200);
    expectChallengeFailed(await join(session.pin, { name: 'Mallory', challenge: solved }), 'used');

    const raced = solution(await challengeOf(session.pin));
    const both = await Promise.all([1, 2, 3, 4].map(() => join(session.pin, { challenge: raced })));
    expect(both.map((res) => res.status).sort()).toEqual([200, 422, 422, 422]);
    for (const res of both.filter((each) => each.status === 422)) expectChallengeFailed(res, 'used');
    const read = await api.request('GET /sessions/{id}', { params: { id: session.id }, apiKey });
    expectStatus(read, 200);
    expect(read.body.participantCount).toBe(2);
  });

  it('refuses the solution of another session’s challenge', async () => {
    const session = await newSession({ joinChallenge: 'pow' });
    const other = await newSession({ joinChallenge: 'pow' });
    const theirs = solution(await challengeOf(other.pin));
    expectChallengeFailed(await join(session.pin, { challenge: theirs }), 'invalid');
    // It was not spent by the refusal: it still joins its own session.
    expect((await join(other.pin, { challenge: theirs })).status).toBe(200);
  });

  it('cannot be forged: a challenge signed with another key, or one whose salt was changed, is refused', async () => {
    const session = await newSession({ joinChallenge: 'pow' });
    // The challenge a participant would make for itself: the same shape, easy, signed with a key of its own.
    const forged = await createChallenge({
      algorithm: 'SHA-256',
      hmacKey: randomBytes(32).toString('hex'),
      maxnumber: 10,
      expires: new Date(clock.now() + 60_000),
      params: { session: session.id },
    });
    expectChallengeFailed(await join(session.pin, { challenge: solution(forged as Solvable) }), 'invalid');

    // A real challenge with a later expiry written into its salt: the signature no longer matches.
    const real = await challengeOf(session.pin);
    const number = numberOf(real);
    const later = Math.floor(clock.now() / 1000) + 86_400;
    const salt = (real.salt as string).replace(/expires=\d+/, `expires=${later}`);
    const rehashed = createHash('sha256').update(`${salt}${number}`).digest('hex');
    expectChallengeFailed(
      await join(session.pin, { challenge: payload({ ...real, salt, challenge: rehashed, number }) }),
      'invalid',
    );
    // Digits moved from the number into the salt hash to the same challenge: the salt's delimiter refuses them.
    const text = String(number);
    if (text.length > 1) {
      const spliced = payload({
        algorithm: real.algorithm,
        challenge: real.challenge,
        number: Number(text.slice(1)),
        salt: `${real.salt}${text.slice(0, 1)}`,
        signature: real.signature,
      });
      expectChallengeFailed(await join(session.pin, { challenge: spliced }), 'invalid');
    }
    const read = await api.request('GET /sessions/{id}', { params: { id: session.id }, apiKey });
    expectStatus(read, 200);
    expect(read.body.participantCount).toBe(0);
  });

  it('does not ask a participant who resumes with its token', async () => {
    const session = await newSession({ joinChallenge: 'pow' });
    const first = await join(session.pin, { challenge: solution(await challengeOf(session.pin)) });
    expectStatus(first, 200);
    const token = expectOk(first).participantToken;
    const resumed = await join(session.pin, {}, token);
    expectStatus(resumed, 200);
    expect(resumed.body.resumed).toBe(true);
    expect(resumed.body.participant.id).toBe(first.body.participant.id);
    // A token that names nobody here is a newcomer's: asked.
    const stranger = await newSession();
    const theirToken = expectOk(await join(stranger.pin)).participantToken;
    expectChallengeFailed(await join(session.pin, {}, theirToken), 'missing');
  });

  it('turned off with PATCH, takes joins without a solution; turned on again, asks again', async () => {
    const session = await newSession({ joinChallenge: 'pow' });
    const off = await api.request('PATCH /sessions/{id}', {
      params: { id: session.id },
      apiKey,
      body: { joinChallenge: null },
    });
    expectStatus(off, 200);
    expect(off.body.joinChallenge).toBeNull();
    expect((await join(session.pin)).status).toBe(200);
    // The host token may switch it too.
    const on = await api.request('PATCH /sessions/{id}', {
      params: { id: session.id },
      body: { joinChallenge: 'pow' },
      headers: { 'x-host-token': session.hostToken },
    });
    expectStatus(on, 200);
    expect(on.body.joinChallenge).toBe('pow');
    expectChallengeFailed(await join(session.pin), 'missing');
    expectError(
      await rawCall('PATCH', `${t.api}/sessions/${session.id}`, { apiKey, body: { joinChallenge: 'captcha' } }),
      422,
      'validation_failed',
    );
  });

  it('works on a self-paced session’s join link as on a PIN', async () => {
    const session = await newSession({ pace: 'audience', pin: false, joinChallenge: 'pow' });
    const link = /lnk_[\w-]+/.exec(session.joinUrl)?.[0] as string;
    expectChallengeFailed(await join(link), 'missing');
    const joined = await join(link, { challenge: solution(await challengeOf(link)) });
    expectStatus(joined, 200);
    expect(joined.body.state.pace).toBe('audience');
  });

  it('keeps its used challenges bounded in the database: each new one clears expired ones', async () => {
    const db = t.server.deps.db;
    const spent = new DatabaseSpentChallenges(db, clock);
    const past = new Date(clock.now() - 1_000);
    const stale = Array.from({ length: 20 }, () => `stale-${randomBytes(8).toString('hex')}`);
    await db
      .insertInto('spent_join_challenges')
      .values(stale.map((challenge) => ({ challenge, expires_at: past })))
      .execute();
    const fresh = `fresh-${randomBytes(8).toString('hex')}`;
    expect(await spent.spend(fresh, new Date(clock.now() + 60_000))).toBe(true);
    expect(await spent.spend(fresh, new Date(clock.now() + 60_000))).toBe(false);
    const left = await db
      .selectFrom('spent_join_challenges')
      .select(sql<number>`count(*)::int`.as('n'))
      .where('challenge', 'in', stale)
      .executeTakeFirstOrThrow();
    // Two spends cleared up to 16 each: none of the 20 is left.
    expect(Number(left.n)).toBe(0);
  });
});

describe('a session without the join challenge', () => {
  it('joins as before, ignoring a `challenge` sent anyway', async () => {
    const session = await newSession();
    expect(session.joinChallenge).toBeNull();
    expect((await join(session.pin)).status).toBe(200);
    expect((await join(session.pin, { challenge: 'whatever' })).status).toBe(200);
    // Its challenge route answers all the same (a client may always ask): nothing checks it.
    await challengeOf(session.pin);
  });

  it('is not touched by another session’s challenge, and the route knows no PIN it does not know', async () => {
    await newSession({ joinChallenge: 'pow' });
    const plain = await newSession();
    expect((await join(plain.pin)).status).toBe(200);
    const unknown = plain.pin === '000000' ? '000001' : '000000';
    const res = await api.request('GET /live/{pin}/challenge', { params: { pin: unknown } });
    // An unknown PIN (or one of a session that is not this server's) is a 404 like on every /live route.
    expectStatus(res, 404);
  });
});

describe('the per-address join budget', () => {
  it('does not count a join refused for its challenge as a new participant', async () => {
    const limited = await startTestServer(
      { ...UNLIMITED, LIVE_JOINS_PER_IP_PER_MINUTE: '2' },
      { clock: new ManualClock() },
    );
    try {
      const { apiKey: key } = await limited.workspace('pro');
      const poll = await pollPublisher(() => ({
        api: limited.api,
        apiKey: key,
        title: 'P',
        content: sampleContent(),
      }))();
      const created = await testClient(limited.api).request('POST /sessions', {
        apiKey: key,
        body: { pollId: poll.id, joinChallenge: 'pow' },
      });
      const pin = expectOk(created).pin as string;
      const port = new URL(limited.url).port;
      const from = randomLoopback();
      const joinFrom = (body: BodyOf<'POST /live/{pin}/join'>) =>
        requestFrom(from, port, 'POST', `/api/v1/live/${pin}/join`, body);
      // Two newcomers, each refused once before solving: both get in within a budget of two.
      for (const name of ['Ada', 'Grace']) {
        const refused = await joinFrom({ name });
        expect(refused.status).toBe(422);
        const joined = await joinFrom({ name, challenge: solution(errorDetails(refused).challenge as Challenge) });
        expect(joined.status).toBe(200);
      }
      // A third newcomer is past the budget, solved or not.
      const third = await requestFrom(from, port, 'GET', `/api/v1/live/${pin}/challenge`);
      expect((await joinFrom({ name: 'Linus', challenge: solution(third.body) })).status).toBe(429);
    } finally {
      await limited.close();
    }
  });
});
