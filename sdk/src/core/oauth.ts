import {
  AuthenticationError,
  errorClassFor,
  PermissionDeniedError,
  PollkitError,
  type PollkitErrorDetails,
} from './errors.js';
import { sendOnce } from './exchange.js';
import type { AccessTokenSource, PreparedRequest, RequestConfig } from './request-options.js';

/** The error codes of RFC 6749 §5.2 the token endpoint answers with. */
export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unauthorized_client'
  | 'unsupported_grant_type'
  | 'invalid_scope'
  | 'access_denied';

/** What identifies a token cache: tokens are shared only between clients that would ask for the same ones. */
export interface OAuthClientCredentials {
  readonly clientId: string;
  readonly clientSecret: string;
  /** Space-separated scopes to ask for; absent to get every scope the client is allowed. */
  readonly scope: string | undefined;
  /** `<origin>[/prefix]/api/oauth/token`. */
  readonly tokenUrl: string;
}

/** Refresh when less than this much of a token's life is left… */
const REFRESH_MARGIN_MS = 60_000;
/** …or less than this share of it, whichever is sooner: a token living 30 s is refreshed 3 s before its end. */
const REFRESH_MARGIN_SHARE = 0.1;

interface CachedToken {
  readonly accessToken: string;
  /** Clock time after which the token is no longer handed out. */
  readonly refreshAt: number;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `application/x-www-form-urlencoded`, which RFC 6749 §2.3.1 applies to the id and secret before Basic. */
function formEncoded(value: string): string {
  return new URLSearchParams({ v: value }).toString().slice(2);
}

/** The token endpoint next to the API: `<origin>[/prefix]/api/v1` -> `<origin>[/prefix]/api/oauth/token`. */
export function tokenUrlOf(apiUrl: string): string {
  return `${apiUrl.replace(/\/api\/v1$/, '')}/api/oauth/token`;
}

/** Waits for `promise`, or rejects with the signal's reason as soon as the caller aborts; `promise` goes on. */
function abortable<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  signal.throwIfAborted();
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

/**
 * Access tokens of one OAuth client, obtained with the client credentials grant: cached, refreshed
 * shortly before they expire or when the API rejects one, and requested once however many calls
 * wait for one at the same time.
 *
 * The secret and the tokens live in private fields, which `inspect` and `JSON.stringify` do not show.
 */
export class ClientCredentialsTokens implements AccessTokenSource {
  readonly #credentials: OAuthClientCredentials;
  readonly #now: () => number;
  #cached: CachedToken | undefined;
  /** The token request under way, which every call needing a token meanwhile waits for. */
  #pending: Promise<CachedToken> | undefined;

  constructor(credentials: OAuthClientCredentials, now: () => number = Date.now) {
    this.#credentials = Object.freeze({ ...credentials });
    this.#now = now;
  }

  /** Whether a client with these credentials and this clock may share this cache. */
  serves(credentials: OAuthClientCredentials, now: (() => number) | undefined): boolean {
    const own = this.#credentials;
    return (
      own.clientId === credentials.clientId &&
      own.clientSecret === credentials.clientSecret &&
      own.scope === credentials.scope &&
      own.tokenUrl === credentials.tokenUrl &&
      this.#now === (now ?? Date.now)
    );
  }

