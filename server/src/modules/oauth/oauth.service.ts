import { randomBytes, timingSafeEqual } from 'node:crypto';
import { scopes as knownScopes, type Scope } from '@pollkit/contracts';
import type { Kysely } from 'kysely';
import { ApiError, invalidField } from '../../core/api-error.js';
import { hashSecret, newSecret } from '../../core/secrets.js';
import { newId } from '../../db/ids.js';
import type { Database, OAuthClientRow } from '../../db/schema.js';
import type { InvalidationBus } from '../../infra/invalidation.js';
import type { RateLimitStore } from '../../infra/rate-limit.js';
import { revokeKeysOfOAuthClient } from '../api-keys/api-keys.service.js';
import { countAuthFailure } from '../credentials/auth-failures.js';
import { parseScopes } from '../credentials/credential-scopes.js';
import { CREDENTIALS_TOPIC } from '../credentials/credentials-topic.js';
import { findWorkspace, setOAuthEnabled } from '../workspaces/workspaces.service.js';
import * as repo from './oauth.repository.js';

type Db = Kysely<Database>;

/** Access tokens start with this, so the authenticator (and secret scanners) can tell them from API keys. */
export const ACCESS_TOKEN_PREFIX = 'oat_';
/** Client secrets start with this. */
const CLIENT_SECRET_PREFIX = 'ocs_';
/** The spec's limit on `POST /api/oauth/token`: requests per fixed minute per `client_id`. */
export const TOKEN_REQUESTS_PER_MINUTE = 10;
const CLIENT_NAME_MAX_LENGTH = 200;
/**
 * The longest `client_id` the token endpoint looks at. Ours are 30 characters (`oac_` and a ULID);
 * a longer one names no client, and refusing it before anything is counted keeps every rate-limit
 * key short, where each new 8 KB id sent used to be a counter of its own.
 */
export const CLIENT_ID_MAX_LENGTH = 64;

/** RFC 6749 §5.2 error codes, plus the spec's `access_denied`. */
export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_scope'
  | 'access_denied'
  | 'unsupported_grant_type';

/** A token-endpoint failure: answered as `{ error, error_description }`, never as the API envelope. */
export class OAuthError extends Error {
  override name = 'OAuthError';
  constructor(
    readonly error: OAuthErrorCode,
    readonly description: string,
    readonly status: 400 | 401 | 429 = error === 'invalid_client' ? 401 : 400,
  ) {
    super(description);
  }
}

/** A client as admin tools show it: never the secret or its hash. */
export interface OAuthClientSummary {
  clientId: string;
  workspaceId: string;
  name: string;
  allowedScopes: Scope[];
  status: 'active' | 'revoked';
  createdAt: string;
  revokedAt: string | null;
}

export function toClientSummary(client: OAuthClientRow): OAuthClientSummary {
  return {
    clientId: client.id,
    workspaceId: client.workspace_id,
    name: client.name,
    allowedScopes: client.allowed_scopes,
    status: client.revoked_at ? 'revoked' : 'active',
    createdAt: client.created_at.toISOString(),
    revokedAt: client.revoked_at?.toISOString() ?? null,
  };
}

/**
 * The access token whose secret hashes to `hash`, with its client and workspace: what the
 * authenticator (auth/auth.service.ts) resolves a bearer token to.
 */
export function findAccessToken(db: Db, hash: string): Promise<TokenLookup | undefined> {
  return repo.findTokenWithClient(db, hash);
}

export type TokenLookup = NonNullable<Awaited<ReturnType<typeof repo.findTokenWithClient>>>;

/** OAuth is an Enterprise feature, switched on per workspace. */
export async function enableOAuth(db: Db, workspaceId: string): Promise<void> {
  const workspace = await findWorkspace(db, workspaceId);
  if (!workspace) throw new ApiError('not_found', `Workspace ${workspaceId} not found`);
  if (workspace.plan !== 'enterprise') {
    throw new ApiError(
      'upgrade_required',
      `OAuth client credentials are an Enterprise feature, and workspace ${workspaceId} is on the ${workspace.plan} plan`,
      { plan: workspace.plan, requiredPlan: 'enterprise' },
    );
  }
  await setOAuthEnabled(db, workspaceId, true);
}

