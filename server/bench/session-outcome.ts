/**
 * Scenario: a finished session's outcome read after the fact (issue 36), on a quiz of 10,000
 * participants: `GET /sessions/{id}/participants?limit=100` (the first page, and one halfway down the
 * ranked list) and `GET /sessions/{id}/results` (with its leaderboard). Each reads every participant's
 * points to rank them; this measures what that costs one caller (1 connection: latency) and many
 * (BENCH_CONNECTIONS: throughput).
 */
import { fileURLToPath } from 'node:url';
import { type LoadResult, load, startTarget } from './support.js';

export interface SessionOutcome {
  database: string;
  participants: number;
  seedSeconds: number;
  reads: { name: string; latency: LoadResult; throughput: LoadResult }[];
}

export async function sessionOutcomeScenario(options: {
  durationSec: number;
  connections: number;
  participants: number;
}): Promise<SessionOutcome> {
  const started = Date.now();
  const target = await startTarget(fileURLToPath(new URL('./targets/session-outcome.ts', import.meta.url)), {
    BENCH_OUTCOME_PARTICIPANTS: String(options.participants),
    LIVE_RATE_LIMIT_PER_IP_PER_MINUTE: '10000000',
    LIVE_RATE_LIMIT_PER_PARTICIPANT_PER_MINUTE: '10000000',
    LIVE_JOINS_PER_IP_PER_MINUTE: '10000000',
  });
  const seedSeconds = (Date.now() - started) / 1000;
  const { url, apiKey, sessionId, deepCursor, database } = target.info as {
    url: string;
    apiKey: string;
    sessionId: string;
    deepCursor: string;
    database: string;
  };
  const headers = { authorization: `Bearer ${apiKey}` };
  const api = `${url}/api/v1/sessions/${sessionId}`;
  const endpoints = [
    { name: 'participants, first page of 100', url: `${api}/participants?limit=100` },
    { name: 'participants, a page of 100 halfway down', url: `${api}/participants?limit=100&cursor=${deepCursor}` },
    { name: 'results with the leaderboard', url: `${api}/results` },
  ];
  try {
    const reads: SessionOutcome['reads'] = [];
    for (const endpoint of endpoints) {
      await load({ url: endpoint.url, headers, connections: 1, durationSec: 2 });
      const latency = await load({ url: endpoint.url, headers, connections: 1, durationSec: options.durationSec });
      const throughput = await load({
        url: endpoint.url,
        headers,
        connections: options.connections,
        durationSec: options.durationSec,
      });
      reads.push({ name: endpoint.name, latency, throughput });
    }
    return { database, participants: options.participants, seedSeconds, reads };
  } finally {
    await target.stop();
  }
}
