// One exchange with the API: send a prepared request once, read the whole response within the
// attempt's timeout, and turn it into a value or the PollkitError of its status.
import { validationDetails } from '@pollkit/contracts';
import { ConnectionError, PollkitError, type PollkitErrorDetails, TimeoutError } from './errors.js';
import { log, redactedHeaders } from './request-log.js';
import type { CallableRoute, PreparedRequest, RequestConfig, RequestLogRecord } from './request-options.js';

/** undici reports every network failure as `TypeError: fetch failed`; the reason is its cause. */
export function rootCause(error: unknown): string {
  let current = error;
  while (current instanceof Error && current.cause instanceof Error) current = current.cause;
  return current instanceof Error ? current.message : String(error);
}

interface Attempt {
  number: number;
  timeout: number;
  signal: AbortSignal | undefined;
  /** Hand a 2xx body over as a stream instead of reading it (a download's `stream: true`). */
  stream?: boolean | undefined;
}

/** A response read to its end within the attempt's timeout, or, streamed, a 2xx whose body is `body`. */
interface ReadResponse {
  status: number;
  ok: boolean;
  headers: Headers;
  /** The whole body; empty when `body` streams it or `bytes` holds it. */
  text: string;
  body?: ReadableStream<Uint8Array> | undefined;
  /** A 2xx binary file (an XLSX workbook, a QTI package), read as bytes. */
  bytes?: Uint8Array | undefined;
}

/** Whether a successful response is a binary file: anything but text, JSON, XML or SVG. */
function isBinary(headers: Headers): boolean {
  const type = headers.get('content-type') ?? '';
  return type !== '' && !/^(text\/|application\/(json|xml)|image\/svg\+xml|[^;]*\+(json|xml))/i.test(type);
}

/**
 * Sends a prepared request once and reads the whole body, within `attempt.timeout`. No answer is a
 * {@link ConnectionError}, no answer in time a {@link TimeoutError}, and a caller's abort rejects
 * with the signal's reason.
 */
export async function sendOnce(
  config: RequestConfig,
  prepared: PreparedRequest,
  attempt: Attempt,
): Promise<ReadResponse> {
  const { signal } = attempt;
  signal?.throwIfAborted();
  // One controller for the caller's abort and the timeout, so either stops the exchange, body included.
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, attempt.timeout);
  const onAbort = () => controller.abort(signal?.reason);
  signal?.addEventListener('abort', onAbort, { once: true });

  const started = performance.now();
  const record: RequestLogRecord = { method: prepared.method, url: prepared.url, attempt: attempt.number };
  log(config, 'debug', 'pollkit request', { ...record, headers: redactedHeaders(prepared.headers) });
  const release = () => {
    clearTimeout(timer);
    signal?.removeEventListener('abort', onAbort);
  };
  const failureOf = (error: unknown, waitingFor: string) => {
    if (signal?.aborted) return signal.reason;
    if (timedOut) {
      return new TimeoutError(
        `No ${waitingFor} from the Pollkit API within ${attempt.timeout} ms (${prepared.method} ${prepared.url})`,
      );
    }
    return new ConnectionError(`Could not reach the Pollkit API at ${config.apiUrl}: ${rootCause(error)}`, error);
  };
  let handedOver = false;
  // Called detached, so a user's fetch is not invoked with `this` set to the config.
  const fetchImpl = config.fetch;
  try {
    const response = await fetchImpl(prepared.url, {
      method: prepared.method,
      headers: prepared.headers,
      ...(prepared.body === undefined ? {} : { body: prepared.body }),
      signal: controller.signal,
    });
    const logResponse = () =>
      log(config, 'info', 'pollkit response', {
        ...record,
        status: response.status,
        durationMs: Math.round(performance.now() - started),
        requestId: response.headers.get('x-request-id') ?? undefined,
      });
    if (attempt.stream && response.ok && response.body) {
      logResponse();
      clearTimeout(timer);
      handedOver = true;
      const body = watchedBody(response.body, {
        idleMs: attempt.timeout,
        onIdle: () => {
          timedOut = true;
          controller.abort();
        },
        failureOf: (error) => failureOf(error, 'further data'),
        release,
      });
      return { status: response.status, ok: true, headers: response.headers, text: '', body };
    }
    if (response.ok && isBinary(response.headers)) {
      const bytes = new Uint8Array(await response.arrayBuffer());
      logResponse();
      return { status: response.status, ok: true, headers: response.headers, text: '', bytes };
    }
    const text = await response.text();
    logResponse();
    return { status: response.status, ok: response.ok, headers: response.headers, text };
  } catch (error) {
    throw failureOf(error, 'complete answer');
  } finally {
    if (!handedOver) release();
  }
}

