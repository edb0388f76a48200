import type { Scope } from '@pollkit/contracts';

/**
 * What each scope allows, for the OpenAPI security scheme and docs/authentication.md. A `Record`
 * over `Scope`, so a scope added to contracts/src/scopes.ts does not compile without its words.
 */
export const scopeDescriptions: Record<Scope, string> = {
  'polls:read': 'Read polls.',
  'polls:write': 'Create, change, publish, close and delete polls.',
  'responses:read': 'Read votes, responses, Q&A questions and aggregated results.',
  'responses:write': 'Cast votes, submit responses, moderate and upvote Q&A questions.',
  'sessions:read': 'Read live sessions.',
  'sessions:write': 'Create and run live sessions.',
  'media:write': 'Upload and attach media.',
  'webhooks:read': 'Read webhook endpoints and their delivery log.',
  'webhooks:write': 'Create, change and delete webhook endpoints.',
  'export:read': 'Export results as CSV.',
  'branching:write': 'Generate and apply AI branching.',
  'keys:manage': 'List, create, revoke and rotate API keys.',
};
