import { inputInQuery, pathParams, type RouteDefinition, type RouteHead, validationDetails } from '@pollkit/contracts';
import type { z } from 'zod';
import {
  AuthenticationError,
  ConnectionError,
  PollkitError,
  type PollkitErrorDetails,
  TimeoutError,
} from './errors.js';
import { type BackoffOptions, backoffDelay, retryReasonOf, sleep } from './retry.js';

/**
 * What a call needs of a route: its HTTP shape, and its output schema when responses are to be
 * validated. A `RouteDefinition` of the contract is one; so is an entry of the schema-free
 * `routeTable`, which `@pollkit/sdk/live` calls with so that browsers are not sent zod.
 */
export type CallableRoute = RouteHead & { readonly output?: z.ZodType };

/** Header values accepted wherever the SDK takes headers. */
export type HeadersLike = Headers | Record<string, string>;

/** The subset of `fetch` the SDK calls; the global `fetch` and undici's both fit. */
export type FetchLike = (url: string, init: RequestInit) => Promise<Response>;

/** Options of one call, the optional last argument of every client method. */
export interface RequestOptions {
  /**
   * Aborts the call, in flight or between retries; the promise then rejects with the signal's reason
   * (an `AbortError` by default). An aborted call is never retried.
   */
  signal?: AbortSignal;
  /** Extra headers for this call; they override the client's `headers`. `Authorization` cannot be overridden. */
  headers?: HeadersLike;
  /** Milliseconds each attempt may take, response body included; overrides the client's `timeout`. */
  timeout?: number;
  /** Retries after a 429, a 5xx or a connection failure; overrides the client's `maxRetries`. */
  maxRetries?: number;
  /** The `Idempotency-Key` of a POST; by default a random UUID per call, the same across its retries. */
  idempotencyKey?: string;
  /** Check the response against the route's output schema; overrides the client's `validateResponses`. */
  validateResponse?: boolean;
}

/** What the SDK reports of one exchange to a {@link PollkitLogger}. Never the API key. */
export interface RequestLogRecord {
  method: string;
  url: string;
  /** 1 for the first try, 2 for the first retry… */
  attempt: number;
  /** Request headers, with `Authorization` redacted. */
  headers?: Record<string, string>;
  /** The HTTP status; absent when no response arrived. */
  status?: number;
  /** Milliseconds from sending to the end of the response body (or the failure). */
  durationMs?: number;
  /** The server's `x-request-id`. */
  requestId?: string;
  /** Why the attempt failed, when it did. */
  error?: string;
  /** On a retry: how long the SDK waits before it. */
  retryInMs?: number;
}

/**
 * Where the SDK reports its traffic; `console` fits. `debug`: each request as sent; `info`: each
 * response; `warn`: each failed attempt about to be retried. Every method is optional.
 */
export interface PollkitLogger {
  debug?(message: string, record: RequestLogRecord): void;
  info?(message: string, record: RequestLogRecord): void;
  warn?(message: string, record: RequestLogRecord): void;
}

/**
 * Where a client's OAuth access tokens come from (`ClientCredentialsTokens`): a valid token for each
 * attempt, and a way to drop one the API has rejected.
 */
export interface AccessTokenSource {
  /** A token valid for a while yet: the cached one, or a new one when none is cached or it is about to expire. */
  token(config: RequestConfig, signal: AbortSignal | undefined): Promise<string>;
  /** Forgets `accessToken` after the API answered `invalid_oauth_token` to it, so the next `token()` asks for another. */
  reject(accessToken: string): void;
}

/**
 * How a client proves who it is: an API key sent as is, OAuth access tokens obtained per attempt, or
 * nothing in `Authorization` (a presenter device or a participant: their token travels in the
 * config's `headers`, as `X-Host-Token` or `X-Participant-Token`).
 */
export type Credential = { readonly apiKey: string } | { readonly tokens: AccessTokenSource } | { readonly none: true };

/** What every request of one client shares. The credential lives here and nowhere else. */
export interface RequestConfig extends BackoffOptions {
  /** The API root, `<origin>[/prefix]/api/v1`, without a trailing slash. */
  readonly apiUrl: string;
  readonly credential: Credential;
  readonly fetch: FetchLike;
  readonly headers: HeadersLike | undefined;
  /** Milliseconds each attempt may take. */
  readonly timeout: number;
  readonly maxRetries: number;
  readonly validateResponses: boolean;
  readonly logger: PollkitLogger | undefined;
}

