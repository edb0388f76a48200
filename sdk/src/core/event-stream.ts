import { validationDetails } from '@pollkit/contracts';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { ConnectionError, PollkitError, type PollkitErrorDetails, TimeoutError } from './errors.js';
import { rootCause } from './exchange.js';
import { rejectedOAuthToken } from './oauth.js';
import { prepareRequest } from './prepare-request.js';
import { log, redactedHeaders } from './request-log.js';
import {
  type CallableRoute,
  checkCount,
  checkTimeout,
  type PreparedRequest,
  type RequestConfig,
  type RequestOptions,
} from './request-options.js';
import { backoffDelay, type RetryReason, retryReasonOf, sleep } from './retry.js';

/**
 * Options of one event stream (`client.sessions.events()`, `client.live.events()`, a presenter's or a
 * participant's `events()`), the optional last argument.
 *
 * The first connection is a call like any other: `timeout` bounds the wait for the response headers,
 * and a 429, a 5xx or a connection failure is retried up to `maxRetries` times before its error is
 * thrown. Once the stream has been open, a dropped connection (a network failure, no data for
 * `idleTimeout`, or the server closing the stream before the `ended` event) is reopened with the
 * `Last-Event-ID` of the last event received, so the server replays what was missed.
 */
export interface EventStreamOptions extends Omit<RequestOptions, 'idempotencyKey' | 'timeout'> {
  /**
   * Milliseconds each connection may take to answer (the status and headers, or a whole error
   * answer); overrides the client's `timeout`. The stream itself has no end in time: see `idleTimeout`.
   */
  timeout?: number | undefined;
  /**
   * Resume after this event id (sent as `Last-Event-ID` on the first connection): the events of the
   * session's history after it are replayed first. `stream.lastEventId` of an earlier stream fits.
   */
  lastEventId?: string | undefined;
  /**
   * Reconnections in a row, after the stream was open, that may fail before the stream gives up and
   * throws the last failure; a connection that delivered an event or a heartbeat starts the count
   * again. 10 by default.
   */
  maxReconnects?: number | undefined;
  /**
   * The ceiling of the wait between reconnections, in milliseconds; 30 000 by default. The wait starts
   * at the server's SSE `retry:` value (else the client's `retryBaseDelayMs`) and doubles.
   */
  reconnectMaxDelayMs?: number | undefined;
  /**
   * Milliseconds without a byte from the server (an event or a heartbeat) after which the connection
   * is taken for dropped and reopened; 45 000 by default. The server sends a heartbeat well within it.
   */
  idleTimeout?: number | undefined;
}

/**
 * A Server-Sent Events stream of a live session, read as an async iterator of typed events
 * `{ type, id?, data }`:
 *
 * ```ts
 * const events = client.sessions.events({ id });
 * for await (const event of events) {
 *   if (event.type === 'counts') console.log(event.data.participantCount);
 * }
 * ```
 *
 * Nothing is sent until the iteration starts. The stream reconnects by itself when the connection
 * drops (see {@link EventStreamOptions}), and finishes after the session's `ended` event. `break`
 * out of the loop, or call {@link close}, to stop listening: either closes the connection. A stream
 * is read once: after a `break`, a second loop over it finds it finished.
 *
 * An event of a type this SDK does not know (from a newer server) is yielded as it came, unless
 * `validateResponses` is on, which checks every event against the route's union.
 */
export interface EventStream<T> extends AsyncIterable<T> {
  /** The id of the last event received that had one; sent as `Last-Event-ID` when reconnecting. */
  readonly lastEventId: string | undefined;
  /** Stops the stream: closes the connection, and the iteration finishes without an error. */
  close(): void;
  [Symbol.asyncIterator](): AsyncIterator<T, void, undefined>;
}

const DEFAULT_MAX_RECONNECTS = 10;
const DEFAULT_RECONNECT_MAX_DELAY_MS = 30_000;
const DEFAULT_IDLE_TIMEOUT_MS = 45_000;
/** Characters of one event the parser may hold: far above any event of the API, a guard against a runaway stream. */
const MAX_EVENT_SIZE = 16 * 1024 * 1024;

