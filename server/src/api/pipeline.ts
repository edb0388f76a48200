import {
  type Contract,
  contract,
  type ErrorCode,
  operationId,
  pathParams,
  type RouteDefinition,
  requiredScopes,
  type Scope,
} from '@pollkit/contracts';
import type { Kysely } from 'kysely';
import type { Config } from '../config.js';
import { ApiError, validationError } from '../core/api-error.js';
import type { EventFeed } from '../core/event-stream.js';
import { type FileDownload, WithStatus } from '../core/file-download.js';
import { JsonText } from '../core/json-text.js';
import type { Database } from '../db/schema.js';
import type { RateLimitStore } from '../infra/rate-limit.js';
import type { Authenticator } from '../modules/auth/auth.service.js';
import type { WorkspaceCredential } from '../modules/credentials/workspace-credential.js';
import type { ContractHandlers, Handler, HandlerContext, ModuleDeps } from '../modules/handler.js';
import type { ApiCall, ApiRequest, Next, Outcome, RateLimitDecision, Step } from './call.js';
import { declaredErrorCodes } from './declared-errors.js';
import { idempotencyStep, takesIdempotencyKey } from './idempotency.js';
import { inputReader } from './input.js';
import { hostGateStep, type LiveGateDeps, participantGateStep } from './live-gates.js';
import { afterAuthFailure, authFailureLimit, rateLimitStep } from './rate-limit.js';

/** What the pipeline needs besides the handlers' own deps: who is calling, how often, and two switches. */
export interface PipelineDeps extends ModuleDeps, LiveGateDeps {
  db: Kysely<Database>;
  authenticator: Authenticator;
  rateLimits: RateLimitStore;
  config: ModuleDeps['config'] &
    LiveGateDeps['config'] &
    Pick<Config, 'RATE_LIMIT_PER_MINUTE' | 'RESPONSE_VALIDATION' | 'AUTH_FAILURES_PER_IP_PER_MINUTE'>;
}

/** One operation of the contract, ready to serve: its route object and the whole pipeline for it. */
export interface Operation {
  /** `polls`: the route's group in the contract (its key in `contract`, and the tag of the SDK namespace). */
  group: string;
  /** `get`: the route's key within its group. */
  name: string;
  /** `pollsGet`: the operationId in the OpenAPI document. */
  operationId: string;
  route: RouteDefinition;
  /**
   * Runs a call (`newCall(route, request)`) through every step this route has; throws an `ApiError`
   * (or a bug) when it fails. The call keeps what the steps decided (the rate limit) either way.
   */
  run(call: ApiCall): Promise<Outcome>;
}

/**
 * The steps a call goes through, in order:
 *
 *   authenticate → rate limit → plan → scope → idempotency → validate → handler → output check
 *
 * (with RESPONSE_VALIDATION, all of it inside the declared-errors check).
 *
 * The gate (the first four) runs before the input is read, so an unauthenticated caller learns
 * nothing about its input; idempotency runs after the gate (the key belongs to the caller's
 * workspace) and before the work. Each route gets only the steps it needs, chosen here once.
 */
export function stepsFor(route: RouteDefinition, deps: PipelineDeps): Step[] {
  const steps: Step[] = [];
  // Tests turn these checks on: an error code the route does not declare, or an output that does not
  // match its schema, is our bug, and becomes a 500 the test sees.
  if (deps.config.RESPONSE_VALIDATION) steps.push(declaredErrorsStep(route));
  const workspaceGate: Step[] = [authenticateStep(deps), rateLimitStep(deps), planStep];
  const scopes = requiredScopes(route);
  if (scopes.length > 0) workspaceGate.push(scopeStep(scopes));
  if (route.auth === 'workspace') steps.push(...workspaceGate);
  // A presenter device holds the session's host token instead of a workspace credential. A wrong
  // host token counts against its address like a wrong key (the key's own failures are counted by
  // the authenticate step inside).
  if (route.auth === 'host') {
    const hostGate = hostGateStep(deps, (next) => compose(workspaceGate, next));
    steps.push(authFailureLimit(deps, hostGate, 'invalid_host_token'));
    // A host token carries the scopes of the credential that created it; a workspace credential was
    // checked against the route's own scopes inside the gate.
    if (route.hostTokenScopes?.length) steps.push(hostTokenScopeStep(route.hostTokenScopes));
  }
  if (route.auth === 'participant') steps.push(participantGateStep(deps));
  if (route.auth !== 'none' && takesIdempotencyKey(route)) steps.push(idempotencyStep(deps));
  steps.push(validateStep(route));
  // The output check halves throughput: tests only.
  if (deps.config.RESPONSE_VALIDATION && (route.format ?? 'json') === 'json') steps.push(checkOutputStep);
  return steps;
}

