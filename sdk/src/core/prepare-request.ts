// A route and its input -> the HTTP request: path, query or JSON body, headers, Idempotency-Key.
import { inputInQuery, pathParams, type RouteDefinition } from '@pollkit/contracts';
import { newIdempotencyKey } from './idempotency-key.js';
import type { CallableRoute, PreparedRequest, RequestConfig, RequestOptions } from './request-options.js';

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
  file: '*/*',
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
