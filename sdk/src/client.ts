import {
  type Contract,
  contract,
  operationId,
  type PollkitContract,
  type RouteDefinition,
  type RouteInput,
  type RouteOutput,
} from '@pollkit/contracts';
import { type EventStream, type EventStreamOptions, openEventStream } from './core/event-stream.js';
import { ClientCredentialsTokens, type OAuthClientCredentials, tokenUrlOf } from './core/oauth.js';
import { isPageRoute, Page, type PageData, PagePromise } from './core/pagination.js';
import {
  type Credential,
  checkCount,
  checkTimeout,
  type DownloadOptions,
  type FetchLike,
  type HeadersLike,
  type PollkitLogger,
  type RequestConfig,
  type RequestOptions,
} from './core/request-options.js';
import { type BackoffOptions, defaultBackoff } from './core/retry.js';
import { request } from './core/send.js';

/** Authenticate with a workspace API key. */
export interface ApiKeyAuth {
  /**
   * A workspace API key (`pk_live_…`). Sent only in the `Authorization: Bearer` header. When absent
   * (and no OAuth client is given), the `POLLKIT_API_KEY` environment variable.
   */
  apiKey?: string | undefined;
  clientId?: never;
  clientSecret?: never;
  scope?: never;
}

/**
 * Authenticate as an OAuth client (enterprise workspaces with OAuth enabled): the client exchanges
 * the id and secret for access tokens at `POST /api/oauth/token` (client credentials grant, HTTP Basic
 * client authentication), caches them and gets a new one shortly before each expires.
 */
export interface OAuthClientAuth {
  apiKey?: never;
  /** The OAuth client's id. */
  clientId: string;
  /** The OAuth client's secret. Sent only to the token endpoint, in the `Authorization: Basic` header. */
  clientSecret: string;
  /**
   * The scopes to ask for (`'polls:read polls:write'` or `['polls:read', 'polls:write']`), narrowed
   * from the ones the client is allowed; all of those when absent.
   */
  scope?: string | readonly string[] | undefined;
}

/** Options of every client, whichever way it authenticates. */
export interface CommonClientOptions extends Partial<BackoffOptions> {
  /**
   * Where the API lives: the server's origin (`https://polls.example.com`) or the API root itself
   * (`https://polls.example.com/api/v1`); both work. A path other than `/api/v1`
   * (`https://example.com/pollkit`) is taken as a prefix the API is mounted under, and `/api/v1` is
   * appended to it. When absent, the `POLLKIT_BASE_URL` environment variable.
   */
  baseUrl?: string | URL | undefined;
  /** A `fetch` implementation; the global one by default. */
  fetch?: FetchLike | undefined;
  /** Headers sent with every call. `Authorization` is always the API key's. */
  headers?: HeadersLike | undefined;
  /** Milliseconds each attempt of a call may take, response body included; 60 000 by default. */
  timeout?: number | undefined;
  /** Retries after a 429, a 5xx or a connection failure (timeouts included); 2 by default, 0 for none. */
  maxRetries?: number | undefined;
  /** Where to report each request, response and retry (`console` fits). The API key is never reported. */
  logger?: PollkitLogger | undefined;
  /**
   * Check every response against its route's output schema, throwing `invalid_response` on a
   * mismatch. Off by default, so that fields a newer server adds cannot break an older client.
   */
  validateResponses?: boolean | undefined;
  /**
   * The clock OAuth token expiry is measured with, in milliseconds since the epoch; `Date.now` by
   * default. Tests pass their own to expire tokens without waiting.
   */
  now?: (() => number) | undefined;
}

/** Exactly one credential: `apiKey`, or `clientId` with `clientSecret`. */
export type ClientOptions = CommonClientOptions & (ApiKeyAuth | OAuthClientAuth);

/** The item type of a route answering `{ data, nextCursor }` pages; `never` for any other route. */
export type PageItemOf<R extends RouteDefinition> =
  RouteOutput<R> extends { data: Array<infer Item>; nextCursor: string | null } ? Item : never;

/**
 * A list route's method returns a {@link PagePromise}; an event stream's (`format: 'sse'`) an
 * {@link EventStream} of its output union; any other route's a promise of its output (the text of a
 * file or SVG document for those formats).
 */
