import {
  type Contract,
  contract,
  operationId,
  type PollkitContract,
  type RouteDefinition,
  type RouteInput,
  type RouteOutput,
} from '@pollkit/contracts';
import { isPageRoute, Page, type PageData, PagePromise } from './core/pagination.js';
import {
  checkCount,
  checkTimeout,
  type FetchLike,
  type HeadersLike,
  type PollkitLogger,
  type RequestConfig,
  type RequestOptions,
  request,
} from './core/request.js';
import { type BackoffOptions, defaultBackoff } from './core/retry.js';

export interface ClientOptions extends Partial<BackoffOptions> {
  /** A workspace API key (`pk_live_…`). Sent only in the `Authorization: Bearer` header. */
  apiKey: string;
  /**
   * Where the API lives: the server's origin (`https://polls.example.com`) or the API root itself
   * (`https://polls.example.com/api/v1`); both work. A path other than `/api/v1`
   * (`https://example.com/pollkit`) is taken as a prefix the API is mounted under, and `/api/v1` is
   * appended to it.
   */
  baseUrl: string | URL;
  /** A `fetch` implementation; the global one by default. */
  fetch?: FetchLike;
  /** Headers sent with every call. `Authorization` is always the API key's. */
  headers?: HeadersLike;
  /** Milliseconds each attempt of a call may take, response body included; 60 000 by default. */
  timeout?: number;
  /** Retries after a 429, a 5xx or a connection failure (timeouts included); 2 by default, 0 for none. */
  maxRetries?: number;
  /** Where to report each request, response and retry (`console` fits). The API key is never reported. */
  logger?: PollkitLogger;
  /**
   * Check every response against its route's output schema, throwing `invalid_response` on a
   * mismatch. Off by default, so that fields a newer server adds cannot break an older client.
   */
  validateResponses?: boolean;
}

/** The item type of a route answering `{ data, nextCursor }` pages; `never` for any other route. */
export type PageItemOf<R extends RouteDefinition> =
  RouteOutput<R> extends { data: Array<infer Item>; nextCursor: string | null } ? Item : never;

/** A list route's method returns a {@link PagePromise}; any other route's a promise of its output. */
export type RouteResult<R extends RouteDefinition> = [PageItemOf<R>] extends [never]
  ? Promise<RouteOutput<R>>
  : PagePromise<PageItemOf<R>>;

/**
 * The method of one route: `z.input` of its input schema in, `z.output` of its output schema out.
 * The input may be left out when none of its fields is required (`client.polls.list()`).
 */
export type RouteMethod<R extends RouteDefinition> =
  Partial<RouteInput<R>> extends RouteInput<R>
    ? (input?: RouteInput<R>, options?: RequestOptions) => RouteResult<R>
    : (input: RouteInput<R>, options?: RequestOptions) => RouteResult<R>;

/** Options `withOptions()` can change: any of the client's. `headers` are merged into the current ones. */
export type ClientOverrides = Partial<ClientOptions>;

/** `contract.<group>.<operation>` -> `client.<group>.<operation>()`, plus `withOptions()`. */
export type ClientOf<C extends Contract> = {
  readonly [G in keyof C]: { readonly [O in keyof C[G]]: RouteMethod<C[G][O]> };
} & {
  /** A client like this one with some options changed; this one is left as it is. */
  withOptions(overrides: ClientOverrides): ClientOf<C>;
};

export type PollkitClient = ClientOf<PollkitContract>;

const API_PATH = '/api/v1';

function apiUrlOf(baseUrl: string | URL): string {
  let url: URL;
  try {
    url = new URL(String(baseUrl));
  } catch {
    throw new TypeError('baseUrl must be an absolute http(s) URL, such as https://polls.example.com');
  }
  // The URL is never echoed back: it could carry credentials.
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new TypeError('baseUrl must be an http(s) URL');
  }
  if (url.username || url.password) {
    throw new TypeError('baseUrl cannot carry credentials; pass the API key as apiKey');
  }
  if (url.search || url.hash) {
    throw new TypeError('baseUrl cannot carry a query string or a fragment');
  }
  const path = url.pathname.replace(/\/+$/, '');
  return `${url.origin}${path.endsWith(API_PATH) ? path : `${path}${API_PATH}`}`;
}

