import type { Scope } from '@pollkit/contracts';
import type { Kysely } from 'kysely';
import { ApiError } from '../../core/api-error.js';
import { hashSecret } from '../../core/secrets.js';
import type { Database } from '../../db/schema.js';
import { findKeyWithWorkspace } from '../api-keys/api-keys.service.js';
import type { HeldScopes } from '../credentials/credential-scopes.js';
import type { WorkspaceCredential } from '../credentials/workspace-credential.js';
import { ACCESS_TOKEN_PREFIX, findAccessToken, type TokenLookup } from '../oauth/oauth.service.js';

type KeyLookup = NonNullable<Awaited<ReturnType<typeof findKeyWithWorkspace>>>;
type Lookup =
  | { kind: 'api_key'; key: KeyLookup; scopes: HeldScopes }
  | { kind: 'oauth_token'; token: TokenLookup; scopes: ReadonlySet<Scope> };

/** How long a valid credential is served from memory; a revocation elsewhere takes this long without Redis. */
export const CREDENTIAL_CACHE_TTL_MS = 5_000;
const CACHE_MAX_ENTRIES = 10_000;

/**
 * Resolves `Authorization: Bearer …` to a credential: an API key (`pk_live_…`) or an OAuth access
 * token (`oat_…`). Valid credentials are cached for a few seconds so the hot path does not query
 * the database on every request; revocation in this process evicts at once, and expiry is checked
 * on every request against the cached `expires_at`.
 */
export class Authenticator {
  readonly #cache = new Map<string, { lookup: Lookup; cachedAt: number }>();

  constructor(private readonly db: Kysely<Database>) {}

  /**
   * Runs on every authenticated request, so a cache hit settles without awaiting anything: one
   * resolved promise, no async frames (measured in server/bench, "pipeline step by step").
   */
  authenticate(authorization: string | undefined): Promise<WorkspaceCredential> {
    try {
      const token = bearerToken(authorization);
      if (!token) {
        throw new ApiError('missing_authorization', 'Send your API key as `Authorization: Bearer <API_KEY>`');
      }
      const isOAuthToken = token.startsWith(ACCESS_TOKEN_PREFIX);
      const hash = hashSecret(token);
      const cached = this.#cache.get(hash);
      if (cached && Date.now() - cached.cachedAt < CREDENTIAL_CACHE_TTL_MS) {
        return Promise.resolve(credentialOf(cached.lookup, isOAuthToken));
      }
      return this.#load(hash, isOAuthToken).then((lookup) => credentialOf(lookup, isOAuthToken));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** Forget cached credentials (after a revocation, a plan change, …). */
  invalidate(): void {
    this.#cache.clear();
  }

  async #load(hash: string, isOAuthToken: boolean): Promise<Lookup | undefined> {
    const now = Date.now();
    const lookup = isOAuthToken ? await lookUpToken(this.db, hash) : await lookUpKey(this.db, hash);
    if (lookup && isUsable(lookup)) {
      if (this.#cache.size >= CACHE_MAX_ENTRIES) this.#cache.clear();
      this.#cache.set(hash, { lookup, cachedAt: now });
    } else {
      this.#cache.delete(hash);
    }
    return lookup;
  }
}

/** The credential a lookup grants, or the 401 it deserves (unknown, revoked, expired…). */
function credentialOf(lookup: Lookup | undefined, isOAuthToken: boolean): WorkspaceCredential {
  if (isOAuthToken) return oauthCredential(lookup?.kind === 'oauth_token' ? lookup : undefined);
  if (lookup?.kind !== 'api_key') throw new ApiError('invalid_api_key', 'The API key is unknown or incorrect');
  return apiKeyCredential(lookup.key, lookup.scopes);
}

async function lookUpKey(db: Kysely<Database>, hash: string): Promise<Lookup | undefined> {
  const key = await findKeyWithWorkspace(db, hash);
  return key && { kind: 'api_key', key, scopes: key.scopes === null ? 'all' : new Set(key.scopes) };
}

async function lookUpToken(db: Kysely<Database>, hash: string): Promise<Lookup | undefined> {
  const token = await findAccessToken(db, hash);
  return token && { kind: 'oauth_token', token, scopes: new Set(token.scopes) };
}

/** Revoked credentials are not cached, so the answer for them always comes from the database. */
function isUsable(lookup: Lookup): boolean {
  return lookup.kind === 'api_key' ? !lookup.key.revoked_at : !lookup.token.revoked_at;
}

function apiKeyCredential(lookup: KeyLookup, scopes: HeldScopes): WorkspaceCredential {
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
    scopes,
    expiresAt: lookup.expires_at,
    oauthClientId: lookup.created_by_oauth_client_id,
  };
}

/**
 * An access token works while it has not expired, its client is not revoked and its workspace
 * still has OAuth (an Enterprise workspace with OAuth enabled); otherwise `invalid_oauth_token`.
 */
function oauthCredential(lookup: Extract<Lookup, { kind: 'oauth_token' }> | undefined): WorkspaceCredential {
  const token = lookup?.token;
  if (!lookup || !token) throw new ApiError('invalid_oauth_token', 'The OAuth access token is unknown');
  if (token.expires_at.getTime() <= Date.now()) {
    throw new ApiError('invalid_oauth_token', 'The OAuth access token has expired; request a new one');
  }
  if (token.revoked_at) throw new ApiError('invalid_oauth_token', 'The OAuth client of this token was revoked');
  if (token.plan !== 'enterprise' || !token.oauth_enabled) {
    throw new ApiError('invalid_oauth_token', 'OAuth is not enabled for this workspace');
  }
  return {
    kind: 'oauth_token',
    id: token.client_id,
    workspaceId: token.workspace_id,
    plan: token.plan,
    rateLimitPerMinute: token.rate_limit_per_minute,
    scopes: lookup.scopes,
    expiresAt: token.expires_at,
    oauthClientId: token.client_id,
  };
}

function bearerToken(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1];
}
