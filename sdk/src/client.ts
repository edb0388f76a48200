import {
  type Contract,
  contract,
  operationId,
  type PollkitContract,
  type RouteDefinition,
  type RouteInput,
  type RouteOutput,
} from '@pollkit/contracts';
import { type FetchLike, type HeadersLike, type RequestConfig, type RequestOptions, request } from './core/request.js';

export interface ClientOptions {
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
}

/**
 * The method of one route: `z.input` of its input schema in, `z.output` of its output schema out.
 * The input may be left out when none of its fields is required (`client.polls.list()`).
 */
export type RouteMethod<R extends RouteDefinition> =
  Partial<RouteInput<R>> extends RouteInput<R>
    ? (input?: RouteInput<R>, options?: RequestOptions) => Promise<RouteOutput<R>>
    : (input: RouteInput<R>, options?: RequestOptions) => Promise<RouteOutput<R>>;

/** `contract.<group>.<operation>` -> `client.<group>.<operation>()`. */
export type ClientOf<C extends Contract> = {
  readonly [G in keyof C]: { readonly [O in keyof C[G]]: RouteMethod<C[G][O]> };
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

/**
 * A client for every route of `routes`, named and typed after them. The key stays in the closure:
 * the client holds only functions, so printing or serialising it shows no secret.
 */
export function buildClient<C extends Contract>(routes: C, config: RequestConfig): ClientOf<C> {
  const client = Object.fromEntries(
    Object.entries(routes).map(([group, operations]) => {
      const methods = Object.fromEntries(
        Object.entries(operations).map(([name, route]) => {
          const method = (input?: unknown, options?: RequestOptions) => request(config, route, input, options);
          Object.defineProperty(method, 'name', { value: operationId(group, name) });
          return [name, method];
        }),
      );
      return [group, Object.freeze(methods)];
    }),
  );
  return Object.freeze(client) as ClientOf<C>;
}

/**
 * A Pollkit API client:
 *
 * ```ts
 * const pollkit = createClient({ apiKey: process.env.POLLKIT_API_KEY!, baseUrl: 'https://polls.example.com' });
 * const poll = await pollkit.polls.create({ title: 'Team lunch' });
 * ```
 *
 * Every failed call throws a `PollkitError`.
 */
export function createClient(options: ClientOptions): PollkitClient {
  if (options.fetch === undefined && typeof globalThis.fetch !== 'function') {
    throw new TypeError('No global fetch: use Node 20 or later, or pass a fetch implementation as `fetch`');
  }
  return buildClient(contract, {
    apiUrl: apiUrlOf(options.baseUrl),
    apiKey: checkApiKey(options.apiKey),
    // Looked up per call, so a fetch instrumented after the client was created is still used.
    fetch: options.fetch ?? ((url, init) => globalThis.fetch(url, init)),
    headers: options.headers,
  });
}
