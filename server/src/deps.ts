import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { webhookLimits } from '@pollkit/contracts';
import type { Redis } from 'ioredis';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import { type Config, liveJoinUrl, publicBaseUrl, resolveDataDir } from './config.js';
import type { SecretSealer } from './core/sealed-secrets.js';
import { type DatabaseHandle, type DatabaseProgress, migrateToLatest, openDatabase } from './db/database.js';
import type { Database } from './db/schema.js';
import { type InvalidationBus, LocalInvalidationBus, RedisInvalidationBus } from './infra/invalidation.js';
import { LocalDiskMediaStorage } from './infra/media-storage.js';
import { MemoryRateLimitStore, type RateLimitStore, RedisRateLimitStore } from './infra/rate-limit.js';
import { WebhookSender } from './infra/webhook-sender.js';
import { AnswerWriter } from './modules/answers/answer-writer.js';
import { Authenticator } from './modules/auth/auth.service.js';
import { CREDENTIALS_TOPIC } from './modules/auth/credentials-topic.js';
import type { BranchDrafter } from './modules/branching/branching.service.js';
import { draftWithOpenAI, openAiSettings } from './modules/branching/openai-drafter.js';
import { DomainEvents } from './modules/events/domain-events.js';
import { LiveHub } from './modules/live/live-hub.js';
import type { MediaFiles } from './modules/media/media.service.js';
import { PollCache } from './modules/polls/poll-cache.js';
import { WebhookDeliveryWorker } from './modules/webhooks/delivery-worker.js';
import { webhookSecretSealer } from './modules/webhooks/secrets-key.js';

/**
 * Everything the server holds, built once at start-up and closed once at shutdown. It satisfies
 * the pipeline's deps (api/pipeline.ts) and, through them, every module's own deps interface; no
 * module imports this file.
 */
export interface AppDeps {
  config: Config;
  database: DatabaseHandle;
  db: Kysely<Database>;
  redis: Redis | undefined;
  authenticator: Authenticator;
  rateLimits: RateLimitStore;
  /** Cross-process cache invalidation (Redis pub/sub, or in-process). */
  invalidation: InvalidationBus;
  pollCache: PollCache;
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
  /** This process's webhook delivery worker; undefined with WEBHOOK_DELIVERY=false. Started by server.ts. */
  webhookWorker: WebhookDeliveryWorker | undefined;
  log: Logger;
  /** Set when shutdown begins: readiness fails so load balancers stop sending traffic. */
  state: { shuttingDown: boolean };
}

/** Answers waiting for, or taken by, the writer's flush at which it counts as saturated. */
const WRITER_SATURATED = 10;

export async function createDeps(config: Config, log: Logger, progress?: DatabaseProgress): Promise<AppDeps> {
  const database = await openDatabase({
    databaseUrl: config.DATABASE_URL,
    dataDir: resolveDataDir(config.DATA_DIR),
    poolSize: config.DATABASE_POOL_SIZE,
    progress,
  });
  try {
    const applied = await migrateToLatest(database.db, progress);
    if (applied.length > 0) log.info({ migrations: applied }, 'database migrated');
    const redis = config.REDIS_URL ? await connectRedis(config.REDIS_URL) : undefined;
    const invalidation: InvalidationBus = redis
      ? await RedisInvalidationBus.connect(redis)
      : new LocalInvalidationBus();
    const authenticator = new Authenticator(database.db);
    // A key revoked or rotated in any process (API or CLI) drops every cached credential here.
    invalidation.subscribe(CREDENTIALS_TOPIC, () => authenticator.invalidate());
    const pollCache = new PollCache(invalidation);
    const events = new DomainEvents((error, event) =>
      log.error({ err: error, event: event.type }, 'a domain-event subscriber failed'),
    );
    const media = createMediaDeps(config);
    const joinUrl = (pin: string) => liveJoinUrl(config, media.port(), pin);
    const liveHub = new LiveHub({ db: database.db, pollCache, bus: invalidation, events, log, joinUrl });
    const secretSealer = await webhookSecretSealer(database.db, config.WEBHOOK_SECRETS_KEY);
    // One flush at a time: every flush of a live poll updates the same counter rows, so parallel
    // flushes only queue on each other's row locks (measured: 6.4k votes/s with one, 4.8k with
    // two, 2.7k with eight — server/bench/RESULTS.md). Waiting answers form the next, bigger batch.
    const answerWriter = new AnswerWriter(database.db, {
      maxConcurrentFlushes: 1,
      inProcessDatabase: database.driver === 'pglite',
    });
    const webhookWorker = config.WEBHOOK_DELIVERY
      ? createWebhookWorker(config, database.db, secretSealer, log, {
          inProcessDatabase: database.driver === 'pglite',
          // The writer is saturated: deliveries give way to answers (delivery-worker.ts).
          busy: () => answerWriter.saturated(WRITER_SATURATED),
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
      rateLimits: redis ? new RedisRateLimitStore(redis) : new MemoryRateLimitStore(),
      invalidation,
      pollCache,
      events,
      liveHub,
      joinUrl,
      answerWriter,
      media,
      // Set when a provider key is configured (OPENAI_API_KEY); without it the rules draft alone.
      branchDrafter: branchDrafterOf(config),
      secretSealer,
      webhookWorker,
      log,
      state: { shuttingDown: false },
    };
  } catch (error) {
    await database.close();
    throw error;
  }
}

function createWebhookWorker(
  config: Config,
  db: Kysely<Database>,
  secretSealer: SecretSealer,
  log: Logger,
  options: { inProcessDatabase: boolean; busy: () => boolean },
): WebhookDeliveryWorker {
  const sender = new WebhookSender({
    timeoutMs: config.WEBHOOK_TIMEOUT_MS,
    allowHttp: config.WEBHOOK_ALLOW_HTTP,
    allowLoopback: config.WEBHOOK_ALLOW_LOOPBACK,
    excerptBytes: webhookLimits.responseExcerptBytes,
    maxSocketsPerHost: config.WEBHOOK_ENDPOINT_CONCURRENCY,
  });
  return new WebhookDeliveryWorker(
    { db, sender, secretSealer, log, busy: options.busy },
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

async function connectRedis(url: string): Promise<Redis> {
  // Loaded only when REDIS_URL is set: ~0.1 s of every start otherwise.
  const { Redis } = await import('ioredis');
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 2, enableOfflineQueue: true });
  await redis.connect();
  await redis.ping();
  return redis;
}

export async function closeDeps(deps: AppDeps): Promise<void> {
  deps.liveHub.closeAll();
  await deps.answerWriter.drained();
  await deps.webhookWorker?.stop();
  await deps.rateLimits.close();
  await deps.media.storage.close();
  await deps.invalidation.close();
  await deps.redis?.quit();
  await deps.database.close();
}
