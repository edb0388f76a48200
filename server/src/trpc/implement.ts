import { operationId, type RouteDefinition, type RouteGroup } from '@pollkit/contracts';
import type { z } from 'zod';
import { ApiError, validationError } from '../core/api-error.js';
import type { WorkspaceCredential } from '../modules/auth/auth.service.js';
import { authorize } from '../modules/auth/authorize.js';
import { type RequestContext, t } from './init.js';

export type HandlerContext<R extends RouteDefinition> = RequestContext &
  (R['auth'] extends 'workspace'
    ? { credential: WorkspaceCredential }
    : { credential: WorkspaceCredential | undefined });

/** What a `format: 'csv'` route's handler returns: the file name and the document, streamed in chunks. */
export interface CsvDownload {
  filename: string;
  chunks: AsyncIterable<string>;
}

export type Handler<R extends RouteDefinition> = (args: {
  ctx: HandlerContext<R>;
  input: z.output<R['input']>;
}) => Promise<R['format'] extends 'csv' ? CsvDownload : z.input<R['output']>>;

/** A handler for every route of a group: leaving one out is a compile error. */
export type GroupHandlers<G extends RouteGroup> = { [K in keyof G]: Handler<G[K]> };

/** One implemented route: the contract's route object and the handler that serves it. */
export interface Operation {
  /** `polls.get`: the tRPC procedure path. */
  path: string;
  operationId: string;
  route: RouteDefinition;
  /** The whole call: `authorize`, then `execute`. */
  run(ctx: RequestContext, rawInput: unknown): Promise<unknown>;
  /**
   * The gate alone (401/429/402/403), counted once against the rate limit. The HTTP layer calls it
   * separately when it needs the workspace before the work runs (an `Idempotency-Key`).
   */
  authorize(ctx: RequestContext): Promise<WorkspaceCredential | undefined>;
  /** Everything after the gate, for a credential `authorize` returned. */
  execute(ctx: RequestContext, credential: WorkspaceCredential | undefined, rawInput: unknown): Promise<unknown>;
}

/**
 * The whole life of a call, shared by the HTTP layer and the tRPC procedure: authorize (401/429/
 * 402/403), validate input (422), run the handler, and — when RESPONSE_VALIDATION is on, as in
 * every test — check the output against the contract (a mismatch is our bug: 500, logged).
 */
function operationOf(
  group: string,
  name: string,
  route: RouteDefinition,
  handler: Handler<RouteDefinition>,
): Operation {
  const path = `${group}.${name}`;
  const operation: Operation = {
    path,
    operationId: operationId(group, name),
    route,
    async run(ctx, rawInput) {
      return operation.execute(ctx, await operation.authorize(ctx), rawInput);
    },
    authorize(ctx) {
      return authorize(route, ctx.req, ctx.reply, ctx.deps);
    },
    async execute(ctx, credential, rawInput) {
      const parsed = route.input.safeParse(rawInput);
      if (!parsed.success) throw validationError(parsed.error.issues);
      const output = await handler({
        ctx: { ...ctx, credential } as HandlerContext<RouteDefinition>,
        input: parsed.data,
      });
      if (ctx.deps.config.RESPONSE_VALIDATION && route.format !== 'csv') {
        const checked = route.output.safeParse(output);
        if (!checked.success) {
          ctx.req.log.error({ path, issues: checked.error.issues }, 'response does not match the contract');
          throw new ApiError('internal_error', 'Internal server error');
        }
      }
      return output;
    },
  };
  return operation;
}

/**
 * Implements a group of the contract. Returns the operations the HTTP layer serves and the tRPC
 * router, whose procedures carry each route's OpenAPI metadata, input and output schemas — the
 * source trpc-to-openapi generates the OpenAPI document from — and run the same operation when
 * called in process (`appRouter.createCaller(ctx)`).
 */
export function implementGroup<G extends RouteGroup>(group: string, routes: G, handlers: GroupHandlers<G>) {
  const operations = Object.entries(routes).map(([name, route]) =>
    operationOf(group, name, route, handlers[name as keyof G] as Handler<RouteDefinition>),
  );
  const procedures = Object.fromEntries(
    operations.map((operation) => {
      const { route } = operation;
      const procedure = t.procedure
        .meta({
          route,
          openapi: {
            method: route.method,
            path: route.path,
            operationId: operation.operationId,
            summary: route.summary,
            description: route.description,
            tags: [...route.tags],
            protect: route.auth !== 'none',
            // Error responses are described from `route.errors` when the document is post-processed.
            errorResponses: [],
          },
        })
        .input(route.input)
        .output(route.output);
      const resolve = ({ ctx, input }: { ctx: RequestContext; input: unknown }) => operation.run(ctx, input);
      return [
        operation.path.slice(group.length + 1),
        route.method === 'GET' ? procedure.query(resolve) : procedure.mutation(resolve),
      ];
    }),
  ) as { [K in keyof G]: ReturnType<typeof t.procedure.query> };
  return { operations, router: t.router(procedures) };
}
