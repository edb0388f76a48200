import { type ErrorCode, errorStatuses } from '@pollkit/contracts';

// The statuses alone (the generated route table's `errorStatuses`), not the registry with its
// descriptions: this file is in the audience page's bundle, through `@pollkit/sdk/live`.
const errorCodeList = Object.keys(errorStatuses) as ErrorCode[];
const isErrorCode = (value: unknown): value is ErrorCode =>
  typeof value === 'string' && Object.hasOwn(errorStatuses, value);

/**
 * Codes the SDK itself reports when there is no usable server answer. They never collide with the
 * server's registry (`@pollkit/contracts` `errorCodes`).
 */
export type ClientErrorCode = 'connection_error' | 'timeout' | 'invalid_response';

/**
 * `error.code` of a {@link PollkitError}: a code of the contracts' registry, a client-side code, or
 * (`string & {}`) a code added by a newer server than this SDK knows, still readable as a string.
 */
export type PollkitErrorCode = ErrorCode | ClientErrorCode | (string & {});

/** The registry's codes answered with HTTP status `S`: `CodeOfStatus<409>` is `'already_responded' | 'poll_closed' | …`. */
export type CodeOfStatus<S extends number> = {
  [K in ErrorCode]: (typeof errorStatuses)[K] extends S ? K : never;
}[ErrorCode];

/** The registry's codes answered with a 5xx status. */
export type ServerErrorCode = {
  [K in ErrorCode]: `${(typeof errorStatuses)[K]}` extends `5${string}` ? K : never;
}[ErrorCode];

/** `error.details`: field and form errors on `validation_failed`, free-form on other codes. */
export interface PollkitErrorDetails {
  /** Messages per field; nested fields use dotted paths such as `content.questions.0.options`. */
  fieldErrors?: Record<string, string[]> | undefined;
  /** Messages about the request as a whole. */
  formErrors?: string[] | undefined;
  readonly [key: string]: unknown;
}

/** A non-2xx (or unreadable 2xx) response as it arrived, already read: what {@link PollkitError.from} needs. */
export interface ErrorResponse {
  status: number;
  headers: Headers;
  /** The response body as text (empty when there was none). */
  text: string;
}

export interface PollkitErrorInit {
  status: number | undefined;
  code: PollkitErrorCode;
  message: string;
  details?: PollkitErrorDetails | undefined;
  headers?: Headers | undefined;
  body?: unknown | undefined;
  /** The response as it arrived; absent when none did. */
  response?: ErrorResponse | undefined;
  cause?: unknown | undefined;
}

/**
 * The code for a non-2xx body that is not the API's envelope (a proxy's HTML page, an empty body…),
 * read off the registry: the one code answered with that status, else the generic code of its class.
 */
function fallbackCode(status: number): ErrorCode {
  const candidates = errorCodeList.filter((code) => errorStatuses[code] === status);
  if (candidates.length === 1) return candidates[0] as ErrorCode;
  return status >= 500 ? 'internal_error' : 'bad_request';
}

const MAX_TEXT_MESSAGE_LENGTH = 500;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function parseJson(text: string): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * Every failed call throws a `PollkitError`: any non-2xx answer (as the subclass of its family:
 * {@link NotFoundError}, {@link ConflictError}…), a response the SDK cannot read, and (as
 * {@link ConnectionError} / {@link TimeoutError}) a request that never got an answer.
 *
 * `code` is the stable field to branch on; `message` is for people.
 */
/** A {@link PollkitError} as `JSON.stringify` writes it ({@link PollkitError.toJSON}). */
export interface PollkitErrorJson {
  name: string;
  code: PollkitErrorCode;
  message: string;
  status: number | undefined;
  requestId: string | undefined;
  details: PollkitErrorDetails | undefined;
}

export class PollkitError extends Error {
  /** HTTP status; `undefined` when no response arrived. */
  readonly status: number | undefined;
  readonly code: PollkitErrorCode;
  readonly details: PollkitErrorDetails | undefined;
  /** Response headers (`x-request-id`, `x-ratelimit-*`); empty when no response arrived. */
  readonly headers: Headers;
  /** The error body: the parsed JSON, or the text when it was not JSON. */
  readonly body: unknown;
  /** The response exactly as it arrived (status, headers, body text); `undefined` when none did. */
  readonly response: ErrorResponse | undefined;