/** One HTTP request, fully built: a retry sends the same one again. */
export interface PreparedRequest {
  readonly method: RouteDefinition['method'];
  readonly url: string;
  readonly headers: Headers;
  readonly body: string | undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `{id}` -> its percent-encoded value; refuses values that would change which route is called. */
function pathSegment(route: CallableRoute, name: string, value: unknown): string {
  if (typeof value !== 'string' && typeof value !== 'number') {
    throw new TypeError(`${route.method} ${route.path}: path parameter "${name}" must be a string`);
  }
  const text = String(value);
  // An empty segment would address another route (`/polls/` is the list), and URL parsing turns
  // `.` and `..` (encoded or not) into path navigation.
  if (text === '' || text === '.' || text === '..') {
    throw new TypeError(`${route.method} ${route.path}: path parameter "${name}" cannot be empty, "." or ".."`);
  }
  return encodeURIComponent(text);
}

function queryValue(route: CallableRoute, name: string, value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  if (value instanceof Date) return value.toISOString();
  throw new TypeError(`${route.method} ${route.path}: query parameter "${name}" cannot be sent as ${typeof value}`);
}

function appendQuery(route: CallableRoute, params: URLSearchParams, name: string, value: unknown): void {
  if (value === undefined) return;
  if (Array.isArray(value)) {
    for (const item of value) if (item !== undefined) params.append(name, queryValue(route, name, item));
    return;
  }
  params.append(name, queryValue(route, name, value));
}

/** The `Accept` header of each response format a route can have. */
const ACCEPT: Readonly<Record<NonNullable<RouteDefinition['format']>, string>> = {
  json: 'application/json',
  csv: 'text/csv',
  svg: 'image/svg+xml',
  sse: 'text/event-stream',
};

/**
 * Splits a route's input the way the server reads it back and the OpenAPI document describes it:
 * `{param}`s into the path, the rest into the query string (GET, DELETE) or a JSON body (POST, PATCH, PUT).
 */
export function prepareRequest(
  config: RequestConfig,
  route: CallableRoute,
  input: unknown,
  options: RequestOptions = {},
): PreparedRequest {
  if (input !== undefined && !isRecord(input)) {
    throw new TypeError(`${route.method} ${route.path}: input must be an object`);
  }
  const rest: Record<string, unknown> = { ...input };
  let path: string = route.path;
  for (const name of pathParams(route.path)) {
    const segment = pathSegment(route, name, rest[name]);
    // A function replacement, so a `$&` in the value is not read as a replacement pattern.
    path = path.replace(`{${name}}`, () => segment);
    delete rest[name];
  }

  let url = `${config.apiUrl}${path}`;
  let body: string | undefined;
  const headers = new Headers(config.headers);
  for (const [name, value] of new Headers(options.headers)) headers.set(name, value);
  headers.set('accept', ACCEPT[route.format ?? 'json']);

  if (inputInQuery(route.method)) {
    const params = new URLSearchParams();
    for (const [name, value] of Object.entries(rest)) appendQuery(route, params, name, value);
    const query = params.toString();
    if (query) url += `?${query}`;
  } else {
    body = JSON.stringify(rest);
    headers.set('content-type', 'application/json');
  }
  // An OAuth token is set per attempt (`request`), since a retry may need a new one.
  if ('apiKey' in config.credential) headers.set('authorization', `Bearer ${config.credential.apiKey}`);
  else headers.delete('authorization');
  // One key per call, set here so that every retry of the prepared request repeats it: the server
  // then answers a retry of a POST whose response was lost with the stored response.
  if (route.method === 'POST') {
    if (options.idempotencyKey !== undefined) headers.set('idempotency-key', options.idempotencyKey);
    else if (!headers.has('idempotency-key')) headers.set('idempotency-key', newIdempotencyKey());
  }

  return { method: route.method, url, headers, body };
}

/**
 * A random UUID (v4). `crypto.randomUUID` exists only in secure contexts: a page served over plain
 * http on a LAN (an audience page at a venue) has `getRandomValues` but not `randomUUID`.
 */
export function newIdempotencyKey(): string {
  const crypto = globalThis.crypto;
  if (typeof crypto.randomUUID === 'function') return crypto.randomUUID();
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[6] = ((bytes[6] as number) & 0x0f) | 0x40;
  bytes[8] = ((bytes[8] as number) & 0x3f) | 0x80;
  const hex = Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** undici reports every network failure as `TypeError: fetch failed`; the reason is its cause. */
export function rootCause(error: unknown): string {
  let current = error;
  while (current instanceof Error && current.cause instanceof Error) current = current.cause;
  return current instanceof Error ? current.message : String(error);
}

/** Headers that carry credentials: logged as `[redacted]`, never by value. */
const SECRET_HEADERS = new Set([
  'authorization',
  'proxy-authorization',
  'cookie',
  'x-host-token',
  'x-participant-token',
]);

export function redactedHeaders(headers: Headers): Record<string, string> {
  const record: Record<string, string> = {};
  for (const [name, value] of headers) {
    // The scheme (`Bearer`, `Basic`) says which credential went out; the rest is the secret.
    const scheme = name === 'authorization' ? /^[A-Za-z]+ /.exec(value)?.[0] : undefined;
    record[name] = SECRET_HEADERS.has(name) ? `${scheme ?? ''}[redacted]` : value;
  }
  return record;
}

/** Reports to the user's logger; a logger that throws must not fail or retry the call it reports on. */
export function log(
  config: RequestConfig,
  level: 'debug' | 'info' | 'warn',
  message: string,
  record: RequestLogRecord,
): void {
  try {
    config.logger?.[level]?.(message, record);
  } catch {
    // Logging is best effort.
  }
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
      body: prepared.body,
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

export function checkCount(name: string, value: number): number {
  if (!Number.isInteger(value) || value < 0) throw new TypeError(`${name} must be a whole number of 0 or more`);
  return value;
}

/**
 * One call of one route: prepare the request once, then send it until it succeeds, fails in a way
 * that is not retried, or runs out of retries. Every retry resends the same prepared request, so the
 * body and the `Idempotency-Key` stay the same.
 */
export async function request(
  config: RequestConfig,
  route: CallableRoute,
  input: unknown,
  options: RequestOptions = {},
): Promise<unknown> {
  const prepared = prepareRequest(config, route, input, options);
  const maxRetries = checkCount('maxRetries', options.maxRetries ?? config.maxRetries);
  const timeout = checkTimeout(options.timeout ?? config.timeout);
  const validate = options.validateResponse ?? config.validateResponses;
  const tokens = 'tokens' in config.credential ? config.credential.tokens : undefined;
  let renewedToken = false;
  for (let number = 1, retries = 0; ; number++) {
    let accessToken: string | undefined;
    try {
      let attempt = prepared;
      if (tokens) {
        accessToken = await tokens.token(config, options.signal);
        const headers = new Headers(prepared.headers);
        headers.set('authorization', `Bearer ${accessToken}`);
        attempt = { ...prepared, headers };
      }
      const response = await sendOnce(config, attempt, { number, timeout, signal: options.signal });
      return interpretResponse(route, response, validate);
    } catch (error) {
      // A token the API no longer takes (revoked, or expired early): one new token, one new attempt,
      // outside the retry budget; a second rejection is the caller's to see.
      if (!renewedToken && rejectedOAuthToken(error, tokens, accessToken)) {
        renewedToken = true;
        continue;
      }
      const reason = retryReasonOf(error);
      if (reason === undefined || retries >= maxRetries) throw error;
      const delay = backoffDelay(reason, retries++, config);
      log(config, 'warn', 'pollkit retry', {
        method: prepared.method,
        url: prepared.url,
        attempt: number,
        status: error instanceof PollkitError ? error.status : undefined,
        error: error instanceof Error ? error.message : String(error),
        retryInMs: delay,
      });
      await sleep(delay, options.signal);
    }
  }
}

/** `setTimeout` fires at once for delays past 2^31-1 ms, which would turn a long timeout into none. */
const MAX_TIMEOUT_MS = 2 ** 31 - 1;

export function checkTimeout(value: number): number {
  if (typeof value !== 'number' || !(value > 0) || value > MAX_TIMEOUT_MS) {
    throw new TypeError(`timeout must be a number of milliseconds between 1 and ${MAX_TIMEOUT_MS}`);
  }
  return value;
}

/**
 * Whether the API refused the OAuth access token just used (revoked, or expired early); if so, the
 * token cache drops it, so the caller's next attempt gets a new one.
 */
export function rejectedOAuthToken(
  error: unknown,
  tokens: { reject(token: string): void } | undefined,
  accessToken: string | undefined,
): boolean {
  if (!tokens || accessToken === undefined) return false;
  if (!(error instanceof AuthenticationError) || error.code !== 'invalid_oauth_token') return false;
  tokens.reject(accessToken);
  return true;
}