/** Returns the client secret this once; only its hash is stored. */
export async function createClient(
  db: Db,
  input: { workspaceId: string; name: string; scopes: string },
): Promise<{ client: OAuthClientRow; secret: string }> {
  if (input.name.trim().length === 0) throw invalidField('name', 'The client name must not be blank');
  if (input.name.length > CLIENT_NAME_MAX_LENGTH) {
    throw invalidField('name', `The client name is longer than ${CLIENT_NAME_MAX_LENGTH} characters`);
  }
  const { scopes, unknown } = parseScopes(input.scopes);
  if (unknown.length > 0) {
    throw invalidField('scopes', `Unknown scope ${unknown.join(', ')}; the scopes are: ${knownScopes.join(' ')}`);
  }
  if (scopes.length === 0) throw invalidField('scopes', 'Give the client at least one scope');
  const workspace = await findWorkspace(db, input.workspaceId);
  if (!workspace) throw new ApiError('not_found', `Workspace ${input.workspaceId} not found`);
  if (workspace.plan !== 'enterprise' || !workspace.oauth_enabled) {
    throw new ApiError(
      'upgrade_required',
      workspace.plan === 'enterprise'
        ? `OAuth is not enabled for workspace ${workspace.id}; enable it first (pollkit oauth enable ${workspace.id})`
        : `OAuth client credentials are an Enterprise feature, and workspace ${workspace.id} is on the ${workspace.plan} plan`,
      { plan: workspace.plan, requiredPlan: 'enterprise' },
    );
  }
  const secret = newSecret(CLIENT_SECRET_PREFIX);
  const client = await repo.insertClient(db, {
    id: newId('oauthClient'),
    workspace_id: workspace.id,
    name: input.name,
    secret_hash: hashSecret(secret),
    allowed_scopes: scopes,
  });
  return { client, secret };
}

export async function listClients(db: Db, workspaceId: string): Promise<OAuthClientRow[]> {
  if (!(await findWorkspace(db, workspaceId))) throw new ApiError('not_found', `Workspace ${workspaceId} not found`);
  return repo.listClients(db, workspaceId);
}

/**
 * Revoking twice changes nothing; `alreadyRevoked` says so. Its tokens stop working with it, and so
 * do the API keys its tokens created (and the keys those created), in the same transaction:
 * `revokedKeys` counts them. Every process is told on the credentials topic, so none keeps serving
 * a cached token or key of the client.
 */
export async function revokeClient(
  deps: { db: Db; invalidation: Pick<InvalidationBus, 'publish'> },
  clientId: string,
): Promise<{ client: OAuthClientRow; alreadyRevoked: boolean; revokedKeys: number }> {
  const at = new Date();
  const outcome = await deps.db.transaction().execute(async (trx) => {
    const revoked = await repo.revokeClient(trx, clientId, at);
    const client = revoked ?? (await repo.findClient(trx, clientId));
    if (!client) throw new ApiError('not_found', `OAuth client ${clientId} not found`);
    // Run on an already revoked client too: a key left active there (none should be) goes now.
    const revokedKeys = await revokeKeysOfOAuthClient(trx, clientId, at);
    return { client, alreadyRevoked: !revoked, revokedKeys };
  });
  if (!outcome.alreadyRevoked || outcome.revokedKeys > 0) {
    await deps.invalidation.publish(CREDENTIALS_TOPIC, clientId);
  }
  return outcome;
}

/**
 * Holds the client's row FOR SHARE in the caller's transaction, against a revocation, while a key
 * made by its credential is written (modules/api-keys, through deps.ts): a revocation running
 * meanwhile waits, then revokes that key with the others; one that came first shows here. Answers
 * whether the client is revoked; undefined when there is no such client.
 */
export function holdClientForKey(trx: Db, clientId: string): Promise<{ revoked: boolean } | undefined> {
  return repo.clientRevokedForShare(trx, clientId);
}

export interface TokenRequest {
  clientId: string;
  clientSecret: string;
  /** The `scope` parameter as sent, or undefined for every scope the client is allowed. */
  scope: string | undefined;
}

