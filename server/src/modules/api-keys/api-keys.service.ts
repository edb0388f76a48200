import { type ApiKey, type CreatedApiKey, keyLimits, type Scope } from '@pollkit/contracts';
import type { Kysely } from 'kysely';
import { ApiError, invalidField } from '../../core/api-error.js';
import { keysetPage } from '../../core/paging.js';
import { hashSecret, newSecret } from '../../core/secrets.js';
import { newId } from '../../db/ids.js';
import type { ApiKeyRow, Database } from '../../db/schema.js';
import type { InvalidationBus } from '../../infra/invalidation.js';
import { type HeldScopes, missingScopes, scopeList, scopesNotHeld } from '../credentials/credential-scopes.js';
import { CREDENTIALS_TOPIC } from '../credentials/credentials-topic.js';
import { findWorkspace } from '../workspaces/workspaces.service.js';
import * as apiKeys from './api-keys.repository.js';

/**
 * API key use cases. A `workspaceId` scopes a use case to the caller's workspace (the API: another
 * workspace's key is a 404); the operator's CLI passes none (api-keys.admin.ts).
 */

type Db = Kysely<Database>;

/** Every API key secret starts with this, so it is recognisable (and findable by secret scanners). */
const API_KEY_PREFIX = 'pk_live_';

/** What the key use cases need: the database, and the bus that tells every process a key changed. */
export interface ApiKeysDeps {
  db: Db;
  invalidation: Pick<InvalidationBus, 'publish'>;
}

/**
 * What making a key for an OAuth client's credential asks of the oauth module: to hold the client's
 * row against a revocation while the key is written. The oauth module depends on this one (revoking a
 * client revokes the keys it made), so it cannot be imported here: the composition root (deps.ts)
 * hands over its `holdClientForKey`.
 */
export interface OAuthClientHold {
  /** Whether the client is revoked, its row held FOR SHARE until `trx` ends; undefined when unknown. */
  holdClientForKey(trx: Db, clientId: string): Promise<{ revoked: boolean } | undefined>;
}

/** What the use cases that issue a key need (a rotation issues the replacement). */
export interface KeyIssuingDeps extends ApiKeysDeps {
  oauthClients: OAuthClientHold;
}

/** `expiring`: rotated, and still inside its grace period. Revocation wins over expiry: it is deliberate. */
function apiKeyStatus(key: Pick<ApiKeyRow, 'revoked_at' | 'expires_at'>, now = new Date()): ApiKey['status'] {
  if (key.revoked_at) return 'revoked';
  if (key.expires_at) return key.expires_at.getTime() <= now.getTime() ? 'expired' : 'expiring';
  return 'active';
}

/** A key as the API shows it: never the secret or its hash (the workspace is the caller's own). */
export function toApiKey(key: ApiKeyRow, now = new Date()): ApiKey {
  return {
    id: key.id,
    name: key.name,
    prefix: key.prefix,
    status: apiKeyStatus(key, now),
    scopes: scopeList(key.scopes),
    createdAt: key.created_at.toISOString(),
    revokedAt: key.revoked_at?.toISOString() ?? null,
    expiresAt: key.expires_at?.toISOString() ?? null,
  };
}

/**
 * Returns the secret this once; only its hash is stored. `scopes` null or absent: every scope, those
 * added later included (as every key before keys had scopes). Who may give which scopes is the
 * caller's business: the API's `createWorkspaceKey`, or the operator's CLI, who may give any.
 */
export async function createApiKey(
  db: Db,
  input: {
    workspaceId: string;
    name: string;
    scopes?: readonly Scope[] | null | undefined;
    /** The OAuth client whose token (or key) creates it: revoking the client revokes the key. */
    oauthClientId?: string | null | undefined;
  },
): Promise<{ key: ApiKeyRow; secret: string }> {
  if (input.name.trim().length === 0) throw invalidField('name', 'The key name must not be blank');
  // The contract's limit, so the CLI and the API agree on how long a key name may be.
  if (input.name.length > keyLimits.nameLength) {
    throw invalidField('name', `The key name is longer than ${keyLimits.nameLength} characters`);
  }
  await assertWorkspaceExists(db, input.workspaceId);
  const secret = newSecret(API_KEY_PREFIX);
  const key = await apiKeys.insertApiKey(db, {
    id: newId('apiKey'),
    workspace_id: input.workspaceId,
    name: input.name,
    prefix: secret.slice(0, API_KEY_PREFIX.length + 6),
    secret_hash: hashSecret(secret),
    scopes: input.scopes ? scopeList(input.scopes) : null,
    created_by_oauth_client_id: input.oauthClientId ?? null,
  });
  return { key, secret };
}

