import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/database.js';
import { createApiKey } from '../../src/modules/api-keys/api-keys.service.js';
import { CHILD_TEST_TIMEOUT_MS, type Child, startApiChild, stop } from '../support/child.js';
import { sampleContent } from '../support/decks.js';
import { rawCall } from '../support/http.js';
import type { ControlAction } from '../support/live-deck.js';
import { scrapeMetrics } from '../support/metrics.js';
import { pollPublisher } from '../support/polls.js';
import {
  announceSkip,
  faultTestsSkipReason,
  type PrivatePostgres,
  type PrivateRedis,
  seedPrivateDatabase,
  startPrivatePostgres,
  startPrivateRedis,
} from '../support/private-services.js';
import { openSse, type SseStream } from '../support/sse.js';
import { expectStatus, testClient } from '../support/test-client.js';
import { startVoteLoad } from '../support/vote-load.js';

/**
 * Redis fails under two server processes sharing it (and one PostgreSQL), both of this file's own.
 * The API keeps serving: rate limits are counted in each process meanwhile (logged once, shown in
 * /metrics), `/readyz` stays 200 and says "degraded", live sessions carry on within each process,
 * and when Redis returns every process catches up from the database — live streams without waiting
 * for a next message, and caches of who may do what dropped, so a key revoked on one process while
 * Redis was away is refused by the other.
 */

const skip = faultTestsSkipReason();
const METRICS_TOKEN = 'faults-metrics-token-0123456789';
const RECOVERY_CEILING_MS = 30_000;
/** What `/readyz` answers: `ok`, or what is degraded. */
type Readiness = { status: string } | undefined;
const FAULT_TEST_TIMEOUT_MS = 120_000;

interface ServerProcess {
  url: string;
  api: string;
  child: Child;
}

