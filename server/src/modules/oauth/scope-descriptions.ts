import {
  contract,
  type RouteDefinition,
  requiredScopes,
  type Scope,
  scopes,
  webhookPayloadScopes,
} from '@pollkit/contracts';

/**
 * What each scope allows, for the OpenAPI security scheme and docs/authentication.md, generated from
 * the contract: the operations that require the scope (`scope` and `additionalScopes` of every
 * route) and the webhook events whose payload it guards (`webhookPayloadScopes`). Nothing is written
 * by hand, so the words cannot fall behind the routes (they once called scopes in use "reserved").
 */

/** One operation that requires a scope, and the other scopes it requires with it. */
interface ScopedOperation {
  route: RouteDefinition;
  alongWith: Scope[];
}

function operationsRequiring(scope: Scope): ScopedOperation[] {
  return Object.values(contract)
    .flatMap((group) => Object.values(group) as RouteDefinition[])
    .filter((route) => requiredScopes(route).includes(scope))
    .map((route) => ({ route, alongWith: requiredScopes(route).filter((other) => other !== scope) }));
}

/** The event types whose delivery payload (and receivers' answers to it) the scope guards. */
function eventsGuardedBy(scope: Scope): string[] {
  return Object.entries(webhookPayloadScopes)
    .filter(([, guard]) => guard === scope)
    .map(([type]) => type);
}

/** `GET /polls/{id}`, and `(with sessions:read)` when the operation needs another scope too. */
function operationName({ route, alongWith }: ScopedOperation, code: (text: string) => string): string {
  const also = alongWith.length > 0 ? ` (with ${alongWith.map(code).join(', ')})` : '';
  return `${code(`${route.method} ${route.path}`)}${also}`;
}

/** A sentence or two: what requires the scope; `code` formats a name (Markdown backticks by default). */
export function describeScope(scope: Scope, code: (text: string) => string = (text) => `\`${text}\``): string {
  const operations = operationsRequiring(scope).map((operation) => operationName(operation, code));
  const events = eventsGuardedBy(scope).map(code);
  const parts = [
    operations.length > 0 ? `Required by ${operations.join(', ')}.` : 'No operation requires it.',
    ...(events.length > 0
      ? [
          `Also needed to read the ${code('payload')} of webhook deliveries of ${events.join(', ')}, and to have ` +
            'an endpoint send those events to a URL.',
        ]
      : []),
  ];
  return parts.join(' ');
}

/** Each scope's description (the OAuth2 security scheme's `scopes`). */
export const scopeDescriptions: Record<Scope, string> = Object.fromEntries(
  scopes.map((scope) => [scope, describeScope(scope)]),
) as Record<Scope, string>;