/**
 * A streamed body as the caller reads it: each wait for the next chunk is bounded by `idleMs` (a
 * reader that stops asking is not timed), a failure errors the stream with the SDK's error of it,
 * and the end, an error or a cancel releases the exchange's timer and abort listener.
 */
function watchedBody(
  body: ReadableStream<Uint8Array>,
  watch: { idleMs: number; onIdle: () => void; failureOf: (error: unknown) => unknown; release: () => void },
): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  let idle: ReturnType<typeof setTimeout> | undefined;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        idle = setTimeout(watch.onIdle, watch.idleMs);
        try {
          const { done, value } = await reader.read();
          clearTimeout(idle);
          if (done) {
            watch.release();
            controller.close();
          } else {
            controller.enqueue(value);
          }
        } catch (error) {
          clearTimeout(idle);
          watch.release();
          controller.error(watch.failureOf(error));
        }
      },
      async cancel(reason) {
        clearTimeout(idle);
        watch.release();
        await reader.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
}

/** The value of a 2xx response; any other status becomes the {@link PollkitError} of its family. */
export function interpretResponse(route: CallableRoute, response: ReadResponse, validate: boolean): unknown {
  if (!response.ok)
    throw PollkitError.from({ status: response.status, headers: response.headers, text: response.text });
  const invalid = (message: string, details?: PollkitErrorDetails, cause?: unknown) =>
    new PollkitError({
      status: response.status,
      code: 'invalid_response',
      message,
      details,
      headers: response.headers,
      body: response.text,
      response: { status: response.status, headers: response.headers, text: response.text },
      cause,
    });
  // A streamed download (`stream: true`) is the body itself: nothing to parse or validate.
  if (response.body) return response.body;
  // A binary download (`client.results.export({ format: 'xlsx' })`) is its bytes.
  if (response.bytes) return response.bytes;
  let value: unknown;
  // A text download (`client.results.export()`, `client.polls.exportDeck()`) and an SVG image
  // (`client.sessions.qrCode()`) are returned as the document's text.
  if (route.format === 'file' || route.format === 'svg') value = response.text;
  else if (response.status === 204 || response.text === '') value = undefined;
  else {
    try {
      value = JSON.parse(response.text);
    } catch (cause) {
      throw invalid(`Expected a JSON body in the ${response.status} response`, undefined, cause);
    }
  }
  // A route of the schema-free table has nothing to validate against.
  if (!validate || route.output === undefined) return value;
  // An SVG route's output schema describes the image, not its markup (the QR code's schema is the
  // URL it encodes): check that an SVG document arrived.
  if (route.format === 'svg') {
    if (!/<svg[\s>]/.test(response.text)) {
      throw invalid(`The ${response.status} response of ${route.method} ${route.path} is not an SVG document`);
    }
    return value;
  }
  const parsed = route.output.safeParse(value);
  if (!parsed.success) {
    throw invalid(
      `The ${response.status} response of ${route.method} ${route.path} does not match its schema`,
      validationDetails(parsed.error.issues),
      parsed.error,
    );
  }
  return parsed.data;
}
