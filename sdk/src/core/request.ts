import { inputInQuery, pathParams, type RouteDefinition } from '@pollkit/contracts';
import { PollkitConnectionError, PollkitError } from './errors.js';

/** Header values accepted wherever the SDK takes headers. */
export type HeadersLike = Headers | Record<string, string>;

/** The subset of `fetch` the SDK calls; the global `fetch` and undici's both fit. */
export type FetchLike = (url: string, init: RequestInit) => Promise<Response>;

/** Options of one call, the optional last argument of every client method. */
export interface RequestOptions {
  /** Aborts the call; the promise then rejects with the signal's reason (an `AbortError`). */
  signal?: AbortSignal;
  /** Extra headers for this call; they override the client's `headers`. `Authorization` cannot be overridden. */
  headers?: HeadersLike;
}

/** What every request of one client shares. The API key lives here and nowhere else. */
export interface RequestConfig {
  /** The API root, `<origin>[/prefix]/api/v1`, without a trailing slash. */
  readonly apiUrl: string;
  readonly apiKey: string;
  readonly fetch: FetchLike;
  readonly headers: HeadersLike | undefined;
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
function pathSegment(route: RouteDefinition, name: string, value: unknown): string {
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

function queryValue(route: RouteDefinition, name: string, value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  if (value instanceof Date) return value.toISOString();
  throw new TypeError(`${route.method} ${route.path}: query parameter "${name}" cannot be sent as ${typeof value}`);
}

function appendQuery(route: RouteDefinition, params: URLSearchParams, name: string, value: unknown): void {
  if (value === undefined) return;
  if (Array.isArray(value)) {
    for (const item of value) if (item !== undefined) params.append(name, queryValue(route, name, item));
    return;
  }
  params.append(name, queryValue(route, name, value));
}

/**
 * Splits a route's input the way trpc-to-openapi reads it back: `{param}`s into the path, the rest
 * into the query string (GET, DELETE) or a JSON body (POST, PATCH, PUT).
 */
export function prepareRequest(
  config: RequestConfig,
  route: RouteDefinition,
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
  headers.set('accept', route.format === 'csv' ? 'text/csv' : 'application/json');

  if (inputInQuery(route.method)) {
    const params = new URLSearchParams();
    for (const [name, value] of Object.entries(rest)) appendQuery(route, params, name, value);
    const query = params.toString();
    if (query) url += `?${query}`;
  } else {
    body = JSON.stringify(rest);
    headers.set('content-type', 'application/json');
  }
  headers.set('authorization', `Bearer ${config.apiKey}`);

  return { method: route.method, url, headers, body };
}

/** undici reports every network failure as `TypeError: fetch failed`; the reason is its cause. */
function rootCause(error: unknown): string {
  let current = error;
  while (current instanceof Error && current.cause instanceof Error) current = current.cause;
  return current instanceof Error ? current.message : String(error);
}

function connectionFailure(config: RequestConfig, error: unknown, signal: AbortSignal | undefined): unknown {
  if (signal?.aborted) return signal.reason;
  return new PollkitConnectionError(`Could not reach the Pollkit API at ${config.apiUrl}: ${rootCause(error)}`, error);
}

/**
 * Sends a prepared request once. A request that gets no answer rejects with a
 * {@link PollkitConnectionError}; an abort by the caller rejects with the signal's reason.
 */
export async function sendOnce(
  config: RequestConfig,
  request: PreparedRequest,
  signal?: AbortSignal,
): Promise<Response> {
  // Called detached, so a user's fetch is not invoked with `this` set to the config.
  const fetchImpl = config.fetch;
  try {
    return await fetchImpl(request.url, {
      method: request.method,
      headers: request.headers,
      body: request.body,
      signal,
    });
  } catch (error) {
    throw connectionFailure(config, error, signal);
  }
}

/**
 * The body of a 2xx response; any other status becomes a {@link PollkitError}. The body can still
 * fail to arrive after the status line did: that is a connection error too.
 */
export async function readResponse(
  config: RequestConfig,
  response: Response,
  signal?: AbortSignal,
  format: RouteDefinition['format'] = 'json',
): Promise<unknown> {
  let text: string;
  try {
    text = await response.text();
  } catch (error) {
    throw connectionFailure(config, error, signal);
  }
  if (!response.ok) {
    throw PollkitError.from({ status: response.status, headers: response.headers, text });
  }
  // A CSV download (`client.results.export()`) is returned as the document's text.
  if (format === 'csv') return text;
  if (response.status === 204 || text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch (cause) {
    throw new PollkitError({
      status: response.status,
      code: 'invalid_response',
      message: `Expected a JSON body in the ${response.status} response`,
      headers: response.headers,
      body: text,
      cause,
    });
  }
}

/**
 * One call of one route: prepare, send, read. Retries, timeouts and idempotency keys wrap
 * `sendOnce` + `readResponse` here, around the same prepared request.
 */
export async function request(
  config: RequestConfig,
  route: RouteDefinition,
  input: unknown,
  options: RequestOptions = {},
): Promise<unknown> {
  const prepared = prepareRequest(config, route, input, options);
  const response = await sendOnce(config, prepared, options.signal);
  return readResponse(config, response, options.signal, route.format);
}
