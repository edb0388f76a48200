import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { webhookLimits } from '@pollkit/contracts';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import { type Config, liveJoinUrl, publicBaseUrl, resolveDataDir } from './config.js';
import { type Clock, systemClock } from './core/clock.js';
import type { SecretSealer } from './core/sealed-secrets.js';
import { type DatabaseHandle, type DatabaseProgress, openDatabase } from './db/database.js';
import type { Database } from './db/schema.js';
import { openFilesLimit, streamBudget } from './infra/descriptors.js';
import { type InvalidationBus, LocalInvalidationBus, RedisInvalidationBus } from './infra/invalidation.js';
import { LocalDiskMediaStorage } from './infra/media-storage.js';
import type { Metrics } from './infra/metrics.js';
import { MemoryRateLimitStore, type RateLimitStore, RedisRateLimitStore } from './infra/rate-limit.js';
import { RedisConnection } from './infra/redis.js';
import { WebhookSender } from './infra/webhook-sender.js';
import { AnswerWriter } from './modules/answers/answer-writer.js';
import type { PollSessions } from './modules/answers/answers.service.js';
import { pollHasAnswers } from './modules/answers/index.js';
import type { OAuthClientHold } from './modules/api-keys/api-keys.service.js';
import { Authenticator } from './modules/auth/auth.service.js';
import type { BranchDrafter } from './modules/branching/branching.service.js';
import { draftWithOpenAI, openAiSettings } from './modules/branching/openai-drafter.js';
import { CREDENTIALS_TOPIC } from './modules/credentials/credentials-topic.js';
import { DomainEvents } from './modules/events/domain-events.js';
import {
  DatabaseSpentChallenges,
  JOIN_CHALLENGE_KEY_PURPOSE,
  JoinChallenges,
  RedisSpentChallenges,
} from './modules/live/join-challenge.js';
import { LiveHub } from './modules/live/live-hub.js';
import type { MediaFiles } from './modules/media/media.service.js';
import { FilterTermsCache } from './modules/moderation/index.js';
import { holdClientForKey } from './modules/oauth/oauth.service.js';
import { PollCache } from './modules/polls/poll-cache.js';
import type { AnsweredPolls } from './modules/polls/polls.service.js';
import { sessionIdsOfPoll } from './modules/sessions/index.js';
import { type AttemptResult, WebhookDeliveryWorker } from './modules/webhooks/delivery-worker.js';
import { webhookSecretSealer } from './modules/webhooks/secrets-key.js';
import { webhookBacklogAgeSeconds } from './modules/webhooks/webhooks.service.js';

/**
 * Everything the server holds, built once at start-up and closed once at shutdown. It satisfies
 * the pipeline's deps (api/pipeline.ts) and, through them, every module's own deps interface; no
 * module imports this file.
 */
export interface AppDeps {
  config: Config;
  database: DatabaseHandle;
  db: Kysely<Database>;
  /** The Redis connection for commands (rate limits, publishing); undefined without REDIS_URL. */
  redis: RedisConnection | undefined;
  authenticator: Authenticator;
  rateLimits: RateLimitStore;
  /** Cross-process cache invalidation (Redis pub/sub, or in-process). */
  invalidation: InvalidationBus;
  pollCache: PollCache;
  filterTerms: FilterTermsCache;
  answerWriter: AnswerWriter;
  /** What happened in the domain (modules/events): the live hub listens; webhooks will. */
  events: DomainEvents;
  /** Live sessions in this process: cached session rows, participant tokens, event streams. */
  liveHub: LiveHub;
  /** The audience's join URL for a PIN. */
  joinUrl: (pin: string) => string;
  /** Re-hosted media files and the base URL they are served at (modules/media). */
  media: MediaFiles & { setPort(port: number): void };
  /** Drafts skip logic through the configured language-model provider (modules/branching). */
  branchDrafter: BranchDrafter | undefined;
  /** Seals webhook signing secrets (modules/webhooks/secrets-key.ts). */
  secretSealer: SecretSealer;
  /** Issues and checks live sessions' join challenges (modules/live/join-challenge.ts). */
  joinChallenges: JoinChallenges;
  /** This process's webhook delivery worker; undefined with WEBHOOK_DELIVERY=false. Started by server.ts. */
  webhookWorker: WebhookDeliveryWorker | undefined;
  /** Prometheus metrics (infra/metrics.ts); undefined unless METRICS_TOKEN is set. */
  metrics: Metrics | undefined;
  log: Logger;
  /** The time request handling measures by (core/clock.ts). */
  clock: Clock;
  /** Set when shutdown begins: readiness fails so load balancers stop sending traffic. */
  state: { shuttingDown: boolean };
  /**
   * A module's function another module is handed rather than imports, where importing it would make
   * the two modules depend on each other. Each table has one owner (db/table-owners.ts), whose
   * functions are the only way to it: polls ask answers whether a poll has answers, a poll's reset
   * asks sessions for the poll's sessions, and a key made by an OAuth credential asks oauth to hold
   * the client against its revocation.
   */
  answeredPolls: AnsweredPolls;
  pollSessions: PollSessions;
  oauthClients: OAuthClientHold;
}

