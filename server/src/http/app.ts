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
import { type CreateOpenApiFastifyPluginOptions, fastifyTRPCOpenApiPlugin } from 'trpc-to-openapi';
import type { AppDeps } from '../deps.js';
import { buildOpenApiDocument } from '../openapi/document.js';
import type { RequestContext } from '../trpc/init.js';
import { appRouter, routesByProcedure } from '../trpc/router.js';
import { ApiError, toApiError } from './api-error.js';
import { WINDOW_HEADER_VALUE } from './rate-limit-headers.js';

export const API_BASE_PATH = '/api/v1';

/** Fastify's own failures (body parsing, limits) -> the spec's codes. */
function fromFastifyError(error: FastifyError): ApiError {
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
  const app = Fastify({
    loggerInstance: deps.log as FastifyBaseLogger,
    // One access-log line per request (onResponse below) instead of Fastify's two.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: deps.config.BODY_LIMIT_BYTES,
    requestIdHeader: 'x-request-id',
    genReqId: () => randomUUID(),
    return503OnClosing: true,
  });

  // JSON only: anything else is 415 before any handler runs.
  app.removeContentTypeParser(['text/plain']);

  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
    if (request.url.startsWith('/api/')) {
      // Every API response carries the limit, 401s and 404s included; the guard refines these
      // (and adds Remaining/Reset) once it knows the credential.
      reply.header('x-ratelimit-limit', deps.config.RATE_LIMIT_PER_MINUTE);
      reply.header('x-ratelimit-window', WINDOW_HEADER_VALUE);
    }
  });

  // trpc-to-openapi writes its own error body; swap it for the spec's envelope, which the
  // errorFormatter (trpc/init.ts) has already computed as `apiError`.
  app.addHook('onSend', async (_request, reply, payload) => {
    if (reply.statusCode < 400 || typeof payload !== 'string' || !payload.includes('"apiError"')) return payload;
    const body = JSON.parse(payload) as { apiError?: unknown };
    return body.apiError ? JSON.stringify({ error: body.apiError }) : payload;
  });

  app.addHook('onResponse', async (request, reply) => {
    request.log.info(
      { method: request.method, url: request.url, statusCode: reply.statusCode, ms: Math.round(reply.elapsedTime) },
      'request',
    );
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
  app.get('/readyz', async (request, reply) => {
    if (deps.state.shuttingDown) {
      return reply.code(503).send(new ApiError('service_unavailable', 'Shutting down').toEnvelope());
    }
    try {
      await sql`select 1`.execute(deps.db);
      if (deps.redis) await deps.redis.ping();
      return { status: 'ok' };
    } catch (error) {
      request.log.warn({ err: error }, 'readiness check failed');
      return reply.code(503).send(new ApiError('service_unavailable', 'A dependency is unreachable').toEnvelope());
    }
  });

  // Built once: the document is a pure function of the contracts.
  const openApiDocument = JSON.stringify(buildOpenApiDocument());
  app.get(`${API_BASE_PATH}/openapi.json`, async (_request, reply) =>
    reply.type('application/json').header('cache-control', 'public, max-age=300').send(openApiDocument),
  );

  const pluginOptions: CreateOpenApiFastifyPluginOptions<typeof appRouter> = {
    basePath: API_BASE_PATH,
    router: appRouter,
    // The Fastify adapter passes Fastify's request and reply, dressed up as node-http objects.
    createContext: ({ req, res }: { req: unknown; res: unknown }): RequestContext => ({
      req: req as FastifyRequest,
      reply: res as FastifyReply,
      deps,
    }),
    responseMeta: ({ paths, errors }) => {
      if (errors.length > 0) return { status: toApiError(errors[0]).status };
      const route = paths?.[0] ? routesByProcedure.get(paths[0]) : undefined;
      return { status: route?.successStatus ?? 200 };
    },
    onError: ({ error, path, req }) => {
      const apiError = toApiError(error);
      if (apiError.status >= 500) {
        (req as unknown as FastifyRequest).log.error({ err: error.cause ?? error, path }, 'procedure failed');
      }
    },
  };
  await app.register(fastifyTRPCOpenApiPlugin, pluginOptions);

  return app;
}
