import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/db/ids.js';
import { insertSession } from '../../src/modules/sessions/sessions.repository.js';
import { expectError } from '../support/assertions.js';
import { ManualClock } from '../support/clock.js';
import type { CreatedSession } from '../support/live-deck.js';
import { liveSessionsApi, startLiveSessionsServer } from '../support/live-sessions.js';
import { issuedToken, oauthClient } from '../support/oauth.js';
import { pollPublisher, sampleContent } from '../support/polls.js';
import type { TestServer } from '../support/server.js';
import { openSse } from '../support/sse.js';
import {
  type ApiResponse,
  errorDetails,
  expectOk,
  expectStatus,
  type QueryOf,
  testClient,
} from '../support/test-client.js';

/**
 * Hosting a live session over real HTTP: the sessions API (create with a PIN and a host token shown
 * once, list, refuse polls that cannot run, one open session per PIN, the QR code), and control: the
 * state machine, the deck's bounds, and the credentials that may drive it.
 * Runs on PGlite, and on PostgreSQL + Redis with TEST_DATABASE_URL and TEST_REDIS_URL.
 */

let t: TestServer;
let apiKey: string;
let workspaceId: string;
const api = testClient(() => t.api);
/** The server times quiz answers by this clock: it moves only when a test advances it. */
const clock = new ManualClock();

beforeAll(async () => {
  ({ t, apiKey, workspaceId } = await startLiveSessionsServer(clock));
});
afterAll(() => t?.close());

const { closeStreams, pinsSeen, publishedPoll, newSession, pollAndSession, control, act, joined } = liveSessionsApi(
  () => ({ t, apiKey }),
);
afterEach(closeStreams);