/**
 * Who is asking for a key: their workspace, the scopes they hold (a key can hold no more), and the
 * OAuth client behind them, if any (the key is revoked with it).
 */
export interface KeyIssuer {
  workspaceId: string;
  scopes: HeldScopes;
  oauthClientId: string | null;
}

/**
 * `POST /keys`: a new key for the caller's workspace, its secret shown this once. A credential gives
 * a key only scopes it holds itself, or a token with `keys:manage` alone could mint a key that does
 * everything; without `scopes` the key would hold every scope, so only a credential holding every
 * scope may leave them out. A credential whose scopes are a list stores a list even when it names
 * every scope, so the key gains no scope a later version adds.
 */
export async function createWorkspaceKey(
  { db, oauthClients }: Pick<KeyIssuingDeps, 'db' | 'oauthClients'>,
  issuer: KeyIssuer,
  input: { name: string; scopes?: readonly Scope[] | undefined },
): Promise<CreatedApiKey> {
  const missing = missingScopes(issuer.scopes, input.scopes ?? 'all');
  if (missing.length > 0) {
    throw scopesNotHeld(
      missing,
      input.scopes
        ? 'a credential gives a key only scopes it holds'
        : 'a key created without `scopes` holds every scope, and a credential gives a key only scopes it holds',
    );
  }
  const scopes = input.scopes ?? (issuer.scopes === 'all' ? null : scopeList(issuer.scopes));
  const { workspaceId, oauthClientId } = issuer;
  if (oauthClientId === null) {
    const { key, secret } = await createApiKey(db, { workspaceId, name: input.name, scopes });
    return { ...toApiKey(key), secret };
  }
  // The client's row is held while the key is written: a revocation running meanwhile waits, then
  // revokes this key with the others; one that came first refuses it, as the token is dead.
  const { key, secret } = await db.transaction().execute(async (trx) => {
    const client = await oauthClients.holdClientForKey(trx, oauthClientId);
    if (!client || client.revoked) {
      throw new ApiError('invalid_oauth_token', 'The OAuth client of this credential was revoked');
    }
    return createApiKey(trx, { workspaceId, name: input.name, scopes, oauthClientId });
  });
  return { ...toApiKey(key), secret };
}

/** `GET /keys`: the workspace's keys, newest first, revoked and expired ones included; never a secret. */
export function listWorkspaceKeys(
  db: Db,
  workspaceId: string,
  input: { limit: number; cursor?: string | undefined },
): Promise<{ data: ApiKey[]; nextCursor: string | null }> {
  const now = new Date();
  return keysetPage(
    input,
    'key',
    ({ beforeId, limit }) => apiKeys.listApiKeysPage(db, workspaceId, { limit, beforeId }),
    (row) => toApiKey(row, now),
  );
}

/**
 * Revokes a key (within `workspaceId` when given). Revoking twice is not an error: the key stays
 * revoked as of the first time, and `alreadyRevoked` says so. A revocation is announced on the
 * credentials topic, so every process forgets its cached credentials and the key stops everywhere
 * at once (with Redis; otherwise within the authenticator's cache lifetime). `issuerScopes` (the
 * API): the caller's scopes, which must cover the key's, as for a rotation: a narrower credential
 * could otherwise take a broader key out of service.
 */
