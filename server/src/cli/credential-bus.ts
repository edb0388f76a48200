import { parseConfig } from '../config.js';
import { type InvalidationBus, LocalInvalidationBus, RedisInvalidationBus } from '../infra/invalidation.js';
import { RedisConnection } from '../infra/redis.js';

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
  // One attempt (reconnect: false): an operator waiting on a command is better told than kept waiting.
  const quiet = { warn: () => {}, info: () => {} };
  let redis: RedisConnection | undefined;
  try {
    redis = await RedisConnection.open({ url: REDIS_URL, name: 'cli', log: quiet, reconnect: false });
    const connection = redis;
    const invalidation = await RedisInvalidationBus.connect(connection, quiet);
    return {
      invalidation,
      reachesServers: true,
      async close() {
        await invalidation.close();
        await connection.close();
      },
    };
  } catch (error) {
    await redis?.close();
    warn(
      `warning: cannot reach Redis (${error instanceof Error ? error.message : String(error)}); ` +
        'running servers apply the change when their credential cache lapses',
    );
    return local();
  }
}