export type RouteResult<R extends RouteDefinition> = R extends { format: 'sse' }
  ? EventStream<RouteOutput<R>>
  : [PageItemOf<R>] extends [never]
    ? Promise<RouteOutput<R>>
    : PagePromise<PageItemOf<R>>;

/** The per-call options of a route's method: {@link EventStreamOptions} for an event stream. */
export type RouteOptions<R extends RouteDefinition> = R extends { format: 'sse' } ? EventStreamOptions : RequestOptions;

/**
 * The method of one route: `z.input` of its input schema in, `z.output` of its output schema out.
 * The input may be left out when none of its fields is required (`client.polls.list()`), or when the
 * route takes none (`client.workspace.get()`: an empty strict object, whose input type is an index
 * signature of `never` that `Partial` would not match).
 */
export type RouteMethod<R extends RouteDefinition> = R extends { format: 'file' }
  ? DownloadMethod<RouteInput<R>, BinaryFormatOf<R>>
  : Record<never, never> extends RouteInput<R>
    ? (input?: RouteInput<R>, options?: RouteOptions<R>) => RouteResult<R>
    : (input: RouteInput<R>, options?: RouteOptions<R>) => RouteResult<R>;

/** The values of a file route's `format` input that download bytes (`'xlsx'`, `'qti'`); never for none. */
type BinaryFormatOf<R extends RouteDefinition> = R extends { files: infer Files }
  ? { [K in keyof Files]: Files[K] extends { binary: true } ? K : never }[keyof Files]
  : never;

/**
 * The method of a file download (`client.results.export()`, `client.polls.exportDeck()`): a text
 * document as a string, a binary one (`{ format: 'xlsx' }`) as a `Uint8Array`, or either, with
 * `{ stream: true }`, as a web `ReadableStream` of its bytes as they arrive.
 */
export interface DownloadMethod<Input, Binary = never> {
  (input: Input, options: DownloadOptions & { stream: true }): Promise<ReadableStream<Uint8Array>>;
  (input: Input & { format: Binary }, options?: DownloadOptions & { stream?: false | undefined }): Promise<Uint8Array>;
  (input: Input, options?: DownloadOptions & { stream?: false | undefined }): Promise<string>;
  (input: Input & { format: Binary }, options?: DownloadOptions): Promise<Uint8Array | ReadableStream<Uint8Array>>;
  (input: Input, options?: DownloadOptions): Promise<string | ReadableStream<Uint8Array>>;
}

/**
 * Options `withOptions()` can change: any of the client's. `headers` are merged into the current ones;
 * a new `apiKey` replaces OAuth client credentials and the other way round.
 */
export type ClientOverrides = Partial<CommonClientOptions> & (Partial<ApiKeyAuth> | Partial<OAuthClientAuth>);

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

/** A value sent in a header: printable ASCII, no whitespace. */
const TOKEN_CHARACTERS = /^[\x21-\x7e]+$/;

/**
 * An environment variable where there is a `process.env` (Node, Bun, Deno's Node compatibility),
 * `undefined` elsewhere (browsers, edge runtimes) or where reading it is not allowed. Empty is unset.
 */
function envVar(name: string): string | undefined {
  try {
    const env = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env;
    return env?.[name] || undefined;
  } catch {
    return undefined;
  }
}

function checkApiKey(apiKey: unknown): string {
  // The key is never part of a message: errors get logged.
  if (typeof apiKey !== 'string' || apiKey === '') {
    throw new TypeError(
      'apiKey is required: pass apiKey (a workspace API key) or clientId and clientSecret (an OAuth client), ' +
        'or set the POLLKIT_API_KEY environment variable',
    );
  }
  // `Headers` would throw on other characters, quoting the header value and with it the key.
  if (!TOKEN_CHARACTERS.test(apiKey)) {
    throw new TypeError('apiKey contains characters an API key never has (whitespace or non-ASCII)');
  }
  return apiKey;
}

