import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { FlushObservation } from './group-commit.js';

/**
 * The process's Prometheus metrics (prom-client), served at `GET /metrics` when METRICS_TOKEN is
 * set (docs/self-hosting.md, "Metrics"). Two kinds of figures:
 *
 * - **Counted as they happen**, by calls the composition root and the transport wire in (deps.ts,
 *   http/metrics-route.ts): each request, each answer batch, each webhook attempt. A request's
 *   costs about 0.02 µs (RequestTally; server/bench/RESULTS.md, "Issue 23").
 * - **Read when scraped**, from the parts that keep them anyway (`MetricSources`): the database
 *   pool, Redis, open streams, the oldest due webhook delivery. Nothing is counted twice, and none
 *   of those parts imports prom-client.
 */
export interface MetricSources {
  /** The PostgreSQL pool; undefined for the embedded database. */
  databasePool(): DatabasePoolFigures | undefined;
  /** Undefined without REDIS_URL. */
  redis?: {
    connected(): boolean;
    /** Rate limits are counted in this process because Redis cannot be reached. */
    rateLimitFallback(): boolean;
    /** Requests counted in this process that way, since start. */
    rateLimitFallbackRequests(): number;
  };
  live(): { streams: number; sessions: number; cap: number; refusedAtCap: number };
  /** Seconds since the oldest webhook delivery (or answers' event batch) waiting to go out became due; undefined if none waits or it cannot be read now. */
  webhookOldestDueSeconds(): Promise<number | undefined>;
}

interface DatabasePoolFigures {
  total: number;
  idle: number;
  waiting: number;
  connectionErrors: number;
  unavailableErrors: number;
  reachable: boolean;
}

/** Request latency buckets (seconds): from a cache hit (~0.1 ms) to the slowest bounded wait. */
const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const BATCH_SIZE_BUCKETS = [1, 2, 5, 10, 25, 50, 100, 250, 500];
const FLUSH_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

export class Metrics {
  readonly registry = new Registry();
  readonly #requests = new RequestTally();
  readonly #batchSize: Histogram;
  readonly #flushSeconds: Histogram;
  readonly #batchFailures: Counter;
  readonly #webhookAttempts: Counter<'outcome'>;

