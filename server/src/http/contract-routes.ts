import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { type ApiCall, type ApiRequest, newCall, type Outcome } from '../api/call.js';
import type { Operation } from '../api/pipeline.js';
import { toApiError } from '../core/api-error.js';
import { type OpenStreams, openEventStream } from './event-stream.js';
import { logFailure } from './log-failure.js';
import { writeRateLimitHeaders } from './rate-limit-headers.js';

/**
 * Serves every operation of the contract as a Fastify route under `basePath`: Fastify's router (a
 * radix tree) matches the path and decodes its parameters, Fastify's parsers own the body; the
 * request goes through the operation's pipeline (api/pipeline.ts) and its outcome is written here —
 * the status, the rate-limit headers the pipeline decided, the body or the error envelope. This is
 * the only place that turns a pipeline result into HTTP. Why it is Fastify's routes and not a tRPC adapter:
 * docs/decisions/0001-serving-the-contract-with-fastify-routes.md.
 */
export function registerContractRoutes(
  app: FastifyInstance,
  operations: readonly Operation[],
  basePath: string,
  options: { streams: OpenStreams },
) {
  for (const operation of operations) {
    const { route } = operation;
    const url = `${basePath}${route.path.replace(/\{(\w+)\}/g, ':$1')}`;

    app.route({
      method: route.method,
      url,
      ...(route.bodyLimitBytes ? { bodyLimit: route.bodyLimitBytes } : {}),
      handler: async (request: FastifyRequest, reply: FastifyReply) => {
        const call = newCall(route, apiRequestOf(request));
        try {
          const outcome = await operation.run(call);
          if (outcome.kind === 'sse') {
            if (call.rateLimit) writeRateLimitHeaders(reply, call.rateLimit);
            const log = request.log;
            openEventStream(request, reply, outcome.feed, {
              streams: options.streams,
              onError: (error) => logFailure(log, error, 'event stream failed', { operation: operation.operationId }),
            });
            return reply;
          }
          return sendOutcome(reply, call, outcome);
        } catch (error) {
          const apiError = toApiError(error);
          if (apiError.status >= 500) {
            logFailure(request.log, error, 'operation failed', { operation: operation.operationId });
          }
          if (call.rateLimit) writeRateLimitHeaders(reply, call.rateLimit);
          return reply.code(apiError.status).send(apiError.toEnvelope());
        }
      },
    });
  }
}

/** The request in the pipeline's terms: plain values, no Fastify. */
function apiRequestOf(request: FastifyRequest): ApiRequest {
  return {
    id: request.id,
    log: request.log,
    authorization: request.headers.authorization,
    hostToken: request.headers['x-host-token'],
    participantToken: request.headers['x-participant-token'],
    lastEventId: request.headers['last-event-id'],
    ip: request.ip,
    idempotencyKey: request.headers['idempotency-key'],
    params: request.params as Record<string, string>,
    query: request.query as Record<string, unknown>,
    body: request.body,
  };
}

function sendOutcome(reply: FastifyReply, call: ApiCall, outcome: Exclude<Outcome, { kind: 'sse' }>): FastifyReply {
  if (call.rateLimit) writeRateLimitHeaders(reply, call.rateLimit);
  reply.code(outcome.status);
  switch (outcome.kind) {
    case 'json':
      if (outcome.text !== undefined) return reply.type('application/json; charset=utf-8').send(outcome.text);
      return reply.send(outcome.body);
    case 'serialized':
      if (outcome.replayOf !== undefined) {
        reply.header('idempotent-replayed', 'true').header('original-request', outcome.replayOf);
      }
      return reply.type('application/json; charset=utf-8').send(outcome.text);
    case 'svg':
      return reply.type('image/svg+xml; charset=utf-8').header('cache-control', 'no-store').send(outcome.text);
    case 'file': {
      const { download } = outcome;
      for (const [name, value] of Object.entries(download.headers ?? {})) reply.header(name, value);
      // Streamed: the document is produced as the client reads it (one chunk of read-ahead), so
      // memory stays flat however large the export.
      return reply
        .header('content-type', download.contentType)
        .header('content-disposition', `attachment; filename="${download.filename}"`)
        .send(Readable.from(download.chunks, { highWaterMark: 1 }));
    }
  }
}
