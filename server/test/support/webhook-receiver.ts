import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebhookEvent } from '@pollkit/contracts';
import { Webhook } from 'standardwebhooks';

/** One request the receiver got, and what the independent Standard Webhooks library made of it. */
export interface ReceivedDelivery {
  id: string;
  timestamp: string;
  signature: string;
  body: string;
  /** `verify` of the `standardwebhooks` package with the endpoint's secret(s) passed. */
  verified: boolean;
  /** The body parsed against the contract's WebhookEvent schema (undefined if it does not parse). */
  event: WebhookEvent | undefined;
  /** The status the receiver answered; null when `respond` said `'no answer'`. */
  answered: number | null;
  receivedAt: number;
  /** The sender's end of the connection (its local port), to tell which process sent it. */
  remotePort: number;
}

/** What `respond` may say: a status, or `'no answer'` (the request is left hanging until the sender gives up). */
export type ReceiverAnswer = number | 'no answer';

/**
 * A webhook receiver on 127.0.0.1: the stand-in for a customer's endpoint. It verifies every
 * request with the `standardwebhooks` npm package (an implementation independent of ours) against
 * `secrets` (set once the endpoint exists), checks the body against the contract, and answers what
 * `respond` says (200 by default).
 */
export class WebhookReceiver {
  readonly received: ReceivedDelivery[] = [];
  secrets: string[] = [];
  respond: (
    delivery: Omit<ReceivedDelivery, 'answered' | 'receivedAt' | 'remotePort'>,
    count: number,
  ) => ReceiverAnswer = () => 200;
  /** How long to wait before answering a request to `path` (a slow receiver); 0 by default. */
  delayMs: (path: string) => number = () => 0;
  /** Called as each new connection is accepted, with the sender's port, while the sender still holds it. */
  onConnection: ((remotePort: number) => void) | undefined;
  readonly #server: http.Server;
  readonly #waiters: Array<{ check: () => boolean; resolve: () => void }> = [];
  readonly #counts = new Map<string, number>();

  private constructor() {
    this.#server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        const headers = {
          'webhook-id': String(req.headers['webhook-id'] ?? ''),
          'webhook-timestamp': String(req.headers['webhook-timestamp'] ?? ''),
          'webhook-signature': String(req.headers['webhook-signature'] ?? ''),
        };
        const verified = this.secrets.some((secret) => {
          try {
            new Webhook(secret).verify(body, headers);
            return true;
          } catch {
            return false;
          }
        });
        let event: WebhookEvent | undefined;
        try {
          const parsed = WebhookEvent.safeParse(JSON.parse(body));
          event = parsed.success ? parsed.data : undefined;
        } catch {
          event = undefined;
        }
        const delivery = {
          id: headers['webhook-id'],
          timestamp: headers['webhook-timestamp'],
          signature: headers['webhook-signature'],
          body,
          verified,
          event,
        };
        const count = (this.#counts.get(delivery.id) ?? 0) + 1;
        this.#counts.set(delivery.id, count);
        const reply = () => {
          const answer = this.respond(delivery, count);
          const answered = answer === 'no answer' ? null : answer;
          this.received.push({ ...delivery, answered, receivedAt: Date.now(), remotePort: req.socket.remotePort ?? 0 });
          if (answered !== null) {
            res
              .writeHead(answered, { 'content-type': 'text/plain' })
              .end(answered < 300 ? 'ok' : `refused with ${answered}`);
          }
          this.#wake();
        };
        const delay = this.delayMs(req.url ?? '/');
        if (delay > 0) setTimeout(reply, delay);
        else reply();
      });
    });
    this.#server.on('connection', (socket) => this.onConnection?.(socket.remotePort ?? 0));
  }

  static async start(): Promise<WebhookReceiver> {
    const receiver = new WebhookReceiver();
    await new Promise<void>((resolve) => receiver.#server.listen(0, '127.0.0.1', resolve));
    return receiver;
  }

  get port(): number {
    return (this.#server.address() as AddressInfo).port;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}/hooks`;
  }

  /** A URL of its own per test (a path under this receiver), so one test's deliveries are told from another's. */
  urlFor(name: string): string {
    return this.url.replace('/hooks', `/hooks/${name}`);
  }

  /** Deliveries of one event type, in the order they arrived. */
  ofType(type: string): ReceivedDelivery[] {
    return this.received.filter((delivery) => delivery.event?.type === type);
  }

  /** Resolves once `check` holds after a delivery (or now); fails after `timeoutMs`. */
  waitFor(check: () => boolean, timeoutMs = 20_000, what = 'webhook deliveries'): Promise<void> {
    if (check()) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        const index = this.#waiters.findIndex((waiter) => waiter.resolve === done);
        if (index >= 0) this.#waiters.splice(index, 1);
        reject(new Error(`Timed out waiting for ${what} (received ${this.received.length})`));
      }, timeoutMs);
      const done = () => {
        clearTimeout(timer);
        resolve();
      };
      this.#waiters.push({ check, resolve: done });
    });
  }

  #wake(): void {
    for (const waiter of [...this.#waiters]) {
      if (waiter.check()) {
        this.#waiters.splice(this.#waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
    }
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}