/** An SSE event as the stream yields it (the route's output union, when the server keeps its contract). */
interface StreamEvent {
  type: string;
  id?: string | undefined;
  data: unknown;
}

interface StreamSettings {
  maxRetries: number;
  maxReconnects: number;
  reconnectMaxDelayMs: number;
  idleTimeout: number;
  timeout: number;
  validate: boolean;
}

/** One open connection: its response, and the controller that closes it. */
interface OpenConnection {
  response: Response;
  connection: AbortController;
}

function invalidStream(
  route: CallableRoute,
  response: Response,
  message: string,
  details?: PollkitErrorDetails,
  cause?: unknown,
) {
  return new PollkitError({
    status: response.status,
    code: 'invalid_response',
    message: `${route.method} ${route.path}: ${message}`,
    details,
    headers: response.headers,
    cause,
  });
}

class SseEventStream<T> implements EventStream<T> {
  readonly #config: RequestConfig;
  readonly #route: CallableRoute;
  readonly #input: unknown;
  readonly #options: EventStreamOptions;
  /** Aborted by `close()`, by the caller's signal, and when the iteration ends: stops every connection. */
  readonly #controller = new AbortController();
  readonly #iterator: AsyncGenerator<T, void, undefined>;
  #lastEventId: string | undefined;
  /** The server's SSE `retry:` value: the first wait before a reconnection. */
  #retryMs: number | undefined;
  #closed = false;
  /** Whether the current connection has delivered an event or a heartbeat: it was no failed reconnection. */
  #heard = false;

  constructor(config: RequestConfig, route: CallableRoute, input: unknown, options: EventStreamOptions) {
    this.#config = config;
    this.#route = route;
    this.#input = input;
    this.#options = options;
    this.#lastEventId = options.lastEventId;
    // A generator does nothing until its first `next()`: no connection before the iteration starts.
    this.#iterator = this.#run();
  }

  get lastEventId(): string | undefined {
    return this.#lastEventId;
  }

  get [Symbol.toStringTag](): string {
    return 'EventStream';
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#controller.abort();
    // Finishes an iterator paused at an event; one waiting for data finishes as its connection aborts.
    this.#iterator.return(undefined).catch(() => {});
  }

  [Symbol.asyncIterator](): AsyncGenerator<T, void, undefined> {
    return this.#iterator;
  }

