import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { migrateToLatest, openDatabase } from '../../src/db/database.js';
import { createApiKey } from '../../src/modules/api-keys/api-keys.service.js';
import { createWorkspace } from '../../src/modules/workspaces/workspaces.service.js';
import { CHILD_TEST_TIMEOUT_MS, type Child, startApiChild, stop } from '../support/child.js';
import { sampleContent } from '../support/decks.js';
import type { LooseJson } from '../support/http.js';
import { UNLIMITED_PER_ADDRESS } from '../support/limits.js';
import type { ControlAction, CreatedSession } from '../support/live-deck.js';
import { pollPublisher } from '../support/polls.js';
import { testDatabase } from '../support/server.js';
import { openSse, type SseStream } from '../support/sse.js';
import { expectStatus, testClient } from '../support/test-client.js';

/**
 * Live sessions across two real server processes on one PostgreSQL database and one Redis, as
 * docs/self-hosting.md ("Several processes behind a load balancer") scales out: a participant connected to process A receives what a control call on
 * process B changes, answers posted to A reach the presenter watching on B, and a participant whose
 * stream drops reconnects to the other process with `Last-Event-ID` and misses nothing. Needs
 * TEST_DATABASE_URL and TEST_REDIS_URL (CI sets both), like multi-process.test.ts.
 */

const enabled = Boolean(process.env.TEST_DATABASE_URL && process.env.TEST_REDIS_URL);

interface ServerProcess {
  api: string;
  child: Child;
}

type Json = LooseJson;