/** `scope` as the space-separated list the token endpoint takes. */
function scopeOf(scope: unknown): string | undefined {
  if (scope === undefined) return undefined;
  const scopes = typeof scope === 'string' ? scope.split(' ').filter(Boolean) : scope;
  // RFC 6749 §3.3: each scope is printable ASCII without space, `"` or `\`.
  if (!Array.isArray(scopes) || !scopes.every((s) => typeof s === 'string' && /^[\x21\x23-\x5b\x5d-\x7e]+$/.test(s))) {
    throw new TypeError('scope must be scope names such as "polls:read", as a space-separated string or an array');
  }
  return scopes.length === 0 ? undefined : scopes.join(' ');
}

/** Checks the OAuth client credentials; neither value is ever part of a message, since errors get logged. */
function oauthCredentialsOf(options: Record<string, unknown>, apiUrl: string): OAuthClientCredentials {
  const { clientId, clientSecret } = options;
  if (typeof clientId !== 'string' || clientId === '' || !TOKEN_CHARACTERS.test(clientId)) {
    throw new TypeError('clientId must be an OAuth client id: printable ASCII, no whitespace');
  }
  if (typeof clientSecret !== 'string' || clientSecret === '') {
    throw new TypeError('clientSecret is required with clientId: the OAuth client secret');
  }
  return { clientId, clientSecret, scope: scopeOf(options.scope), tokenUrl: tokenUrlOf(apiUrl) };
}

/**
 * The one credential the options carry. A token cache from `inherited` (the client `withOptions()` was
 * called on) is reused when it serves the same OAuth client, scope, endpoint and clock, so derived
 * clients share its tokens.
 */
function credentialOf(
  options: ClientOptions,
  apiUrl: string,
  inherited: ClientCredentialsTokens | undefined,
): { credential: Credential; tokens: ClientCredentialsTokens | undefined } {
  const fields = options as unknown as Record<string, unknown>;
  const hasApiKey = fields.apiKey !== undefined;
  const hasOAuth = fields.clientId !== undefined || fields.clientSecret !== undefined;
  if (hasApiKey && hasOAuth) {
    throw new TypeError('Pass either apiKey or clientId and clientSecret, not both');
  }
  if (!hasOAuth) {
    if (fields.scope !== undefined) throw new TypeError('scope applies to OAuth client credentials, not to an apiKey');
    // Only an absent key falls back to the environment: an explicit '' is a mistake to report.
    return { credential: { apiKey: checkApiKey(fields.apiKey ?? envVar('POLLKIT_API_KEY')) }, tokens: undefined };
  }
  const credentials = oauthCredentialsOf(fields, apiUrl);
  if (options.now !== undefined && typeof options.now !== 'function') throw new TypeError('now must be a function');
  const tokens = inherited?.serves(credentials, options.now)
    ? inherited
    : new ClientCredentialsTokens(credentials, options.now);
  return { credential: { tokens }, tokens };
}

const DEFAULT_TIMEOUT_MS = 60_000;
const DEFAULT_MAX_RETRIES = 2;

/** Checks client options and fills in the defaults: what every call of the client shares. */
export function resolveConfig(options: ClientOptions, inheritedTokens?: ClientCredentialsTokens): RequestConfig {
  return resolveClient(options, inheritedTokens).config;
}

function resolveClient(
  options: ClientOptions,
  inheritedTokens: ClientCredentialsTokens | undefined,
): { config: RequestConfig; tokens: ClientCredentialsTokens | undefined } {
  const apiUrl = apiUrlOf(baseUrlOf(options));
  const { credential, tokens } = credentialOf(options, apiUrl, inheritedTokens);
  return { config: configOf(options, apiUrl, credential, options.headers), tokens };
}

function baseUrlOf(options: CommonClientOptions): string | URL {
  if (options.fetch === undefined && typeof globalThis.fetch !== 'function') {
    throw new TypeError('No global fetch: use Node 20 or later, or pass a fetch implementation as `fetch`');
  }
  const baseUrl = options.baseUrl ?? envVar('POLLKIT_BASE_URL');
  if (baseUrl === undefined) {
    throw new TypeError(
      'baseUrl is required: pass baseUrl (such as https://polls.example.com) or set the POLLKIT_BASE_URL environment variable',
    );
  }
  return baseUrl;
}

