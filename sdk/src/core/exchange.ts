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
}

/** A response read to its end within the attempt's timeout. */
interface ReadResponse {
  status: number;
  ok: boolean;
  headers: Headers;
  text: string;
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
  // Called detached, so a user's fetch is not invoked with `this` set to the config.
  const fetchImpl = config.fetch;
  try {
    const response = await fetchImpl(prepared.url, {
      method: prepared.method,
      headers: prepared.headers,
      ...(prepared.body === undefined ? {} : { body: prepared.body }),
      signal: controller.signal,
    });
    const text = await response.text();
    log(config, 'info', 'pollkit response', {
      ...record,
      status: response.status,
      durationMs: Math.round(performance.now() - started),
      requestId: response.headers.get('x-request-id') ?? undefined,
    });
    return { status: response.status, ok: response.ok, headers: response.headers, text };
  } catch (error) {
    if (signal?.aborted) throw signal.reason;
    if (timedOut) {
      throw new TimeoutError(
        `No complete answer from the Pollkit API within ${attempt.timeout} ms (${prepared.method} ${prepared.url})`,
      );
    }
    throw new ConnectionError(`Could not reach the Pollkit API at ${config.apiUrl}: ${rootCause(error)}`, error);
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', onAbort);
  }
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
  let value: unknown;
  // A CSV download (`client.results.export()`) and an SVG image (`client.sessions.qrCode()`) are
  // returned as the document's text.
  if (route.format === 'csv' || route.format === 'svg') value = response.text;
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
