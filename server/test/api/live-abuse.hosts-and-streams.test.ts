import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../support/assertions.js';
import { ManualClock } from '../support/clock.js';
import { closeStreams, liveServer, streams } from '../support/live-abuse.js';
import { openSse } from '../support/sse.js';
import { expectStatus, type RouteKey, testClient } from '../support/test-client.js';

/**
 * What a stolen host token or too many streams can do to a live session, each finding of the
 * security review (issue 24) with its regression test: a host token outlives its session only to
 * read it, for a while, and can be rotated; event streams are capped per participant, per address
 * and per process; the hub forgets sessions nobody follows. The rest of the review:
 * live-abuse.pin-lookups.test.ts, live-abuse.participants.test.ts.
 * Runs on PGlite, and on PostgreSQL + Redis with TEST_DATABASE_URL and TEST_REDIS_URL.
 */

afterEach(closeStreams);

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

  /**
   * A request to a route of session `sessionId` with the host token alone. Unchecked: one helper for
   * routes of different inputs, each given what it takes.
   */
  const asHost = <K extends RouteKey>(server: typeof s, route: K, sessionId: string, token: string, body?: unknown) =>
    testClient(server.t.api).unchecked(route, {
      params: { id: sessionId },
      body,
      headers: { 'x-host-token': token },
    });

  it('after the end read the session and nothing else: no deck, no questions, no moderation, no control', async () => {
    const session = await s.session();
    await s.control(session, 'start');
    await s.control(session, 'end');
    const read = await asHost(s, 'GET /sessions/{id}', session.id, session.hostToken);
    expectStatus(read, 200);
    expect(read.body.status).toBe('ended');
    for (const [route, body] of [
      ['GET /sessions/{id}/deck'],
      ['GET /sessions/{id}/questions'],
      ['GET /sessions/{id}/qr.svg'],
      ['POST /sessions/{id}/control', { action: 'next' }],
      ['PATCH /sessions/{id}', { joinsLocked: true }],
      ['POST /sessions/{id}/host-token'],
    ] as const) {
      const res = await asHost(s, route, session.id, session.hostToken, body);
      expectStatus(res, 401, route);
      expect(res.body.error.code).toBe('invalid_host_token');
    }
    // A workspace credential still reads everything.
    expect(
      (await testClient(s.t.api).request('GET /sessions/{id}/deck', { params: { id: session.id }, apiKey: s.apiKey }))
        .status,
    ).toBe(200);
  });

  it('expire a while after the end (LIVE_HOST_TOKEN_TTL_AFTER_END_MS)', async () => {
    const session = await short.session();
    await short.control(session, 'end');
    shortClock.advance(400);
    const expired = await asHost(short, 'GET /sessions/{id}', session.id, session.hostToken);
    expectStatus(expired, 401);
    expect(expired.body.error.message).toMatch(/expired/);
  });

  it('rotate: the new token works at once, the old one never again', async () => {
    const session = await s.session();
    const rotated = await asHost(s, 'POST /sessions/{id}/host-token', session.id, session.hostToken);
    expectStatus(rotated, 200);
    expect(rotated.body.sessionId).toBe(session.id);
    expect(rotated.body.hostToken).toMatch(/^pht_/);
    expect(rotated.body.hostToken).not.toBe(session.hostToken);
    expectError(await asHost(s, 'GET /sessions/{id}', session.id, session.hostToken), 401, 'invalid_host_token');
    expect((await asHost(s, 'GET /sessions/{id}', session.id, rotated.body.hostToken)).status).toBe(200);
    // With a workspace credential too; an ended session's token is not rotated.
    const api = testClient(s.t.api, { apiKey: s.apiKey });
    const byKey = await api.request('POST /sessions/{id}/host-token', { params: { id: session.id } });
    expect(byKey.status).toBe(200);
    await api.request('POST /sessions/{id}/control', { params: { id: session.id }, body: { action: 'end' } });
    expectError(
      await api.request('POST /sessions/{id}/host-token', { params: { id: session.id } }),
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