/** Answers waiting for, or taken by, the writer's flush at which it counts as saturated. */
const WRITER_SATURATED = 10;

/** What a caller of createDeps may bring besides the config (server.ts StartOptions). */
export interface DepsOptions {
  /** Start-up progress (main.ts prints it; tests and benchmarks pass nothing). */
  progress?: DatabaseProgress;
  /** The system clock unless a test brings one it moves itself. */
  clock?: Clock;
  /** An embedded in-memory database starts as a copy of this migrated one (db/database.ts). */
  pgliteTemplate?: Blob;
}

export async function createDeps(config: Config, log: Logger, options: DepsOptions = {}): Promise<AppDeps> {
  const { progress } = options;
  const database = await openDatabase({
    databaseUrl: config.DATABASE_URL,
    dataDir: resolveDataDir(config.DATA_DIR),
    poolSize: config.DATABASE_POOL_SIZE,
    connectTimeoutMs: config.DATABASE_CONNECT_TIMEOUT_MS,
    statementTimeoutMs: config.DATABASE_STATEMENT_TIMEOUT_MS,
    events: databaseLog(log),
    progress,
    pgliteTemplate: options.pgliteTemplate,
  });
  let redis: RedisConnection | undefined;
  let invalidation: InvalidationBus | undefined;
  try {
    const applied = await database.migrate(progress);
    if (applied.length > 0) log.info({ migrations: applied }, 'database migrated');
    redis = config.REDIS_URL ? await RedisConnection.open({ url: config.REDIS_URL, name: 'commands', log }) : undefined;
    invalidation = redis ? await RedisInvalidationBus.connect(redis, log) : new LocalInvalidationBus();
    const clock = options.clock ?? systemClock;
    const rateLimits = redis ? new RedisRateLimitStore(redis, log, clock) : new MemoryRateLimitStore(clock);
    const authenticator = new Authenticator(database.db);
    // A key revoked or rotated in any process (API or CLI) drops every cached credential here.
    invalidation.subscribe(CREDENTIALS_TOPIC, () => authenticator.invalidate());
    const pollCache = new PollCache(invalidation);
    const filterTerms = new FilterTermsCache(invalidation);
    const events = new DomainEvents((error, event) =>
      log.error({ err: error, event: event.type }, 'a domain-event subscriber failed'),
    );
    const media = createMediaDeps(config);
    const joinUrl = (pin: string) => liveJoinUrl(config, media.port(), pin);
    const streams = liveStreamCap(config.LIVE_MAX_STREAMS_PER_PROCESS, log);
    const liveHub = new LiveHub({
      db: database.db,
      clock,
      pollCache,
      filterTerms,
      bus: invalidation,
      events,
      log,
      joinUrl,
      streamLimits: {
        perParticipant: config.LIVE_STREAMS_PER_PARTICIPANT,
        anonymousPerAddress: config.LIVE_ANONYMOUS_STREAMS_PER_IP,
        perProcess: streams.cap,
        descriptorLimit: streams.descriptorLimit,
      },
    });
    // Redis is back after an outage: what other processes published meanwhile was lost. Whatever
    // it would have told us is re-read — a key revoked elsewhere must not stay usable here.
    invalidation.onReconnect(() => {
      authenticator.invalidate();
      pollCache.clear();
      filterTerms.clear();
      liveHub.catchUp();
      log.info('Redis reachable again: credential and poll caches dropped, live sessions caught up');
    });
    const secretSealer = await webhookSecretSealer(database.db, config.WEBHOOK_SECRETS_KEY, log);
    // The join challenge's HMAC key: derived from the sealing key, so every process on this database
    // (or with this WEBHOOK_SECRETS_KEY) checks what any of them issued; never stored or logged.
    const spentInDatabase = new DatabaseSpentChallenges(database.db, clock);
    const joinChallenges = new JoinChallenges(
      secretSealer.deriveKey(JOIN_CHALLENGE_KEY_PURPOSE),
      redis ? new RedisSpentChallenges(redis, spentInDatabase, clock, log) : spentInDatabase,
      clock,
    );
    const metrics = config.METRICS_TOKEN ? await createMetrics({ database, redis, rateLimits, liveHub }) : undefined;
    // One flush at a time: every flush of a live poll updates the same counter rows, so parallel
    // flushes only queue on each other's row locks (measured: 6.4k votes/s with one, 4.8k with
    // two, 2.7k with eight — server/bench/RESULTS.md). Waiting answers form the next, bigger batch.
    const answerWriter = new AnswerWriter(database.db, {
      maxConcurrentFlushes: 1,
      inProcessDatabase: database.driver === 'pglite',
      observeFlush: metrics && ((flush) => metrics.observeAnswerBatch(flush)),
    });
    const webhookWorker = config.WEBHOOK_DELIVERY
      ? createWebhookWorker(config, database.db, secretSealer, log, {
          inProcessDatabase: database.driver === 'pglite',
          // The writer is saturated: deliveries give way to answers (delivery-worker.ts).
          busy: () => answerWriter.saturated(WRITER_SATURATED),
          onAttempt: metrics && ((result) => metrics.countWebhookAttempt(result)),
        })
      : undefined;
    if (webhookWorker) {
      // Session changes made here may have written deliveries: send them now rather than at the next
      // poll. Answers do not nudge: at thousands a second, each would be a claim that most often finds
      // nothing (no endpoint subscribed); under load the worker claims again as its slots free up, and
      // idle, the poll (WEBHOOK_POLL_INTERVAL_MS) finds them.
      events.subscribe((event) => {
        if (event.type === 'session.changed' || event.type === 'session.created') webhookWorker.nudge();
      });
    }
    return {
      config,
      database,
      db: database.db,
      redis,
      authenticator,
      rateLimits,
      invalidation,
      pollCache,
      filterTerms,
      events,
      liveHub,
      joinUrl,
      answerWriter,
      media,
      // Set when a provider key is configured (OPENAI_API_KEY); without it the rules draft alone.
      branchDrafter: branchDrafterOf(config),
      secretSealer,
      joinChallenges,
      webhookWorker,
      metrics,
      log,
      clock,
      state: { shuttingDown: false },
      answeredPolls: { pollHasAnswers },
      pollSessions: { idsOf: sessionIdsOfPoll },
      oauthClients: { holdClientForKey },
    };
  } catch (error) {
    await invalidation?.close();
    await redis?.close();
    await database.close();
    throw error;
  }
}