/**
 * Every operation of the contract with its handler, each composed once, at start-up. `routes` is
 * `contract`, except in the test that adds a route to it to prove every transport serves it.
 */
export function buildOperations(
  handlers: ContractHandlers,
  deps: PipelineDeps,
  routes: Contract = contract,
): Operation[] {
  return Object.entries(routes).flatMap(([group, groupRoutes]) =>
    Object.entries(groupRoutes).map(([name, route]): Operation => {
      const groupHandlers = handlers[group as keyof ContractHandlers] as
        | Record<string, Handler<RouteDefinition>>
        | undefined;
      const handler = groupHandlers?.[name];
      if (!handler) throw new Error(`No handler for ${group}.${name}`);
      return {
        group,
        name,
        operationId: operationId(group, name),
        route,
        run: compose(stepsFor(route, deps), handlerStep(route, handler, deps)),
      };
    }),
  );
}

/**
 * `[a, b, c]` + terminal -> `call => a(call, call => b(call, call => c(call, terminal)))`, built once.
 * Exported with `handlerStep` for the step benchmark (bench/targets/pipeline-steps.ts).
 */
export function compose(steps: readonly Step[], terminal: Next): Next {
  return steps.reduceRight<Next>((next, step) => (call) => step(call, next), terminal);
}

/**
 * Who is calling: an API key or an OAuth access token (401 otherwise). A credential that fails counts
 * against its address's budget of failures; past it, 429 instead of the 401.
 */
function authenticateStep(
  deps: Pick<PipelineDeps, 'authenticator' | 'rateLimits'> & {
    config: Pick<Config, 'AUTH_FAILURES_PER_IP_PER_MINUTE'>;
  },
): Step {
  return async (call, next) => {
    try {
      call.credential = await deps.authenticator.authenticate(call.request.authorization);
    } catch (error) {
      throw await afterAuthFailure(deps, call, error);
    }
    return next(call);
  };
}

/**
 * Who is calling, for a transport that must know before it runs any operation (the MCP endpoint lists
 * only the tools a credential may call): the authenticate step's answer and the plan's API access,
 * with the same failures (401; 429 past the address's budget of failures, `rateLimit` set; 402 on
 * the free plan). Each operation the transport then runs checks the credential again, as every call does.
 */
export async function identifyCaller(
  deps: Pick<PipelineDeps, 'authenticator' | 'rateLimits'> & {
    config: Pick<Config, 'AUTH_FAILURES_PER_IP_PER_MINUTE'>;
  },
  caller: { request: Pick<ApiRequest, 'authorization' | 'ip'>; rateLimit: RateLimitDecision | undefined },
): Promise<WorkspaceCredential> {
  let credential: WorkspaceCredential;
  try {
    credential = await deps.authenticator.authenticate(caller.request.authorization);
  } catch (error) {
    throw await afterAuthFailure(deps, caller, error);
  }
  refuseFreePlan(credential.plan);
  return credential;
}

/** 402 on the free plan: the API (every paid plan has it) is not part of it. */
function refuseFreePlan(plan: WorkspaceCredential['plan']): void {
  if (plan === 'free') {
    throw new ApiError('upgrade_required', 'The API is available on the Pro and Enterprise plans', { plan });
  }
}

/** Whether the workspace's plan has the API (every paid plan) and this route's feature (402 otherwise). */
const planStep: Step = (call, next) => {
  const { plan } = call.credential!;
  refuseFreePlan(plan);
  if (call.route.plan === 'enterprise' && plan !== 'enterprise') {
    throw new ApiError('upgrade_required', 'This feature is available on the Enterprise plan', {
      plan,
      requiredPlan: 'enterprise',
    });
  }
  return next(call);
};

/**
 * Whether the credential holds every scope the route requires (a key created without a list holds
 * all; other keys and OAuth tokens what they were given).
 */
function scopeStep(required: readonly Scope[]): Step {
  return (call, next) => {
    const { scopes } = call.credential!;
    if (scopes !== 'all') {
      for (const scope of required) {
        if (!scopes.has(scope)) {
          throw new ApiError('insufficient_scope', `This credential lacks the \`${scope}\` scope`, {
            requiredScope: scope,
          });
        }
      }
    }
    return next(call);
  };
}

/**
 * Whether a host token carries every scope of the route's `hostTokenScopes` (those of the credential
 * that created it, or all for a token from before tokens carried scopes): a token reads no more than
 * its creator could. The same 403 as `scopeStep`. A call with a workspace credential passes.
 */
function hostTokenScopeStep(required: readonly Scope[]): Step {
  return (call, next) => {
    const scopes = call.host?.scopes;
    if (scopes !== undefined && scopes !== 'all') {
      for (const scope of required) {
        if (!scopes.has(scope)) {
          throw new ApiError(
            'insufficient_scope',
            `This host token lacks the \`${scope}\` scope: the credential that created it did not hold it`,
            { requiredScope: scope },
          );
        }
      }
    }
    return next(call);
  };
}

