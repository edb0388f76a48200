import { Redis } from 'ioredis';
import { parseConfig } from '../config.js';
import { type InvalidationBus, LocalInvalidationBus, RedisInvalidationBus } from '../infra/invalidation.js';

/**
 * How the CLI tells running servers that a key changed. The CLI is a process of its own, so an
 * in-process bus reaches no server: with REDIS_URL set (the servers' Redis) it publishes on the
 * same channel as they do and they drop their cached credentials within a second; without it, or
 * when Redis cannot be reached, servers notice when their cache entry lapses (5 seconds).
 */
export interface CredentialBus {
  invalidation: InvalidationBus;
  /** Whether running servers hear of the change at once. */
  reachesServers: boolean;
  close(): Promise<void>;
}

const REDIS_CONNECT_TIMEOUT_MS = 2_000;

export async function openCredentialBus(
  env: Record<string, string | undefined>,
  warn: (message: string) => void,
): Promise<CredentialBus> {
  const { REDIS_URL } = parseConfig(env);
  const local = (): CredentialBus => {
    const invalidation = new LocalInvalidationBus();
    return { invalidation, reachesServers: false, close: () => invalidation.close() };
  };
  if (!REDIS_URL) return local();
  const redis = new Redis(REDIS_URL, {
    lazyConnect: true,
    connectTimeout: REDIS_CONNECT_TIMEOUT_MS,
    maxRetriesPerRequest: 1,
    // One attempt: an operator waiting on a command is better told than kept retrying.
    retryStrategy: () => null,
  });
  try {
    await redis.connect();
    const invalidation = await RedisInvalidationBus.connect(redis);
    return {
      invalidation,
      reachesServers: true,
      async close() {
        await invalidation.close();
        await redis.quit();
      },
    };
  } catch (error) {
    redis.disconnect();
    warn(
      `warning: cannot reach Redis (${error instanceof Error ? error.message : String(error)}); ` +
        'running servers apply the change when their credential cache lapses',
    );
    return local();
  }
}
