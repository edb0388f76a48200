import type { RouteDefinition } from '@pollkit/contracts';
import { initTRPC } from '@trpc/server';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { OpenApiMeta } from 'trpc-to-openapi';
import type { AppDeps } from '../deps.js';

/** What every procedure sees. `req`/`reply` are Fastify's, for headers. */
export interface RequestContext {
  req: FastifyRequest;
  reply: FastifyReply;
  deps: AppDeps;
}

export type ProcedureMeta = OpenApiMeta<{ route: RouteDefinition }>;

// Errors are rendered by the HTTP layer (http/contract-routes.ts) through `toApiError`, so tRPC's
// own error shape is never sent.
export const t = initTRPC.context<RequestContext>().meta<ProcedureMeta>().create();
