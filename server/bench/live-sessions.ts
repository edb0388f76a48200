/**
 * Scenario (issue 11): one live session with N participants on one server process (embedded
 * PGlite unless BENCH_DATABASE_URL). For each N, a fresh server: N participants join, N SSE
 * streams connect, the host sends `next` and each stream's delivery of the new `slide` event is
 * timed from just before the control request was sent; then all N answer the new slide at once,
 * and the results endpoint must count every accepted answer. Server memory: RSS after the joins
 * and after the N streams are connected.
 *
 * The participants are played by `clients` load-generator processes (bench/live-client.ts), each
 * started with `ulimit -n` raised, as is the server. Target: 10,000 participants, p99 delivery < 1 s.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import http from 'node:http';
import { fileURLToPath } from 'node:url';
import { jsonRequest } from './json-request.js';
import type { Command, Reply, Timed } from './live-client.js';
import { bundle, startTarget, withFdLimit } from './support.js';

const FD_LIMIT = 1_048_576;
const nowMs = () => Number(process.hrtime.bigint()) / 1e6;
/** `from–now` in monotonic ms: a phase's window on a CPU profile's timeline (profile-summary.ts). */
const window = (from: number) => `${from.toFixed(0)}–${nowMs().toFixed(0)}`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface Percentiles {
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

export interface PhaseResult extends Percentiles {
  ok: number;
  failed: number;
  failures: Record<string, number>;
  seconds: number;
  perSec: number;
  /** Server CPU time (user + system) over the phase, in seconds. */
  serverCpuSec: number;
}

export interface LiveSizeResult {
  participants: number;
  /** The server's limit on open files (`ulimit -n` could not be raised past the hard limit). */
  serverFdLimit: number;
  /** What stopped the measurement of this size, if something did: the phases before it are kept. */
  error?: string;
  join?: PhaseResult;
  connect?: PhaseResult;
  memory?: { rssAfterJoinMb: number; rssAfterConnectMb: number; perStreamKb: number };
  /** The reconnect storm: every stream cut at once, then resumed with its Last-Event-ID. */
  storm?: PhaseResult & { missedNothing: number; sinceDropSec: number; retried: number };
  delivery?: Percentiles & {
    received: number;
    streamsOpen: number;
    controlMs: number;
    serverCpuSec: number;
    /** The load generators' CPU time (all processes) until their last stream had the event. */
    clientCpuSec: number;
  };
  answers?: PhaseResult & { counted: number };
  /**
   * Slide moves after the timed `next` (prev, next, …, an even number: the session ends where it
   * was), each waited for until every stream has it: the server's CPU for a broadcast, per stream.
   */
  broadcasts?: {
    count: number;
    /** `slide` events received, all moves together. */
    received: number;
    /** Server CPU (user + system) per stream per broadcast, µs. */
    serverCpuUsPerStream: number;
    /** The system (kernel) part of it, µs: the `write` to each socket, which on loopback also runs the receiver's TCP input. */
    serverSystemUsPerStream: number;
    /** The moves' delivery p99s, median. */
    p99Ms: number;
  };
}

export function percentiles(values: number[]): Percentiles {
  if (values.length === 0) return { p50Ms: Number.NaN, p99Ms: Number.NaN, maxMs: Number.NaN };
  const sorted = Float64Array.from(values).sort();
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] as number;
  return { p50Ms: at(0.5), p99Ms: at(0.99), maxMs: sorted[sorted.length - 1] as number };
}

/** The soft limit on open files a process runs with (/proc/<pid>/limits). */
async function openFilesLimit(pid: number): Promise<number> {
  const limits = await readFile(`/proc/${pid}/limits`, 'utf8');
  return Number(/Max open files\s+(\d+)/.exec(limits)?.[1] ?? Number.NaN);
}

async function procStatus(pid: number): Promise<{ rssMb: number }> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return { rssMb: Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? Number.NaN) / 1024 };
}

/** A server's RSS once it has collected its garbage (SIGUSR2, targets/live.ts) and settled for a second. */
async function settledRssMb(pid: number): Promise<number> {
  process.kill(pid, 'SIGUSR2');
  await sleep(1000);
  return (await procStatus(pid)).rssMb;
}

