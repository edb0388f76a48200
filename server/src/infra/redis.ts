import type { Redis, RedisOptions } from 'ioredis';
import type { Logger } from 'pino';

/**
 * Every connection to Redis is made here, and only here (`pnpm layers` refuses `ioredis` anywhere
 * else in server/src), so that each one is made the same safe way:
 *
 * - **Its `error` events are handled**: a refused or dropped connection is logged once per outage
 *   (with how long it lasted once it is back), never printed by ioredis as an unhandled error.
 * - **Nothing waits on Redis that is not there.** While the connection is not ready, a command
 *   fails at once (`enableOfflineQueue: false`) rather than queueing until a reconnect or a
 *   timeout; callers check `ready` first and do without. A command sent on a connection that looks
 *   ready but does not answer (a stopped or cut-off server) fails after `COMMAND_TIMEOUT_MS`.
 * - **It comes back by itself**: ioredis reconnects every second at most, and `onReady` tells the
 *   owners, who catch up on what they missed meanwhile (infra/invalidation.ts).
 */

/** How long a connection attempt may take before it counts as failed and is retried. */
const CONNECT_TIMEOUT_MS = 2_000;
/** How long one command may wait for its answer on a connection that seems up. */
const COMMAND_TIMEOUT_MS = 1_000;
/** The longest pause between reconnection attempts. */
const MAX_RECONNECT_DELAY_MS = 1_000;

export interface RedisConnectionOptions {
  /** `redis://…` */
  url: string;
  /** Names the connection in logs: `commands`, `subscriber`, … */
  name: string;
  log: Pick<Logger, 'warn' | 'info'>;
  /**
   * Keep reconnecting forever (a server), or give up after the first failure (the CLI: an operator
   * waiting on a command is better told at once).
   */
  reconnect?: boolean;
}

export class RedisConnection {
  readonly client: Redis;
  readonly #options: RedisConnectionOptions;
  readonly #readyHandlers = new Set<() => void>();
  /** When the current outage began (ms since the epoch); undefined while connected. */
  #downSince: number | undefined;
  #everReady = false;
  #closing = false;

  private constructor(client: Redis, options: RedisConnectionOptions) {
    this.client = client;
    this.#options = options;
    client.on('error', (error: Error) => this.#down(error));
    client.on('close', () => this.#down(undefined));
    client.on('ready', () => {
      const first = !this.#everReady;
      this.#everReady = true;
      if (this.#downSince !== undefined) {
        const seconds = ((Date.now() - this.#downSince) / 1000).toFixed(1);
        this.#downSince = undefined;
        if (!first) this.#options.log.info({ redis: this.#options.name, seconds }, 'Redis reachable again');
        else this.#options.log.info({ redis: this.#options.name }, 'Redis connected');
      }
      for (const handler of this.#readyHandlers) handler();
    });
  }

  /**
   * Connects, waiting for the first connection at most CONNECT_TIMEOUT_MS. A server whose Redis is
   * away at start serves anyway (degraded: see `ready`) and connects when it can.
   */
  static async open(options: RedisConnectionOptions): Promise<RedisConnection> {
    // Loaded only when REDIS_URL is set: ~0.1 s of every start otherwise.
    const { Redis } = await import('ioredis');
    const connection = new RedisConnection(new Redis(options.url, clientOptions(options)), options);
    await connection.#connect();
    return connection;
  }

  /** A second connection to the same server, made the same way (a subscriber needs one of its own). */
  async duplicate(name: string): Promise<RedisConnection> {
    const options = { ...this.#options, name };
    const connection = new RedisConnection(this.client.duplicate(clientOptions(options)), options);
    await connection.#connect();
    return connection;
  }

  /** Connected and past Redis's ready check: commands can be sent. */
  get ready(): boolean {
    return this.client.status === 'ready';
  }

  /** Called now if the connection is ready, then on every connection made after an outage. */
  onReady(handler: () => void): void {
    this.#readyHandlers.add(handler);
    if (this.ready) handler();
  }

  async close(): Promise<void> {
    this.#closing = true;
    this.#readyHandlers.clear();
    if (this.ready) {
      // QUIT waits for Redis to answer; a Redis that does not is cut off instead.
      const quit = this.client.quit().catch(() => undefined);
      const timeout = new Promise((resolve) => setTimeout(resolve, COMMAND_TIMEOUT_MS).unref());
      await Promise.race([quit, timeout]);
    }
    this.client.disconnect();
  }

  async #connect(): Promise<void> {
    try {
      await this.client.connect();
    } catch (error) {
      // Logged by the error handler; ioredis goes on reconnecting (unless told not to).
      if (this.#options.reconnect === false) throw error;
    }
  }

  #down(error: Error | undefined): void {
    if (this.#closing || this.#downSince !== undefined) return;
    this.#downSince = Date.now();
    if (error === undefined && !this.#everReady) return;
    this.#options.log.warn(
      { redis: this.#options.name, reason: error?.message ?? 'connection closed' },
      'Redis unreachable; reconnecting',
    );
  }
}

function clientOptions(options: RedisConnectionOptions): RedisOptions {
  return {
    lazyConnect: true,
    connectTimeout: CONNECT_TIMEOUT_MS,
    commandTimeout: COMMAND_TIMEOUT_MS,
    // While not connected, fail at once; a command in flight when the connection drops fails then
    // too, instead of being sent again after a reconnect that may be a long way off.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    retryStrategy: options.reconnect === false ? () => null : (times) => Math.min(times * 100, MAX_RECONNECT_DELAY_MS),
  };
}
