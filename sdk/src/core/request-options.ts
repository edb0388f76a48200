// What a call is made of: the options a user passes (per client, per call), the config every
// request of a client shares, the request once prepared, and the checks of the numeric options.
import type { RouteDefinition, RouteHead } from '@pollkit/contracts';
import type { z } from 'zod';
import type { BackoffOptions } from './retry.js';

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
  signal?: AbortSignal | undefined;
  /** Extra headers for this call; they override the client's `headers`. `Authorization` cannot be overridden. */
  headers?: HeadersLike | undefined;
  /** Milliseconds each attempt may take, response body included; overrides the client's `timeout`. */
  timeout?: number | undefined;
  /** Retries after a 429, a 5xx or a connection failure; overrides the client's `maxRetries`. */
  maxRetries?: number | undefined;
  /** The `Idempotency-Key` of a POST; by default a random UUID per call, the same across its retries. */
  idempotencyKey?: string | undefined;
  /** Check the response against the route's output schema; overrides the client's `validateResponses`. */
  validateResponse?: boolean | undefined;
}

/**
 * Options of a CSV download (`client.results.export()`, `client.sessions.export()`): those of any call,
 * and `stream`.
 */
export interface DownloadOptions extends RequestOptions {
  /**
   * `true`: answer the body as a web `ReadableStream` of bytes as it arrives, never held whole in
   * memory (`Readable.fromWeb()` makes it a Node stream). Retries and `timeout` then cover the wait
   * for the response to begin; after that, `timeout` bounds each wait for the next chunk, and a
   * failure errors the stream. Default: the whole document as a string.
   */
  stream?: boolean | undefined;
}

/** What the SDK reports of one exchange to a {@link PollkitLogger}. Never the API key. */
export interface RequestLogRecord {
  method: string;
  url: string;
  /** 1 for the first try, 2 for the first retry… */
  attempt: number;
  /** Request headers, with `Authorization` redacted. */
  headers?: Record<string, string> | undefined;
  /** The HTTP status; absent when no response arrived. */
  status?: number | undefined;
  /** Milliseconds from sending to the end of the response body (or the failure). */
  durationMs?: number | undefined;
  /** The server's `x-request-id`. */
  requestId?: string | undefined;
  /** Why the attempt failed, when it did. */
  error?: string | undefined;
  /** On a retry: how long the SDK waits before it. */
  retryInMs?: number | undefined;
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

/** A count option (`maxRetries`…): a whole number of 0 or more. */
export function checkCount(name: string, value: number): number {
  if (!Number.isInteger(value) || value < 0) throw new TypeError(`${name} must be a whole number of 0 or more`);
  return value;
}

/** `setTimeout` fires at once for delays past 2^31-1 ms, which would turn a long timeout into none. */
const MAX_TIMEOUT_MS = 2 ** 31 - 1;

export function checkTimeout(value: number): number {
  if (typeof value !== 'number' || !(value > 0) || value > MAX_TIMEOUT_MS) {
    throw new TypeError(`timeout must be a number of milliseconds between 1 and ${MAX_TIMEOUT_MS}`);
  }
  return value;
}