  #settings(): StreamSettings {
    const config = this.#config;
    const options = this.#options;
    return {
      maxRetries: checkCount('maxRetries', options.maxRetries ?? config.maxRetries),
      maxReconnects: checkCount('maxReconnects', options.maxReconnects ?? DEFAULT_MAX_RECONNECTS),
      reconnectMaxDelayMs: checkCount(
        'reconnectMaxDelayMs',
        options.reconnectMaxDelayMs ?? DEFAULT_RECONNECT_MAX_DELAY_MS,
      ),
      idleTimeout: checkTimeout(options.idleTimeout ?? DEFAULT_IDLE_TIMEOUT_MS),
      timeout: checkTimeout(options.timeout ?? config.timeout),
      validate: options.validateResponse ?? config.validateResponses,
    };
  }

  async *#run(): AsyncGenerator<T, void, undefined> {
    const config = this.#config;
    const userSignal = this.#options.signal;
    const stopped = this.#controller.signal;
    const onUserAbort = () => this.#controller.abort(userSignal?.reason);
    userSignal?.addEventListener('abort', onUserAbort, { once: true });
    try {
      userSignal?.throwIfAborted();
      const settings = this.#settings();
      const prepared = prepareRequest(config, this.#route, this.#input, this.#options);
      const tokens = 'tokens' in config.credential ? config.credential.tokens : undefined;
      let opened = false;
      let failures = 0;
      let renewedToken = false;
      for (let number = 1; ; number++) {
        let accessToken: string | undefined;
        let failure: unknown;
        let reason: RetryReason | undefined;
        try {
          const headers = new Headers(prepared.headers);
          if (this.#lastEventId !== undefined) headers.set('last-event-id', this.#lastEventId);
          if (tokens) {
            accessToken = await tokens.token(config, stopped);
            headers.set('authorization', `Bearer ${accessToken}`);
          }
          this.#heard = false;
          const open = await this.#connect({ ...prepared, headers }, number, settings);
          // 204: the server has nothing to stream and asks not to reconnect.
          if (open === undefined) return;
          opened = true;
          for await (const event of this.#read(open, settings)) {
            yield event as T;
            if (event.type === 'ended') return;
          }
          failure = new ConnectionError('The event stream closed before the session ended');
          reason = 'connection_error';
        } catch (error) {
          if (this.#closed) return;
          if (userSignal?.aborted) throw userSignal.reason;
          if (!renewedToken && rejectedOAuthToken(error, tokens, accessToken)) {
            renewedToken = true;
            continue;
          }
          reason = retryReasonOf(error);
          if (reason === undefined) throw error;
          failure = error;
        }
        // A connection that delivered anything was a working one: the count of failures in a row restarts.
        if (this.#heard) failures = 0;
        if (failures >= (opened ? settings.maxReconnects : settings.maxRetries)) throw failure;
        const delay = backoffDelay(reason, failures++, {
          retryBaseDelayMs: this.#retryMs ?? config.retryBaseDelayMs,
          retryMaxDelayMs: opened ? settings.reconnectMaxDelayMs : config.retryMaxDelayMs,
          rateLimitMaxDelayMs: config.rateLimitMaxDelayMs,
        });
        log(config, 'warn', opened ? 'pollkit reconnect' : 'pollkit retry', {
          method: prepared.method,
          url: prepared.url,
          attempt: number,
          status: failure instanceof PollkitError ? failure.status : undefined,
          error: failure instanceof Error ? failure.message : String(failure),
          retryInMs: delay,
        });
        try {
          await sleep(delay, stopped);
        } catch (error) {
          if (this.#closed) return;
          throw userSignal?.aborted ? userSignal.reason : error;
        }
      }
    } finally {
      userSignal?.removeEventListener('abort', onUserAbort);
      this.#controller.abort();
    }
  }

  /**
   * Opens one connection and checks its answer: a 2xx `text/event-stream` response, `undefined` for a
   * 204, or the {@link PollkitError} of any other answer (read within `timeout`, like the headers).
   */
  async #connect(
    prepared: PreparedRequest,
    number: number,
    settings: StreamSettings,
  ): Promise<OpenConnection | undefined> {
    const config = this.#config;
    const connection = this.#connection();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      connection.abort();
    }, settings.timeout);
    const started = performance.now();
    const record = { method: prepared.method, url: prepared.url, attempt: number };
    log(config, 'debug', 'pollkit request', { ...record, headers: redactedHeaders(prepared.headers) });
    // Called detached, so a user's fetch is not invoked with `this` set to the config.
    const fetchImpl = config.fetch;
    let response: Response;
    try {
      response = await fetchImpl(prepared.url, {
        method: prepared.method,
        headers: prepared.headers,
        signal: connection.signal,
      });
      log(config, 'info', 'pollkit response', {
        ...record,
        status: response.status,
        durationMs: Math.round(performance.now() - started),
        requestId: response.headers.get('x-request-id') ?? undefined,
      });
      if (!response.ok) {
        const text = await response.text();
        throw PollkitError.from({ status: response.status, headers: response.headers, text });
      }
    } catch (error) {
      connection.abort();
      if (error instanceof PollkitError || this.#controller.signal.aborted) throw error;
      if (timedOut) {
        throw new TimeoutError(
          `No answer from the Pollkit API within ${settings.timeout} ms (${prepared.method} ${prepared.url})`,
        );
      }
      throw new ConnectionError(`Could not reach the Pollkit API at ${config.apiUrl}: ${rootCause(error)}`, error);
    } finally {
      clearTimeout(timer);
    }
    if (response.status === 204) {
      connection.abort();
      return undefined;
    }
    const contentType = response.headers.get('content-type') ?? '';
    if (!/^text\/event-stream\b/i.test(contentType) || response.body === null) {
      connection.abort();
      throw invalidStream(this.#route, response, `expected an event stream, got ${contentType || 'no content type'}`);
    }
    return { response, connection };
  }

  /** Each connection's own controller, so that dropping one (idle) does not stop the stream. */
  #connection(): AbortController {
    const connection = new AbortController();
    const stopped = this.#controller.signal;
    if (stopped.aborted) connection.abort(stopped.reason);
    // Removed once the connection is over (every path through #connect and #read aborts it), so
    // reconnections do not pile listeners up on the stream's signal.
    else stopped.addEventListener('abort', () => connection.abort(stopped.reason), { signal: connection.signal });
    return connection;
  }

  /**
   * The events of one open connection, until it ends. A read that fails, or waits `idleTimeout` for a
   * byte, is a {@link ConnectionError}; an event that is not JSON (or, validating, not of the route's
   * output schema) is an `invalid_response` error.
   */
  async *#read(
    { response, connection }: OpenConnection,
    settings: StreamSettings,
  ): AsyncGenerator<StreamEvent, void, undefined> {
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    const messages: EventSourceMessage[] = [];
    let overflow = false;
    const parser = createParser({
      onEvent: (message) => {
        this.#heard = true;
        messages.push(message);
      },
      onRetry: (ms) => {
        this.#retryMs = ms;
      },
      // Heartbeats are comments (`: ping`): no event, but a sign of a working connection.
      onComment: () => {
        this.#heard = true;
      },
      onError: (error) => {
        // Unknown fields and a malformed `retry:` are ignored, as the SSE spec says.
        if (error.type === 'max-buffer-size-exceeded') overflow = true;
      },
      maxBufferSize: MAX_EVENT_SIZE,
    });
    try {
      for (;;) {
        let idle = false;
        const timer = setTimeout(() => {
          idle = true;
          connection.abort();
        }, settings.idleTimeout);
        let chunk: Awaited<ReturnType<typeof reader.read>>;
        try {
          chunk = await reader.read();
        } catch (error) {
          if (this.#controller.signal.aborted) throw error;
          throw new ConnectionError(
            idle
              ? `No data on the event stream for ${settings.idleTimeout} ms`
              : `The event stream broke off: ${rootCause(error)}`,
            error,
          );
        } finally {
          clearTimeout(timer);
        }
        // An event cut off by the end of the stream is dropped, as the SSE spec says.
        if (chunk.done) return;
        parser.feed(decoder.decode(chunk.value, { stream: true }));
        if (overflow) throw invalidStream(this.#route, response, `an event exceeds ${MAX_EVENT_SIZE} characters`);
        while (messages.length > 0) yield this.#eventOf(response, messages.shift() as EventSourceMessage, settings);
      }
    } finally {
      connection.abort();
      reader.cancel().catch(() => {});
    }
  }

  #eventOf(response: Response, message: EventSourceMessage, settings: StreamSettings): StreamEvent {
    if (message.id !== undefined) this.#lastEventId = message.id;
    const type = message.event ?? 'message';
    let data: unknown;
    try {
      data = JSON.parse(message.data);
    } catch (cause) {
      throw invalidStream(this.#route, response, `the data of a "${type}" event is not JSON`, undefined, cause);
    }
    const event: StreamEvent = message.id === undefined ? { type, data } : { type, id: message.id, data };
    const schema = this.#route.output;
    if (!settings.validate || schema === undefined) return event;
    const parsed = schema.safeParse(event);
    if (!parsed.success) {
      throw invalidStream(
        this.#route,
        response,
        `a "${type}" event does not match its schema`,
        validationDetails(parsed.error.issues),
        parsed.error,
      );
    }
    return parsed.data as StreamEvent;
  }
}

/**
 * The stream of a `format: 'sse'` route: connects when the iteration starts, yields each event as
 * `{ type, id?, data }`, reconnects with `Last-Event-ID` when the connection drops, and finishes
 * after the `ended` event.
 */
export function openEventStream<T>(
  config: RequestConfig,
  route: CallableRoute,
  input: unknown,
  options: EventStreamOptions = {},
): EventStream<T> {
  return new SseEventStream<T>(config, route, input, options);
}