/**
 * What the database layer reports, logged: the start of an outage once (with why), its end once,
 * and each dead connection at `debug` (they come by the pool-full when the server restarts).
 */
/**
 * How many event streams this process may hold, logged at start with the descriptor limit it comes
 * from: each stream is a socket, and a process out of descriptors resets new connections instead of
 * answering them (docs/self-hosting.md, "How many participants a process holds").
 */
/** A stream cap below which the start-up line is a warning: the descriptor limit is a distribution's default. */
const LOW_STREAM_CAP = 1000;

function liveStreamCap(configured: number, log: Logger): { cap: number; descriptorLimit: number | undefined } {
  const descriptorLimit = openFilesLimit();
  const cap = streamBudget(configured, descriptorLimit);
  const fields = { descriptorLimit: descriptorLimit ?? null, streamCap: cap, configured };
  // Only a cap the descriptors lowered is worth a warning: a small LIVE_MAX_STREAMS_PER_PROCESS was chosen.
  if (cap < configured && cap < LOW_STREAM_CAP) {
    log.warn(
      fields,
      'the open-files limit leaves room for few live event streams: raise it (ulimit -Hn, systemd LimitNOFILE) to hold a room (docs/self-hosting.md)',
    );
  } else {
    log.info(
      fields,
      'live event streams: this process holds at most streamCap at once (its descriptor limit less a reserve)',
    );
  }
  return { cap, descriptorLimit };
}

