import { joinSession, type LiveParticipant } from '@pollkit/sdk';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHILD_TEST_TIMEOUT_MS, type Child, startApiChild, stop } from '../support/child.js';
import { sampleContent } from '../support/decks.js';
import { type FailoverProxy, startFailoverProxy } from '../support/failover-proxy.js';
import { UNLIMITED } from '../support/limits.js';
import type { ControlAction } from '../support/live-deck.js';
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
import { expectStatus, slideOf, testClient } from '../support/test-client.js';
import { startVoteLoad, vote } from '../support/vote-load.js';

/**
 * One of two processes on one PostgreSQL and one Redis is killed outright (`kill -9`) in the middle
 * of a live session, behind a load balancer (support/failover-proxy.ts): its participants' streams
 * drop, the SDK reconnects them with `Last-Event-ID` through the load balancer to the other process,
 * and they miss no event of the session's history; every answer the dead process acknowledged is
 * counted. Both PostgreSQL and Redis are this file's own.
 */

const skip = faultTestsSkipReason();
const FAULT_TEST_TIMEOUT_MS = 120_000;

interface ServerProcess {
  api: string;
  port: number;
  child: Child;
}

describe.runIf(announceSkip('faults-process-kill.test.ts', skip))('a process killed mid-session', () => {
  let cluster: PrivatePostgres;
  let redis: PrivateRedis;
  let databaseUrl: string;
  let a: ServerProcess;
  let b: ServerProcess;
  let proxy: FailoverProxy;
  let apiKey: string;

  beforeAll(async () => {
    [cluster, redis] = await Promise.all([startPrivatePostgres(), startPrivateRedis()]);
    ({ databaseUrl, apiKey } = await seedPrivateDatabase(cluster));
    const start = async (): Promise<ServerProcess> => {
      const { api, child } = await startApiChild(databaseUrl, {
        ...UNLIMITED,
        REDIS_URL: redis.url,
      });
      return { api, port: Number(new URL(api).port), child };
    };
    [a, b] = await Promise.all([start(), start()]);
    // New connections go to A while it lives, then to B.
    proxy = await startFailoverProxy([a.port, b.port]);
  }, CHILD_TEST_TIMEOUT_MS);

  afterAll(async () => {
    await proxy?.close();
    a?.child.kill();
    if (b) await stop(b.child);
    await redis?.destroy();
    await cluster?.destroy();
  }, CHILD_TEST_TIMEOUT_MS);

  it(
    'its participants reconnect to the other with Last-Event-ID and miss nothing; every answer it acknowledged counts',
    async () => {
      const viaProxy = `${proxy.url}/api/v1`;
      const publish = pollPublisher(() => ({ api: b.api, apiKey, title: 'Kill -9', content: sampleContent() }));
      const poll = await publish();
      const created = await testClient(b.api).request('POST /sessions', { apiKey, body: { pollId: poll.id } });
      expectStatus(created, 201);
      const session = created.body;
      // The host drives the session on B, the process that survives.
      const control = async (action: ControlAction) => {
        const res = await testClient(b.api).request('POST /sessions/{id}/control', {
          params: { id: session.id },
          body: { action },
          headers: { 'x-host-token': session.hostToken },
        });
        expect(res.status, `${action}: ${res.text}`).toBe(200);
      };
      await control('start');

      // Three participants join through the load balancer: on A.
      const participants = await Promise.all(
        ['Ada', 'Ben', 'Cai'].map((name) =>
          joinSession({ baseUrl: proxy.url, pin: session.pin!, name, maxRetries: 5 }),
        ),
      );
      const received = participants.map(() => [] as { type: string; id: string | undefined }[]);
      const readers = participants.map((participant, index) => follow(participant, received[index] as never[]));
      await until(() => received.every((events) => events.some((e) => e.type === 'slide')));
      expect(proxy.connections.get(a.port)).toBeGreaterThan(0);
      expect(proxy.connections.get(b.port) ?? 0).toBe(0);

      // Answers acknowledged by A: each participant's live answer, and API votes on another poll.
      for (const participant of participants) {
        const receipt = await participant.answer({ slideId: 'lunch', optionIds: ['sushi'] });
        expect(receipt).toBeTruthy();
      }
      const votePoll = await publish();
      const load = startVoteLoad({
        api: () => viaProxy,
        apiKey,
        pollId: votePoll.id,
        slideId: 'lunch',
        optionId: 'pizza',
        voterPrefix: 'kill',
        concurrency: 20,
      });
      await control('showResults');
      await until(() => received.every((events) => events.some((e) => e.type === 'results')));
      await new Promise((resolve) => setTimeout(resolve, 500));

      // kill -9 of A, with votes in flight and the participants' streams open on it.
      a.child.kill();
      await a.child.exited;
      // The session moves on while they reconnect.
      await control('next');
      await control('lock');
      await new Promise((resolve) => setTimeout(resolve, 500));
      const summary = await load.stop();

      // Every participant, reconnected to B, gets what it missed, in order.
      await until(() => received.every((events) => events.some((e) => e.type === 'locked')), 30_000);
      const history = await historyOf(session.id);
      for (const [index, events] of received.entries()) {
        // A refresh of results shown carries the id of the event that showed them: one event, once.
        const distinct = [...new Map(events.map((e) => [`${e.type} ${e.id}`, e])).values()];
        const ids = [...new Set(distinct.map((e) => Number(e.id)))];
        const first = ids[0] as number;
        expect(ids, `participant ${index}: ${JSON.stringify(events)}`).toEqual(history.filter((seq) => seq >= first));
        expect(distinct.map((e) => e.type)).toEqual(['slide', 'results', 'slide', 'locked']);
      }
      expect(proxy.connections.get(b.port)).toBeGreaterThan(0);

      // Every vote A acknowledged is stored once; one whose answer was lost with A, retried with its
      // key on B, counts once too.
      const lost = summary.outcomes.filter((o) => o.status !== 201);
      for (const outcome of lost) {
        expect(typeof outcome.status === 'string' || outcome.status === 503, JSON.stringify(outcome)).toBe(true);
        const retried = await vote(
          { api: () => b.api, apiKey, pollId: votePoll.id, slideId: 'lunch', optionId: 'pizza' },
          outcome.voterId,
        );
        expect([201, 409]).toContain(retried.status);
      }
      const stored = await votesPerVoter(votePoll.id);
      for (const voterId of summary.acknowledged) expect(stored.get(voterId), voterId).toBe(1);
      expect([...stored.values()].every((n) => n === 1)).toBe(true);
      const results = await testClient(b.api).request('GET /polls/{id}/results', { params: { id: poll.id }, apiKey });
      expectStatus(results, 200);
      const lunch = slideOf(results.body.slides, 'lunch', 'multiple_choice');
      expect(lunch.options.find((o) => o.id === 'sushi')!.count).toBe(3);
      console.log(
        `[faults] kill -9 of one of two processes: ${summary.acknowledged.length} votes acknowledged, all stored; ` +
          `${lost.length} lost in flight (${JSON.stringify(summary.byStatus)}), retried on the other: counted once; ` +
          `3 participants reconnected to the other process and missed none of ${history.length} events`,
      );
      for (const reader of readers) reader.stop();
      expect(b.child.process.exitCode).toBeNull();
    },
    FAULT_TEST_TIMEOUT_MS,
  );

  async function historyOf(sessionId: string): Promise<number[]> {
    return withClient(async (client) => {
      const { rows } = await client.query<{ seq: number }>(
        'select seq from session_events where session_id = $1 order by seq',
        [sessionId],
      );
      return rows.map((row) => Number(row.seq));
    });
  }

  async function votesPerVoter(pollId: string): Promise<Map<string, number>> {
    return withClient(async (client) => {
      const { rows } = await client.query<{ voter_id: string; n: string }>(
        'select voter_id, count(*) as n from answers where poll_id = $1 group by voter_id',
        [pollId],
      );
      return new Map(rows.map((row) => [row.voter_id, Number(row.n)]));
    });
  }

  async function withClient<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      return await work(client);
    } finally {
      await client.end();
    }
  }
});

/** Reads a participant's stream into `into` until stopped; the SDK reconnects it as it needs to. */
function follow(participant: LiveParticipant, into: { type: string; id: string | undefined }[]) {
  const stream = participant.events({ reconnectMaxDelayMs: 2_000 });
  void (async () => {
    for await (const event of stream) into.push({ type: event.type, id: event.id });
  })();
  return { stop: () => stream.close() };
}

async function until(check: () => boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
