import type { FastifyError, FastifyInstance } from 'fastify';
import { ApiError } from '../core/api-error.js';
import type { RequestMetrics } from './metrics-route.js';

/** Fastify's own failures (body parsing, limits) -> the spec's codes. */
export function fromFastifyError(error: FastifyError | ApiError): ApiError {
  if (error instanceof ApiError) return error;
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new ApiError('invalid_json', 'Request body is not valid JSON');
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ApiError('payload_too_large', 'Request body is too large');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ApiError('unsupported_media_type', 'Send the request body as application/json');
    // A path that cannot be decoded (`%ED%A0%80`, an unpaired surrogate) or whose id is longer than any
    // id names nothing that could exist: the 404 of an unknown id, not a complaint about the URL.
    case 'FST_ERR_BAD_URL':
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return new ApiError('not_found', 'No resource has this address');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new ApiError('bad_request', 'Content-Length does not match the body');
  }
  // secure-json-parse rejects __proto__/constructor keys with a SyntaxError and status 400.
  if (error instanceof SyntaxError || (error.statusCode === 400 && /JSON/i.test(error.message))) {
    return new ApiError('invalid_json', 'Request body is not valid JSON');
  }
  if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
    return new ApiError('bad_request', error.message);
  }
  return new ApiError('internal_error', 'Internal server error');
}

/** The methods a route may have, in the order `Allow` lists them. */
const ROUTABLE_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD'] as const;

/**
 * Errors no route caught, and paths no route matches, answer the envelope too. `requestMetrics`
 * (with METRICS_TOKEN) counts what no route's own hook sees: requests no route matched.
 */
export function registerErrorHandlers(app: FastifyInstance, requestMetrics?: RequestMetrics): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const apiError = fromFastifyError(error);
    if (apiError.status >= 500) request.log.error({ err: error }, 'unhandled error');
    return reply.code(apiError.status).type('application/json').send(apiError.toEnvelope());
  });

  // A known path asked with a method none of its routes takes (PUT on /polls, OPTIONS, TRACE, …) is
  // a 405 listing the methods it has; only an unknown path is a 404. Looked up in Fastify's own
  // router, so every route counts — contract, health, OAuth, media — and only misses pay for it.
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '';
    const allowed = ROUTABLE_METHODS.filter((method) => app.findRoute({ method, url: path }) !== null);
    requestMetrics?.unmatched(request, allowed.length > 0 ? 405 : 404);
    if (allowed.length > 0) {
      const allow = allowed.join(', ');
      const apiError = new ApiError('method_not_allowed', `${request.method} is not allowed here; use ${allow}`);
      return reply.code(405).header('allow', allow).send(apiError.toEnvelope());
    }
    const apiError = new ApiError('not_found', `No route ${request.method} ${path}`);
    return reply.code(404).send(apiError.toEnvelope());
  });
}
