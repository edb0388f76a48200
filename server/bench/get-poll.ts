/**
 * Scenario: `GET /api/v1/polls/{id}` with a Bearer API key against a bare Fastify route returning
 * the same JSON, in the same run on the same machine. Target: Pollkit >= 0.5 × the bare route.
 */
import { fileURLToPath } from 'node:url';
import { type LoadResult, load, median, startTarget } from './support.js';

export async function getPollScenario(options: { durationSec: number; connections: number; rounds: number }) {
  const pollkit = await startTarget(fileURLToPath(new URL('./targets/pollkit.ts', import.meta.url)));
  const { url, apiKey, pollId, database } = pollkit.info as {
    url: string;
    apiKey: string;
    pollId: string;
    database: string;
  };
  const pollUrl = `${url}/api/v1/polls/${pollId}`;
  const headers = { authorization: `Bearer ${apiKey}` };
  const sample = await fetch(pollUrl, { headers });
  if (sample.status !== 200) throw new Error(`GET poll answered ${sample.status}`);
  const body = await sample.text();

  const bare = await startTarget(fileURLToPath(new URL('./targets/bare.ts', import.meta.url)), { BENCH_BODY: body });
  const bareUrl = `${bare.info.url}/api/v1/polls/${pollId}`;
  try {
    // Warm both up (JIT, caches) before measuring.
    await load({ url: bareUrl, durationSec: 2, connections: options.connections });
    await load({ url: pollUrl, headers, durationSec: 2, connections: options.connections });
    // Alternate the two targets over several rounds and keep each one's median round, so a burst
    // of noise on this shared machine does not decide the ratio.
    const bareRounds: LoadResult[] = [];
    const pollkitRounds: LoadResult[] = [];
    for (let round = 0; round < options.rounds; round++) {
      bareRounds.push(await load({ url: bareUrl, ...options }));
      pollkitRounds.push(await load({ url: pollUrl, headers, ...options }));
    }
    const bareResult = median(bareRounds);
    const pollkitResult = median(pollkitRounds);
    return {
      database,
      bodyBytes: body.length,
      bare: bareResult,
      pollkit: pollkitResult,
      ratio: pollkitResult.requestsPerSec / bareResult.requestsPerSec,
      rounds: { bare: bareRounds.map((r) => r.requestsPerSec), pollkit: pollkitRounds.map((r) => r.requestsPerSec) },
    };
  } finally {
    await Promise.all([pollkit.stop(), bare.stop()]);
  }
}
