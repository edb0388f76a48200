import type { RouteDefinition } from '@pollkit/contracts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../../core/api-error.js';
import type { AppDeps } from '../../deps.js';
import { applyRateLimit, reportRateLimit } from '../../http/rate-limit-headers.js';
import type { WorkspaceCredential } from './auth.service.js';

/**
 * The gate in front of every workspace route, in this order: who is calling (401), how often (429),
 * whether their plan has the feature (402), whether the credential holds the route's scope (403).
 * It runs before input validation, so an unauthenticated caller learns nothing about its input.
 */
export async function authorize(
  route: RouteDefinition,
  request: FastifyRequest,
  reply: FastifyReply,
  deps: AppDeps,
): Promise<WorkspaceCredential | undefined> {
  if (route.auth === 'none') return undefined;
  const credential = await deps.authenticator.authenticate(request.headers.authorization);
  const generalLimit = credential.rateLimitPerMinute ?? deps.config.RATE_LIMIT_PER_MINUTE;
  if (route.rateLimitPerMinute === undefined) {
    await applyRateLimit(deps, reply, { key: `cred:${credential.id}`, limit: generalLimit });
  } else {
    await applyTwoRateLimits(deps, reply, [
      { key: `cred:${credential.id}`, limit: generalLimit },
      { key: `cred:${credential.id}:${route.method} ${route.path}`, limit: route.rateLimitPerMinute },
    ]);
  }
  assertPlan(route, credential);
  if (route.scope && credential.scopes !== 'all' && !credential.scopes.has(route.scope)) {
    throw new ApiError('insufficient_scope', `This credential lacks the \`${route.scope}\` scope`, {
      requiredScope: route.scope,
    });
  }
  return credential;
}

/**
 * A route with a limit of its own (`rateLimitPerMinute`, e.g. `POST /media`) counts against both the
 * general counter and its own. The headers describe the binding one: the one exceeded, else the one
 * with fewer requests left. Past the general limit the route counter is not touched.
 */
async function applyTwoRateLimits(
  deps: AppDeps,
  reply: FastifyReply,
  [general, own]: [{ key: string; limit: number }, { key: string; limit: number }],
): Promise<void> {
  const generalHit = await deps.rateLimits.hit(general.key);
  if (generalHit.count > general.limit) reportRateLimit(reply, general.limit, generalHit);
  const ownHit = await deps.rateLimits.hit(own.key);
  const generalLeft = general.limit - generalHit.count;
  const ownLeft = own.limit - ownHit.count;
  if (ownLeft <= generalLeft) reportRateLimit(reply, own.limit, ownHit);
  else reportRateLimit(reply, general.limit, generalHit);
}

function assertPlan(route: RouteDefinition, credential: WorkspaceCredential): void {
  if (credential.plan === 'free') {
    throw new ApiError('upgrade_required', 'The API is available on the Pro and Enterprise plans', {
      plan: credential.plan,
    });
  }
  if (route.plan === 'enterprise' && credential.plan !== 'enterprise') {
    throw new ApiError('upgrade_required', 'This feature is available on the Enterprise plan', {
      plan: credential.plan,
      requiredPlan: 'enterprise',
    });
  }
}