/** User + system CPU seconds of a process so far (/proc/<pid>/stat, clock ticks of 1/100 s). */
async function cpuSeconds(pid: number): Promise<number> {
  const { user, system } = await cpuSplit(pid);
  return user + system;
}

/** User and system CPU seconds of a process so far, apart. */
async function cpuSplit(pid: number): Promise<{ user: number; system: number }> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { user: Number(fields[11]) / 100, system: Number(fields[12]) / 100 };
}

/** A load-generator process, driven one command at a time. */
class Client {
  readonly #replies: Reply[] = [];
  #waiter: (() => void) | undefined;

  private constructor(readonly child: ChildProcess) {
    child.on('message', (reply: Reply) => {
      this.#replies.push(reply);
      this.#waiter?.();
    });
    child.on('exit', () => this.#waiter?.());
  }

  static async start(script: string): Promise<Client> {
    const [command, args] = withFdLimit(FD_LIMIT, ['--enable-source-maps', script]);
    const client = new Client(spawn(command, args, { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] }));
    await client.next('ready');
    return client;
  }

  async next<T extends Reply['type']>(type: T): Promise<Extract<Reply, { type: T }>> {
    for (;;) {
      const reply = this.#replies.shift();
      if (reply) {
        if (reply.type === 'error') throw new Error(`live client: ${reply.message}`);
        if (reply.type !== type) throw new Error(`live client answered ${reply.type}, expected ${type}`);
        return reply as Extract<Reply, { type: T }>;
      }
      if (this.child.exitCode !== null) throw new Error(`live client exited with ${this.child.exitCode}`);
      await new Promise<void>((resolve) => {
        this.#waiter = resolve;
      });
      this.#waiter = undefined;
    }
  }

  async ask<T extends Reply['type']>(command: Command, type: T): Promise<Extract<Reply, { type: T }>> {
    this.child.send(command);
    return this.next(type);
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      if (this.child.exitCode !== null) return resolve();
      this.child.once('exit', () => resolve());
      this.child.send({ type: 'close' } satisfies Command);
    });
  }
}

/** One JSON request (the host's and the API key's; few, so one keep-alive socket). */
const hostAgent = new http.Agent({ keepAlive: true, maxSockets: 1 });
async function call(
  url: string,
  method: string,
  headers: Record<string, string>,
  body?: unknown,
): Promise<{ status: number; json: unknown }> {
  const { status, text } = await jsonRequest(url, method, hostAgent, body, headers);
  return { status, json: text ? JSON.parse(text) : undefined };
}

async function expectStatus(
  what: string,
  promise: Promise<{ status: number; json: unknown }>,
  status: number,
): Promise<unknown> {
  const response = await promise;
  if (response.status !== status) {
    throw new Error(`${what} answered ${response.status}: ${JSON.stringify(response.json)}`);
  }
  return response.json;
}

/** The clients' results of one phase, merged: wall time from the first start to the last end. */
function merge(parts: Timed[], serverCpuSec: number): PhaseResult {
  const startMs = Math.min(...parts.map((p) => p.startMs));
  const endMs = Math.max(...parts.map((p) => p.endMs));
  const failures: Record<string, number> = {};
  for (const part of parts) {
    for (const [what, n] of Object.entries(part.failures)) failures[what] = (failures[what] ?? 0) + n;
  }
  const ok = parts.reduce((sum, p) => sum + p.ok, 0);
  const seconds = (endMs - startMs) / 1000;
  return {
    ok,
    failed: parts.reduce((sum, p) => sum + p.failed, 0),
    failures,
    seconds,
    perSec: ok / seconds,
    serverCpuSec,
    ...percentiles(parts.flatMap((p) => p.latenciesMs)),
  };
}