function databaseLog(log: Logger): NonNullable<Parameters<typeof openDatabase>[0]['events']> {
  let downSince: number | undefined;
  return {
    onConnectionError: (error) => log.debug({ reason: error.message }, 'a database connection died'),
    onUnreachable: (error) => {
      downSince = Date.now();
      log.warn({ reason: error.reason }, 'database unreachable: requests that need it answer 503 until it is back');
    },
    onReachable: () => {
      const seconds = downSince === undefined ? undefined : ((Date.now() - downSince) / 1000).toFixed(1);
      log.info({ seconds }, 'database reachable again');
    },
  };
}

/** Loaded only with METRICS_TOKEN: prom-client and its collectors cost nothing otherwise. */
async function createMetrics(parts: {
  database: DatabaseHandle;
  redis: RedisConnection | undefined;
  rateLimits: RateLimitStore;
  liveHub: LiveHub;
}): Promise<Metrics> {
  const { Metrics } = await import('./infra/metrics.js');
  const { database, redis, rateLimits, liveHub } = parts;
  const shared = rateLimits instanceof RedisRateLimitStore ? rateLimits : undefined;
  return new Metrics({
    databasePool: () => database.poolStats(),
    redis: redis &&
      shared && {
        connected: () => redis.ready,
        rateLimitFallback: () => shared.inFallback,
        rateLimitFallbackRequests: () => shared.fallbackHits,
      },
    live: () => ({ streams: liveHub.connectedStreams, sessions: liveHub.activeSessions, ...liveHub.streamCap }),
    webhookOldestDueSeconds: () => webhookBacklogAgeSeconds(database.db).catch(() => undefined),
  });
}

function createWebhookWorker(
  config: Config,
  db: Kysely<Database>,
  secretSealer: SecretSealer,
  log: Logger,
  options: {
    inProcessDatabase: boolean;
    busy: () => boolean;
    onAttempt: ((result: AttemptResult) => void) | undefined;
  },
): WebhookDeliveryWorker {
  const sender = new WebhookSender({
    timeoutMs: config.WEBHOOK_TIMEOUT_MS,
    allowHttp: config.WEBHOOK_ALLOW_HTTP,
    allowLoopback: config.WEBHOOK_ALLOW_LOOPBACK,
    excerptBytes: webhookLimits.responseExcerptBytes,
    maxSocketsPerHost: config.WEBHOOK_ENDPOINT_CONCURRENCY,
  });
  return new WebhookDeliveryWorker(
    { db, sender, secretSealer, log, busy: options.busy, onAttempt: options.onAttempt },
    {
      retryScheduleMs: config.WEBHOOK_RETRY_SCHEDULE_MS,
      timeoutMs: config.WEBHOOK_TIMEOUT_MS,
      concurrency: config.WEBHOOK_CONCURRENCY,
      endpointConcurrency: config.WEBHOOK_ENDPOINT_CONCURRENCY,
      pollIntervalMs: config.WEBHOOK_POLL_INTERVAL_MS,
      retentionMs: config.WEBHOOK_RETENTION_DAYS * 86_400_000,
      inProcessDatabase: options.inProcessDatabase,
    },
  );
}

/** The language-model drafter of skip logic, when OPENAI_API_KEY is set (modules/branching). */
function branchDrafterOf(config: Config): BranchDrafter | undefined {
  const settings = openAiSettings(config);
  return settings ? (poll, instruction) => draftWithOpenAI(settings, poll, instruction) : undefined;
}

/**
 * Media files go under DATA_DIR/media; with an in-memory database (tests, trials) they go to a
 * fresh temporary directory, removed at shutdown, so nothing outlives the data it belongs to.
 * The base URL is PUBLIC_BASE_URL, or the bound address once the server listens.
 */
function createMediaDeps(config: Config): AppDeps['media'] & { port(): number } {
  const inMemory = config.DATABASE_URL === 'memory://';
  const storage = inMemory
    ? new LocalDiskMediaStorage(join(tmpdir(), `pollkit-media-${randomBytes(8).toString('hex')}`), {
        removeOnClose: true,
      })
    : new LocalDiskMediaStorage(join(resolveDataDir(config.DATA_DIR), 'media'));
  let port = config.PORT;
  return {
    storage,
    port: () => port,
    baseUrl: () => publicBaseUrl(config, port),
    setPort(bound) {
      port = bound;
    },
  };
}

export async function closeDeps(deps: AppDeps): Promise<void> {
  deps.liveHub.closeAll();
  await deps.answerWriter.drained();
  await deps.webhookWorker?.stop();
  await deps.rateLimits.close();
  await deps.media.storage.close();
  await deps.invalidation.close();
  await deps.redis?.close();
  await deps.database.close();
}