  constructor(sources: MetricSources) {
    const registers = [this.registry];
    // The process: CPU, memory, heap, event-loop lag, handles, GC (prom-client's defaults, names as
    // every Node dashboard expects; they cost a request nothing measurable: server/bench/RESULTS.md).
    collectDefaultMetrics({ register: this.registry });

    this.#batchSize = new Histogram({
      name: 'pollkit_answer_batch_size',
      help: 'Answers per group-commit batch statement.',
      buckets: BATCH_SIZE_BUCKETS,
      registers,
    });
    this.#flushSeconds = new Histogram({
      name: 'pollkit_answer_batch_flush_seconds',
      help: 'Time one group-commit batch statement took, failed ones included.',
      buckets: FLUSH_BUCKETS,
      registers,
    });
    this.#batchFailures = new Counter({
      name: 'pollkit_answer_batch_failures_total',
      help: 'Group-commit batch statements that failed (the database away, or an answer it refused).',
      registers,
    });
    this.#webhookAttempts = new Counter({
      name: 'pollkit_webhook_attempts_total',
      help: 'Webhook delivery attempts made by this process, by outcome: succeeded, failed, gone (410), interrupted (shutdown).',
      labelNames: ['outcome'],
      registers,
    });

    const pool = () => sources.databasePool();
    new Gauge({
      name: 'pollkit_db_pool_connections',
      help: 'PostgreSQL connections held by this process, by state (total, idle).',
      labelNames: ['state'],
      registers,
      collect() {
        const figures = pool();
        if (!figures) return;
        this.set({ state: 'total' }, figures.total);
        this.set({ state: 'idle' }, figures.idle);
      },
    });
    new Gauge({
      name: 'pollkit_db_pool_waiting',
      help: 'Requests waiting for a free PostgreSQL connection.',
      registers,
      collect() {
        const figures = pool();
        if (figures) this.set(figures.waiting);
      },
    });
    new Gauge({
      name: 'pollkit_db_reachable',
      help: '1 while the database answers; 0 from a call that could not reach it until the next connection is made.',
      registers,
      collect() {
        this.set(pool()?.reachable === false ? 0 : 1);
      },
    });
    monotonic(
      registers,
      'pollkit_db_connection_errors_total',
      'PostgreSQL connections that died (error events of the pool and its clients, all handled).',
      () => pool()?.connectionErrors,
    );
    monotonic(
      registers,
      'pollkit_db_unavailable_errors_total',
      'Calls that failed because PostgreSQL could not be reached or did not answer in time (each a 503 to its request, or a retry in the background).',
      () => pool()?.unavailableErrors,
    );

    const redis = sources.redis;
    if (redis) {
      new Gauge({
        name: 'pollkit_redis_connected',
        help: '1 while the Redis connection is ready, else 0.',
        registers,
        collect() {
          this.set(redis.connected() ? 1 : 0);
        },
      });
      new Gauge({
        name: 'pollkit_rate_limit_fallback',
        help: '1 while rate limits are counted in this process because Redis cannot be reached, else 0.',
        registers,
        collect() {
          this.set(redis.rateLimitFallback() ? 1 : 0);
        },
      });
      monotonic(
        registers,
        'pollkit_rate_limit_fallback_requests_total',
        'Requests whose rate limit was counted in this process because Redis could not be reached.',
        redis.rateLimitFallbackRequests,
      );
    }

    new Gauge({
      name: 'pollkit_sse_streams_open',
      help: 'Live-session event streams open on this process.',
      registers,
      collect() {
        this.set(sources.live().streams);
      },
    });
    new Gauge({
      name: 'pollkit_sse_streams_cap',
      help: 'Live-session event streams this process holds at most: its open-files limit less 1,000, or LIVE_MAX_STREAMS_PER_PROCESS if lower (participants stop a few short, kept for presenters).',
      registers,
      collect() {
        this.set(sources.live().cap);
      },
    });
    monotonic(
      registers,
      'pollkit_sse_streams_refused_total',
      'Live-session event streams refused with 429 because this process held its most.',
      () => sources.live().refusedAtCap,
    );
    new Gauge({
      name: 'pollkit_live_sessions_active',
      help: 'Live sessions with at least one event stream open on this process.',
      registers,
      collect() {
        this.set(sources.live().sessions);
      },
    });
    new Gauge({
      name: 'pollkit_webhook_oldest_due_seconds',
      help: 'How long the oldest webhook delivery waiting to go out has been due (0 when none waits; NaN when the database cannot be read). The same database-wide figure in every process.',
      registers,
      async collect() {
        this.set((await sources.webhookOldestDueSeconds()) ?? Number.NaN);
      },
    });
  }

  /**
   * What counts the requests of one route and method: called once per route when it is registered
   * (http/metrics-route.ts), then with each response's status and seconds. `route` is the template
   * (`/api/v1/polls/{id}`), never a raw URL.
   */
  requestRecorder(route: string, method: string): RecordRequest {
    return this.#requests.recorder(route, method);
  }

  /** One group-commit batch statement of the answer writer. */
  observeAnswerBatch(flush: FlushObservation): void {
    this.#batchSize.observe(flush.size);
    this.#flushSeconds.observe(flush.seconds);
    if (flush.failed) this.#batchFailures.inc();
  }

  countWebhookAttempt(outcome: 'succeeded' | 'failed' | 'gone' | 'interrupted'): void {
    this.#webhookAttempts.inc({ outcome });
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  /** Everything in the Prometheus text format: prom-client's registry, then the request series. */
  async render(): Promise<string> {
    return `${await this.registry.metrics()}\n${this.#requests.exposition()}`;
  }
}