function checkApiKey(apiKey: unknown): string {
  // The key is never part of a message: errors get logged.
  if (typeof apiKey !== 'string' || apiKey === '') {
    throw new TypeError('apiKey is required: a workspace API key');
  }
  // `Headers` would throw on other characters, quoting the header value and with it the key.
  if (!/^[\x21-\x7e]+$/.test(apiKey)) {
    throw new TypeError('apiKey contains characters an API key never has (whitespace or non-ASCII)');
  }
  return apiKey;
}

const DEFAULT_TIMEOUT_MS = 60_000;
const DEFAULT_MAX_RETRIES = 2;

/** Checks client options and fills in the defaults: what every call of the client shares. */
export function resolveConfig(options: ClientOptions): RequestConfig {
  if (options.fetch === undefined && typeof globalThis.fetch !== 'function') {
    throw new TypeError('No global fetch: use Node 20 or later, or pass a fetch implementation as `fetch`');
  }
  return Object.freeze({
    apiUrl: apiUrlOf(options.baseUrl),
    apiKey: checkApiKey(options.apiKey),
    // Looked up per call, so a fetch instrumented after the client was created is still used.
    fetch: options.fetch ?? ((url: string, init: RequestInit) => globalThis.fetch(url, init)),
    headers: options.headers,
    timeout: checkTimeout(options.timeout ?? DEFAULT_TIMEOUT_MS),
    maxRetries: checkCount('maxRetries', options.maxRetries ?? DEFAULT_MAX_RETRIES),
    retryBaseDelayMs: checkCount('retryBaseDelayMs', options.retryBaseDelayMs ?? defaultBackoff.retryBaseDelayMs),
    retryMaxDelayMs: checkCount('retryMaxDelayMs', options.retryMaxDelayMs ?? defaultBackoff.retryMaxDelayMs),
    rateLimitMaxDelayMs: checkCount(
      'rateLimitMaxDelayMs',
      options.rateLimitMaxDelayMs ?? defaultBackoff.rateLimitMaxDelayMs,
    ),
    validateResponses: options.validateResponses ?? false,
    logger: options.logger,
  });
}

function mergeOptions(base: ClientOptions, overrides: ClientOverrides): ClientOptions {
  const headers = new Headers(base.headers);
  for (const [name, value] of new Headers(overrides.headers)) headers.set(name, value);
  return { ...base, ...overrides, headers };
}

/** The method of a route answering pages: each call's page knows how to fetch the one after it. */
function pagedMethod(config: RequestConfig, route: RouteDefinition) {
  const method = (input?: unknown, options?: RequestOptions): PagePromise<unknown> => {
    const fetchNext = (cursor: string) => method({ ...(input as object | undefined), cursor }, options);
    const page = request(config, route, input, options).then((body) => new Page(body as PageData<unknown>, fetchNext));
    return new PagePromise(page);
  };
  return method;
}

/**
 * A client for every route of `routes`, named and typed after them. The key stays in closures:
 * the client holds only functions, so printing or serialising it shows no secret.
 */
export function buildClient<C extends Contract>(routes: C, options: ClientOptions): ClientOf<C> {
  const config = resolveConfig(options);
  const client: Record<string, unknown> = Object.fromEntries(
    Object.entries(routes).map(([group, operations]) => {
      const methods = Object.fromEntries(
        Object.entries(operations).map(([name, route]) => {
          const method = isPageRoute(route)
            ? pagedMethod(config, route)
            : (input?: unknown, callOptions?: RequestOptions) => request(config, route, input, callOptions);
          Object.defineProperty(method, 'name', { value: operationId(group, name) });
          return [name, method];
        }),
      );
      return [group, Object.freeze(methods)];
    }),
  );
  client.withOptions = (overrides: ClientOverrides) => buildClient(routes, mergeOptions(options, overrides));
  return Object.freeze(client) as ClientOf<C>;
}

/**
 * A Pollkit API client:
 *
 * ```ts
 * const pollkit = createClient({ apiKey: process.env.POLLKIT_API_KEY!, baseUrl: 'https://polls.example.com' });
 * const poll = await pollkit.polls.create({ title: 'Team lunch' });
 * for await (const poll of pollkit.polls.list()) console.log(poll.title);
 * ```
 *
 * Every failed call throws a `PollkitError`, as the subclass of its family (`NotFoundError`…).
 */
export function createClient(options: ClientOptions): PollkitClient {
  return buildClient(contract, options);
}
