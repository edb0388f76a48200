/**
 * The error-code registry: every `error.code` the API can answer, with its HTTP status.
 *
 * The server maps every failure to one of these codes, the OpenAPI document lists them per
 * operation, and the SDK derives its error classes from them. A code is part of the public
 * contract: never rename one; add a new code instead.
 */
export const errorCodes = {
  invalid_json: {
    status: 400,
    description:
      'The request body is not valid JSON (bodies with `__proto__` or `constructor.prototype` keys are refused too).',
  },
  bad_request: {
    status: 400,
    description:
      'The request is malformed in a way no other code names: a wrong `Content-Length`, a malformed `Idempotency-Key`.',
  },
  missing_authorization: {
    status: 401,
    description:
      'No `Authorization: Bearer` credential was sent (or, on live-session routes, no `X-Host-Token` / `X-Participant-Token`).',
  },
  invalid_api_key: { status: 401, description: 'The API key is unknown or incorrect.' },
  revoked_api_key: { status: 401, description: 'The API key was revoked.' },
  expired_api_key: { status: 401, description: 'The API key was rotated and its grace period is over.' },
  invalid_oauth_token: {
    status: 401,
    description:
      'The OAuth access token is unknown or expired, its client was revoked, or its workspace no longer has OAuth.',
  },
  invalid_host_token: {
    status: 401,
    description: "The `X-Host-Token` is not this session's host token.",
  },
  invalid_participant_token: {
    status: 401,
    description: 'The `X-Participant-Token` names no participant of this session (join again without it).',
  },
  upgrade_required: {
    status: 402,
    description:
      "The workspace's plan does not include the API (the Free plan: `details.plan`) or this operation " +
      '(`details.plan` and `details.requiredPlan`).',
  },
  insufficient_scope: {
    status: 403,
    description: 'The OAuth access token lacks the scope the operation requires (`details.requiredScope`).',
  },
  not_found: { status: 404, description: 'The resource or route does not exist (or belongs to another workspace).' },
  method_not_allowed: { status: 405, description: 'The route exists but not with this HTTP method (see `Allow`).' },
  request_timeout: {
    status: 408,
    description: 'The request line and headers did not arrive in time; the connection is closed.',
  },
  already_responded: { status: 409, description: 'The voter already answered this slide.' },
  already_upvoted: { status: 409, description: 'The voter already upvoted this question.' },
  upvotes_disabled: { status: 409, description: 'The Q&A slide does not take upvotes (`allowUpvotes: false`).' },
  poll_not_published: { status: 409, description: 'The poll is a draft; it takes no answers and cannot be closed.' },
  poll_closed: { status: 409, description: 'The poll is closed; it takes no answers.' },
  poll_has_responses: {
    status: 409,
    description:
      'The poll already has answers, so its slides can no longer change; `DELETE /polls/{id}/answers` deletes them.',
  },
  invalid_session_state: {
    status: 409,
    description:
      'The session is not in a state this action applies to (`details.status`): `start` on an active session, any action on an ended one.',
  },
  session_not_active: {
    status: 409,
    description: 'The live session has not started yet or has ended (`details.status`); it takes no answers.',
  },
  slide_not_active: {
    status: 409,
    description: 'Live answers go to the current slide only (`details.currentSlideId`); this one is not it.',
  },
  slide_locked: { status: 409, description: 'The presenter locked the current slide; it takes no answers for now.' },
  time_up: {
    status: 409,
    description: "The quiz slide's time limit passed before the answer arrived (`details.timeLimitSec`).",
  },
  idempotency_key_in_use: {
    status: 409,
    description: 'Another request with this `Idempotency-Key` is still being processed; retry shortly.',
  },
  webhook_endpoint_limit: {
    status: 409,
    description:
      'The workspace already has the most webhook endpoints it may have (`details.limit`); delete one first.',
  },
  webhook_endpoint_disabled: {
    status: 409,
    description:
      'The webhook endpoint is disabled (`details.disabledReason`); enable it with `PATCH /webhooks/{id}` first.',
  },
  key_not_active: {
    status: 409,
    description: 'Only an active API key can be rotated; this one is revoked or was already rotated.',
  },
  payload_too_large: {
    status: 413,
    description: 'The request body is larger than the server accepts (`BODY_LIMIT_BYTES`, 1 MiB by default).',
  },
  unsupported_media_type: { status: 415, description: 'The request body is not `application/json`.' },
  request_header_fields_too_large: {
    status: 431,
    description: 'The request line (the URL) and headers together are larger than the server accepts (16 KiB).',
  },
  validation_failed: {
    status: 422,
    description: 'The request failed validation; `details` holds `fieldErrors` and `formErrors`. Nothing was changed.',
  },
  media_not_allowed: {
    status: 422,
    description:
      'The media URL is not fetchable: not http(s), or its host resolves (or redirects) to a private, loopback, link-local or metadata address.',
  },
  media_fetch_failed: {
    status: 422,
    description:
      'The media URL could not be fetched: unreachable host, non-2xx answer, too many redirects or a timeout.',
  },
  media_too_large: {
    status: 422,
    description: 'The media URL serves more bytes than the server accepts (the download is cut off at the limit).',
  },
  unsupported_media: {
    status: 422,
    description:
      'The media URL does not serve an image the server can decode (or the image has more pixels than allowed), while `type: image` was asked for.',
  },
  webhook_url_not_allowed: {
    status: 422,
    description:
      'The webhook URL is not one events may be sent to: not https (where the server requires it), with credentials, ' +
      'or its host resolves to a private, loopback, link-local or metadata address.',
  },
  idempotency_key_reused: {
    status: 422,
    description: 'This `Idempotency-Key` was already used with a different request (route, parameters or body).',
  },
  rate_limited: {
    status: 429,
    description: 'Rate limit exceeded (`details.limit`, `details.resetAt`); retry after the window resets.',
  },
  internal_error: {
    status: 500,
    description:
      'Unexpected server error. The body holds no internals; the `x-request-id` header identifies the request.',
  },
  service_unavailable: {
    status: 503,
    description:
      'The server is shutting down or a dependency is unreachable, or the poll kept changing while an answer was recorded; retry.',
  },
} as const satisfies Record<string, { status: number; description: string }>;

export type ErrorCode = keyof typeof errorCodes;

export const errorCodeList = Object.keys(errorCodes) as ErrorCode[];

export function statusOf(code: ErrorCode): number {
  return errorCodes[code].status;
}

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.hasOwn(errorCodes, value);
}