async function measureSize(options: {
  participants: number;
  /** Server processes sharing the session (2: scale-out, on PostgreSQL and Redis). */
  servers: number;
  clients: number;
  concurrency: number;
  clientScript: string;
  serverNodeArgs: string[];
  serverFdLimit?: number;
  broadcasts: number;
  log: (line: string) => void;
}): Promise<LiveSizeResult & { database: string }> {
  const { participants: n, log } = options;
  const serverEnv = {
    RATE_LIMIT_PER_MINUTE: '100000000',
    LIVE_RATE_LIMIT_PER_IP_PER_MINUTE: '100000000',
    LIVE_PIN_MISSES_PER_IP_PER_MINUTE: '100000000',
    // Every simulated participant joins from 127.0.0.1, one session holds them all.
    LIVE_JOINS_PER_IP_PER_MINUTE: '100000000',
    LIVE_MAX_PARTICIPANTS_DEFAULT: '100000',
    LIVE_MAX_PARTICIPANTS_CEILING: '100000',
    LIVE_MAX_STREAMS_PER_PROCESS: '100000',
    LIVE_ANONYMOUS_STREAMS_PER_IP: '100000',
    // A heartbeat (one write per stream, as a broadcast is) falling inside a measured window would
    // count as a broadcast's cost: at their longest, heartbeats stay out of the phases.
    LIVE_HEARTBEAT_MS: '120000',
    // Scale-out: the processes share the session's events through Redis.
    ...(process.env.BENCH_REDIS_URL ? { REDIS_URL: process.env.BENCH_REDIS_URL } : {}),
  };
  // `--expose-gc`: the target collects its garbage on SIGUSR2 (targets/live.ts), so the memory read
  // after the joins and after the streams is what they hold, not what the last phase left to collect.
  const serverOptions = {
    fdLimit: options.serverFdLimit ?? FD_LIMIT,
    nodeArgs: ['--expose-gc', ...options.serverNodeArgs],
  };
  const target = await startTarget(
    fileURLToPath(new URL('./targets/live.ts', import.meta.url)),
    serverEnv,
    serverOptions,
  );
  const info = target.info as { url: string; pid: number; apiKey: string; pollId: string; slideIds: string[] };
  // Further processes start after the first has migrated the database and seeded it.
  const peers: (typeof target)[] = [];
  for (let k = 1; k < options.servers; k++) {
    peers.push(
      await startTarget(fileURLToPath(new URL('./targets/live-peer.ts', import.meta.url)), serverEnv, {
        ...serverOptions,
        under: 'live-peers',
      }),
    );
  }
  /** The processes take the load generators in turn: client k's participants use serverUrls[k % n]. */
  const serverUrls = [info.url, ...peers.map((peer) => peer.info.url)];
  const api = `${info.url}/api/v1`;
  const bearer = { authorization: `Bearer ${info.apiKey}` };
  const clients: Client[] = [];
  const result: LiveSizeResult = { participants: n, serverFdLimit: await openFilesLimit(info.pid) };
  try {
    const session = (await expectStatus(
      'POST /sessions',
      call(`${api}/sessions`, 'POST', bearer, { pollId: info.pollId }),
      201,
    )) as { id: string; pin: string; hostToken: string };
    const host = { 'x-host-token': session.hostToken };
    const control = `${api}/sessions/${session.id}/control`;
    await expectStatus('start', call(control, 'POST', host, { action: 'start' }), 200);

    const perClient = Math.ceil(n / options.clients);
    for (let k = 0; k < options.clients; k++) {
      const client = await Client.start(options.clientScript);
      clients.push(client);
      const first = k * perClient;
      await client.ask(
        {
          type: 'init',
          url: serverUrls[k % serverUrls.length] as string,
          pin: session.pin,
          first,
          count: Math.max(0, Math.min(perClient, n - first)),
          concurrency: Math.max(1, Math.round(options.concurrency / options.clients)),
        },
        'ready',
      );
    }
    const all = <T extends Reply['type']>(command: Command, type: T) =>
      Promise.all(clients.map((client) => client.ask(command, type)));

    let cpu = await cpuSeconds(info.pid);
    const joinFrom = nowMs();
    const joined = merge(await all({ type: 'join' }, 'joined'), (await cpuSeconds(info.pid)) - cpu);
    result.join = joined;
    log(`  ${n}: ${joined.ok} joined in ${joined.seconds.toFixed(1)} s (monotonic ms ${window(joinFrom)})`);
    const rssAfterJoin = await settledRssMb(info.pid);

    // The host's keep-alive socket is kept busy while the streams connect, as a presenter's would
    // be: once the server runs out of descriptors, a new connection for `next` would be refused.
    const getSession = () => call(`${api}/sessions/${session.id}`, 'GET', bearer);
    await expectStatus('GET /sessions/{id}', getSession(), 200);
    const hostPing = setInterval(() => void getSession().catch(() => {}), 5000);
    cpu = await cpuSeconds(info.pid);
    const connected = merge(
      await all({ type: 'connect' }, 'connected').finally(() => clearInterval(hostPing)),
      (await cpuSeconds(info.pid)) - cpu,
    );
    log(`  ${n}: ${connected.ok} streams in ${connected.seconds.toFixed(1)} s`);
    const rssAfterConnect = await settledRssMb(info.pid);
    result.connect = connected;
    result.memory = {
      rssAfterJoinMb: rssAfterJoin,
      rssAfterConnectMb: rssAfterConnect,
      // The first process's memory, over the streams it holds.
      perStreamKb: ((rssAfterConnect - rssAfterJoin) * 1024) / Math.max(1, connected.ok / options.servers),
    };

    // Time `next` from just before its request is written (on the host's warm socket).
    await expectStatus('GET /sessions/{id}', getSession(), 200);
    await all({ type: 'arm' }, 'armed');
    cpu = await cpuSeconds(info.pid);
    const sentAt = nowMs();
    await expectStatus('next', call(control, 'POST', host, { action: 'next' }), 200);
    const controlMs = nowMs() - sentAt;
    const collected = await all({ type: 'collect', timeoutMs: 60_000 }, 'collected');
    const deliveryCpu = (await cpuSeconds(info.pid)) - cpu;
    const delays = collected.flatMap((c) => c.arrivalsMs.map((at) => at - sentAt));
    const delivery = {
      ...percentiles(delays),
      received: delays.length,
      streamsOpen: collected.reduce((sum, c) => sum + c.streamsOpen, 0),
      controlMs,
      serverCpuSec: deliveryCpu,
      clientCpuSec: collected.reduce((sum, c) => sum + c.cpuSec, 0),
    };
    result.delivery = delivery;
    log(
      `  ${n}: next delivered to ${delivery.received}, p99 ${delivery.p99Ms.toFixed(0)} ms ` +
        `(monotonic ms ${sentAt.toFixed(0)}–${(sentAt + delivery.maxMs).toFixed(0)}, for a CPU profile's timeline)`,
    );

    if (options.broadcasts > 0) {
      const split = await cpuSplit(info.pid);
      const broadcastFrom = nowMs();
      let received = 0;
      const p99s: number[] = [];
      for (let k = 0; k < options.broadcasts; k++) {
        await all({ type: 'arm' }, 'armed');
        const movedAt = nowMs();
        await expectStatus('move', call(control, 'POST', host, { action: k % 2 === 0 ? 'prev' : 'next' }), 200);
        const arrivals = (await all({ type: 'collect', timeoutMs: 60_000 }, 'collected')).flatMap((c) => c.arrivalsMs);
        received += arrivals.length;
        p99s.push(percentiles(arrivals.map((at) => at - movedAt)).p99Ms);
      }
      const after = await cpuSplit(info.pid);
      const broadcastCpu = after.user - split.user + after.system - split.system;
      result.broadcasts = {
        count: options.broadcasts,
        received,
        // CPU is the first process's: per stream, of the streams it holds (its share of the load generators').
        serverCpuUsPerStream: (broadcastCpu * 1e6) / Math.max(1, received / options.servers),
        serverSystemUsPerStream: ((after.system - split.system) * 1e6) / Math.max(1, received / options.servers),
        p99Ms: percentiles(p99s).p50Ms,
      };
      log(
        `  ${n}: ${options.broadcasts} more moves, ${received} slide events: ` +
          `${result.broadcasts.serverCpuUsPerStream.toFixed(1)} µs of server CPU per stream per broadcast ` +
          `(${result.broadcasts.serverSystemUsPerStream.toFixed(1)} of it system) ` +
          `(monotonic ms ${window(broadcastFrom)}, for a CPU profile's timeline)`,
      );
    }

    const slideId = info.slideIds[1] as string;
    cpu = await cpuSeconds(info.pid);
    const answerFrom = nowMs();
    const answered = merge(
      await all({ type: 'answer', slideId, options: ['water', 'juice', 'soda', 'tea'] }, 'answered'),
      (await cpuSeconds(info.pid)) - cpu,
    );
    const results = (await expectStatus(
      'GET /polls/{id}/results',
      call(`${api}/polls/${info.pollId}/results`, 'GET', bearer),
      200,
    )) as { slides: Array<{ slideId: string; totalAnswers?: number }> };
    const counted = results.slides.find((slide) => slide.slideId === slideId)?.totalAnswers ?? 0;
    log(
      `  ${n}: ${answered.ok} answers at ${answered.perSec.toFixed(0)}/s, ${counted} counted (monotonic ms ${window(answerFrom)})`,
    );

    result.answers = { ...answered, counted };

    // A reconnect storm: every stream cut at once (a restart behind a load balancer), the session
    // moved on while they are away, then each reconnects with its Last-Event-ID and must be sent
    // the slide it missed (issue 29: all within 10 s, missing nothing).
    const dropAt = nowMs();
    await all({ type: 'drop' }, 'dropped');
    await expectStatus('next', call(control, 'POST', host, { action: 'next' }), 200);
    const resumeFrom = nowMs();
    const resumed = await all({ type: 'resume' }, 'resumed');
    const sinceDropSec = (nowMs() - dropAt) / 1000;
    const storm = merge(resumed, 0);
    const missedNothing = resumed.reduce((sum, r) => sum + r.missedNothing, 0);
    const retried = resumed.reduce((sum, r) => sum + r.retried, 0);
    result.storm = { ...storm, missedNothing, sinceDropSec, retried };
    log(
      `  ${n}: reconnect storm: ${storm.ok} of ${n} resumed ${sinceDropSec.toFixed(1)} s after the cut, ` +
        `${missedNothing} sent the slide they missed, ${retried} retries, p99 ${storm.p99Ms.toFixed(0)} ms (monotonic ms ${window(resumeFrom)})` +
        (storm.failed ? `, failures ${JSON.stringify(storm.failures)}` : ''),
    );
  } catch (error) {
    result.error = (error as Error).message;
    log(`  ${n}: stopped: ${result.error}`);
  } finally {
    await Promise.all(clients.map((client) => client.close()));
    await Promise.all([target.stop(), ...peers.map((peer) => peer.stop())]);
  }
  return { ...result, database: String(target.info.database) };
}

