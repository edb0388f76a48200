/**
 * Scenario (issue 14): what webhooks cost vote ingestion, and how fast the delivery worker empties
 * the outbox. The receiver is a plain node:http server answering 200 (bench/targets/webhook-receiver.ts)
 * in a process of its own, so its CPU is neither the server's nor the load generator's and shows on
 * its own; every server runs with WEBHOOK_ALLOW_HTTP and WEBHOOK_ALLOW_LOOPBACK so it may deliver there.
 *
 * 1. Ingestion: the load of vote-ingestion.ts (autocannon, a new voter per request) in alternating
 *    rounds over these configurations, the median round of each kept:
 *    - `off`: a server with WEBHOOK_DELIVERY=false and no endpoint (no worker at all);
 *    - `outbox`: that server with one endpoint subscribed to `vote.created`: every vote writes its
 *      delivery in the writer's batch statement, and nothing delivers it (the outbox insert alone);
 *    - `none`: a server delivering webhooks (the worker running), no endpoint;
 *    - `endpoint`: that server with one endpoint subscribed to `vote.created` on the receiver.
 *    In `endpoint` rounds, what was delivered by the end of the load (received, and recorded as
 *    succeeded) and what was still pending is read at once, then the time until nothing is pending.
 *    Endpoints are created before their round and deleted after it (their deliveries with them);
 *    the delivering server's worker runs during its own rounds only (workers share the outbox of a
 *    PostgreSQL database, so it would deliver what the `outbox` rounds write).
 * 2. Drain: a server whose worker is stopped as soon as it is up (BENCH_WEBHOOK_HOLD) gets an endpoint
 *    and N votes through the API, so the outbox holds N pending deliveries; then the worker is started
 *    and timed until the receiver has every event and the database says every delivery succeeded.
 *
 * The WEBHOOK_* settings come from the environment (config.ts defaults otherwise), so variants are
 * measured by setting them on the command. Targets: ingestion with an endpoint ≥ 0.9× without.
 */
import { readdir, readFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { type BenchTarget, startTarget } from './support.js';
import { hammer, type IngestionResult } from './vote-ingestion.js';

export const webhookConfigs = ['off', 'outbox', 'none', 'endpoint'] as const;
export type WebhookConfig = (typeof webhookConfigs)[number];

const targetScript = fileURLToPath(new URL('./targets/webhooks.ts', import.meta.url));
const receiverScript = fileURLToPath(new URL('./targets/webhook-receiver.ts', import.meta.url));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** How long a drain may take before the scenario gives up on it. */
const DRAIN_TIMEOUT_MS = 600_000;

interface TargetInfo {
  url: string;
  statsUrl: string;
  apiKey: string;
  pollId: string;
  slideId: string;
  database: string;
  pid: number;
}

interface StatementTotals {
  [kind: string]: { count: number; ms: number };
}

interface ServerStats {
  flushes: number;
  statements: StatementTotals;
}

interface ReceiverCount {
  requests: number;
  distinct: number;
  unsigned: number;
  firstAt: number | null;
  lastAt: number | null;
}

/** CPU seconds (user + system) spent in a window, by whom. */
export interface CpuSpent {
  server: number;
  receiver: number;
  /** Every `postgres` process on the machine (0 on PGlite, unless something else uses PostgreSQL). */
  postgres: number;
  /** This process: autocannon and the polling. */
  loadGenerator: number;
}

export interface StatementsSpent {
  [kind: string]: { count: number; ms: number };
}

export interface IngestionRound {
  config: WebhookConfig;
  round: number;
  load: IngestionResult;
  cpu: CpuSpent;
  statements: StatementsSpent;
  flushes: number;
  loadAverage: [number, number];
  /** `endpoint` rounds: the deliveries at the end of the load and the drain after it. */
  delivery?: {
    receivedAtEnd: number;
    succeededAtEnd: number;
    pendingAtEnd: number;
    drainSec: number;
    drainCpu: CpuSpent;
    succeeded: number;
    failed: number;
    received: number;
    receivedRequests: number;
  };
}

export interface DrainRun {
  events: number;
  prefill: IngestionResult;
  pendingBefore: number;
  /** From the worker's start until the receiver had every event. */
  receivedSec: number;
  /** From the worker's start until the database said no delivery was pending. */
  recordedSec: number;
  eventsPerSec: number;
  firstDeliveryMs: number;
  succeeded: number;
  failed: number;
  received: number;
  receivedRequests: number;
  cpu: CpuSpent;
  statements: StatementsSpent;
  loadAverage: [number, number];
}

/** The fields of /proc/<pid>/stat after the command's name: [0] is the state, [1] the parent's pid. */
async function statFields(pid: number | string): Promise<{ name: string; fields: string[] }> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  const open = stat.indexOf('(');
  const close = stat.lastIndexOf(')');
  return { name: stat.slice(open + 1, close), fields: stat.slice(close + 2).split(' ') };
}