export type RecordRequest = (status: number, seconds: number) => void;

/** One (route, method, status): its requests, their total seconds, and how many fell in each bucket. */
interface RequestCell {
  count: number;
  sum: number;
  /** Per bucket of LATENCY_BUCKETS, plus one for +Inf; not cumulative (made so when scraped). */
  buckets: Float64Array;
}

/**
 * Requests by route template, method and status, in plain numbers, written out in the Prometheus
 * text format when scraped (`pollkit_http_requests_total`, a counter, and
 * `pollkit_http_request_duration_seconds`, a histogram). prom-client's own `inc` and `observe`
 * hash their label values into a string key on every call and build objects doing it: measured in
 * the server, about 5 µs a request, 15 % of `GET /polls/{id}` (server/bench/RESULTS.md, "Issue
 * 23"). Here a route's recorder is made once, with its template and method bound, and a response
 * costs a Map lookup by status and a few additions.
 */
class RequestTally {
  readonly series: { route: string; method: string; byStatus: Map<number, RequestCell> }[] = [];

  recorder(route: string, method: string): RecordRequest {
    const byStatus = new Map<number, RequestCell>();
    this.series.push({ route, method, byStatus });
    return (status, seconds) => {
      let cell = byStatus.get(status);
      if (cell === undefined) {
        cell = { count: 0, sum: 0, buckets: new Float64Array(LATENCY_BUCKETS.length + 1) };
        byStatus.set(status, cell);
      }
      cell.count += 1;
      cell.sum += seconds;
      let bucket = 0;
      while (bucket < LATENCY_BUCKETS.length && seconds > (LATENCY_BUCKETS[bucket] as number)) bucket += 1;
      cell.buckets[bucket] = (cell.buckets[bucket] as number) + 1;
    };
  }

  exposition(): string {
    const requests = [
      `# HELP ${REQUESTS} HTTP requests answered, by route template (/api/v1/polls/{id}; unmatched: no route), method and status.`,
      `# TYPE ${REQUESTS} counter`,
    ];
    const latency = [
      `# HELP ${LATENCY} Time from a request arriving to its response being handed to Node, by route template, method and status.`,
      `# TYPE ${LATENCY} histogram`,
    ];
    for (const { route, method, byStatus } of this.series) {
      for (const [status, cell] of byStatus) {
        const labels = `route="${labelValue(route)}",method="${labelValue(method)}",status="${status}"`;
        requests.push(`${REQUESTS}{${labels}} ${cell.count}`);
        let cumulative = 0;
        for (const [index, bound] of LATENCY_BUCKETS.entries()) {
          cumulative += cell.buckets[index] as number;
          latency.push(`${LATENCY}_bucket{le="${bound}",${labels}} ${cumulative}`);
        }
        latency.push(`${LATENCY}_bucket{le="+Inf",${labels}} ${cell.count}`);
        latency.push(`${LATENCY}_sum{${labels}} ${cell.sum}`, `${LATENCY}_count{${labels}} ${cell.count}`);
      }
    }
    return `${requests.join('\n')}\n\n${latency.join('\n')}\n`;
  }
}

const REQUESTS = 'pollkit_http_requests_total';
const LATENCY = 'pollkit_http_request_duration_seconds';

/** A label value as the text format writes it: backslash, double quote and newline escaped. */
function labelValue(value: string): string {
  return value.replace(/[\\"\n]/g, (c) => (c === '\n' ? '\\n' : `\\${c}`));
}

/** A counter whose value another part keeps (a running total), copied in when scraped. */
function monotonic(registers: Registry[], name: string, help: string, read: () => number | undefined): void {
  let copied = 0;
  new Counter({
    name,
    help,
    registers,
    collect() {
      const total = read();
      if (total === undefined || total < copied) return;
      this.inc(total - copied);
      copied = total;
    },
  });
}