export async function revokeApiKey(
  deps: ApiKeysDeps,
  target: apiKeys.KeyTarget & { issuerScopes?: HeldScopes | undefined },
): Promise<{ key: ApiKeyRow; alreadyRevoked: boolean }> {
  if (target.issuerScopes !== undefined) {
    const key = await apiKeys.findApiKey(deps.db, target);
    if (!key) throw keyNotFound(target.keyId);
    const missing = missingScopes(target.issuerScopes, key.scopes ?? 'all');
    if (missing.length > 0) {
      throw scopesNotHeld(missing, 'a credential revokes only keys whose scopes it holds');
    }
  }
  const revoked = await apiKeys.revokeApiKey(deps.db, target, new Date());
  if (revoked) {
    await deps.invalidation.publish(CREDENTIALS_TOPIC, target.keyId);
    return { key: revoked, alreadyRevoked: false };
  }
  const existing = await apiKeys.findApiKey(deps.db, target);
  if (!existing) throw keyNotFound(target.keyId);
  return { key: existing, alreadyRevoked: true };
}

/**
 * Rotation: a new key with the old one's name and scopes, and the old key's `expires_at` set to the
 * end of the grace period (now, with 0), after which it answers `expired_api_key`. Only an active
 * key rotates: a revoked one is dead already, and a rotated one has its replacement (409
 * `key_not_active`). The row lock makes two concurrent rotations of one key produce one
 * replacement. No `workspaceId`: any workspace (the operator's CLI). `issuerScopes` (the API): the
 * caller's scopes, which must cover the key's, since the answer is a new secret holding them.
 */
export async function rotateApiKey(
  deps: KeyIssuingDeps,
  input: apiKeys.KeyTarget & { gracePeriodSeconds: number; issuerScopes?: HeldScopes | undefined },
): Promise<{ previous: ApiKeyRow; key: ApiKeyRow; secret: string }> {
  const rotated = await deps.db.transaction().execute(async (trx) => {
    // A key an OAuth client created: the client's row is held first (a revocation of the client takes
    // it before the keys, so both go in one order), and a revocation that came first has revoked the key.
    const clientId = (await apiKeys.findApiKey(trx, input))?.created_by_oauth_client_id;
    if (clientId) await deps.oauthClients.holdClientForKey(trx, clientId);
    const previous = await apiKeys.findApiKeyForUpdate(trx, input);
    if (!previous) throw keyNotFound(input.keyId);
    const status = apiKeyStatus(previous);
    if (status !== 'active') {
      throw new ApiError('key_not_active', `API key ${input.keyId} is ${status}; only an active key can be rotated`, {
        status,
      });
    }
    if (input.issuerScopes !== undefined) {
      const missing = missingScopes(input.issuerScopes, previous.scopes ?? 'all');
      if (missing.length > 0) {
        throw scopesNotHeld(
          missing,
          'the new key would hold the rotated key’s scopes, and a credential gives a key only scopes it holds',
        );
      }
    }
    const expiresAt = new Date(Date.now() + input.gracePeriodSeconds * 1000);
    // The replacement is revoked with the OAuth client that created the key, as the key would be.
    const { key, secret } = await createApiKey(trx, {
      workspaceId: previous.workspace_id,
      name: previous.name,
      scopes: previous.scopes,
      oauthClientId: previous.created_by_oauth_client_id,
    });
    return { previous: await apiKeys.setApiKeyExpiry(trx, previous.id, expiresAt), key, secret };
  });
  await deps.invalidation.publish(CREDENTIALS_TOPIC, input.keyId);
  return rotated;
}

/**
 * The OAuth client was revoked (in `db`, the revocation's transaction): every key it created, not
 * revoked yet, is revoked with it. Answers how many; the caller announces it on the credentials topic.
 */
export function revokeKeysOfOAuthClient(db: Db, clientId: string, at: Date): Promise<number> {
  return apiKeys.revokeKeysOfOAuthClient(db, clientId, at);
}

/**
 * The key whose secret hashes to `hash`, with its workspace's plan and limit, revoked or not: what
 * the authenticator (auth/auth.service.ts) resolves a bearer key to.
 */
export function findKeyWithWorkspace(db: Db, hash: string) {
  return apiKeys.findApiKeyWithWorkspace(db, hash);
}

export async function assertWorkspaceExists(db: Db, workspaceId: string): Promise<void> {
  if (!(await findWorkspace(db, workspaceId))) {
    throw new ApiError('not_found', `Workspace ${workspaceId} not found`);
  }
}

function keyNotFound(keyId: string): ApiError {
  return new ApiError('not_found', `API key ${keyId} not found`);
}