describe.runIf(enabled)('live sessions on two server processes, one PostgreSQL, one Redis', () => {
  let database: { url: string; drop(): Promise<void> };
  let a: ServerProcess;
  let b: ServerProcess;
  let apiKey: string;

  beforeAll(async () => {
    database = await testDatabase();
    const handle = await openDatabase({ databaseUrl: database.url, dataDir: '', poolSize: 2 });
    try {
      await migrateToLatest(handle.db);
      const workspace = await createWorkspace(handle.db, { name: 'live multi', plan: 'pro', rateLimitPerMinute: null });
      apiKey = (await createApiKey(handle.db, { workspaceId: workspace.id, name: 'live' })).secret;
    } finally {
      await handle.close();
    }
    [a, b] = await Promise.all([startProcess(database.url), startProcess(database.url)]);
  }, CHILD_TEST_TIMEOUT_MS);

  afterAll(async () => {
    await Promise.all([a, b].filter(Boolean).map((server) => stop(server.child)));
    await database?.drop();
  }, CHILD_TEST_TIMEOUT_MS);

  const streams: SseStream[] = [];
  afterEach(() => {
    for (const stream of streams.splice(0)) stream.close();
  });

  async function stream(url: string, headers: Record<string, string>): Promise<SseStream> {
    const opened = await openSse(url, headers);
    streams.push(opened);
    expect(opened.status, JSON.stringify(opened.error)).toBe(200);
    return opened;
  }

  /** A published sampleContent() poll and a session of it, created through process A. */
  async function liveSession() {
    const poll = await pollPublisher(() => ({
      api: a.api,
      apiKey,
      title: 'Two processes',
      content: sampleContent(),
    }))();
    const created = await testClient(a.api).request('POST /sessions', { apiKey, body: { pollId: poll.id } });
    expectStatus(created, 201);
    return { poll, session: created.body as CreatedSession };
  }

  async function joinOn(server: ServerProcess, pin: string, name: string) {
    const res = await testClient(server.api).request('POST /live/{pin}/join', { params: { pin }, body: { name } });
    expectStatus(res, 200);
    return { id: res.body.participant.id, token: res.body.participantToken };
  }

  async function controlOn(server: ServerProcess, session: { id: string; hostToken: string }, action: ControlAction) {
    const res = await testClient(server.api).request('POST /sessions/{id}/control', {
      params: { id: session.id },
      body: { action },
      headers: { 'x-host-token': session.hostToken },
    });
    expect(res.status, `${action}: ${res.text}`).toBe(200);
    return res.body;
  }

  it('sends a participant on A what a control call on B changes, and answers on A reach the presenter on B', async () => {
    const { session } = await liveSession();
    const uma = await joinOn(a, session.pin, 'Uma');
    const vic = await joinOn(a, session.pin, 'Vic');
    const onA = await stream(`${a.api}/live/${session.pin}/events`, { 'x-participant-token': uma.token });
    expect((await onA.next('slide')).data).toMatchObject({ status: 'pending', slide: null });
    const presenterOnB = await stream(`${b.api}/sessions/${session.id}/events`, { 'x-host-token': session.hostToken });
    expect((await presenterOnB.next('session')).data).toMatchObject({ status: 'pending', participantCount: 2 });

    // Control on B, participant on A.
    await controlOn(b, session, 'start');
    const started = await onA.next('slide');
    expect(started.data).toMatchObject({ status: 'active', slideIndex: 0 });
    expect(started.data.slide.id).toBe('lunch');

    // Answers on A (its cached session row was dropped when B's change was announced), counts on B.
    const vote = await testClient(a.api).request('POST /live/{pin}/answers', {
      params: { pin: session.pin },
      body: { slideId: 'lunch', optionIds: ['pizza'] },
      headers: { 'x-participant-token': uma.token },
    });
    expectStatus(vote, 201);
    const other = await testClient(a.api).request('POST /live/{pin}/answers', {
      params: { pin: session.pin },
      body: { slideId: 'lunch', optionIds: ['sushi'] },
      headers: { 'x-participant-token': vic.token },
    });
    expectStatus(other, 201);
    const counts = await presenterOnB.waitFor((e) => e.type === 'counts' && e.data.answerCount === 2);
    expect(counts.data).toMatchObject({ slideId: 'lunch', participantCount: 2 });
    expect(counts.data.results.options.map((o: Json) => [o.id, o.count])).toEqual([
      ['pizza', 1],
      ['sushi', 1],
    ]);
    // A join on A is counted on B too.
    await joinOn(a, session.pin, 'Wes');
    await presenterOnB.waitFor((e) => e.type === 'counts' && e.data.participantCount === 3);

    await controlOn(b, session, 'showResults');
    const results = await onA.next('results');
    expect(results.data.slideId).toBe('lunch');
    expect(results.data.results.options.map((o: Json) => o.count)).toEqual([1, 1]);

    await controlOn(b, session, 'next');
    expect((await onA.next('slide')).data.slide.id).toBe('capital');
    await controlOn(b, session, 'lock');
    expect((await onA.next('locked')).data).toEqual({ slideId: 'capital' });
    // A refuses answers to the locked slide at once: B's change reached its answer path too.
    const locked = await testClient(a.api).request('POST /live/{pin}/answers', {
      params: { pin: session.pin },
      body: { slideId: 'capital', optionIds: ['paris'] },
      headers: { 'x-participant-token': uma.token },
    });
    expectStatus(locked, 409);
    expect(locked.body.error.code).toBe('slide_locked');

    // And the other way round: control on A, presenter on B.
    await controlOn(a, session, 'unlock');
    expect((await onA.next('unlocked')).data).toEqual({ slideId: 'capital' });
    await presenterOnB.waitFor(
      (e) => e.type === 'session' && e.data.locked === false && e.data.currentSlideIndex === 1,
    );

    await controlOn(b, session, 'end');
    const ended = await onA.next('ended');
    expect(ended.data).toMatchObject({ sessionId: session.id, participantCount: 3 });
    expect(ended.data.leaderboard.you.participantId).toBe(uma.id);
    await onA.closed;
    expect((await presenterOnB.next('ended')).data.sessionId).toBe(session.id);
    await presenterOnB.closed;
    // The PIN is free on A as well.
    const late = await testClient(a.api).request('POST /live/{pin}/join', {
      params: { pin: session.pin },
      body: { name: 'Late' },
    });
    expectStatus(late, 404);
  });

  it('resumes a stream on the other process with Last-Event-ID, missing nothing', async () => {
    const { session } = await liveSession();
    const xia = await joinOn(a, session.pin, 'Xia');
    await controlOn(a, session, 'start');
    const onA = await stream(`${a.api}/live/${session.pin}/events`, { 'x-participant-token': xia.token });
    const seen = await onA.next('slide');
    const n = Number(seen.id);
    onA.close();

    await controlOn(a, session, 'next');
    await controlOn(b, session, 'showResults');

    const onB = await stream(`${b.api}/live/${session.pin}/events`, {
      'x-participant-token': xia.token,
      'last-event-id': String(n),
    });
    const replayed = [await onB.next(), await onB.next()];
    expect(replayed.map((e) => [e.type, e.id])).toEqual([
      ['slide', String(n + 1)],
      ['results', String(n + 2)],
    ]);
    expect(replayed[0]?.data.slide.id).toBe('capital');
    // Live on B, from a control call on A.
    await controlOn(a, session, 'hideResults');
    const live = await onB.next();
    expect([live.type, live.id, live.data]).toEqual(['results_hidden', String(n + 3), { slideId: 'capital' }]);
  });

  it('a participant the host removes on B is refused on A at once, and its stream on A is closed', async () => {
    const { session } = await liveSession();
    const zoe = await joinOn(a, session.pin, 'Zoe');
    await controlOn(b, session, 'start');
    const onA = await stream(`${a.api}/live/${session.pin}/events`, { 'x-participant-token': zoe.token });
    await onA.next('slide');
    // A has the token in its cache (the stream and this answer read it).
    const first = await testClient(a.api).request('POST /live/{pin}/answers', {
      params: { pin: session.pin },
      body: { slideId: 'lunch', optionIds: ['pizza'] },
      headers: { 'x-participant-token': zoe.token },
    });
    expectStatus(first, 201);

    const removed = await testClient(b.api).request('DELETE /sessions/{id}/participants/{participantId}', {
      params: { id: session.id, participantId: zoe.id },
      headers: { 'x-host-token': session.hostToken },
    });
    expectStatus(removed, 200);
    await onA.closed;
    const refused = await testClient(a.api).request('POST /live/{pin}/answers', {
      params: { pin: session.pin },
      body: { slideId: 'lunch', optionIds: ['sushi'] },
      headers: { 'x-participant-token': zoe.token },
    });
    expectStatus(refused, 401);
    expect(refused.body.error.code).toBe('invalid_participant_token');
  });

  it('resumes a self-paced participant on B exactly where they were when A was killed with SIGKILL', async () => {
    const { session } = await (async () => {
      const poll = await pollPublisher(() => ({ api: a.api, apiKey, title: 'Self-paced', content: sampleContent() }))();
      const created = await testClient(a.api).request('POST /sessions', {
        apiKey,
        body: { pollId: poll.id, pace: 'audience' },
      });
      expectStatus(created, 201);
      return { session: created.body };
    })();
    const link = String(session.joinUrl).split('/').pop() as string;
    const doomed = await startProcess(database.url);
    await controlOn(doomed, session, 'start');
    const wes = await joinOn(doomed, link, 'Wes');
    const headers = { 'x-participant-token': wes.token };
    const voted = await testClient(doomed.api).request('POST /live/{pin}/answers', {
      params: { pin: link },
      body: { slideId: 'lunch', optionIds: ['pizza'] },
      headers,
    });
    expectStatus(voted, 201);
    const skipped = await testClient(doomed.api).request('POST /live/{pin}/advance', {
      params: { pin: link },
      body: { slideId: 'capital' },
      headers,
    });
    expectStatus(skipped, 200);
    expect(skipped.body.state).toMatchObject({ slideIndex: 2, progress: { step: 3, of: 7 } });
    // SIGKILL to the server and the tsx wrapper in front of it: no drain, no shutdown hook.
    doomed.child.kill();
    await doomed.child.closed;

    // Nothing of the walk lived only in the killed process: B reads it from the database.
    const back = await testClient(b.api).request('POST /live/{pin}/join', { params: { pin: link }, body: {}, headers });
    expectStatus(back, 200);
    expect(back.body).toMatchObject({ resumed: true, state: { slideIndex: 2, progress: { step: 3, of: 7 } } });
    const onB = await stream(`${b.api}/live/${link}/events`, headers);
    expect((await onB.next('slide')).data.slide.id).toBe('mood');
    // A's answer counted once; the walk goes on from B.
    const again = await testClient(b.api).request('POST /live/{pin}/answers', {
      params: { pin: link },
      body: { slideId: 'lunch', optionIds: ['pizza'] },
      headers,
    });
    expectStatus(again, 409);
    const mood = await testClient(b.api).request('POST /live/{pin}/answers', {
      params: { pin: link },
      body: { slideId: 'mood', scaleValues: { work: 4 } },
      headers,
    });
    expectStatus(mood, 201);
    expect(mood.body.progress!.state.slide!.id).toBe('rank');
  });
});

/** `src/main.ts` as a child process on the shared database and Redis; PORT=0 and the printed address. */
async function startProcess(databaseUrl: string): Promise<ServerProcess> {
  return startApiChild(databaseUrl, UNLIMITED_PER_ADDRESS);
}