/**
 * The input, assembled from the request and parsed by the route's schema (422 otherwise). A path
 * parameter that is not even shaped like an id names nothing that could exist: 404, as for any
 * unknown id, rather than a validation error about a URL the client did not build field by field.
 */
function validateStep(route: RouteDefinition): Step {
  const readInput = inputReader(route);
  const notFoundByParam = new Map(pathParams(route.path).map((param) => [param, notFoundIn(route.path, param)]));
  return (call, next) => {
    const parsed = route.input.safeParse(readInput(call.request));
    if (!parsed.success) {
      for (const issue of parsed.error.issues) {
        const notFound = notFoundByParam.get(String(issue.path[0]));
        if (notFound) throw notFound();
      }
      throw validationError(parsed.error.issues);
    }
    call.input = parsed.data;
    return next(call);
  };
}

/** `/polls/{id}/questions/{questionId}` + `questionId` -> a 404 "Question not found". */
function notFoundIn(path: string, param: string): () => ApiError {
  const segments = path.split('/');
  const collection = segments[segments.indexOf(`{${param}}`) - 1] ?? '';
  const noun = RESOURCE_NOUNS[collection] ?? 'Resource';
  return () => ApiError.notFound(noun);
}

/** The path segment before an id -> what the id names, as the services' own 404s say it. */
const RESOURCE_NOUNS: Readonly<Record<string, string>> = Object.assign(Object.create(null), {
  polls: 'Poll',
  questions: 'Question',
  keys: 'API key',
  sessions: 'Session',
  webhooks: 'Webhook endpoint',
});

/** The handler, with the validated input and the caller's credential. */
export function handlerStep(route: RouteDefinition, handler: Handler<RouteDefinition>, deps: ModuleDeps): Next {
  const status = route.successStatus;
  if (route.format === 'file') {
    return async (call) => ({
      kind: 'file',
      status,
      download: (await handler(handlerArgs(call, deps))) as FileDownload,
    });
  }
  if (route.format === 'svg') {
    return async (call) => ({ kind: 'svg', status, text: (await handler(handlerArgs(call, deps))) as string });
  }
  if (route.format === 'sse') {
    return async (call) => {
      const feed = (await handler(handlerArgs(call, deps))) as EventFeed | undefined;
      // Nothing will ever come (an ended session, all of it seen): 204 tells SSE clients to stop.
      return feed ? { kind: 'sse', status, feed } : { kind: 'json', status: 204, body: undefined };
    };
  }
  return async (call) => {
    const output = await handler(handlerArgs(call, deps));
    if (output instanceof JsonText) return { kind: 'json', status, body: output.value, text: output.text };
    if (output instanceof WithStatus) return { kind: 'json', status: output.status, body: output.value };
    return { kind: 'json', status, body: output };
  };
}

function handlerArgs(call: ApiCall, deps: ModuleDeps) {
  const lastEventId = call.request.lastEventId;
  const ctx: HandlerContext = {
    deps,
    credential: call.credential,
    host: call.host,
    live: call.live as undefined,
    lastEventId: typeof lastEventId === 'string' ? lastEventId : undefined,
    log: call.request.log,
  };
  return { ctx, input: call.input };
}

/** Test-time check of the handler's output against the route's output schema: a mismatch is a 500, logged. */
const checkOutputStep: Step = async (call, next) => {
  const outcome = await next(call);
  if (outcome.kind === 'json') {
    const checked = call.route.output.safeParse(outcome.body);
    if (!checked.success) {
      call.request.log.error(
        { path: `${call.route.method} ${call.route.path}`, issues: checked.error.issues },
        'response does not match the contract',
      );
      throw new ApiError('internal_error', 'Internal server error');
    }
  }
  return outcome;
};

/**
 * Test-time check that every error the call ends with has a code the route declares
 * (`declaredErrorCodes`: its `errors` and its gates' codes, what the OpenAPI document lists for it).
 * Any other code is a 500, logged naming the route and the code: the document would have lied.
 */
function declaredErrorsStep(route: RouteDefinition): Step {
  const declared: ReadonlySet<ErrorCode> = new Set(declaredErrorCodes(route));
  return async (call, next) => {
    try {
      return await next(call);
    } catch (error) {
      if (!(error instanceof ApiError) || declared.has(error.code)) throw error;
      call.request.log.error(
        { path: `${route.method} ${route.path}`, code: error.code, err: error },
        'error code not declared for the route',
      );
      throw new ApiError('internal_error', 'Internal server error');
    }
  };
}
