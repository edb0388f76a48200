import { Readable } from 'node:stream';
import { type HttpMethod, inputInQuery, type RouteDefinition } from '@pollkit/contracts';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { ApiError, toApiError } from '../core/api-error.js';
import type { AppDeps } from '../deps.js';
import type { CsvDownload, Operation } from '../trpc/implement.js';
import type { RequestContext } from '../trpc/init.js';
import { operations } from '../trpc/router.js';
import {
  completeIdempotentRequest,
  IDEMPOTENCY_KEY_HEADER,
  parseIdempotencyKey,
  releaseIdempotentRequest,
  requestFingerprint,
  startIdempotentRequest,
  takesIdempotencyKey,
} from './idempotency.js';

const ALL_METHODS: readonly HttpMethod[] = ['GET', 'POST', 'PATCH', 'PUT', 'DELETE'];

/**
 * Serves every implemented operation as a Fastify route under `basePath`.
 *
 * This is the runtime half of trpc-to-openapi's job, done natively: Fastify's router (a radix tree)
 * matches the path and decodes its parameters, Fastify's parsers own the body, and the spec's status
 * codes and envelope are written directly. trpc-to-openapi still generates the OpenAPI document from
 * the tRPC procedures of the same operations. See docs/architecture.md ("Serving the contract").
 *
 * The input object is assembled exactly as the OpenAPI document (and the SDK) describe it: path
 * parameters, plus the query string for GET/DELETE or the JSON body otherwise.
 */
export function registerContractRoutes(app: FastifyInstance, deps: AppDeps, basePath: string): void {
  const methodsByPath = new Map<string, HttpMethod[]>();

  for (const operation of operations) {
    const { route } = operation;
    const url = `${basePath}${route.path.replace(/\{(\w+)\}/g, ':$1')}`;
    methodsByPath.set(url, [...(methodsByPath.get(url) ?? []), route.method]);
    const readInput = inputReader(route);
    const idempotent = takesIdempotencyKey(route);

    app.route({
      method: route.method,
      url,
      handler: async (request: FastifyRequest, reply: FastifyReply) => {
        try {
          const idempotencyKey = idempotent ? request.headers[IDEMPOTENCY_KEY_HEADER] : undefined;
          if (idempotencyKey !== undefined) {
            return await serveIdempotently(operation, { req: request, reply, deps }, idempotencyKey, readInput);
          }
          const output = await operation.run({ req: request, reply, deps }, readInput(request));
          if (route.format === 'csv') {
            const { filename, chunks } = output as CsvDownload;
            // Streamed: rows are produced as the client reads them (one chunk of read-ahead), so
            // memory stays flat however large the export.
            return reply
              .code(route.successStatus)
              .header('content-type', 'text/csv; charset=utf-8')
              .header('content-disposition', `attachment; filename="${filename}"`)
              .send(Readable.from(chunks, { highWaterMark: 1 }));
          }
          return reply.code(route.successStatus).send(output);
        } catch (error) {
          const apiError = toApiError(error);
          if (apiError.status >= 500) request.log.error({ err: error, path: operation.path }, 'operation failed');
          return reply.code(apiError.status).send(apiError.toEnvelope());
        }
      },
    });
  }

  // A known path with a method it does not have is a 405 with `Allow`, not a 404.
  for (const [url, methods] of methodsByPath) {
    const others = ALL_METHODS.filter((m) => !methods.includes(m));
    if (others.length === 0) continue;
    const allow = [...methods, ...(methods.includes('GET') ? ['HEAD'] : [])].join(', ');
    app.route({
      method: others,
      url,
      handler: async (request, reply) =>
        reply
          .code(405)
          .header('allow', allow)
          .send(new ApiError('method_not_allowed', `${request.method} is not allowed here; use ${allow}`).toEnvelope()),
    });
  }
}

/**
 * A POST carrying `Idempotency-Key` (docs/idempotency.md). The gate runs first — the key belongs to
 * the caller's workspace, and a request refused at the gate (401/429/402/403) leaves no trace — then
 * the key is claimed or answered from what it holds, and only a claimed request does the work. 2xx
 * and 4xx outcomes are kept for replay; a 5xx or an exception releases the key so a retry runs again.
 */
