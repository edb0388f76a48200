/**
 * Scenario: what the metrics cost a request. `GET /api/v1/polls/{id}` on two Pollkit servers in
 * processes of their own, one with METRICS_TOKEN set (every response timed and counted by route
 * template, method and status; the default process metrics collected) and one without (no hook, no
 * prom-client), alternating over the rounds; then, in this process, the µs recording one request
 * call takes, and what a scrape of `/metrics` returns. Target: metrics on ≥ 0.95 × metrics off.
 */
import { readFileSync } from 'node:fs';
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
    const cpu = { on: [] as number[], off: [] as number[] };
    for (let round = 0; round < options.rounds; round++) {
      // Alternate which goes first, so neither always runs on the warmer machine.
      const order = round % 2 === 0 ? [off, on] : [on, off];
      for (const target of order) {
        // The server's own CPU time per request: what the metrics cost it, whatever else the
        // machine does meanwhile (throughput on two shared cores swings ±15 % between rounds).
        const before = cpuSeconds(target.process.pid as number);
        const result = await load({ url: urlOf(target), headers: headersOf(target), ...options });
        const used = cpuSeconds(target.process.pid as number) - before;
        (target === on ? onRounds : offRounds).push(result);
        (target === on ? cpu.on : cpu.off).push((used * 1e6) / result.total);
      }
    }
    const scrapeStarted = performance.now();
    const scrape = await fetch(`${on.info.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    const scrapeText = await scrape.text();
    const scrapeMs = performance.now() - scrapeStarted;
    const onMedian = median(onRounds);
    const offMedian = median(offRounds);
    const cpuOn = middle(cpu.on);
    const cpuOff = middle(cpu.off);
    return {
      on: onMedian,
      off: offMedian,
      ratio: onMedian.requestsPerSec / offMedian.requestsPerSec,
      cpuUsPerRequest: { on: cpuOn, off: cpuOff, rounds: cpu, added: cpuOn - cpuOff, share: (cpuOn - cpuOff) / cpuOff },
      rounds: { on: onRounds.map((r) => r.requestsPerSec), off: offRounds.map((r) => r.requestsPerSec) },
      observeUs: recordRequestMicroseconds(),
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

/** User + system CPU seconds a process has used (/proc/<pid>/stat, in clock ticks of 10 ms). */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  // utime and stime are fields 14 and 15 of the line, 12 and 13 after "pid (comm) ".
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

function middle(values: number[]): number {
  return [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;
}

/** µs per recorded request (a route's recorder: a counter and a histogram), median of 5 runs of 500k calls. */
function recordRequestMicroseconds(): number {
  const metrics = new Metrics({
    databasePool: () => undefined,
    live: () => ({ streams: 0, sessions: 0, cap: 19_000, refusedAtCap: 0 }),
    webhookOldestDueSeconds: async () => 0,
  });
  const record = metrics.requestRecorder('/api/v1/polls/{id}', 'GET');
  const calls = 500_000;
  const runs: number[] = [];
  for (let run = 0; run < 5; run++) {
    const started = performance.now();
    for (let i = 0; i < calls; i++) record(i % 7 === 0 ? 404 : 200, 0.0001 * (i % 50));
    runs.push(((performance.now() - started) * 1000) / calls);
  }
  return runs.sort((a, b) => a - b)[2] as number;
}
