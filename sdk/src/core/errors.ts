import type { ErrorCode } from '@pollkit/contracts';

/**
 * Codes the SDK itself reports when there is no usable server answer. They never collide with the
 * server's registry (`@pollkit/contracts` `errorCodes`).
 */
export type ClientErrorCode = 'connection_error' | 'invalid_response';

/**
 * `error.code` of a {@link PollkitError}: a code of the contracts' registry, a client-side code, or
 * (`string & {}`) a code added by a newer server than this SDK knows, still readable as a string.
 */
export type PollkitErrorCode = ErrorCode | ClientErrorCode | (string & {});

/** `error.details`: field and form errors on `validation_failed`, free-form on other codes. */
export interface PollkitErrorDetails {
  /** Messages per field; nested fields use dotted paths such as `content.questions.0.options`. */
  fieldErrors?: Record<string, string[]>;
  /** Messages about the request as a whole. */
  formErrors?: string[];
  readonly [key: string]: unknown;
}

/** What {@link PollkitError.from} needs of a non-2xx response, already read. */
export interface ErrorResponse {
  status: number;
  headers: Headers;
  /** The response body as text (empty when there was none). */
  text: string;
}

interface PollkitErrorInit {
  status: number | undefined;
  code: PollkitErrorCode;
  message: string;
  details?: PollkitErrorDetails | undefined;
  headers?: Headers | undefined;
  body?: unknown;
  cause?: unknown;
}

/** Used when a non-2xx body is not the API's envelope (a proxy's HTML page, an empty body…). */
const fallbackCodeByStatus: Readonly<Record<number, ErrorCode>> = {
  404: 'not_found',
  405: 'method_not_allowed',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  429: 'rate_limited',
  503: 'service_unavailable',
};

function fallbackCode(status: number): ErrorCode {
  return fallbackCodeByStatus[status] ?? (status >= 500 ? 'internal_error' : 'bad_request');
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
 * Every failed call throws a `PollkitError` (or a subclass): any non-2xx answer, a response the SDK
 * cannot read, and (as {@link PollkitConnectionError}) a request that never got an answer.
 *
 * `code` is the stable field to branch on; `message` is for people.
 */
export class PollkitError extends Error {
  /** HTTP status; `undefined` when no response arrived. */
  readonly status: number | undefined;
  readonly code: PollkitErrorCode;
  readonly details: PollkitErrorDetails | undefined;
  /** Response headers (`x-request-id`, `x-ratelimit-*`); empty when no response arrived. */
  readonly headers: Headers;
  /** The raw error body: the parsed JSON, or the text when it was not JSON. */
  readonly body: unknown;

  constructor(init: PollkitErrorInit) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = new.target.name;
    this.status = init.status;
    this.code = init.code;
    this.details = init.details;
    this.headers = init.headers ?? new Headers();
    this.body = init.body;
  }

  /** The server's `x-request-id`, worth quoting in a support request. */
  get requestId(): string | undefined {
    return this.headers.get('x-request-id') ?? undefined;
  }

  /**
   * Builds the error for a non-2xx response from the spec's envelope
   * `{ error: { code, message, details? } }`, or from the status and text when the body is not one.
   *
   * The one place a response becomes an error, so that status- or code-specific subclasses can be
   * chosen here without touching the request path.
   */
  static from(response: ErrorResponse): PollkitError {
    const { status, headers, text } = response;
    const json = parseJson(text);
    const envelope = isRecord(json) && isRecord(json.error) ? json.error : undefined;
    if (envelope && typeof envelope.code === 'string') {
      return new PollkitError({
        status,
        code: envelope.code,
        message: typeof envelope.message === 'string' ? envelope.message : `HTTP ${status}`,
        details: isRecord(envelope.details) ? (envelope.details as PollkitErrorDetails) : undefined,
        headers,
        body: json,
      });
    }
    const trimmed = text.trim();
    const message =
      isRecord(json) && typeof json.message === 'string'
        ? json.message
        : trimmed
          ? trimmed.slice(0, MAX_TEXT_MESSAGE_LENGTH)
          : `HTTP ${status}`;
    return new PollkitError({
      status,
      code: fallbackCode(status),
      message,
      headers,
      body: json ?? text,
    });
  }
}

/** The request got no HTTP answer: DNS failure, refused or reset connection, TLS error. `cause` holds why. */
export class PollkitConnectionError extends PollkitError {
  constructor(message: string, cause: unknown) {
    super({ status: undefined, code: 'connection_error', message, cause });
  }
}