async function serveIdempotently(
  operation: Operation,
  ctx: RequestContext,
  header: string | string[],
  readInput: (request: FastifyRequest) => Record<string, unknown>,
): Promise<FastifyReply> {
  const { req: request, reply, deps } = ctx;
  const { route } = operation;
  const credential = await operation.authorize(ctx);
  // A route open to callers without a workspace has nowhere to keep the key: it runs as usual.
  if (!credential) {
    return reply.code(route.successStatus).send(await operation.execute(ctx, credential, readInput(request)));
  }

  const key = parseIdempotencyKey(header);
  const start = await startIdempotentRequest(deps.db, {
    workspaceId: credential.workspaceId,
    key,
    fingerprint: requestFingerprint(route, request.params, request.body),
    requestId: request.id,
  });
  if (start.kind === 'replay') {
    return reply
      .code(start.response.status)
      .header('idempotent-replayed', 'true')
      .header('original-request', start.response.originalRequestId)
      .type('application/json; charset=utf-8')
      .send(start.response.body);
  }

  const { claim } = start;
  let status: number;
  let body: string;
  try {
    const output = await operation.execute(ctx, credential, readInput(request));
    status = route.successStatus;
    body = JSON.stringify(output) ?? '';
  } catch (error) {
    const apiError = toApiError(error);
    if (apiError.status >= 500) {
      await releaseIdempotentRequest(deps.db, claim).catch((releaseError: unknown) =>
        request.log.error({ err: releaseError }, 'could not release an idempotency key'),
      );
      throw error;
    }
    status = apiError.status;
    body = JSON.stringify(apiError.toEnvelope());
  }
  // The work is done: whatever happens to the bookkeeping, the client gets its answer.
  try {
    const kept = await completeIdempotentRequest(deps.db, claim, { status, body });
    if (!kept) request.log.warn({ path: operation.path }, 'idempotency claim was taken over before completion');
  } catch (error) {
    request.log.error({ err: error }, 'could not store an idempotent response');
  }
  return reply.code(status).type('application/json; charset=utf-8').send(body);
}

/** Builds, once per route, the function that turns a request into the procedure's raw input. */
function inputReader(route: RouteDefinition): (request: FastifyRequest) => Record<string, unknown> {
  if (inputInQuery(route.method)) {
    const coerce = queryCoercer(route.input);
    return (request) => ({ ...coerce(request.query as Record<string, unknown>), ...(request.params as object) });
  }
  return (request) => {
    const body = request.body ?? {};
    if (typeof body !== 'object' || Array.isArray(body)) {
      throw new ApiError('validation_failed', 'The request body must be a JSON object', {
        fieldErrors: {},
        formErrors: ['The request body must be a JSON object'],
      });
    }
    return { ...(body as object), ...(request.params as object) };
  };
}

type Scalar = 'number' | 'boolean';

/** The scalar kind a query field must be converted to from text, looking through optional/default. */
function scalarKind(schema: z.core.$ZodType): Scalar | undefined {
  const def = schema._zod.def as { type: string; innerType?: z.core.$ZodType };
  if (def.type === 'number' || def.type === 'int') return 'number';
  if (def.type === 'boolean') return 'boolean';
  if ((def.type === 'optional' || def.type === 'default' || def.type === 'nullable') && def.innerType) {
    return scalarKind(def.innerType);
  }
  return undefined;
}

/**
 * Query strings carry only text, so numeric and boolean query fields are converted before
 * validation — strictly: `"20"` becomes 20, `"abc"` stays text and fails validation with a clear
 * message, `"true"`/`"false"` become booleans and nothing else does. JSON bodies are never coerced.
 */
function queryCoercer(input: z.core.$ZodType): (query: Record<string, unknown>) => Record<string, unknown> {
  const shape = (input._zod.def as { shape?: Record<string, z.core.$ZodType> }).shape ?? {};
  const conversions = Object.entries(shape)
    .map(([key, schema]) => [key, scalarKind(schema)] as const)
    .filter((entry): entry is readonly [string, Scalar] => entry[1] !== undefined);
  if (conversions.length === 0) return (query) => query;
  return (query) => {
    const out = { ...query };
    for (const [key, kind] of conversions) {
      const value = out[key];
      if (typeof value !== 'string') continue;
      if (kind === 'number' && /^-?\d+(\.\d+)?$/.test(value)) out[key] = Number(value);
      if (kind === 'boolean' && (value === 'true' || value === 'false')) out[key] = value === 'true';
    }
    return out;
  };
}
