/**
 * Scopes. An OAuth access token holds the ones its client was granted; an API key holds the ones it
 * was created with (every scope unless it was given a list). A route names the ones it needs in its
 * contract (`scope`, `additionalScopes`); what each scope allows is generated from those routes
 * (docs/authentication.md).
 */
export const scopes = [
  'polls:read',
  'polls:write',
  'responses:read',
  'responses:write',
  'respondents:erase',
  'sessions:read',
  'sessions:write',
  'media:write',
  'webhooks:read',
  'webhooks:write',
  'export:read',
  'branching:write',
  'keys:manage',
  'workspace:write',
] as const;

export type Scope = (typeof scopes)[number];

/** Workspace plans. `free` has no API access; `pro` and `enterprise` do. */
export const plans = ['free', 'pro', 'enterprise'] as const;
export type Plan = (typeof plans)[number];
