/**
 * The scope table in docs/authentication.md (which route needs which scope), generated from the
 * contract: `npx -y pnpm@10 generate` rewrites it between its markers; `generated:check` (part of
 * `pnpm check`) and server/test/api/oauth.test.ts fail when the committed table is stale.
 */
import { fileURLToPath } from 'node:url';
import { contract, type RouteDefinition, requiredScopes, scopes } from '@pollkit/contracts';
import { describeScope } from '../../server/src/modules/oauth/scope-descriptions.js';
import { withGeneratedBlock } from './generated-block.js';

export const AUTHENTICATION_DOC_PATH = fileURLToPath(new URL('../authentication.md', import.meta.url));
const SCOPE_TABLE_START = '<!-- scope-table:start (generated from the contract by docs/scripts/scope-table.ts) -->';
const SCOPE_TABLE_END = '<!-- scope-table:end -->';

/**
 * Every scope with what requires it (operations and webhook payloads, server/src/modules/oauth/scope-descriptions.ts), then
 * one row per route with every scope it requires, grouped by its first (`scope`) in the order of
 * contracts/src/scopes.ts; authenticated routes that need no scope come first.
 */
export function scopeTableMarkdown(): string {
  const routes = Object.values(contract).flatMap((group) => Object.values(group) as RouteDefinition[]);
  const scopeRows = scopes.map((scope) => `| \`${scope}\` | ${describeScope(scope)} |`);
  const row = (route: RouteDefinition, scope: string) =>
    `| \`${route.method} /api/v1${route.path}\` | ${scope} | ${route.summary} |`;
  const unscoped = routes
    .filter((route) => route.auth === 'workspace' && requiredScopes(route).length === 0)
    .map((route) => row(route, 'none (any credential)'));
  const routeRows = scopes.flatMap((scope) =>
    routes.filter((route) => route.scope === scope).map((route) => row(route, scopesCell(route))),
  );
  // The audience's routes take no workspace credential at all (docs/live-sessions.md).
  const participantRows = routes
    .filter((route) => route.auth === 'participant')
    .map((route) => row(route, 'none: a participant route (PIN and participant token)'));
  return [
    '| Scope | What requires it |',
    '| --- | --- |',
    ...scopeRows,
    '',
    '| Route | Scope | Operation |',
    '| --- | --- | --- |',
    ...unscoped,
    ...routeRows,
    ...participantRows,
  ].join('\n');
}

/**
 * `` `sessions:read` `` or, for a route that requires more, `` `sessions:read` + `polls:read` ``; a
 * host route adds the host token, with the scopes it must carry (`hostTokenScopes`).
 */
export function scopesCell(route: RouteDefinition): string {
  const code = (scopes: readonly string[]) => scopes.map((scope) => `\`${scope}\``).join(' + ');
  const cell = code(requiredScopes(route));
  if (route.auth !== 'host') return cell;
  const carrying = route.hostTokenScopes?.length ? ` carrying ${code(route.hostTokenScopes)}` : '';
  return `${cell} (or the session's host token${carrying})`;
}

/** The document with its table block replaced by the generated one. */
export function withScopeTable(document: string): string {
  const markers = { start: SCOPE_TABLE_START, end: SCOPE_TABLE_END, where: 'docs/authentication.md' };
  return withGeneratedBlock(document, markers, scopeTableMarkdown());
}
