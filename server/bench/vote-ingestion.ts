/**
 * Scenario: POST /api/v1/polls/{id}/votes with a new voter on every request (so every vote is
 * accepted), against the naive baseline (one INSERT per request on the same pool), same run.
 * Target: at least the baseline's accepted votes/s, with p99 under 50 ms.
 */
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { startTarget } from './support.js';

export interface IngestionResult {
  accepted: number;
  acceptedPerSec: number;
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
  errors: number;
}

/**
 * `connections` clients posting votes, a new voter per request, for `durationSec` (or until `amount`
 * requests have been sent).
 */
export async function hammer(options: {
  url: string;
  headers: Record<string, string>;
  slideId: string;
  prefix: string;
  connections: number;
  durationSec: number;
  amount?: number;
}): Promise<IngestionResult> {
  let counter = 0;
  const options4 = ['pizza', 'sushi', 'tacos', 'salad'];
  const result = await autocannon({
    url: options.url,
    connections: options.connections,
    duration: options.durationSec,
    amount: options.amount,
    headers: { 'content-type': 'application/json', ...options.headers },
    requests: [
      {
        method: 'POST',
        setupRequest: (request) => {
          counter += 1;
          request.body = JSON.stringify({
            voterId: `${options.prefix}-${counter}`,
            slideId: options.slideId,
            optionIds: [options4[counter % 4]],
          });
          return request;
        },
      },
    ],
  });
  const accepted = result['2xx'];
  return {
    accepted,
    acceptedPerSec: accepted / (result.duration || options.durationSec),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
  };
}

export async function voteIngestionScenario(options: { durationSec: number; connections: number; rounds: number }) {
  const target = await startTarget(fileURLToPath(new URL('./targets/ingestion.ts', import.meta.url)));
  const info = target.info as {
    url: string;
    baselineUrl: string;
    apiKey: string;
    pollId: string;
    slideId: string;
    database: string;
  };
  const headers = { authorization: `Bearer ${info.apiKey}` };
  const pollkitUrl = `${info.url}/api/v1/polls/${info.pollId}/votes`;
  const baselineUrl = `${info.baselineUrl}/baseline/polls/${info.pollId}/votes`;
  try {
    await hammer({
      url: baselineUrl,
      headers,
      slideId: info.slideId,
      prefix: 'warm-b',
      connections: options.connections,
      durationSec: 2,
    });
    await hammer({
      url: pollkitUrl,
      headers,
      slideId: info.slideId,
      prefix: 'warm-p',
      connections: options.connections,
      durationSec: 2,
    });
    // Alternating rounds, median of each, as in get-poll.ts.
    const baselineRounds: IngestionResult[] = [];
    const pollkitRounds: IngestionResult[] = [];
    for (let round = 0; round < options.rounds; round++) {
      baselineRounds.push(
        await hammer({ url: baselineUrl, headers, slideId: info.slideId, prefix: `b${round}`, ...options }),
      );
      pollkitRounds.push(
        await hammer({ url: pollkitUrl, headers, slideId: info.slideId, prefix: `p${round}`, ...options }),
      );
    }
    const median = (rounds: IngestionResult[]) =>
      [...rounds].sort((a, b) => a.acceptedPerSec - b.acceptedPerSec)[Math.floor(rounds.length / 2)] as IngestionResult;
    return {
      database: info.database,
      baseline: median(baselineRounds),
      pollkit: median(pollkitRounds),
      rounds: {
        baseline: baselineRounds.map((r) => r.acceptedPerSec),
        pollkit: pollkitRounds.map((r) => r.acceptedPerSec),
      },
    };
  } finally {
    await target.stop();
  }
}