/** User + system CPU seconds of a process so far (clock ticks of 1/100 s). */
async function cpuSeconds(pid: number): Promise<number> {
  const { fields } = await statFields(pid);
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/**
 * CPU seconds of PostgreSQL: every process named `postgres`, plus what the postmaster's backends
 * that already ended spent (its children's time), so a connection closing between two readings
 * does not take its time away. Whatever else uses this PostgreSQL counts too.
 */
async function postgresCpuSeconds(): Promise<number> {
  const processes = new Map<string, string[]>();
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const { name, fields } = await statFields(entry);
      if (name === 'postgres') processes.set(entry, fields);
    } catch {
      // The process ended while the list was read.
    }
  }
  let ticks = 0;
  for (const fields of processes.values()) {
    ticks += Number(fields[11]) + Number(fields[12]);
    // The postmaster (its parent is not a postgres process) has reaped the backends that ended.
    if (!processes.has(fields[1] as string)) ticks += Number(fields[13]) + Number(fields[14]);
  }
  return ticks / 100;
}

async function cpuNow(serverPid: number, receiverPid: number): Promise<CpuSpent> {
  const own = process.cpuUsage();
  return {
    server: await cpuSeconds(serverPid),
    receiver: await cpuSeconds(receiverPid),
    postgres: await postgresCpuSeconds(),
    loadGenerator: (own.user + own.system) / 1e6,
  };
}

function cpuBetween(before: CpuSpent, after: CpuSpent): CpuSpent {
  return {
    server: after.server - before.server,
    receiver: after.receiver - before.receiver,
    postgres: after.postgres - before.postgres,
    loadGenerator: after.loadGenerator - before.loadGenerator,
  };
}

function statementsBetween(before: StatementTotals, after: StatementTotals): StatementsSpent {
  const spent: StatementsSpent = {};
  for (const [kind, total] of Object.entries(after)) {
    const was = before[kind] ?? { count: 0, ms: 0 };
    if (total.count > was.count) spent[kind] = { count: total.count - was.count, ms: total.ms - was.ms };
  }
  return spent;
}

async function json<T>(url: string, init?: RequestInit): Promise<T> {
  const response = await fetch(url, init);
  const text = await response.text();
  if (!response.ok) throw new Error(`${init?.method ?? 'GET'} ${url}: ${response.status} ${text}`);
  return (text ? JSON.parse(text) : undefined) as T;
}

/** A server target and the API calls the scenario makes on it. */
class Server {
  constructor(
    readonly target: BenchTarget,
    readonly info: TargetInfo,
  ) {}

  static async start(env: Record<string, string>, nodeArgs: string[] = []): Promise<Server> {
    const target = await startTarget(
      targetScript,
      { WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_LOOPBACK: 'true', ...env },
      { nodeArgs },
    );
    return new Server(target, target.info as unknown as TargetInfo);
  }

