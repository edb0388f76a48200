import type { RouteDefinition } from '@pollkit/contracts';
import { ApiError } from '../http/api-error.js';
import { applyRateLimit } from '../http/rate-limit-headers.js';
import type { WorkspaceCredential } from '../modules/auth/auth.service.js';
import { t } from './init.js';

/**
 * The one middleware in front of every workspace route, in this order: who is calling (401), how
 * often (429), whether their plan has the feature (402), whether the credential holds the route's
 * scope (403). It runs before input validation, so an unauthenticated request never learns
 * anything about the input it sent.
 */
export const guard = t.middleware(async ({ ctx, meta, next }) => {
  const route = meta?.route;
  if (!route || route.auth === 'none') return next({ ctx: { credential: undefined } });
  const credential = await ctx.deps.authenticator.authenticate(ctx.req.headers.authorization);
  await applyRateLimit(ctx.deps, ctx.reply, {
    key: `cred:${credential.id}`,
    limit: credential.rateLimitPerMinute ?? ctx.deps.config.RATE_LIMIT_PER_MINUTE,
  });
  assertPlan(route, credential);
  if (route.scope && credential.scopes !== 'all' && !credential.scopes.has(route.scope)) {
    throw new ApiError('insufficient_scope', `This credential lacks the \`${route.scope}\` scope`, {
      requiredScope: route.scope,
    });
  }
  return next({ ctx: { credential } });
});

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