export async function liveSessionsScenario(options: {
  sizes: number[];
  /** Server processes sharing the session (2: scale-out, on PostgreSQL and Redis). */
  servers?: number;
  clients: number;
  concurrency: number;
  /** Node flags for the server process, e.g. `--cpu-prof --cpu-prof-dir=…`. */
  serverNodeArgs?: string[];
  /** `ulimit -n` for the server (default: as high as allowed), to see what running out of descriptors does. */
  serverFdLimit?: number;
  /** Slide moves measured after the timed `next` (an even number; 0: none). */
  broadcasts?: number;
  log?: (line: string) => void;
}): Promise<{ database: string; sizes: LiveSizeResult[] }> {
  const clientScript = await bundle(fileURLToPath(new URL('./live-client.ts', import.meta.url)), 'live-clients');
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const sizes: LiveSizeResult[] = [];
  let database = '';
  for (const participants of options.sizes) {
    const { database: used, ...result } = await measureSize({
      participants,
      servers: options.servers ?? 1,
      clients: options.clients,
      concurrency: options.concurrency,
      clientScript,
      serverNodeArgs: options.serverNodeArgs ?? [],
      serverFdLimit: options.serverFdLimit,
      broadcasts: 2 * Math.ceil((options.broadcasts ?? 6) / 2),
      log,
    });
    database = used;
    sizes.push(result);
  }
  return { database, sizes };
}
