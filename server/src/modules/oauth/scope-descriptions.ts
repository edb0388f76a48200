import type { Scope } from '@pollkit/contracts';

/**
 * What each scope allows, for the OpenAPI security scheme and docs/authentication.md. A `Record`
 * over `Scope`, so a scope added to contracts/src/scopes.ts does not compile without its words.
 * Scopes no route needs yet say so: the words describe what exists, not what may come.
 */
export const scopeDescriptions: Record<Scope, string> = {
  'polls:read': 'Read polls.',
  'polls:write': 'Create, change, publish, close and delete polls.',
  'responses:read': 'Read votes, responses, Q&A questions and aggregated results.',
  'responses:write': "Cast votes, submit responses, moderate and upvote Q&A questions, delete a poll's answers.",
  'sessions:read': 'Read live sessions, their QR code and the presenter event stream.',
  'sessions:write': 'Create live sessions and control them (start, move, show results, lock, end).',
  'media:write': 'Ingest media from a URL (images are re-hosted).',
  'webhooks:read': 'Reserved: no route uses it yet.',
  'webhooks:write': 'Reserved: no route uses it yet.',
  'export:read': 'Export results as CSV.',
  'branching:write': 'Reserved: no route uses it yet.',
  'keys:manage': 'List, create, revoke and rotate API keys.',
};