function configOf(
  options: CommonClientOptions,
  apiUrl: string,
  credential: Credential,
  headers: HeadersLike | undefined,
): RequestConfig {
  return Object.freeze({
    apiUrl,
    credential,
    // Looked up per call, so a fetch instrumented after the client was created is still used.
    fetch: options.fetch ?? ((url: string, init: RequestInit) => globalThis.fetch(url, init)),
    headers,
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

/**
 * The config of calls that carry no workspace credential: a presenter device's (`X-Host-Token`) or a
 * participant's (`X-Participant-Token`, none before joining). `tokenHeaders` are set over the
 * options' `headers`; `Authorization` is never sent.
 */
export function resolveTokenConfig(
  options: CommonClientOptions,
  tokenHeaders: Readonly<Record<string, string | undefined>>,
): RequestConfig {
  const apiUrl = apiUrlOf(baseUrlOf(options));
  const headers = new Headers(options.headers);
  headers.delete('authorization');
  for (const [name, value] of Object.entries(tokenHeaders)) {
    if (value === undefined) continue;
    // Checked here, since `Headers` would quote a bad value (a secret) in its error.
    if (typeof value !== 'string' || !TOKEN_CHARACTERS.test(value)) {
      throw new TypeError(`${name} must be printable ASCII without whitespace`);
    }
    headers.set(name, value);
  }
  return configOf(options, apiUrl, { none: true }, headers);
}

function mergeOptions(base: ClientOptions, overrides: ClientOverrides): ClientOptions {
  const headers = new Headers(base.headers);
  for (const [name, value] of new Headers(overrides.headers)) headers.set(name, value);
  // An option given as `undefined` (allowed, for `exactOptionalPropertyTypes`) keeps the base's value.
  const given = Object.fromEntries(Object.entries(overrides).filter(([, value]) => value !== undefined));
  const merged: Record<string, unknown> = { ...base, ...given, headers };
  // A credential of the other kind replaces the current one instead of clashing with it.
  if (overrides.apiKey !== undefined) {
    delete merged.clientId;
    delete merged.clientSecret;
    delete merged.scope;
  } else if (overrides.clientId !== undefined || overrides.clientSecret !== undefined) {
    delete merged.apiKey;
  }
  return merged as unknown as ClientOptions;
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
 * A client for every route of `routes`, named and typed after them. The credential stays in closures:
 * the client holds only functions, so printing or serialising it shows no secret.
 */
export function buildClient<C extends Contract>(
  routes: C,
  options: ClientOptions,
  inheritedTokens?: ClientCredentialsTokens,
): ClientOf<C> {
  const { config, tokens } = resolveClient(options, inheritedTokens);
  const client: Record<string, unknown> = Object.fromEntries(
    Object.entries(routes).map(([group, operations]) => {
      const methods = Object.fromEntries(
        Object.entries(operations).map(([name, route]) => {
          const method = isPageRoute(route)
            ? pagedMethod(config, route)
            : route.format === 'sse'
              ? (input?: unknown, callOptions?: EventStreamOptions) =>
                  openEventStream(config, route, input, callOptions)
              : (input?: unknown, callOptions?: RequestOptions) => request(config, route, input, callOptions);
          Object.defineProperty(method, 'name', { value: operationId(group, name) });
          return [name, method];
        }),
      );
      return [group, Object.freeze(methods)];
    }),
  );
  client.withOptions = (overrides: ClientOverrides) => buildClient(routes, mergeOptions(options, overrides), tokens);
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
 * Or, as an OAuth client (the SDK gets, caches and renews the access tokens):
 *
 * ```ts
 * const pollkit = createClient({ clientId, clientSecret, baseUrl: 'https://polls.example.com', scope: 'polls:read' });
 * ```
 *
 * Without options (or without `apiKey` and `baseUrl`), the `POLLKIT_API_KEY` and `POLLKIT_BASE_URL`
 * environment variables are used where the runtime has a `process.env`:
 *
 * ```ts
 * const pollkit = createClient();
 * ```
 *
 * Every failed call throws a `PollkitError`, as the subclass of its family (`NotFoundError`…).
 */
export function createClient(options: ClientOptions = {}): PollkitClient {
  return buildClient(contract, options);
}
