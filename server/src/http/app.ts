import { randomUUID } from 'node:crypto';
import Fastify, {
  type FastifyBaseLogger,
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  LogController,
} from 'fastify';
import { sql } from 'kysely';
import { ApiError } from '../core/api-error.js';
import type { AppDeps } from '../deps.js';
import { buildOpenApiDocument } from '../openapi/document.js';
import { registerContractRoutes } from './contract-routes.js';
import { registerMediaFilesRoute } from './media-files.js';
import { registerOAuthTokenRoute } from './oauth-token.js';
import { announceDefaultRateLimit } from './rate-limit-headers.js';

export const API_BASE_PATH = '/api/v1';

/**
 * Deepest nesting a JSON body may have. Real bodies nest about ten levels; thousands of levels
 * overflow the stack of recursive code further on (tRPC re-serialises the parsed body), which
 * would be a 500 instead of a client error.
 */
export const MAX_JSON_DEPTH = 64;

/** Whether `text` opens more than `max` arrays/objects at once. One pass, no recursion. */
function jsonNestsDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const char = text.charCodeAt(i);
    if (inString) {
      if (char === 0x5c) {
        i++; // a backslash escapes the next character, quotes included
      } else if (char === 0x22) {
        inString = false;
      }
    } else if (char === 0x22) {
      inString = true;
    } else if (char === 0x7b || char === 0x5b) {
      if (++depth > max) return true;
    } else if (char === 0x7d || char === 0x5d) {
      depth--;
    }
  }
  return false;
}

/** Fastify's own failures (body parsing, limits) -> the spec's codes. */
function fromFastifyError(error: FastifyError | ApiError): ApiError {
  if (error instanceof ApiError) return error;
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new ApiError('invalid_json', 'Request body is not valid JSON');
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ApiError('payload_too_large', 'Request body is too large');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ApiError('unsupported_media_type', 'Send the request body as application/json');
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

export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  // Every response carries its request id, and every API response the limit — 401s and 404s
  // included; `authorize` refines the limit (and adds Remaining/Reset) once it knows the credential.
  const announceDefaults = (request: FastifyRequest, reply: FastifyReply) => {
    reply.header('x-request-id', request.id);
    if (request.url.startsWith('/api/')) announceDefaultRateLimit(reply, deps.config.RATE_LIMIT_PER_MINUTE);
  };

  const app = Fastify({
    loggerInstance: deps.log as FastifyBaseLogger,
    // One access-log line per request (onResponse below) instead of Fastify's two.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: deps.config.BODY_LIMIT_BYTES,
    requestIdHeader: 'x-request-id',
    // A URL Fastify cannot even decode is still answered in the envelope, with the usual headers.
    frameworkErrors: (error, request, reply) => {
      announceDefaults(request, reply);
      const apiError = fromFastifyError(error);
      reply.code(apiError.status as never).send(apiError.toEnvelope() as never);
    },
    genReqId: () => randomUUID(),
    // Requests that arrive while draining get the 503 from the onRequest hook below, in the
    // envelope; Fastify's own would be `{ "error": "Service Unavailable", … }`.
    return503OnClosing: false,
  });

  // JSON only: anything else is 415 before any handler runs.
  app.removeContentTypeParser(['text/plain']);
  // Fastify's secure parser (it rejects `__proto__`/`constructor.prototype` keys), behind a depth check.
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, rawBody, done) => {
    const body = typeof rawBody === 'string' ? rawBody : rawBody.toString('utf8');
    if (jsonNestsDeeperThan(body, MAX_JSON_DEPTH)) {
      const message = `The request body nests deeper than ${MAX_JSON_DEPTH} levels`;
      done(new ApiError('validation_failed', message, { fieldErrors: {}, formErrors: [message] }), undefined);
      return;
    }
    parseJson(request, body, done);
  });

  // Hooks are callback-style, not async: they run on every request, and an async hook costs a
  // promise and a microtask each time (measured in server/bench).
  app.addHook('onRequest', (request, reply, done) => {
    announceDefaults(request, reply);
    // `shuttingDown` is set as soon as close() begins (on SIGTERM), before the listener closes:
    // from then on new work is refused so that clients and load balancers retry elsewhere;
    // requests already past this hook run to completion.
    if (deps.state.shuttingDown) {
      const apiError = new ApiError('service_unavailable', 'The server is shutting down; retry shortly');
      reply.code(503).header('connection', 'close').send(apiError.toEnvelope());
      return;
    }
    done();
  });

  // A request that was in flight when shutdown began must not leave a keep-alive connection behind:
  // the server stops only once every connection has closed, and clients keep idle ones open for
  // longer than the shutdown timeout.
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (deps.state.shuttingDown) reply.header('connection', 'close');
    done(null, payload);
  });

  app.addHook('onResponse', (request, reply, done) => {
    if (deps.log.isLevelEnabled('info')) {
      request.log.info(
        { method: request.method, url: request.url, statusCode: reply.statusCode, ms: Math.round(reply.elapsedTime) },
        'request',
      );
    }
    done();
  });

  app.setErrorHandler((error: FastifyError, request, reply) => {
    const apiError = fromFastifyError(error);
    if (apiError.status >= 500) request.log.error({ err: error }, 'unhandled error');
    return reply.code(apiError.status).type('application/json').send(apiError.toEnvelope());
  });

  app.setNotFoundHandler((request, reply) => {
    const apiError = new ApiError('not_found', `No route ${request.method} ${request.url.split('?')[0]}`);
    return reply.code(404).send(apiError.toEnvelope());
  });

  app.get('/healthz', async () => ({ status: 'ok' }));
  // While shutting down the onRequest hook answers 503 before this runs.
  app.get('/readyz', async (request, reply) => {
    try {
      await sql`select 1`.execute(deps.db);
      if (deps.redis) await deps.redis.ping();
      return { status: 'ok' };
    } catch (error) {
      request.log.warn({ err: error }, 'readiness check failed');
      return reply.code(503).send(new ApiError('service_unavailable', 'A dependency is unreachable').toEnvelope());
    }
  });

  // Built on first request, then kept: the document is a pure function of the contracts, and
  // building it (~30 ms) need not delay start-up.
  let openApiDocument: string | undefined;
  app.get(`${API_BASE_PATH}/openapi.json`, async (_request, reply) => {
    openApiDocument ??= JSON.stringify(buildOpenApiDocument());
    return reply.type('application/json').header('cache-control', 'public, max-age=300').send(openApiDocument);
  });

  registerContractRoutes(app, deps, API_BASE_PATH);
  registerOAuthTokenRoute(app, deps);
  registerMediaFilesRoute(app, deps);

  return app;
}
