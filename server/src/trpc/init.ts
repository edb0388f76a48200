import type { RouteDefinition } from '@pollkit/contracts';
import { initTRPC } from '@trpc/server';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { OpenApiMeta } from 'trpc-to-openapi';
import type { AppDeps } from '../deps.js';
import { toApiError } from '../http/api-error.js';

/** What every procedure sees. `req`/`reply` are Fastify's, for headers. */
export interface RequestContext {
  req: FastifyRequest;
  reply: FastifyReply;
  deps: AppDeps;
}

export type ProcedureMeta = OpenApiMeta<{ route: RouteDefinition }>;

export const t = initTRPC
  .context<RequestContext>()
  .meta<ProcedureMeta>()
  .create({
    // trpc-to-openapi spreads this shape into the error body; the HTTP host (see http/app.ts)
    // replaces the body with the spec's envelope built from `apiError`.
    errorFormatter: ({ shape, error }) => ({ ...shape, apiError: toApiError(error).toEnvelope().error }),
  });
