import type { Logger } from 'pino';
import { isDependencyUnavailable } from '../../core/unavailable.js';
import { closeDueSessions, type SessionsDeps } from './sessions.service.js';

/**
 * Ends the sessions whose `closesAt` has come, on every process that runs the API: each looks every
 * SESSION_CLOSE_CHECK_MS (one indexed query: sessions_closing_idx), and the `end` itself is decided
 * under the session's row lock (sessions.service.ts closeDueSessions), so a session closes once,
 * whichever processes are alive, and still closes if the one that created it died. The answer path
 * refuses answers past `closesAt` meanwhile (live.service.ts), so the interval decides only how soon
 * the `ended` events and webhook go out.
 */
export class SessionCloser {
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<unknown> | undefined;
  #stopped = false;
  #unavailable = false;

  constructor(
    private readonly deps: SessionsDeps & { log: Pick<Logger, 'warn' | 'error' | 'info'> },
    private readonly intervalMs: number,
  ) {}

  start(): void {
    this.#schedule();
  }

  #schedule(): void {
    if (this.#stopped) return;
    this.#timer = setTimeout(() => {
      this.#running = this.tick().finally(() => {
        this.#running = undefined;
        this.#schedule();
      });
    }, this.intervalMs);
    this.#timer.unref();
  }

  /** One pass: ends what is due (tests call it to close at once). Never throws. */
  async tick(): Promise<number> {
    try {
      let total = 0;
      for (;;) {
        const ended = await closeDueSessions(this.deps);
        total += ended;
        if (ended === 0 || this.#stopped) break;
      }
      if (this.#unavailable) this.deps.log.info('session closer resumed');
      this.#unavailable = false;
      return total;
    } catch (error) {
      if (isDependencyUnavailable(error)) {
        if (!this.#unavailable)
          this.deps.log.warn({ reason: error.reason }, 'session closer paused: the database is unreachable');
        this.#unavailable = true;
      } else {
        this.deps.log.error({ err: error }, 'session closer failed');
      }
      return 0;
    }
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer) clearTimeout(this.#timer);
    await this.#running;
  }
}