  async token(config: RequestConfig, signal: AbortSignal | undefined): Promise<string> {
    signal?.throwIfAborted();
    const cached = this.#cached;
    if (cached && this.#now() < cached.refreshAt) return cached.accessToken;
    // The request is shared, so one caller's abort must not cancel it for the others: each caller
    // stops waiting on its own signal instead.
    this.#pending ??= this.#request(config).finally(() => {
      this.#pending = undefined;
    });
    return (await abortable(this.#pending, signal)).accessToken;
  }

  reject(accessToken: string): void {
    // Only the rejected token is dropped: when another call already replaced it, the new one stays.
    if (this.#cached?.accessToken === accessToken) this.#cached = undefined;
  }

  async #request(config: RequestConfig): Promise<CachedToken> {
    const { clientId, clientSecret, scope, tokenUrl } = this.#credentials;
    const headers = new Headers(config.headers);
    headers.set('authorization', `Basic ${btoa(`${formEncoded(clientId)}:${formEncoded(clientSecret)}`)}`);
    headers.set('content-type', 'application/x-www-form-urlencoded');
    headers.set('accept', 'application/json');
    headers.delete('idempotency-key');
    const body = new URLSearchParams({ grant_type: 'client_credentials' });
    if (scope !== undefined) body.set('scope', scope);
    const prepared: PreparedRequest = { method: 'POST', url: tokenUrl, headers, body: body.toString() };

    const requestedAt = this.#now();
    // The caller's retry loop retries a connection failure or a 5xx, so one attempt is enough here.
    const response = await sendOnce(config, prepared, { number: 1, timeout: config.timeout, signal: undefined });
    if (!response.ok) throw tokenEndpointError(response, clientSecret);

    const token = readTokenResponse(response);
    const lifetimeMs = token.expiresIn === undefined ? Number.POSITIVE_INFINITY : token.expiresIn * 1000;
    // Counted from when the request left, so the time the answer took is never counted as validity.
    const margin = Math.min(REFRESH_MARGIN_MS, lifetimeMs * REFRESH_MARGIN_SHARE);
    const cached = { accessToken: token.accessToken, refreshAt: requestedAt + lifetimeMs - margin };
    this.#cached = cached;
    return cached;
  }
}

/**
 * A 2xx token response as `{ accessToken, expiresIn }`. An unusable one is `invalid_response`, whose
 * error carries neither the body nor the token: the body would hold the token.
 */
function readTokenResponse(response: { status: number; headers: Headers; text: string }): {
  accessToken: string;
  expiresIn: number | undefined;
} {
  const invalid = (message: string) =>
    new PollkitError({ status: response.status, code: 'invalid_response', message, headers: response.headers });
  let json: unknown;
  try {
    json = JSON.parse(response.text);
  } catch {
    throw invalid(`Expected a JSON body in the ${response.status} response of the token endpoint`);
  }
  if (!isRecord(json) || typeof json.access_token !== 'string' || !/^[\x21-\x7e]+$/.test(json.access_token)) {
    throw invalid('The token endpoint answered without a usable access_token');
  }
  if (typeof json.token_type !== 'string' || json.token_type.toLowerCase() !== 'bearer') {
    throw invalid('The token endpoint answered with a token_type other than Bearer');
  }
  const expiresIn = json.expires_in;
  if (expiresIn !== undefined && (typeof expiresIn !== 'number' || !Number.isFinite(expiresIn) || expiresIn < 0)) {
    throw invalid('The token endpoint answered with an expires_in that is not a number of seconds');
  }
  return { accessToken: json.access_token, expiresIn };
}

/** Error classes by RFC 6749 code: the family a caller would catch for each. */
const classByOAuthCode: Readonly<Record<string, typeof PollkitError>> = {
  invalid_client: AuthenticationError,
  unauthorized_client: PermissionDeniedError,
  access_denied: PermissionDeniedError,
};

/**
 * A non-2xx token response as a {@link PollkitError} whose `code` is the RFC 6749 `error`
 * (`invalid_client` is an {@link AuthenticationError}, `access_denied` a {@link PermissionDeniedError}
 * — a `RateLimitError` when answered with 429 —, the request errors (400) plain `PollkitError`s,
 * any other the family of its status); a body of another shape is read like any API error.
 * The secret never reaches the message, even when a server echoes it.
 */
function tokenEndpointError(
  response: { status: number; headers: Headers; text: string },
  clientSecret: string,
): PollkitError {
  let json: unknown;
  try {
    json = JSON.parse(response.text);
  } catch {
    json = undefined;
  }
  if (!isRecord(json) || typeof json.error !== 'string') return PollkitError.from(response);
  const redact = (text: string) => (clientSecret ? text.split(clientSecret).join('[redacted]') : text);
  const code = json.error;
  const description = typeof json.error_description === 'string' ? redact(json.error_description) : undefined;
  const details: PollkitErrorDetails = description === undefined ? {} : { errorDescription: description };
  // A 5xx stays an InternalServerError and a 429 (Pollkit's `access_denied` for too many token
  // requests) a RateLimitError whatever the body says, so that both are retried with backoff like
  // any other call's.
  const byCode = response.status < 500 && response.status !== 429 ? classByOAuthCode[code] : undefined;
  const ErrorClass = byCode ?? errorClassFor(response.status);
  return new ErrorClass({
    status: response.status,
    code,
    message: `The token endpoint refused the client credentials grant (${code})${description ? `: ${description}` : ''}`,
    details,
    headers: response.headers,
    body: { error: code, ...(description === undefined ? {} : { error_description: description }) },
    response: { status: response.status, headers: response.headers, text: redact(response.text) },
  });
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
