import { operationId, type RouteDefinition, type RouteGroup } from '@pollkit/contracts';
import type { z } from 'zod';
import type { WorkspaceCredential } from '../modules/auth/auth.service.js';
import { guard } from './guard.js';
import { type RequestContext, t } from './init.js';

export type HandlerContext<R extends RouteDefinition> = RequestContext &
  (R['auth'] extends 'workspace'
    ? { credential: WorkspaceCredential }
    : { credential: WorkspaceCredential | undefined });

export type Handler<R extends RouteDefinition> = (args: {
  ctx: HandlerContext<R>;
  input: z.output<R['input']>;
}) => Promise<z.input<R['output']>>;

/** A handler for every route of a group: leaving one out is a compile error. */
export type GroupHandlers<G extends RouteGroup> = { [K in keyof G]: Handler<G[K]> };

/** Builds the tRPC procedure of one route object: its OpenAPI metadata, guard, input and output. */
export function implement<R extends RouteDefinition>(group: string, name: string, route: R, handler: Handler<R>) {
  const procedure = t.procedure
    .meta({
      route,
      openapi: {
        method: route.method,
        path: route.path,
        operationId: operationId(group, name),
        summary: route.summary,
        description: route.description,
        tags: [...route.tags],
        protect: route.auth !== 'none',
        // Error responses are described from `route.errors` when the document is post-processed.
        errorResponses: [],
      },
    })
    .use(guard)
    .input(route.input)
    .output(route.output);
  const resolver = (opts: { ctx: unknown; input: unknown }) =>
    handler(opts as { ctx: HandlerContext<R>; input: z.output<R['input']> });
  return route.method === 'GET' ? procedure.query(resolver) : procedure.mutation(resolver);
}

export function implementGroup<G extends RouteGroup>(group: string, routes: G, handlers: GroupHandlers<G>) {
  const procedures = Object.fromEntries(
    Object.entries(routes).map(([name, route]) => [
      name,
      implement(group, name, route, handlers[name as keyof G] as Handler<RouteDefinition>),
    ]),
  ) as { [K in keyof G]: ReturnType<typeof implement<G[K]>> };
  return t.router(procedures);
}