  #api<T>(method: string, path: string, body?: unknown): Promise<T> {
    return json<T>(`${this.info.url}/api/v1${path}`, {
      method,
      headers: {
        authorization: `Bearer ${this.info.apiKey}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  }

  async createEndpoint(url: string): Promise<string> {
    const created = await this.#api<{ id: string }>('POST', '/webhooks', {
      url,
      events: ['vote.created'],
      description: 'bench receiver',
    });
    return created.id;
  }

  deleteEndpoint(id: string): Promise<unknown> {
    return this.#api('DELETE', `/webhooks/${id}`);
  }

  async endpointStats(id: string) {
    const endpoint = await this.#api<{
      stats: { pendingDeliveries: number; succeededDeliveries: number; failedDeliveries: number };
    }>('GET', `/webhooks/${id}`);
    return endpoint.stats;
  }

  stats(): Promise<ServerStats> {
    return json<ServerStats>(`${this.info.statsUrl}/stats`);
  }

  async startWorker(): Promise<number> {
    const { startedAt } = await json<{ startedAt: number }>(`${this.info.statsUrl}/worker/start`, { method: 'POST' });
    return startedAt;
  }

  stopWorker(): Promise<unknown> {
    return json(`${this.info.statsUrl}/worker/stop`, { method: 'POST' });
  }

  votes(prefix: string, connections: number, durationSec: number, amount?: number): Promise<IngestionResult> {
    return hammer({
      url: `${this.info.url}/api/v1/polls/${this.info.pollId}/votes`,
      headers: { authorization: `Bearer ${this.info.apiKey}` },
      slideId: this.info.slideId,
      prefix,
      connections,
      durationSec,
      amount,
    });
  }
}

class Receiver {
  constructor(
    readonly target: BenchTarget,
    readonly info: { url: string; controlUrl: string; pid: number },
  ) {}

  static async start(): Promise<Receiver> {
    // Bundled in a folder of its own: bundling a server target empties `targets`.
    const target = await startTarget(receiverScript, {}, { under: 'receiver' });
    return new Receiver(target, target.info as unknown as Receiver['info']);
  }

  count(): Promise<ReceiverCount> {
    return json<ReceiverCount>(`${this.info.controlUrl}/count`);
  }

  reset(): Promise<unknown> {
    return json(`${this.info.controlUrl}/reset`, { method: 'POST' });
  }
}

/** Polls `done` every `everyMs` until it holds; returns when it did (ms since the epoch). */
async function until(done: () => Promise<boolean>, everyMs: number, what: string): Promise<number> {
  const deadline = Date.now() + DRAIN_TIMEOUT_MS;
  for (;;) {
    if (await done()) return Date.now();
    if (Date.now() > deadline) throw new Error(`${what}: not done after ${DRAIN_TIMEOUT_MS / 1000} s`);
    await sleep(everyMs);
  }
}

const load1 = () => Math.round((loadavg()[0] ?? 0) * 10) / 10;

async function ingestionRound(options: {
  config: WebhookConfig;
  round: number;
  server: Server;
  receiver: Receiver;
  connections: number;
  durationSec: number;
  prefix: string;
}): Promise<IngestionRound> {
  const { config, server, receiver } = options;
  const subscribed = config === 'outbox' || config === 'endpoint';
  const delivering = config === 'none' || config === 'endpoint';
  if (delivering) await server.startWorker();
  const endpointId = subscribed ? await server.createEndpoint(receiver.info.url) : undefined;
  await receiver.reset();
  const loadBefore = load1();
  const statsBefore = await server.stats();
  const cpuBefore = await cpuNow(server.info.pid, receiver.info.pid);
  const load = await server.votes(options.prefix, options.connections, options.durationSec);
  const cpuAfter = await cpuNow(server.info.pid, receiver.info.pid);
  const statsAfter = await server.stats();
  const loadAfter = load1();
  let delivery: IngestionRound['delivery'];
  if (config === 'endpoint' && endpointId) {
    const [received, atEnd] = await Promise.all([receiver.count(), server.endpointStats(endpointId)]);
    const drainStarted = Date.now();
    const drained = await until(
      async () => (await server.endpointStats(endpointId)).pendingDeliveries === 0,
      100,
      'draining the outbox after the load',
    );
    const drainCpu = cpuBetween(cpuAfter, await cpuNow(server.info.pid, receiver.info.pid));
    const [finalCount, final] = await Promise.all([receiver.count(), server.endpointStats(endpointId)]);
    delivery = {
      receivedAtEnd: received.distinct,
      succeededAtEnd: atEnd.succeededDeliveries,
      pendingAtEnd: atEnd.pendingDeliveries,
      drainSec: (drained - drainStarted) / 1000,
      drainCpu,
      succeeded: final.succeededDeliveries,
      failed: final.failedDeliveries,
      received: finalCount.distinct,
      receivedRequests: finalCount.requests,
    };
  }
  if (endpointId) await server.deleteEndpoint(endpointId);
  if (delivering) await server.stopWorker();
  return {
    config,
    round: options.round,
    load,
    cpu: cpuBetween(cpuBefore, cpuAfter),
    statements: statementsBetween(statsBefore.statements, statsAfter.statements),
    flushes: statsAfter.flushes - statsBefore.flushes,
    loadAverage: [loadBefore, loadAfter],
    delivery,
  };
}

async function drainRun(options: {
  receiver: Receiver;
  events: number;
  connections: number;
  nodeArgs: string[];
}): Promise<DrainRun> {
  const { receiver } = options;
  const server = await Server.start({ WEBHOOK_DELIVERY: 'true', BENCH_WEBHOOK_HOLD: 'true' }, options.nodeArgs);
  try {
    const endpointId = await server.createEndpoint(receiver.info.url);
    const prefill = await server.votes('drain', options.connections, 0, options.events);
    // This endpoint's deliveries only: on a PostgreSQL database used before, others may be pending too.
    const pendingBefore = (await server.endpointStats(endpointId)).pendingDeliveries;
    await receiver.reset();
    // Let the prefill's echo (its last flushes, the autocannon sockets closing) settle first.
    await sleep(1000);
    const loadBefore = load1();
    const statsBefore = await server.stats();
    const cpuBefore = await cpuNow(server.info.pid, receiver.info.pid);
    const startedAt = await server.startWorker();
    // The receiver is asked first: it costs the server nothing. Then the database, until nothing is pending.
    await until(async () => (await receiver.count()).distinct >= pendingBefore, 50, 'receiving every event');
    const recordedAt = await until(
      async () => (await server.endpointStats(endpointId)).pendingDeliveries === 0,
      20,
      'recording every delivery',
    );
    const cpuAfter = await cpuNow(server.info.pid, receiver.info.pid);
    const statsAfter = await server.stats();
    const loadAfter = load1();
    const [count, final] = await Promise.all([receiver.count(), server.endpointStats(endpointId)]);
    const recordedSec = (recordedAt - startedAt) / 1000;
    return {
      events: pendingBefore,
      prefill,
      pendingBefore,
      receivedSec: ((count.lastAt ?? recordedAt) - startedAt) / 1000,
      recordedSec,
      eventsPerSec: pendingBefore / recordedSec,
      firstDeliveryMs: (count.firstAt ?? startedAt) - startedAt,
      succeeded: final.succeededDeliveries,
      failed: final.failedDeliveries,
      received: count.distinct,
      receivedRequests: count.requests,
      cpu: cpuBetween(cpuBefore, cpuAfter),
      statements: statementsBetween(statsBefore.statements, statsAfter.statements),
      loadAverage: [loadBefore, loadAfter],
    };
  } finally {
    await server.target.stop();
  }
}

/**
 * The WEBHOOK_* settings the servers ran with (those set in the environment; the rest are config.ts
 * defaults), and the experiments of bench/targets/webhooks.ts if any.
 */
function settings(): Record<string, string> {
  return Object.fromEntries(
    Object.entries(process.env).filter(
      (entry): entry is [string, string] =>
        (entry[0].startsWith('WEBHOOK_') && !['WEBHOOK_ALLOW_HTTP', 'WEBHOOK_ALLOW_LOOPBACK'].includes(entry[0])) ||
        entry[0] === 'BENCH_WEBHOOK_EXPERIMENT',
    ),
  );
}

export async function webhooksScenario(options: {
  durationSec: number;
  connections: number;
  rounds: number;
  configs: WebhookConfig[];
  events: number;
  drainRuns: number;
  /** Node flags for the drain's server, e.g. `--cpu-prof --cpu-prof-dir=…`. */
  drainNodeArgs?: string[];
}) {
  const receiver = await Receiver.start();
  const servers: Server[] = [];
  try {
    const rounds: IngestionRound[] = [];
    let database = '';
    if (options.configs.length > 0) {
      // Started one after the other: on PostgreSQL the first migrates the fresh database.
      const needOff = options.configs.some((c) => c === 'off' || c === 'outbox');
      const needOn = options.configs.some((c) => c === 'none' || c === 'endpoint');
      const off = needOff ? await Server.start({ WEBHOOK_DELIVERY: 'false' }) : undefined;
      // Its worker runs during its own rounds only: on PostgreSQL it would otherwise deliver what
      // the `outbox` rounds write on the other server (workers share the outbox).
      const on = needOn ? await Server.start({ WEBHOOK_DELIVERY: 'true', BENCH_WEBHOOK_HOLD: 'true' }) : undefined;
      for (const server of [off, on]) if (server) servers.push(server);
      database = (off ?? on)?.info.database ?? '';
      const serverOf = (config: WebhookConfig) => (config === 'off' || config === 'outbox' ? off : on) as Server;
      // Warm-up: 2 s of each configuration, the endpoint's drained, as a round would be.
      for (const config of options.configs) {
        await ingestionRound({
          config,
          round: -1,
          server: serverOf(config),
          receiver,
          connections: options.connections,
          durationSec: 2,
          prefix: `warm-${config}`,
        });
      }
      for (let round = 0; round < options.rounds; round++) {
        for (const config of options.configs) {
          rounds.push(
            await ingestionRound({
              config,
              round,
              server: serverOf(config),
              receiver,
              connections: options.connections,
              durationSec: options.durationSec,
              prefix: `${config}-${round}`,
            }),
          );
        }
      }
      // A drain server of its own follows: on PostgreSQL a running worker would share its outbox.
      await Promise.all(servers.map((server) => server.target.stop()));
      servers.length = 0;
    }
    const drains: DrainRun[] = [];
    for (let run = 0; run < options.drainRuns; run++) {
      drains.push(
        await drainRun({
          receiver,
          events: options.events,
          connections: options.connections,
          nodeArgs: options.drainNodeArgs ?? [],
        }),
      );
    }
    const median = (config: WebhookConfig) => {
      const of = rounds
        .filter((r) => r.config === config)
        .sort((a, b) => a.load.acceptedPerSec - b.load.acceptedPerSec);
      return of[Math.floor(of.length / 2)];
    };
    return {
      database: database || (process.env.BENCH_DATABASE_URL ? 'PostgreSQL' : 'embedded PGlite (in memory)'),
      settings: settings(),
      rounds,
      medians: Object.fromEntries(options.configs.map((config) => [config, median(config)])) as Partial<
        Record<WebhookConfig, IngestionRound>
      >,
      drains,
    };
  } finally {
    await Promise.all(servers.map((server) => server.target.stop()));
    await receiver.target.stop();
  }
}
