import { contract, type RouteDefinition } from '@pollkit/contracts';
import { initTRPC, TRPCError } from '@trpc/server';
import type { OpenApiMeta } from 'trpc-to-openapi';
import { z } from 'zod';

/**
 * tRPC's only job in Pollkit: a router built from the contract alone, for trpc-to-openapi to
 * generate the OpenAPI document from. No procedure here ever runs — requests are served by the
 * pipeline (api/pipeline.ts) — so each one's resolver only says so.
 */
const t = initTRPC.meta<OpenApiMeta>().create();

/** The optional request header every POST that answers JSON takes (docs/idempotency.md). */
const idempotencyKeyHeader = z.object({
  'Idempotency-Key': z
    .string()
    .min(1)
    .max(255)
    .regex(/^[\x20-\x7E]+$/)
    .optional()
    .describe(
      'Makes the request safe to retry. The first request with a key does the work; for 24 hours a request ' +
        'with the same key, route, path parameters and body answers that same status and body again (with ' +
        "`Idempotent-Replayed: true` and `Original-Request: <the first request's X-Request-Id>`) without " +
        'doing it twice. The same key with a different request answers ' +
        '422 `idempotency_key_reused`; while the first is still running, 409 `idempotency_key_in_use`. Keys ' +
        'belong to the credential that sends them: the same key from another credential is a new request. 1–255 printable ASCII characters (a UUID v4 is a good choice); ' +
        'anything else is 400 `bad_request`.',
    ),
});

/**
 * Every POST that answers JSON, as the pipeline decides (api/idempotency.ts) — but a participant
 * route keeps keys per participant, so a join (which has none yet) takes no key.
 */
function takesIdempotencyKeyHeader(route: RouteDefinition): boolean {
  if (route.method !== 'POST' || (route.format ?? 'json') !== 'json') return false;
  return route.auth !== 'participant' || requiresParticipantToken(route);
}

/** The participant routes that need `X-Participant-Token` (they can answer `missing_authorization`). */
export function requiresParticipantToken(route: RouteDefinition): boolean {
  return route.auth === 'participant' && route.errors.includes('missing_authorization');
}

function notServedHere(): never {
  throw new TRPCError({ code: 'NOT_IMPLEMENTED', message: 'Documentation only: the pipeline serves this route' });
}

function procedureOf(operationId: string, route: RouteDefinition) {
  const procedure = t.procedure
    .meta({
      openapi: {
        method: route.method,
        path: route.path,
        operationId,
        summary: route.summary,
        description: route.description,
        tags: [...route.tags],
        protect: route.auth === 'workspace' || route.auth === 'host',
        ...(takesIdempotencyKeyHeader(route) ? { requestHeaders: idempotencyKeyHeader } : {}),
        // Success and error responses are described from the route object (openapi/document.ts).
        errorResponses: [],
      },
    })
    .input(route.input)
    .output(route.output);
  return route.method === 'GET' ? procedure.query(notServedHere) : procedure.mutation(notServedHere);
}

/** `contract.<group>.<name>` as `router.<group>.<name>`, each procedure carrying its route's OpenAPI metadata. */
export function contractRouter(operationIdOf: (group: string, name: string) => string) {
  return t.router(
    Object.fromEntries(
      Object.entries(contract).map(([group, routes]) => [
        group,
        t.router(
          Object.fromEntries(
            Object.entries(routes).map(([name, route]) => [
              name,
              procedureOf(operationIdOf(group, name), route as RouteDefinition),
            ]),
          ),
        ),
      ]),
    ),
  );
}
