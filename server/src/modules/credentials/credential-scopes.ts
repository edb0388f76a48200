import { scopes as allScopes, type Scope } from '@pollkit/contracts';
import { ApiError } from '../../core/api-error.js';

/** What a credential holds: every scope (a key created without a list), or a set of them. */
export type HeldScopes = 'all' | ReadonlySet<Scope>;

/** Whether the credential holds `scope`. */
export function holdsScope(held: HeldScopes, scope: Scope): boolean {
  return held === 'all' || held.has(scope);
}

/** The scopes of `wanted` (or of every scope) that `held` lacks, in the contract's order. */
export function missingScopes(held: HeldScopes, wanted: 'all' | readonly Scope[]): Scope[] {
  if (held === 'all') return [];
  return allScopes.filter((scope) => (wanted === 'all' || wanted.includes(scope)) && !held.has(scope));
}

/** The scopes a credential holds, as a list in the contract's order (`GET /workspace`, key records). */
export function scopeList(held: HeldScopes | readonly Scope[] | null): Scope[] {
  if (held === null || held === 'all') return [...allScopes];
  const set: ReadonlySet<Scope> = held instanceof Set ? held : new Set(held as readonly Scope[]);
  return allScopes.filter((scope) => set.has(scope));
}

/**
 * 403 `insufficient_scope` for a credential that would hand out (to a key) or reach (through a
 * webhook endpoint) scopes it does not hold: `requiredScope` names the first, as the pipeline's own
 * scope check does, and `missingScopes` all of them. `why` ends the message.
 */
export function scopesNotHeld(missing: readonly Scope[], why: string): ApiError {
  const names = missing.map((scope) => `\`${scope}\``).join(', ');
  return new ApiError('insufficient_scope', `This credential lacks ${names}; ${why}`, {
    requiredScope: missing[0],
    missingScopes: [...missing],
  });
}

/**
 * Splits a space-separated scope list (RFC 6749 §3.3, and the CLI's `--scopes`); every name must be
 * one of the contract's scopes.
 */
export function parseScopes(text: string): { scopes: Scope[]; unknown: string[] } {
  const names = [...new Set(text.split(' ').filter((name) => name.length > 0))];
  const known = new Set<string>(allScopes);
  return {
    scopes: names.filter((name): name is Scope => known.has(name)),
    unknown: names.filter((name) => !known.has(name)),
  };
}
