/**
 * Whether sending the same request again can succeed, and how:
 * - `no`: it fails the same way until the request, the credential or the resource changes;
 * - `backoff`: yes, after an exponential backoff with jitter (the failure is transient);
 * - `after_reset`: yes, once the rate-limit window resets (`X-RateLimit-Reset`).
 */
export type RetryAdvice = 'no' | 'backoff' | 'after_reset';

/** What the registry says of one code. */
export interface ErrorCodeInfo {
  /** The HTTP status the code is answered with. */
  status: number;
  /** What the code means and what causes it. */
  description: string;
  /** What the client should do about it. */
  action: string;
  retry: RetryAdvice;
}

/**
 * The error-code registry: every `error.code` the API can answer, with its HTTP status, what it
 * means, what to do about it and whether to retry.
 *
 * The server maps every failure to one of these codes, the OpenAPI document lists them per
 * operation, the SDK derives its error classes from them, and the docs site's error reference
 * (docs/reference/errors.md) is generated from them. A code is part of the public contract: never
 * rename one; add a new code instead.
 */
export const errorCodes = {
  invalid_json: {
    status: 400,
    description:
      'The request body is not valid JSON (bodies with `__proto__` or `constructor.prototype` keys are refused too).',
    action: 'Send a valid JSON body; check how your client serialises it.',
    retry: 'no',
  },
  bad_request: {
    status: 400,
    description:
      'The request is malformed in a way no other code names: a wrong `Content-Length`, a malformed `Idempotency-Key`.',
    action:
      'Fix the request: let your HTTP client set `Content-Length`; send an `Idempotency-Key` of 1 to 255 printable ASCII characters.',
    retry: 'no',
  },
  missing_authorization: {
    status: 401,
    description:
      'No `Authorization: Bearer` credential was sent (or, on live-session routes, no `X-Host-Token` / `X-Participant-Token`).',
    action: 'Send `Authorization: Bearer <API key or access token>` (live-session routes: the token header they name).',
    retry: 'no',
  },
  invalid_api_key: {
    status: 401,
    description: 'The API key is unknown or incorrect.',
    action:
      'Check the key you send. A lost key cannot be recovered: create another with the CLI, or with `POST /keys` and a key that works.',
    retry: 'no',
  },
  revoked_api_key: {
    status: 401,
    description: 'The API key was revoked.',
    action: 'Use another active key of the workspace, or create one.',
    retry: 'no',
  },
  expired_api_key: {
    status: 401,
    description: 'The API key was rotated and its grace period is over.',
    action: 'Switch to the key that replaced it at rotation.',
    retry: 'no',
  },
  invalid_oauth_token: {
    status: 401,
    description:
      'The OAuth access token is unknown or expired, its client was revoked, or its workspace no longer has OAuth.',
    action: 'Request a new access token from `POST /api/oauth/token`; if that fails too, check the client.',
    retry: 'no',
  },
  invalid_host_token: {
    status: 401,
    description: "The `X-Host-Token` is not this session's host token.",
    action: "Send the `hostToken` the session's creation returned.",
    retry: 'no',
  },
  invalid_participant_token: {
    status: 401,
    description: 'The `X-Participant-Token` names no participant of this session (join again without it).',
    action: 'Join the session again without the token, and use the new one.',
    retry: 'no',
  },
  invalid_metrics_token: {
    status: 401,
    description:
      '`GET /metrics` was asked without `Authorization: Bearer <METRICS_TOKEN>`, or with another token (operators only; not part of `/api/v1`).',
    action: "Send the server's `METRICS_TOKEN` as `Authorization: Bearer …` from your Prometheus scrape configuration.",
    retry: 'no',
  },
  upgrade_required: {
    status: 402,
    description:
      "The workspace's plan does not include the API (the Free plan: `details.plan`) or this operation " +
      '(`details.plan` and `details.requiredPlan`).',
    action: "Upgrade the workspace's plan (`details.requiredPlan`, or a paid plan for the API).",
    retry: 'no',
  },
  insufficient_scope: {
    status: 403,
    description:
      'The credential (an OAuth access token, or an API key created with `scopes`) lacks a scope the operation ' +
      'requires (`details.requiredScope`), or asked to give a key scopes it does not hold itself ' +
      '(`details.missingScopes`).',
    action:
      'Use a credential holding `details.requiredScope`: a token from a client allowed it, or a key created with it.',
    retry: 'no',
  },
  not_found: {
    status: 404,
    description: 'The resource or route does not exist (or belongs to another workspace).',
    action: 'Check the id and the path, and that the resource belongs to your workspace.',
    retry: 'no',
  },
  method_not_allowed: {
    status: 405,
    description: 'The route exists but not with this HTTP method (see `Allow`).',
    action: 'Use a method from the `Allow` header.',
    retry: 'no',
  },
  request_timeout: {
    status: 408,
    description:
      'The request (its headers and body) did not arrive within the server’s limit (`REQUEST_TIMEOUT_MS`, 30 s by default); the connection is closed.',
    action:
      'Send the request again on a new connection, whole and without pauses; a large body over a slow link may need a higher `REQUEST_TIMEOUT_MS` on your server.',
    retry: 'backoff',
  },
  already_responded: {
    status: 409,
    description: 'The voter already answered this slide.',
    action: 'Treat the answer as recorded; one voter answers a slide once.',
    retry: 'no',
  },
  already_upvoted: {
    status: 409,
    description: 'The voter already upvoted this question.',
    action: 'Treat the upvote as recorded; one voter upvotes a question once.',
    retry: 'no',
  },
  upvotes_disabled: {
    status: 409,
    description: 'The Q&A slide does not take upvotes (`allowUpvotes: false`).',
    action: 'Do not offer upvotes on this slide, or set `allowUpvotes: true` before it takes answers.',
    retry: 'no',
  },
  poll_not_published: {
    status: 409,
    description: 'The poll is a draft; it takes no answers and cannot be closed.',
    action: 'Publish the poll first (`PATCH /polls/{id}` with `publish: true`).',
    retry: 'no',
  },
  poll_closed: {
    status: 409,
    description: 'The poll is closed; it takes no answers.',
    action: 'Stop sending answers to it, or reopen it first (`PATCH /polls/{id}` with `closed: false`).',
    retry: 'no',
  },
  poll_has_responses: {
    status: 409,
    description:
      'The poll already has answers, so its slides can no longer change; `DELETE /polls/{id}/answers` deletes them.',
    action: 'Delete the answers first (`DELETE /polls/{id}/answers`), or create a new poll.',
    retry: 'no',
  },
  invalid_session_state: {
    status: 409,
    description:
      'The session is not in a state this action applies to (`details.status`): `start` on an active session, any action on an ended one.',
    action: "Read the session's state (`details.status`) and send only the actions it allows.",
    retry: 'no',
  },
  session_full: {
    status: 409,
    description: 'The live session has as many participants as it takes (`details.maxParticipants`).',
    action: 'Ask the presenter to raise the cap (`PATCH /sessions/{id}`), or to remove participants who left.',
    retry: 'no',
  },
  content_rejected: {
    status: 422,
    description:
      'The text (an answer, a Q&A question or a participant name, `details.field`) contains a word the poll’s text filter blocks (`textFilter: block`, or a name under `block` or `review`). The message never repeats the word. Nothing was stored.',
    action:
      'Rephrase without it. Workspace owners tune the filter with `blockedTerms` / `allowedTerms` (`PATCH /workspace`).',
    retry: 'no',
  },
  poll_full: {
    status: 409,
    description:
      'The poll has as many respondents as it takes (`details.maxRespondents`): a voter or participant who has not answered it yet cannot start.',
    action: 'Raise `maxRespondents` (`PATCH /polls/{id}`) or remove it; respondents who already answered carry on.',
    retry: 'no',
  },
  joins_locked: {
    status: 409,
    description: 'The presenter has locked joins: the live session takes no new participants.',
    action: 'Ask the presenter to unlock joins; participants who joined carry on with their token.',
    retry: 'no',
  },
  session_not_active: {
    status: 409,
    description: 'The live session has not started yet or has ended (`details.status`); it takes no answers.',
    action: 'Wait for the presenter to start the session; an ended session takes no more answers.',
    retry: 'no',
  },
  slide_not_active: {
    status: 409,
    description: 'Live answers go to the current slide only (`details.currentSlideId`); this one is not it.',
    action: 'Answer the current slide (`details.currentSlideId`); follow the event stream to know which it is.',
    retry: 'no',
  },
  slide_locked: {
    status: 409,
    description: 'The presenter locked the current slide; it takes no answers for now.',
    action: 'Wait for the presenter to unlock the slide or move on; the event stream says when.',
    retry: 'no',
  },
  time_up: {
    status: 409,
    description: "The quiz slide's time limit passed before the answer arrived (`details.timeLimitSec`).",
    action: 'Nothing to fix: the answer came too late. Show the participant that time is up.',
    retry: 'no',
  },
  idempotency_key_in_use: {
    status: 409,
    description: 'Another request with this `Idempotency-Key` is still being processed; retry shortly.',
    action: "Retry with the same `Idempotency-Key` after a short backoff; you then get the first request's answer.",
    retry: 'backoff',
  },
  webhook_endpoint_limit: {
    status: 409,
    description:
      'The workspace already has the most webhook endpoints it may have (`details.limit`); delete one first.',
    action: 'Delete an endpoint you no longer use, then register the new one.',
    retry: 'no',
  },
  webhook_endpoint_disabled: {
    status: 409,
    description:
      'The webhook endpoint is disabled (`details.disabledReason`); enable it with `PATCH /webhooks/{id}` first.',
    action: 'Fix the receiver, then enable the endpoint with `PATCH /webhooks/{id}`.',
    retry: 'no',
  },
  key_not_active: {
    status: 409,
    description: 'Only an active API key can be rotated; this one is revoked or was already rotated.',
    action: 'Rotate the active key that replaced this one, or create a new key.',
    retry: 'no',
  },
  payload_too_large: {
    status: 413,
    description: 'The request body is larger than the server accepts (`BODY_LIMIT_BYTES`, 1 MiB by default).',
    action: 'Send a smaller body, or raise `BODY_LIMIT_BYTES` on your server.',
    retry: 'no',
  },
  unsupported_media_type: {
    status: 415,
    description: 'The request body is not `application/json`.',
    action: 'Send the body as JSON with `Content-Type: application/json`.',
    retry: 'no',
  },
  request_header_fields_too_large: {
    status: 431,
    description: 'The request line (the URL) and headers together are larger than the server accepts (16 KiB).',
    action: 'Send a shorter URL and fewer or smaller headers.',
    retry: 'no',
  },
  validation_failed: {
    status: 422,
    description: 'The request failed validation; `details` holds `fieldErrors` and `formErrors`. Nothing was changed.',
    action: 'Fix the fields named in `details.fieldErrors` and the problems in `details.formErrors`.',
    retry: 'no',
  },
  media_not_allowed: {
    status: 422,
    description:
      'The media URL is not fetchable: not http(s), or its host resolves (or redirects) to a private, loopback, link-local or metadata address.',
    action: 'Use a public http(s) URL.',
    retry: 'no',
  },
  media_fetch_failed: {
    status: 422,
    description:
      'The media URL could not be fetched: unreachable host, non-2xx answer, too many redirects or a timeout.',
    action: 'Check that the URL answers 2xx from the server, quickly, in few redirects; then send it again.',
    retry: 'no',
  },
  media_too_large: {
    status: 422,
    description: 'The media URL serves more bytes than the server accepts (the download is cut off at the limit).',
    action: 'Use a smaller file, or raise `MEDIA_MAX_BYTES` on your server.',
    retry: 'no',
  },
  unsupported_media: {
    status: 422,
    description:
      'The media URL does not serve an image the server can decode (or the image has more pixels than allowed), while `type: image` was asked for.',
    action:
      'Use an image in a format the server decodes (PNG, JPEG, GIF, WebP, AVIF…) within the pixel limit, or another `type`.',
    retry: 'no',
  },
  webhook_url_not_allowed: {
    status: 422,
    description:
      'The webhook URL is not one events may be sent to: not https (where the server requires it), with credentials, ' +
      'or its host resolves to a private, loopback, link-local or metadata address.',
    action: 'Use a public https URL without credentials.',
    retry: 'no',
  },
  challenge_failed: {
    status: 422,
    description:
      'The live session asks new participants to solve a proof-of-work challenge (`joinChallenge: "pow"`) and the ' +
      'join carried no solution, or one that is wrong, forged, of another session, expired or already used ' +
      '(`details.required: true`, `details.reason`: `missing`, `invalid`, `expired` or `used`).',
    action:
      'Get a challenge from `GET /live/{pin}/challenge`, solve it (the SDK’s `joinSession` does both) and join again ' +
      'with the solution as `challenge`; each challenge joins once, within five minutes.',
    retry: 'no',
  },
  idempotency_key_reused: {
    status: 422,
    description: 'This `Idempotency-Key` was already used with a different request (route, parameters or body).',
    action: 'Use a new `Idempotency-Key` for each different request.',
    retry: 'no',
  },
  rate_limited: {
    status: 429,
    description: 'Rate limit exceeded (`details.limit`, `details.resetAt`); retry after the window resets.',
    action: 'Wait until the window resets (`X-RateLimit-Reset`, `details.resetAt`), backing off with jitter.',
    retry: 'after_reset',
  },
  internal_error: {
    status: 500,
    description:
      'Unexpected server error. The body holds no internals; the `x-request-id` header identifies the request.',
    action: 'Retry with backoff; if it persists, report it with the `x-request-id`.',
    retry: 'backoff',
  },
  service_unavailable: {
    status: 503,
    description:
      'The server is shutting down or a dependency is unreachable, or the poll kept changing while an answer was recorded; retry.',
    action: 'Retry with exponential backoff and jitter.',
    retry: 'backoff',
  },
} as const satisfies Record<string, ErrorCodeInfo>;

export type ErrorCode = keyof typeof errorCodes;

export const errorCodeList = Object.keys(errorCodes) as ErrorCode[];

export function statusOf(code: ErrorCode): number {
  return errorCodes[code].status;
}

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.hasOwn(errorCodes, value);
}