describe.runIf(announceSkip('faults-redis.test.ts', skip))('Redis fails under two processes', () => {
  let cluster: PrivatePostgres;
  let redis: PrivateRedis;
  let a: ServerProcess;
  let b: ServerProcess;
  let apiKey: string;
  let workspaceId: string;

  beforeAll(async () => {
    [cluster, redis] = await Promise.all([startPrivatePostgres(), startPrivateRedis()]);
    let databaseUrl: string;
    ({ databaseUrl, workspaceId, apiKey } = await seedPrivateDatabase(cluster));
    const start = async (): Promise<ServerProcess> => {
      const { api, child } = await startApiChild(databaseUrl, {
        REDIS_URL: redis.url,
        LOG_LEVEL: 'info',
        LIVE_HEARTBEAT_MS: '1000',
        METRICS_TOKEN,
      });
      return { api, url: api.replace('/api/v1', ''), child };
    };
    [a, b] = await Promise.all([start(), start()]);
  }, CHILD_TEST_TIMEOUT_MS);

  afterAll(async () => {
    await Promise.all([a, b].filter(Boolean).map((server) => stop(server.child)));
    await redis?.destroy();
    await cluster?.destroy();
  }, CHILD_TEST_TIMEOUT_MS);

  const streams: SseStream[] = [];
  afterEach(async () => {
    for (const stream of streams.splice(0)) stream.close();
    // Each test leaves Redis running, whatever happened in it.
    if (!(await redisUp())) await redis.start();
  });

  async function redisUp(): Promise<boolean> {
    const ready = await rawCall<Readiness>('GET', `${a.url}/readyz`);
    return ready.body?.status === 'ok';
  }

  /** Until both processes have their Redis connection back (`/readyz` says "ok" again). */
  async function bothReconnected(): Promise<number> {
    const deadline = Date.now() + RECOVERY_CEILING_MS;
    for (;;) {
      const [readyA, readyB] = await Promise.all([
        rawCall<Readiness>('GET', `${a.url}/readyz`),
        rawCall<Readiness>('GET', `${b.url}/readyz`),
      ]);
      if (readyA.body?.status === 'ok' && readyB.body?.status === 'ok') return Date.now();
      if (Date.now() > deadline) throw new Error(`still degraded: ${readyA.text} ${readyB.text}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  function expectAlive(server: ServerProcess) {
    expect(server.child.process.exitCode, server.child.output().slice(-3000)).toBeNull();
    expect(server.child.stderr()).not.toMatch(/Unhandled|Emitted 'error' event|uncaught/i);
    expect(server.child.output()).not.toMatch(/\[ioredis\] Unhandled error event/);
  }

  const publish = pollPublisher(() => ({ api: a.api, apiKey, title: 'Redis faults', content: sampleContent() }));

  it(
    'killed for 5 s under 50 votes in flight: every vote is still accepted, /readyz says degraded, /metrics shows the fallback',
    async () => {
      const poll = await publish();
      const load = startVoteLoad({
        api: () => a.api,
        apiKey,
        pollId: poll.id,
        slideId: 'lunch',
        optionId: 'pizza',
        voterPrefix: 'redis',
      });
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const fallbackWarningsBefore = countMatches(a.child.output(), /rate limits are counted in this process/g);

      const killedAt = Date.now();
      await redis.kill();
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const ready = await rawCall<Readiness>('GET', `${a.url}/readyz`);
      expect(ready.status).toBe(200);
      expect(ready.body).toEqual({ status: 'degraded', degraded: ['redis'] });
      const during = await scrapeMetrics(a.url, METRICS_TOKEN);
      expect(during.get('pollkit_redis_connected')).toBe(0);
      expect(during.get('pollkit_rate_limit_fallback')).toBe(1);
      expect(during.get('pollkit_rate_limit_fallback_requests_total')).toBeGreaterThan(0);
      await new Promise((resolve) => setTimeout(resolve, 5000 - (Date.now() - killedAt)));

      const restartedAt = Date.now();
      await redis.start();
      const reconnectedAt = await bothReconnected();
      await new Promise((resolve) => setTimeout(resolve, 500));
      const summary = await load.stop();
      const after = await scrapeMetrics(a.url, METRICS_TOKEN);
      expect(after.get('pollkit_redis_connected')).toBe(1);
      expect(after.get('pollkit_rate_limit_fallback')).toBe(0);

      const duringOutage = summary.outcomes.filter((o) => o.at >= killedAt && o.at < restartedAt);
      console.log(
        `[faults] Redis killed ${restartedAt - killedAt} ms: ${duringOutage.filter((o) => o.status === 201).length} votes ` +
          `accepted during the outage (${summary.acknowledged.length} in all), slowest answer during it ` +
          `${Math.max(0, ...duringOutage.map((o) => o.ms))} ms; both processes reconnected ${reconnectedAt - restartedAt} ms ` +
          `after the restart; statuses ${JSON.stringify(summary.byStatus)}`,
      );
      // The API kept serving: nothing but 201s, before, during and after.
      expect(summary.unexpected.slice(0, 10), JSON.stringify(summary.byStatus)).toEqual([]);
      expect(summary.unavailable).toEqual([]);
      expect(duringOutage.filter((o) => o.status === 201).length).toBeGreaterThan(0);
      // The switch to in-process counting was logged once, not per request.
      expect(countMatches(a.child.output(), /rate limits are counted in this process/g) - fallbackWarningsBefore).toBe(
        1,
      );
      expect(a.child.output()).toMatch(/rate limits are shared between processes again/);
      expectAlive(a);
      expectAlive(b);
    },
    FAULT_TEST_TIMEOUT_MS,
  );

  it(
    'live sessions carry on within each process while it is away, and every process catches up when it returns',
    async () => {
      const poll = await publish();
      const created = await testClient(b.api).request('POST /sessions', { apiKey, body: { pollId: poll.id } });
      expectStatus(created, 201);
      const session = created.body;
      const control = (server: ServerProcess, action: ControlAction) =>
        testClient(server.api).request('POST /sessions/{id}/control', {
          params: { id: session.id },
          body: { action },
          headers: { 'x-host-token': session.hostToken },
        });
      expect((await control(b, 'start')).status).toBe(200);
      const join = async (server: ServerProcess, name: string) => {
        const res = await testClient(server.api).request('POST /live/{pin}/join', {
          params: { pin: session.pin! },
          body: { name },
        });
        expectStatus(res, 200);
        const stream = await openSse(`${server.api}/live/${session.pin}/events`, {
          'x-participant-token': res.body.participantToken,
        });
        streams.push(stream);
        expect((await stream.next('slide')).data.slide.id).toBe('lunch');
        return stream;
      };
      const onA = await join(a, 'Ada');
      const onB = await join(b, 'Bo');

      await redis.kill();
      // A change made on B reaches B's own streams at once, Redis or not.
      const moved = await control(b, 'next');
      expectStatus(moved, 200);
      expect((await onB.next('slide')).data.slide.id).toBe('capital');
      await new Promise((resolve) => setTimeout(resolve, 1000));
      // A could not hear of it: no message crossed.
      expect(onA.drain().filter((event) => event.type === 'slide')).toEqual([]);

      await redis.start();
      // With no further change, A catches up from the database once its subscriber is back.
      const caughtUp = await onA.next('slide', RECOVERY_CEILING_MS);
      expect(caughtUp.data.slide.id).toBe('capital');
      expect(onA.ended).toBe(false);
      // And the bus carries changes again.
      await bothReconnected();
      expect((await control(b, 'showResults')).status).toBe(200);
      expect((await onA.next('results')).data.slideId).toBe('capital');
      expectAlive(a);
      expectAlive(b);
    },
    FAULT_TEST_TIMEOUT_MS,
  );

  it(
    'a key revoked on B while Redis is away is refused by A once its bus is back, not left to the cache',
    async () => {
      const handle = await openDatabase({ databaseUrl: cluster.url('pollkit'), dataDir: '', poolSize: 1 });
      let victim: { id: string; secret: string };
      try {
        const created = await createApiKey(handle.db, { workspaceId, name: 'victim' });
        victim = { id: created.key.id, secret: created.secret };
      } finally {
        await handle.close();
      }
      // A has the key in its credential cache.
      expect((await testClient(a.api).request('GET /workspace', { apiKey: victim.secret })).status).toBe(200);

      await redis.kill();
      const revoked = await testClient(b.api).request('POST /keys/{id}/revoke', { params: { id: victim.id }, apiKey });
      expectStatus(revoked, 200);
      expect((await testClient(b.api).request('GET /workspace', { apiKey: victim.secret })).status).toBe(401);
      const droppedBefore = countMatches(a.child.output(), /credential and poll caches dropped/g);

      await redis.start();
      await bothReconnected();
      const deadline = Date.now() + RECOVERY_CEILING_MS;
      while (countMatches(a.child.output(), /credential and poll caches dropped/g) === droppedBefore) {
        if (Date.now() > deadline) throw new Error(`A never caught up:\n${a.child.output().slice(-2000)}`);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      const onA = await testClient(a.api).request('GET /workspace', { apiKey: victim.secret });
      expectStatus(onA, 401);
      expect(onA.body.error.code).toBe('revoked_api_key');
      expectAlive(a);
      expectAlive(b);
    },
    FAULT_TEST_TIMEOUT_MS,
  );
});

function countMatches(text: string, pattern: RegExp): number {
  return text.match(pattern)?.length ?? 0;
}