  constructor(init: PollkitErrorInit) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = new.target.name;
    this.status = init.status;
    this.code = init.code;
    this.details = init.details;
    this.headers = init.headers ?? init.response?.headers ?? new Headers();
    this.body = init.body;
    this.response = init.response;
  }

  /** The server's `x-request-id`, worth quoting in a support request. */
  get requestId(): string | undefined {
    return this.headers.get('x-request-id') ?? undefined;
  }

  /**
   * What `JSON.stringify(error)` writes, as logging libraries serialize errors: `message` is an
   * Error's own non-enumerable property and `requestId` a getter, and `headers` would be `{}`, so
   * without this the log would keep none of what matters. No header, body or cause is written: a
   * log line is no place for them (and a body may hold what a request sent).
   */
  toJSON(): PollkitErrorJson {
    return {
      name: this.name,
      code: this.code,
      message: this.message,
      status: this.status,
      requestId: this.requestId,
      details: this.details,
    };
  }

  /**
   * Builds the error for a non-2xx response from the spec's envelope
   * `{ error: { code, message, details? } }`, or from the status and text when the body is not one,
   * as the class of its family ({@link errorClassFor}).
   *
   * The one place a response becomes an error.
   */
  static from(response: ErrorResponse): PollkitError {
    const { status, headers, text } = response;
    const json = parseJson(text);
    const envelope = isRecord(json) && isRecord(json.error) ? json.error : undefined;
    if (envelope && typeof envelope.code === 'string') {
      const ErrorClass = errorClassFor(status, envelope.code);
      return new ErrorClass({
        status,
        code: envelope.code,
        message: typeof envelope.message === 'string' ? envelope.message : `HTTP ${status}`,
        details: isRecord(envelope.details) ? (envelope.details as PollkitErrorDetails) : undefined,
        headers,
        body: json,
        response,
      });
    }
    const trimmed = text.trim();
    const message =
      isRecord(json) && typeof json.message === 'string'
        ? json.message
        : trimmed
          ? trimmed.slice(0, MAX_TEXT_MESSAGE_LENGTH)
          : `HTTP ${status}`;
    const code = fallbackCode(status);
    // The family comes from the status alone: the fallback code may be a generic one of another status.
    const ErrorClass = errorClassFor(status);
    return new ErrorClass({ status, code, message, headers, body: json ?? text, response });
  }
}

/** 401: the credential is missing, unknown, revoked or expired. */
export class AuthenticationError extends PollkitError {
  declare readonly code: CodeOfStatus<401> | (string & {});
}

/** 402: the workspace's plan does not include the feature. */
export class UpgradeRequiredError extends PollkitError {
  declare readonly code: CodeOfStatus<402> | (string & {});
}

/** 403: the credential lacks a scope the operation requires. */
export class PermissionDeniedError extends PollkitError {
  declare readonly code: CodeOfStatus<403> | (string & {});
}

/** 404: the resource does not exist, or belongs to another workspace. */
export class NotFoundError extends PollkitError {
  declare readonly code: CodeOfStatus<404> | (string & {});
}

/** 409: the request conflicts with the resource's state; `code` says how (`already_responded`, `poll_closed`…). */
export class ConflictError extends PollkitError {
  declare readonly code: CodeOfStatus<409> | (string & {});
}

/** 422: the request failed validation; the messages are in {@link fieldErrors} and {@link formErrors}. */
export class ValidationError extends PollkitError {
  declare readonly code: CodeOfStatus<422> | (string & {});

  /** Messages per field; nested fields use dotted paths such as `content.questions.0.options`. */
  get fieldErrors(): Record<string, string[]> {
    return this.details?.fieldErrors ?? {};
  }

  /** Messages about the request as a whole. */
  get formErrors(): string[] {
    return this.details?.formErrors ?? [];
  }
}

/** 429: the rate limit's window is used up. The SDK retries these with backoff before throwing one. */
export class RateLimitError extends PollkitError {
  declare readonly code: CodeOfStatus<429> | (string & {});
}

/** 5xx: the server failed or is unavailable. The SDK retries these with backoff before throwing one. */
export class InternalServerError extends PollkitError {
  declare readonly code: ServerErrorCode | (string & {});
}

/**
 * The request got no HTTP answer, or the answer broke off: DNS failure, refused or reset connection,
 * TLS error. `cause` holds why. Retried with backoff before being thrown.
 */
export class ConnectionError extends PollkitError {
  declare readonly code: 'connection_error' | 'timeout';

  constructor(message: string, cause?: unknown, code: 'connection_error' | 'timeout' = 'connection_error') {
    super({ status: undefined, code, message, cause });
  }
}

/** No complete answer arrived within the call's `timeout`. A kind of {@link ConnectionError}, retried like one. */
export class TimeoutError extends ConnectionError {
  declare readonly code: 'timeout';

  constructor(message: string) {
    super(message, undefined, 'timeout');
  }
}

type ErrorClass = new (init: PollkitErrorInit) => PollkitError;

/** The error family of each HTTP status the registry assigns a family to. */
const familyByStatus: Readonly<Record<number, ErrorClass>> = {
  401: AuthenticationError,
  402: UpgradeRequiredError,
  403: PermissionDeniedError,
  404: NotFoundError,
  409: ConflictError,
  422: ValidationError,
  429: RateLimitError,
};

/**
 * The class for an answer: the family of the status the registry gives a known `code` (they agree
 * for every answer of this API), else of the HTTP status itself (a code from a newer server). A
 * status without a family (400, 405, 413, 415) is a plain {@link PollkitError}.
 */
export function errorClassFor(status: number, code?: string): ErrorClass {
  const familyStatus = isErrorCode(code) ? errorStatuses[code] : status;
  if (familyStatus >= 500) return InternalServerError;
  return familyByStatus[familyStatus] ?? PollkitError;
}
