/**
 * Scenario: one bad answer never slows anyone else (issue 10). Workspace A sends only valid votes, a
 * new voter per request, as fast as its connections allow (as vote-ingestion.ts does); workspace B
 * meanwhile sends votes at a fixed rate, a share of them poisoned so the database refuses them inside
 * the batch they share with A's votes:
 *   - `nul`: a NUL byte in the voter id (PostgreSQL refuses \u0000 in text). Validation is meant to
 *     refuse it with a 422 before the writer; where it does not, the batch statement fails.
 *   - `check`: a voter id the target's bench-only CHECK constraint refuses — a rejection no validation
 *     foresees, so it always reaches the database and exercises the writer's isolation alone.
 *   - `invalid`: an option the slide does not have, which validation refuses with a 422 before the
 *     writer: what every known cause of a database rejection becomes once validation refuses it.
 * Each round measures A alone, A beside B sending only valid votes (what B's load costs by itself),
 * and A beside B with each kind of poison; rounds alternate and the median round of each is kept.
 * Goal: A keeps ≥ 90% of its rate alone while B's poison flows.
 */
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { startTarget } from './support.js';

export type PoisonKind = 'none' | 'nul' | 'check' | 'invalid';

export interface SideResult {
  acceptedPerSec: number;
  p50Ms: number;
  p99Ms: number;
  /** Non-2xx responses by status code, e.g. `{ 500: 93 }`. */
  refused: Record<string, number>;
  errors: number;
}

export interface Measurement {
  a: SideResult;
  /** Absent when A ran alone. */
  b?: SideResult;
  /** Writer statements per second during the measurement (failed ones and bisection included). */
  flushesPerSec: number;
}

interface Workspace {
  apiKey: string;
  pollId: string;
}

const choices = ['pizza', 'sushi', 'tacos', 'salad'];

function vote(prefix: string, counter: number, poison: PoisonKind, every: number, slideId: string): string {
  const poisoned = poison !== 'none' && counter % every === 0;
  const voterId = !poisoned
    ? `${prefix}-${counter}`
    : poison === 'nul'
      ? `${prefix}-${counter}\u0000`
      : poison === 'check'
        ? `poison-${prefix}-${counter}`
        : `${prefix}-${counter}`;
  const optionIds = [poisoned && poison === 'invalid' ? 'no-such-option' : choices[counter % 4]];
  return JSON.stringify({ voterId, slideId, optionIds });
}

async function send(options: {
  url: string;
  workspace: Workspace;
  slideId: string;
  prefix: string;
  connections: number;
  durationSec: number;
  /** Requests per second over all connections; unlimited when absent. */
  rate?: number;
  poison: PoisonKind;
  /** Every `every`-th vote is poisoned (20: 5%). */
  every: number;
}): Promise<SideResult> {
  let counter = 0;
  const result = await autocannon({
    url: `${options.url}/api/v1/polls/${options.workspace.pollId}/votes`,
    connections: options.connections,
    duration: options.durationSec,
    ...(options.rate ? { overallRate: options.rate } : {}),
    headers: { 'content-type': 'application/json', authorization: `Bearer ${options.workspace.apiKey}` },
    requests: [
      {
        method: 'POST',
        setupRequest: (request) => {
          counter += 1;
          request.body = vote(options.prefix, counter, options.poison, options.every, options.slideId);
          return request;
        },
      },
    ],
  });
  const refused: Record<string, number> = {};
  for (const [code, stats] of Object.entries(result.statusCodeStats ?? {})) {
    if (!code.startsWith('2')) refused[code] = stats.count ?? 0;
  }
  return {
    acceptedPerSec: result['2xx'] / (result.duration || options.durationSec),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    refused,
    errors: result.errors,
  };
}

export const poisonConfigs = ['alone', 'clean', 'nul', 'check', 'invalid'] as const;
export type PoisonConfig = (typeof poisonConfigs)[number];

export async function poisonedVotesScenario(options: {
  durationSec: number;
  connections: number;
  rounds: number;
  /** B's connections and its fixed rate (votes/s over all of them). */
  poisonConnections: number;
  poisonRate: number;
  /** Share of B's votes that are poisoned (0.05: every 20th). */
  poisonShare: number;
  configs: PoisonConfig[];
}) {
  // The 500s of poisoned votes that reach the database would each print a log line; keep the output readable.
  const target = await startTarget(fileURLToPath(new URL('./targets/poisoned.ts', import.meta.url)), {
    LOG_LEVEL: 'fatal',
  });
  const info = target.info as {
    url: string;
    statsUrl: string;
    database: string;
    a: Workspace;
    b: Workspace;
    slideId: string;
  };
  const every = Math.max(1, Math.round(1 / options.poisonShare));
  const flushes = async () => ((await (await fetch(info.statsUrl)).json()) as { flushes: number }).flushes;

  async function measure(config: PoisonConfig, prefix: string, durationSec: number): Promise<Measurement> {
    const before = await flushes();
    const started = performance.now();
    const a = send({
      url: info.url,
      workspace: info.a,
      slideId: info.slideId,
      prefix: `a-${prefix}`,
      connections: options.connections,
      durationSec,
      poison: 'none',
      every,
    });
    const b =
      config === 'alone'
        ? undefined
        : send({
            url: info.url,
            workspace: info.b,
            slideId: info.slideId,
            prefix: `b-${prefix}`,
            connections: options.poisonConnections,
            durationSec,
            rate: options.poisonRate,
            poison: config === 'clean' ? 'none' : config,
            every,
          });
    const [aResult, bResult] = await Promise.all([a, b]);
    const seconds = (performance.now() - started) / 1000;
    return { a: aResult, ...(bResult ? { b: bResult } : {}), flushesPerSec: ((await flushes()) - before) / seconds };
  }

  try {
    await measure('clean', 'warm', 2);
    const rounds = new Map<PoisonConfig, Measurement[]>(options.configs.map((config) => [config, []]));
    for (let round = 0; round < options.rounds; round++) {
      for (const config of options.configs) {
        rounds.get(config)?.push(await measure(config, `${config}${round}`, options.durationSec));
      }
    }
    const median = (all: Measurement[]) =>
      [...all].sort((x, y) => x.a.acceptedPerSec - y.a.acceptedPerSec)[Math.floor(all.length / 2)] as Measurement;
    return {
      database: info.database,
      every,
      results: options.configs.map((config) => {
        const all = rounds.get(config) ?? [];
        return { config, median: median(all), rounds: all.map((m) => m.a.acceptedPerSec) };
      }),
    };
  } finally {
    await target.stop();
  }
}
