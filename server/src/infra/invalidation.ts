import { EventEmitter } from 'node:events';
import type { Logger } from 'pino';
import type { RedisConnection } from './redis.js';

/**
 * Tells every process that a cached thing changed. In one process it is an event emitter; with
 * Redis it is a pub/sub channel, so a write in process A evicts the entry in process B within
 * milliseconds (the caches' short TTL bounds staleness if a message is ever lost).
 */
export interface InvalidationBus {
  publish(topic: string, key: string): Promise<void>;
  subscribe(topic: string, handler: (key: string) => void): void;
  /**
   * Called when the bus carries messages between processes again after it could not (Redis came
   * back): whatever was published meanwhile was lost, so each cache drops what it holds and each
   * live channel re-reads the database. Never called for the in-process bus, which loses nothing.
   */
  onReconnect(handler: () => void): void;
  close(): Promise<void>;
}

export class LocalInvalidationBus implements InvalidationBus {
  readonly #events = new EventEmitter();

  async publish(topic: string, key: string): Promise<void> {
    this.#events.emit(topic, key);
  }

  subscribe(topic: string, handler: (key: string) => void): void {
    this.#events.on(topic, handler);
  }

  onReconnect(): void {}

  async close(): Promise<void> {
    this.#events.removeAllListeners();
  }
}

const CHANNEL = 'pollkit:invalidate';
/**
 * Published by a process whose own messages could not be sent while its connection was down, once
 * it is back: its subscribers may never have lost their connection, so they would not know to catch up.
 */
const RESYNC = '* resync';

/**
 * Redis pub/sub. Publishing evicts in this process at once, then tells the others; while Redis is
 * away only the first half happens — live sessions and caches keep working within each process —
 * and when it returns every process catches up (`onReconnect`): its subscriber re-subscribes, then
 * the handlers run, since messages published in between were lost.
 */
export class RedisInvalidationBus implements InvalidationBus {
  readonly #local = new LocalInvalidationBus();
  readonly #reconnectHandlers = new Set<() => void>();
  /** Set when a message of ours could not be sent: the others need telling once we are back. */
  #lostPublishes = false;

  private constructor(
    private readonly publisher: RedisConnection,
    private readonly subscriber: RedisConnection,
    private readonly log: Pick<Logger, 'warn'>,
  ) {
    subscriber.client.on('message', (_channel: string, message: string) => {
      if (message === RESYNC) {
        this.#reconnected();
        return;
      }
      const separator = message.indexOf(' ');
      if (separator > 0) void this.#local.publish(message.slice(0, separator), message.slice(separator + 1));
    });
    // Connections made after this constructor (not the one it may start with) follow a time when
    // messages could be lost: an outage, or a start without Redis.
    let constructing = true;
    subscriber.onReady(() => {
      const catchUp = !constructing;
      // Subscribing again is harmless, and a subscriber whose first connection failed at start-up
      // has never subscribed at all. Catch-up runs once the subscription is in place, so nothing
      // published after the re-read can be missed.
      subscriber.client.subscribe(CHANNEL).then(
        () => {
          if (catchUp) this.#reconnected();
        },
        (error: unknown) => this.log.warn({ err: error }, 'could not subscribe to the invalidation channel'),
      );
    });
    publisher.onReady(() => {
      if (!this.#lostPublishes) return;
      this.#lostPublishes = false;
      publisher.client.publish(CHANNEL, RESYNC).catch(() => {
        this.#lostPublishes = true;
      });
    });
    constructing = false;
  }

  /** A subscriber needs a connection of its own (Redis puts it in subscribe-only mode). */
  static async connect(publisher: RedisConnection, log: Pick<Logger, 'warn'>): Promise<RedisInvalidationBus> {
    const subscriber = await publisher.duplicate('subscriber');
    return new RedisInvalidationBus(publisher, subscriber, log);
  }

  async publish(topic: string, key: string): Promise<void> {
    // Evict here at once (read-your-writes in this process), then tell the others if Redis is there.
    await this.#local.publish(topic, key);
    if (!this.publisher.ready) {
      this.#lostPublishes = true;
      return;
    }
    try {
      await this.publisher.client.publish(CHANNEL, `${topic} ${key}`);
    } catch {
      // The connection went away under us: the others catch up when it is back (RESYNC).
      this.#lostPublishes = true;
    }
  }

  subscribe(topic: string, handler: (key: string) => void): void {
    this.#local.subscribe(topic, handler);
  }

  onReconnect(handler: () => void): void {
    this.#reconnectHandlers.add(handler);
  }

  #reconnected(): void {
    for (const handler of this.#reconnectHandlers) handler();
  }

  async close(): Promise<void> {
    this.#reconnectHandlers.clear();
    await this.#local.close();
    await this.subscriber.close();
  }
}
