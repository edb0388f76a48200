import type { Plan, Scope } from '@pollkit/contracts';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { ApiError } from '../../http/api-error.js';
import { findApiKeyWithWorkspace } from '../api-keys/api-keys.repository.js';
import { hashSecret } from '../api-keys/api-keys.service.js';

/** Who is calling, once the bearer credential is resolved. */
export interface WorkspaceCredential {
  kind: 'api_key';
  /** The key id: rate limits are counted per credential. */
  id: string;
  workspaceId: string;
  plan: Plan;
  rateLimitPerMinute: number | null;
  /** API keys act with admin authority: every scope. */
  scopes: 'all' | ReadonlySet<Scope>;
}

type KeyLookup = NonNullable<Awaited<ReturnType<typeof findApiKeyWithWorkspace>>>;

const CACHE_TTL_MS = 5_000;
const CACHE_MAX_ENTRIES = 10_000;

/**
 * Resolves `Authorization: Bearer …` to a credential. Valid keys are cached for a few seconds so
 * the hot path does not query the database on every request; revocation in this process evicts at
 * once, and expiry is checked on every request against the cached `expires_at`.
 */
export class Authenticator {
  readonly #cache = new Map<string, { lookup: KeyLookup; cachedAt: number }>();

  constructor(private readonly db: Kysely<Database>) {}

  async authenticate(authorization: string | undefined): Promise<WorkspaceCredential> {
    const token = bearerToken(authorization);
    if (!token) {
      throw new ApiError('missing_authorization', 'Send your API key as `Authorization: Bearer <API_KEY>`');
    }
    const hash = hashSecret(token);
    const lookup = await this.#lookup(hash);
    if (!lookup) throw new ApiError('invalid_api_key', 'The API key is unknown or incorrect');
    if (lookup.revoked_at) throw new ApiError('revoked_api_key', 'This API key was revoked');
    if (lookup.expires_at && lookup.expires_at.getTime() <= Date.now()) {
      throw new ApiError('expired_api_key', 'This API key was rotated and has expired; use its replacement');
    }
    return {
      kind: 'api_key',
      id: lookup.id,
      workspaceId: lookup.workspace_id,
      plan: lookup.plan,
      rateLimitPerMinute: lookup.rate_limit_per_minute,
      scopes: 'all',
    };
  }

  /** Forget cached credentials (after a revocation, a plan change, …). */
  invalidate(): void {
    this.#cache.clear();
  }

  async #lookup(hash: string): Promise<KeyLookup | undefined> {
    const now = Date.now();
    const cached = this.#cache.get(hash);
    if (cached && now - cached.cachedAt < CACHE_TTL_MS) return cached.lookup;
    const lookup = await findApiKeyWithWorkspace(this.db, hash);
    if (lookup && !lookup.revoked_at) {
      if (this.#cache.size >= CACHE_MAX_ENTRIES) this.#cache.clear();
      this.#cache.set(hash, { lookup, cachedAt: now });
    } else {
      this.#cache.delete(hash);
    }
    return lookup;
  }
}

function bearerToken(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1];
}
