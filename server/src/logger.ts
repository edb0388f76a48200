import { createRequire } from 'node:module';
import type { Writable } from 'node:stream';
import pino, { type Logger } from 'pino';

type LogFormat = 'json' | 'pretty';

export interface LoggerOptions {
  level: string;
  /** `auto`: `pretty` when `out` is a terminal, `json` otherwise. */
  format?: LogFormat | 'auto';
  /** Where the lines go: stdout unless a test says otherwise. */
  out?: Writable & { isTTY?: boolean };
  /** The most log text (characters) that may wait for `out` before lines are dropped. */
  maxBuffered?: number;
}

/** 4 MiB of waiting log text: minutes of access log at a quiet server, a few seconds at full load. */
const DEFAULT_MAX_BUFFERED = 4 * 1024 * 1024;

/** How long `logger.flush()` waits for the lines already written to leave the process. */
const FLUSH_TIMEOUT_MS = 2_000;

/**
 * One pino logger for the process. Credentials are redacted wherever they might be logged. Lines
 * go through a {@link BoundedOutput}: writing a log line never blocks the event loop, whoever reads
 * (or does not read) stdout.
 */
export function createLogger({
  level,
  format = 'auto',
  out = process.stdout,
  maxBuffered = DEFAULT_MAX_BUFFERED,
}: LoggerOptions): Logger {
  const pretty = format === 'pretty' || (format === 'auto' && out.isTTY === true);
  const output = new BoundedOutput(out, maxBuffered, pretty ? prettyFormatter() : undefined);
  const logger = pino(
    {
      level,
      redact: {
        paths: [
          'req.headers.authorization',
          'req.headers["x-host-token"]',
          'req.headers["x-participant-token"]',
          'headers.authorization',
          'headers["x-host-token"]',
          'headers["x-participant-token"]',
          'hostToken',
          '*.hostToken',
          'participantToken',
          '*.participantToken',
          'secret',
          '*.secret',
        ],
        censor: '[redacted]',
      },
    },
    output,
  );
  output.onDropsEnded = (droppedLines) =>
    logger.warn({ droppedLines }, 'stdout was not read for a while: log lines were dropped meanwhile');
  return logger;
}

/**
 * A pino destination that cannot freeze the process. pino's default writer writes each line
 * synchronously to fd 1: once the pipe behind stdout is full (its reader stopped reading), that
 * write waits — or spins on EAGAIN — forever, and with it the event loop: no request is answered and
 * SIGTERM is never handled. Here lines go to `process.stdout`, which on a pipe writes what the pipe
 * takes at once and queues the rest in memory without blocking. That queue is bounded: past
 * `maxBuffered` waiting characters, lines are dropped and counted, and once the queue has drained
 * one line says how many were lost. (A terminal stays synchronous, as Node makes it: one that is
 * paused with Ctrl-S holds the process, as any program writing to it.)
 */
class BoundedOutput {
  /** Called once the queue has drained after lines were dropped, with how many were. */
  onDropsEnded: ((droppedLines: number) => void) | undefined;
  #dropped = 0;
  #awaitingDrain = false;

  constructor(
    private readonly out: Writable,
    private readonly maxBuffered: number,
    private readonly format?: (line: string) => string,
  ) {}

  /** Lines dropped since the last report. */
  get dropped(): number {
    return this.#dropped;
  }

  write(line: string): boolean {
    if (brokenOutputs.has(this.out)) return true;
    if (this.out.writableLength + line.length > this.maxBuffered) {
      this.#dropped++;
      this.#awaitDrain();
      return true;
    }
    watchForErrors(this.out);
    this.out.write(this.format ? this.format(line) : line);
    return true;
  }

  /**
   * Calls `done` once what was written has left the process, or after FLUSH_TIMEOUT_MS if the
   * reader is not reading: before `process.exit`, which would discard the queue. pino's
   * `logger.flush(cb)` calls it.
   */
  flush(done: (error?: Error) => void = () => {}): void {
    this.#reportDrops();
    const deadline = Date.now() + FLUSH_TIMEOUT_MS;
    const check = () => {
      if (brokenOutputs.has(this.out) || this.out.writableLength === 0 || Date.now() >= deadline) done();
      else setTimeout(check, 10);
    };
    check();
  }

  /** Reports the drops once the reader has caught up: at once if it has, else on 'drain'. */
  #awaitDrain(): void {
    if (this.#awaitingDrain) return;
    this.#awaitingDrain = true;
    const report = () => {
      this.#awaitingDrain = false;
      this.#reportDrops();
    };
    // A write has returned false (the queue passed the stream's high-water mark): 'drain' comes
    // once it is empty. Otherwise the line dropped was merely too large for the room left.
    if (this.out.writableNeedDrain) this.out.once('drain', report);
    else setImmediate(report);
  }

  #reportDrops(): void {
    const dropped = this.#dropped;
    if (dropped === 0) return;
    if (this.out.writableNeedDrain) {
      this.#awaitDrain();
      return;
    }
    this.#dropped = 0;
    this.onDropsEnded?.(dropped);
  }
}

/** Outputs that failed (EPIPE once the reader has gone away): logging stops rather than the server. */
const brokenOutputs = new WeakSet<Writable>();
const watchedOutputs = new WeakSet<Writable>();

/** One error listener per stream, however many loggers share it (tests start many servers). */
function watchForErrors(out: Writable): void {
  if (watchedOutputs.has(out)) return;
  watchedOutputs.add(out);
  out.on('error', () => brokenOutputs.add(out));
}

/**
 * Human-readable lines for a terminal: pino-pretty's formatter called in-process, one line in, one
 * line out (no worker thread, no transport). Loaded only when asked for, so a JSON-logging server
 * never loads it.
 */
function prettyFormatter(): (line: string) => string {
  const { prettyFactory } = createRequire(import.meta.url)('pino-pretty') as typeof import('pino-pretty');
  return prettyFactory({ translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname', singleLine: true });
}

/** Waits (boundedly) for buffered log lines to be written; call before `process.exit`. */
export function flushLogs(log: Logger): Promise<void> {
  return new Promise((resolveFlush) => log.flush(() => resolveFlush()));
}
