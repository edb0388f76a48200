import { EventEmitter } from 'node:events';
import type { Redis } from 'ioredis';

/**
 * Tells every process that a cached thing changed. In one process it is an event emitter; with
 * Redis it is a pub/sub channel, so a write in process A evicts the entry in process B within
 * milliseconds (the caches' short TTL bounds staleness if a message is ever lost).
 */
export interface InvalidationBus {
  publish(topic: string, key: string): Promise<void>;
  subscribe(topic: string, handler: (key: string) => void): void;
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

  async close(): Promise<void> {
    this.#events.removeAllListeners();
  }
}

const CHANNEL = 'pollkit:invalidate';

export class RedisInvalidationBus implements InvalidationBus {
  readonly #local = new LocalInvalidationBus();
  readonly #subscriber: Redis;

  private constructor(
    private readonly publisher: Redis,
    subscriber: Redis,
  ) {
    this.#subscriber = subscriber;
    subscriber.on('message', (_channel: string, message: string) => {
      const separator = message.indexOf(' ');
      if (separator > 0) void this.#local.publish(message.slice(0, separator), message.slice(separator + 1));
    });
  }

  /** A subscriber needs a connection of its own (Redis puts it in subscribe-only mode). */
  static async connect(publisher: Redis): Promise<RedisInvalidationBus> {
    const subscriber = publisher.duplicate();
    await subscriber.subscribe(CHANNEL);
    return new RedisInvalidationBus(publisher, subscriber);
  }

  async publish(topic: string, key: string): Promise<void> {
    // Evict here at once (read-your-writes in this process), then tell the others.
    await this.#local.publish(topic, key);
    await this.publisher.publish(CHANNEL, `${topic} ${key}`);
  }

  subscribe(topic: string, handler: (key: string) => void): void {
    this.#local.subscribe(topic, handler);
  }

  async close(): Promise<void> {
    await this.#local.close();
    await this.#subscriber.quit();
  }
}
