/**
 * Scenario: what the metrics cost a request. `GET /api/v1/polls/{id}` on two Pollkit servers in
 * processes of their own, one with METRICS_TOKEN set (every response timed and counted by route
 * template, method and status; the default process metrics collected) and one without (no hook, no
 * prom-client), alternating over the rounds; then, in this process, the µs one `observeRequest`
 * call takes, and what a scrape of `/metrics` returns. Target: metrics on ≥ 0.95 × metrics off.
 */
import { fileURLToPath } from 'node:url';
import { Metrics } from '../src/infra/metrics.js';
import { type LoadResult, load, median, startTarget } from './support.js';

const TOKEN = 'bench-metrics-token-0123456789';

export async function metricsOverheadScenario(options: { durationSec: number; connections: number; rounds: number }) {
  const script = fileURLToPath(new URL('./targets/pollkit.ts', import.meta.url));
  const on = await startTarget(script, { METRICS_TOKEN: TOKEN }, { under: 'metrics-on' });
  const off = await startTarget(script, { METRICS_TOKEN: '' }, { under: 'metrics-off' });
  try {
    const urlOf = (target: typeof on) => {
      const { url, pollId } = target.info as { url: string; pollId: string };
      return `${url}/api/v1/polls/${pollId}`;
    };
    const headersOf = (target: typeof on) => ({ authorization: `Bearer ${target.info.apiKey as string}` });
    for (const target of [on, off]) {
      const sample = await fetch(urlOf(target), { headers: headersOf(target) });
      if (sample.status !== 200) throw new Error(`GET poll answered ${sample.status}`);
      await load({ url: urlOf(target), headers: headersOf(target), durationSec: 2, connections: options.connections });
    }
    const onRounds: LoadResult[] = [];
    const offRounds: LoadResult[] = [];
    for (let round = 0; round < options.rounds; round++) {
      // Alternate which goes first, so neither always runs on the warmer machine.
      const order = round % 2 === 0 ? [off, on] : [on, off];
      for (const target of order) {
        const result = await load({ url: urlOf(target), headers: headersOf(target), ...options });
        (target === on ? onRounds : offRounds).push(result);
      }
    }
    const scrapeStarted = performance.now();
    const scrape = await fetch(`${on.info.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    const scrapeText = await scrape.text();
    const scrapeMs = performance.now() - scrapeStarted;
    const onMedian = median(onRounds);
    const offMedian = median(offRounds);
    return {
      on: onMedian,
      off: offMedian,
      ratio: onMedian.requestsPerSec / offMedian.requestsPerSec,
      rounds: { on: onRounds.map((r) => r.requestsPerSec), off: offRounds.map((r) => r.requestsPerSec) },
      observeUs: observeRequestMicroseconds(),
      scrape: {
        status: scrape.status,
        bytes: scrapeText.length,
        ms: scrapeMs,
        series: scrapeText.split('\n').filter((l) => l && !l.startsWith('#')).length,
      },
    };
  } finally {
    await Promise.all([on.stop(), off.stop()]);
  }
}

/** µs per `observeRequest` (a counter and a histogram with three labels), median of 5 runs of 500k calls. */
function observeRequestMicroseconds(): number {
  const metrics = new Metrics({
    databasePool: () => undefined,
    live: () => ({ streams: 0, sessions: 0 }),
    webhookOldestDueSeconds: async () => 0,
  });
  const routes = ['/api/v1/polls/{id}', '/api/v1/polls', '/api/v1/polls/{id}/votes'];
  const calls = 500_000;
  const runs: number[] = [];
  for (let run = 0; run < 5; run++) {
    const started = performance.now();
    for (let i = 0; i < calls; i++) metrics.observeRequest(routes[i % 3] as string, 'GET', 200, 0.0001 * (i % 50));
    runs.push(((performance.now() - started) * 1000) / calls);
  }
  return runs.sort((a, b) => a - b)[2] as number;
}
