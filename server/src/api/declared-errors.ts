import { type ErrorCode, type RouteDefinition, requiredScopes } from '@pollkit/contracts';
import { takesIdempotencyKey } from './idempotency.js';

/** The credential failures of the authenticate step (modules/auth): any of them on a workspace route. */
const CREDENTIAL_CODES = [
  'missing_authorization',
  'invalid_api_key',
  'revoked_api_key',
  'expired_api_key',
  'invalid_oauth_token',
] as const satisfies readonly ErrorCode[];

/**
 * Every code a route may answer: its own `errors` and those of the gates it passes through — the
 * guard's (401, 402, 429, and 403 for a credential without the route's scope) on authenticated
 * routes, the idempotency step's on a POST that takes a key, the body parser's on every method
 * Fastify parses a body for (all but GET, so DELETE too), and the ones any request can meet.
 *
 * The OpenAPI document lists exactly these per operation (openapi/document.ts), and with
 * RESPONSE_VALIDATION the pipeline refuses any other (pipeline.ts `declaredErrorsStep`): what the
 * document promises is what the server answers.
 */
export function declaredErrorCodes(route: RouteDefinition): ErrorCode[] {
  const codes = new Set<ErrorCode>(route.errors);
  if (route.auth === 'host') {
    codes.add('missing_authorization');
    codes.add('invalid_host_token');
  }
  if (route.auth === 'participant') codes.add('rate_limited');
  if (route.auth === 'workspace' || route.auth === 'host') {
    for (const code of CREDENTIAL_CODES) codes.add(code);
    codes.add('upgrade_required');
    if (requiredScopes(route).length > 0) codes.add('insufficient_scope');
    codes.add('rate_limited');
  }
  if (route.auth !== 'none' && takesIdempotencyKey(route)) {
    codes.add('idempotency_key_reused');
    codes.add('idempotency_key_in_use');
  }
  if (route.method !== 'GET') {
    codes.add('invalid_json');
    codes.add('payload_too_large');
    codes.add('unsupported_media_type');
  }
  codes.add('bad_request');
  codes.add('validation_failed');
  codes.add('internal_error');
  // Any route: the process may be draining for shutdown, or its database away for a moment.
  codes.add('service_unavailable');
  return [...codes];
}