describe('sessions API', () => {
  it('creates a pending session with a PIN and a host token shown once, and gets it without the token', async () => {
    const poll = await publishedPoll();
    const created = await api.request('POST /sessions', { apiKey, body: { pollId: poll.id } });
    expectStatus(created, 201);
    // A presenter-paced session has a PIN.
    pinsSeen.add(created.body.pin as string);
    expect(created.body).toMatchObject({
      pollId: poll.id,
      status: 'pending',
      currentSlideIndex: 0,
      slideCount: 7,
      resultsVisible: false,
      locked: false,
      participantCount: 0,
      startedAt: null,
      endedAt: null,
    });
    expect(created.body.id).toMatch(/^ses_/);
    expect(created.body.pin).toMatch(/^[0-9]{6}$/);
    expect(created.body.hostToken).toMatch(/^pht_/);
    expect(created.body.joinUrl).toBe(`https://join.example.test/${created.body.pin}`);

    const { hostToken, ...session } = created.body;
    const got = await api.request('GET /sessions/{id}', { params: { id: session.id }, apiKey });
    expect(got.status).toBe(200);
    expect(got.body).toEqual(session);
    expect(got.text).not.toContain(hostToken);
    const byHost = await api.request('GET /sessions/{id}', {
      params: { id: session.id },
      headers: { 'x-host-token': hostToken },
    });
    expect(byHost.status, byHost.text).toBe(200);
    expect(byHost.body).toEqual(session);
    const listed = await api.request('GET /sessions', { query: { pollId: poll.id }, apiKey });
    expect(expectOk(listed).data).toEqual([session]);
    expect(listed.text).not.toContain('hostToken');
  });

  it('refuses draft, closed and unknown polls', async () => {
    const draft = await api.request('POST /polls', { apiKey, body: { title: 'Draft', content: sampleContent() } });
    expectStatus(draft, 201);
    expectError(
      await api.request('POST /sessions', { apiKey, body: { pollId: draft.body.id } }),
      409,
      'poll_not_published',
    );

    const closed = await publishedPoll();
    const closing = await api.request('PATCH /polls/{id}', {
      params: { id: closed.id },
      apiKey,
      body: { closed: true },
    });
    expect(closing.status, closing.text).toBe(200);
    expectError(await api.request('POST /sessions', { apiKey, body: { pollId: closed.id } }), 409, 'poll_closed');

    expectError(await api.request('POST /sessions', { apiKey, body: { pollId: newId('poll') } }), 404, 'not_found');
    // Another workspace's poll is unknown too.
    const other = await t.workspace('pro');
    const published = await publishedPoll();
    expectError(
      await api.request('POST /sessions', { apiKey: other.apiKey, body: { pollId: published.id } }),
      404,
      'not_found',
    );
    // Unchecked: a PIN of the caller's choosing, which the contract does not take.
    expectError(
      await api.unchecked('POST /sessions', { apiKey, body: { pollId: published.id, pin: '123456' } }),
      422,
      'validation_failed',
    );
    expectError(
      await api.request('GET /sessions/{id}', { params: { id: newId('session') }, apiKey }),
      404,
      'not_found',
    );
  });

  it('lists newest first with cursor pagination and the pollId and status filters', async () => {
    const own = await t.workspace('pro');
    const publish = pollPublisher(() => ({
      api: t.api,
      apiKey: own.apiKey,
      title: 'Listed',
      content: sampleContent(),
    }));
    const [pollA, pollB] = [await publish(), await publish()];
    const a1 = await newSession(pollA.id, own.apiKey);
    const a2 = await newSession(pollA.id, own.apiKey);
    const a3 = await newSession(pollA.id, own.apiKey);
    const b1 = await newSession(pollB.id, own.apiKey);
    expect((await control(a2.id, 'end', { apiKey: own.apiKey })).status).toBe(200);
    expect((await control(a3.id, 'start', { apiKey: own.apiKey })).status).toBe(200);

    const list = (query: QueryOf<'GET /sessions'>) => api.request('GET /sessions', { query, apiKey: own.apiKey });
    const ids = (res: ApiResponse<'GET /sessions'>) => expectOk(res).data.map((s) => s.id);

    const page1 = await list({ limit: 3 });
    expectStatus(page1, 200);
    expect(ids(page1)).toEqual([b1.id, a3.id, a2.id]);
    expect(page1.body.nextCursor).toEqual(expect.any(String));
    // `?? undefined`: a null cursor, which the expectation above has refused, is no query parameter.
    const page2 = await list({ limit: 3, cursor: page1.body.nextCursor ?? undefined });
    expect(ids(page2)).toEqual([a1.id]);
    expect(expectOk(page2).nextCursor).toBeNull();

    const ofA = await list({ pollId: pollA.id, limit: 2 });
    expect(ids(ofA)).toEqual([a3.id, a2.id]);
    const ofA2 = await list({ pollId: pollA.id, limit: 2, cursor: expectOk(ofA).nextCursor ?? undefined });
    expect(ids(ofA2)).toEqual([a1.id]);

    expect(ids(await list({ status: 'ended' }))).toEqual([a2.id]);
    expect(ids(await list({ status: 'active' }))).toEqual([a3.id]);
    expect(ids(await list({ status: 'pending' }))).toEqual([b1.id, a1.id]);
    expect(ids(await list({ status: 'pending', pollId: pollA.id }))).toEqual([a1.id]);
    const [active] = expectOk(await list({ status: 'active' })).data;
    expect(active).toMatchObject({ status: 'active', startedAt: expect.any(String), slideCount: 7 });

    // Unchecked: a status the contract does not have.
    expectError(
      await api.unchecked('GET /sessions', { query: { status: 'paused' }, apiKey: own.apiKey }),
      422,
      'validation_failed',
    );
    // The file's own workspace sees none of these.
    const mine = await api.request('GET /sessions', { query: { pollId: pollA.id }, apiKey });
    expect(expectOk(mine).data).toEqual([]);
  });

  it('gives each open session its own six-digit PIN; the database refuses a second open session on a PIN', async () => {
    const poll = await publishedPoll();
    const created = await Promise.all(Array.from({ length: 25 }, () => newSession(poll.id)));
    const pins = created.map((s) => s.pin);
    for (const pin of pins) expect(pin).toMatch(/^[0-9]{6}$/);
    expect(new Set(pins).size).toBe(pins.length);

    // What makes the PIN unique is a partial unique index over sessions that have not ended.
    const [taken] = created as [CreatedSession];
    const row = (pin: string) => ({
      id: newId('session'),
      workspace_id: workspaceId,
      poll_id: poll.id,
      pin,
      host_token_hash: 'x'.repeat(64),
      max_participants: 100,
    });
    const refused = await insertSession(t.server.deps.db, row(taken.pin)).then(
      () => undefined,
      (error: { code?: string }) => error,
    );
    expect(refused?.code).toBe('23505');
    // Once that session ends, its PIN may be given out again.
    expect((await control(taken.id, 'end', { apiKey })).status).toBe(200);
    const reused = await insertSession(t.server.deps.db, row(taken.pin));
    expect(reused.pin).toBe(taken.pin);
    const joinedReused = await joined(taken.pin, 'Second session');
    expect(joinedReused.state.sessionId).toBe(reused.id);
  });

  it('serves the join URL as a QR code', async () => {
    const { session } = await pollAndSession();
    const res = await fetch(`${t.api}/sessions/${session.id}/qr.svg`, {
      headers: { 'x-host-token': session.hostToken },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^image\/svg\+xml/);
    const svg = await res.text();
    expect(svg.startsWith('<svg')).toBe(true);
    expect(svg).toContain('</svg>');
    const byKey = await fetch(`${t.api}/sessions/${session.id}/qr.svg`, {
      headers: { authorization: `Bearer ${apiKey}` },
    });
    expect(await byKey.text()).toBe(svg);
    expectError(
      await api.request('GET /sessions/{id}/qr.svg', { params: { id: session.id } }),
      401,
      'missing_authorization',
    );
  });
});

describe('control', () => {
  it('follows the state machine: pending, active, ended', async () => {
    const { session } = await pollAndSession();
    for (const action of ['next', 'prev', 'showResults', 'hideResults', 'lock', 'unlock']) {
      expectError(await control(session.id, action, { hostToken: session.hostToken }), 409, 'invalid_session_state');
    }
    expectError(
      await control(session.id, 'goto', { hostToken: session.hostToken, slideIndex: 1 }),
      409,
      'invalid_session_state',
    );

    const started = await act(session, 'start');
    expect(started).toMatchObject({ status: 'active', currentSlideIndex: 0, startedAt: expect.any(String) });
    expectError(await control(session.id, 'start', { hostToken: session.hostToken }), 409, 'invalid_session_state');

    expect(await act(session, 'next')).toMatchObject({ currentSlideIndex: 1 });
    expect(await act(session, 'prev')).toMatchObject({ currentSlideIndex: 0 });
    expect(await act(session, 'goto', 4)).toMatchObject({ currentSlideIndex: 4 });
    expect(await act(session, 'showResults')).toMatchObject({ resultsVisible: true, currentSlideIndex: 4 });
    expect(await act(session, 'hideResults')).toMatchObject({ resultsVisible: false });
    expect(await act(session, 'lock')).toMatchObject({ locked: true });
    expect(await act(session, 'unlock')).toMatchObject({ locked: false });
    // Moving shows the next slide unlocked with its results hidden.
    await act(session, 'lock');
    await act(session, 'showResults');
    expect(await act(session, 'next')).toMatchObject({ currentSlideIndex: 5, locked: false, resultsVisible: false });

    const ended = await act(session, 'end');
    expect(ended).toMatchObject({ status: 'ended', endedAt: expect.any(String), currentSlideIndex: 5 });
    for (const action of ['start', 'next', 'prev', 'showResults', 'lock', 'end']) {
      const res = await control(session.id, action, { apiKey });
      expectError(res, 409, 'invalid_session_state');
      expect(res.body.error.message).toMatch(/ended/);
    }
  });

  it('ends a pending session', async () => {
    const { session } = await pollAndSession();
    expect(await act(session, 'end')).toMatchObject({ status: 'ended', startedAt: null });
  });

  it('answers 422 naming the bound when a move leaves the deck', async () => {
    const { session } = await pollAndSession();
    await act(session, 'start');
    const before = await control(session.id, 'prev', { hostToken: session.hostToken });
    expectError(before, 422, 'validation_failed');
    expect(before.body.error.message).toMatch(/first slide \(index 0\)/);
    expect(errorDetails(before).fieldErrors.action).toEqual([before.body.error.message]);

    const outside = await control(session.id, 'goto', { hostToken: session.hostToken, slideIndex: 7 });
    expectError(outside, 422, 'validation_failed');
    expect(outside.body.error.message).toMatch(/between 0 and 6/);
    expect(errorDetails(outside).fieldErrors.slideIndex).toBeDefined();
    expectError(
      await control(session.id, 'goto', { hostToken: session.hostToken, slideIndex: -1 }),
      422,
      'validation_failed',
    );
    expectError(await control(session.id, 'goto', { hostToken: session.hostToken }), 422, 'validation_failed');
    expectError(
      await control(session.id, 'next', { hostToken: session.hostToken, slideIndex: 2 }),
      422,
      'validation_failed',
    );
    expectError(await control(session.id, 'pause', { hostToken: session.hostToken }), 422, 'validation_failed');

    await act(session, 'goto', 6);
    const past = await control(session.id, 'next', { hostToken: session.hostToken });
    expectError(past, 422, 'validation_failed');
    expect(past.body.error.message).toMatch(/last slide \(index 6\)/);
    // Refused moves change nothing.
    const now = await api.request('GET /sessions/{id}', { params: { id: session.id }, apiKey });
    expect(now.body).toMatchObject({ status: 'active', currentSlideIndex: 6 });
  });

  it('takes a workspace credential or this session’s host token, and nothing else', async () => {
    const { session } = await pollAndSession();
    const other = await newSession((await publishedPoll()).id);
    // The host token alone (no API key) is enough.
    expect((await control(session.id, 'start', { hostToken: session.hostToken })).status).toBe(200);
    expect((await control(session.id, 'next', { apiKey })).status).toBe(200);

    expectError(await control(session.id, 'next'), 401, 'missing_authorization');
    expectError(await control(session.id, 'next', { hostToken: 'pht_not-a-token' }), 401, 'invalid_host_token');
    expectError(await control(session.id, 'next', { hostToken: other.hostToken }), 401, 'invalid_host_token');
    expectError(await control(other.id, 'start', { hostToken: session.hostToken }), 401, 'invalid_host_token');
    expectError(
      await api.request('GET /sessions/{id}', {
        params: { id: session.id },
        headers: { 'x-host-token': other.hostToken },
      }),
      401,
      'invalid_host_token',
    );
    const presenter = await openSse(`${t.api}/sessions/${session.id}/events`, { 'x-host-token': other.hostToken });
    expect(presenter.status).toBe(401);
    expect(presenter.error.error.code).toBe('invalid_host_token');
    // Another workspace's key does not see the session at all.
    const stranger = await t.workspace('pro');
    expectError(await control(session.id, 'next', { apiKey: stranger.apiKey }), 404, 'not_found');
    expectError(await control(session.id, 'next', { apiKey: 'pk_live_nonsense' }), 401, 'invalid_api_key');

    const now = await api.request('GET /sessions/{id}', { params: { id: session.id }, apiKey });
    expect(expectOk(now).currentSlideIndex).toBe(1);
    expect(expectOk(await api.request('GET /sessions/{id}', { params: { id: other.id }, apiKey })).status).toBe(
      'pending',
    );
  });

  it('needs the sessions:write scope of an OAuth token', async () => {
    const client = await oauthClient(t, 'polls:read polls:write sessions:read sessions:write');
    const publish = pollPublisher(() => ({
      api: t.api,
      apiKey: client.apiKey,
      title: 'OAuth',
      content: sampleContent(),
    }));
    const poll = await publish();
    const readOnly = (await issuedToken(t, client, 'sessions:read')).access_token;
    const writer = (await issuedToken(t, client, 'sessions:read sessions:write')).access_token;

    const denied = await api.request('POST /sessions', { apiKey: readOnly, body: { pollId: poll.id } });
    expectError(denied, 403, 'insufficient_scope');
    const created = await api.request('POST /sessions', { apiKey: writer, body: { pollId: poll.id } });
    expectStatus(created, 201);
    // A presenter-paced session has a PIN.
    pinsSeen.add(created.body.pin as string);
    const id = created.body.id;
    expectError(await control(id, 'start', { apiKey: readOnly }), 403, 'insufficient_scope');
    expect((await api.request('GET /sessions/{id}', { params: { id }, apiKey: readOnly })).status).toBe(200);
    expect((await control(id, 'start', { apiKey: writer })).status).toBe(200);
  });
});