/** What the token endpoint needs: the database, the shared counters, and two settings. */
export interface TokenDeps {
  db: Db;
  rateLimits: RateLimitStore;
  tokenTtlSeconds: number;
  /** The budget of failed authentications per client address (AUTH_FAILURES_PER_IP_PER_MINUTE). */
  authFailuresPerMinute: number;
}

export interface IssuedToken {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  scope: string;
}

/** Compared against when the client is unknown, so an unknown id costs what a wrong secret costs. */
const UNKNOWN_CLIENT_HASH = hashSecret(randomBytes(32).toString('hex'));

/**
 * The client credentials grant (RFC 6749 §4.4), once the request is well formed: count it against
 * the client's limit, authenticate the client, check it may still get tokens, narrow the scope and
 * issue a token. `address` is the client's IP address: a failed client authentication counts
 * against it, with every other failed authentication from there (modules/credentials/auth-failures.ts).
 */
export async function issueToken(
  deps: TokenDeps,
  request: TokenRequest & { address: string },
  onRateLimit: (hit: { count: number; resetAt: number }) => void,
): Promise<IssuedToken> {
  if (request.clientId.length > CLIENT_ID_MAX_LENGTH) {
    throw new OAuthError('invalid_request', `The client_id is longer than ${CLIENT_ID_MAX_LENGTH} characters`);
  }
  // Counted before authentication, so the limit also bounds guessing a client's secret.
  const hit = await deps.rateLimits.hit(`oauth:${request.clientId}`);
  onRateLimit(hit);
  if (hit.count > TOKEN_REQUESTS_PER_MINUTE) {
    throw new OAuthError(
      'access_denied',
      `More than ${TOKEN_REQUESTS_PER_MINUTE} token requests this minute for this client; retry after the window resets`,
      429,
    );
  }

  const client = await repo.findClientWithWorkspace(deps.db, request.clientId);
  const presented = Buffer.from(hashSecret(request.clientSecret), 'hex');
  const expected = Buffer.from(client?.secret_hash ?? UNKNOWN_CLIENT_HASH, 'hex');
  if (!timingSafeEqual(presented, expected) || !client) {
    // A new client_id is a new counter above; the address's budget is what bounds trying many.
    const failures = await countAuthFailure(deps.rateLimits, request.address, deps.authFailuresPerMinute);
    if (failures.exceeded) {
      throw new OAuthError(
        'access_denied',
        `More than ${deps.authFailuresPerMinute} failed authentications from this address this minute; retry after the window resets`,
        429,
      );
    }
    throw new OAuthError('invalid_client', 'Unknown client_id or wrong client_secret');
  }
  if (client.revoked_at) throw new OAuthError('access_denied', 'This client was revoked');
  if (client.plan !== 'enterprise' || !client.oauth_enabled) {
    throw new OAuthError('access_denied', 'OAuth is not enabled for this client’s workspace');
  }

  let granted: Scope[] = client.allowed_scopes;
  if (request.scope !== undefined) {
    const { scopes, unknown } = parseScopes(request.scope);
    const allowed = new Set(client.allowed_scopes);
    const refused = [...unknown, ...scopes.filter((scope) => !allowed.has(scope))];
    if (refused.length > 0) {
      throw new OAuthError('invalid_scope', `This client may not request: ${refused.join(' ')}`);
    }
    if (scopes.length === 0) throw new OAuthError('invalid_scope', 'The scope parameter names no scope');
    granted = scopes;
  }

  const token = newSecret(ACCESS_TOKEN_PREFIX);
  const now = Date.now();
  await repo.deleteExpiredTokens(deps.db, client.id, new Date(now));
  await repo.insertToken(deps.db, {
    id: newId('oauthToken'),
    client_id: client.id,
    workspace_id: client.workspace_id,
    token_hash: hashSecret(token),
    scopes: granted,
    expires_at: new Date(now + deps.tokenTtlSeconds * 1000),
  });
  return { access_token: token, token_type: 'Bearer', expires_in: deps.tokenTtlSeconds, scope: granted.join(' ') };
}
