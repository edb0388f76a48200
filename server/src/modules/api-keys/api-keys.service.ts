import { createHash, randomBytes } from 'node:crypto';
import type { ApiKey, CreatedApiKey } from '@pollkit/contracts';
import type { Kysely } from 'kysely';
import { ApiError } from '../../core/api-error.js';
import { keysetPage } from '../../core/paging.js';
import { newId } from '../../db/ids.js';
import type { ApiKeyRow, Database } from '../../db/schema.js';
import type { InvalidationBus } from '../../infra/invalidation.js';
import { findWorkspace } from '../workspaces/workspaces.repository.js';
import * as apiKeys from './api-keys.repository.js';

type Db = Kysely<Database>;

/** Every API key secret starts with this, so it is recognisable (and findable by secret scanners). */
export const API_KEY_PREFIX = 'pk_live_';

export const API_KEY_NAME_MAX_LENGTH = 200;

/**
 * The secret is 32 random bytes. It is stored only as its SHA-256: with that much entropy a slow
 * password hash adds nothing, and lookup by hash means no secret is ever compared byte by byte.
 */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

/** `expiring`: rotated, and still inside its grace period. */
export type ApiKeyStatus = 'active' | 'revoked' | 'expiring' | 'expired';

/** A key as admin tools show it: never the secret or its hash. */
export interface ApiKeySummary {
  id: string;
  workspaceId: string;
  name: string;
  /** The secret's first characters, to recognise a key. */
  prefix: string;
  status: ApiKeyStatus;
  createdAt: string;
  revokedAt: string | null;
  expiresAt: string | null;
}

/** Revocation wins over expiry: it is the stronger, deliberate act. */
export function apiKeyStatus(key: Pick<ApiKeyRow, 'revoked_at' | 'expires_at'>, now = new Date()): ApiKeyStatus {
  if (key.revoked_at) return 'revoked';
  if (key.expires_at) return key.expires_at.getTime() <= now.getTime() ? 'expired' : 'expiring';
  return 'active';
}

export function toApiKeySummary(key: ApiKeyRow, now = new Date()): ApiKeySummary {
  return {
    id: key.id,
    workspaceId: key.workspace_id,
    name: key.name,
    prefix: key.prefix,
    status: apiKeyStatus(key, now),
    createdAt: key.created_at.toISOString(),
    revokedAt: key.revoked_at?.toISOString() ?? null,
    expiresAt: key.expires_at?.toISOString() ?? null,
  };
}

/** Returns the secret this once; only its hash is stored. */
export async function createApiKey(
  db: Db,
  input: { workspaceId: string; name: string },
): Promise<{ key: ApiKeyRow; secret: string }> {
  if (input.name.trim().length === 0) throw invalidName('The key name must not be blank');
  if (input.name.length > API_KEY_NAME_MAX_LENGTH) {
    throw invalidName(`The key name is longer than ${API_KEY_NAME_MAX_LENGTH} characters`);
  }
  await assertWorkspaceExists(db, input.workspaceId);
  const secret = `${API_KEY_PREFIX}${randomBytes(32).toString('base64url')}`;
  const key = await apiKeys.insertApiKey(db, {
    id: newId('apiKey'),
    workspace_id: input.workspaceId,
    name: input.name,
    prefix: secret.slice(0, API_KEY_PREFIX.length + 6),
    secret_hash: hashSecret(secret),
  });
  return { key, secret };
}

/** Oldest first; revoked and expired keys included (their status says so). */
export async function listApiKeys(db: Db, workspaceId: string): Promise<ApiKeyRow[]> {
  await assertWorkspaceExists(db, workspaceId);
  return apiKeys.listApiKeys(db, workspaceId);
}

/** Revokes a key that is not yet revoked; undefined when the id is unknown or already revoked. */
export async function revokeApiKey(db: Db, keyId: string): Promise<ApiKeyRow | undefined> {
  return (await apiKeys.revokeApiKey(db, keyId, new Date())) ?? undefined;
}

/**
 * Revokes the key with this id in any workspace (the operator's use case). Revoking twice is not
 * an error: the key stays revoked as of the first time, and `alreadyRevoked` says so. A server
 * process that authenticated the key in the last 5 seconds may accept it for the rest of that
 * time (see `Authenticator`).
 */
export async function revokeApiKeyById(db: Db, keyId: string): Promise<{ key: ApiKeyRow; alreadyRevoked: boolean }> {
  const revoked = await apiKeys.revokeApiKey(db, keyId, new Date());
  if (revoked) return { key: revoked, alreadyRevoked: false };
  const existing = await apiKeys.findApiKey(db, keyId);
  if (!existing) throw new ApiError('not_found', `API key ${keyId} not found`);
  return { key: existing, alreadyRevoked: true };
}

async function assertWorkspaceExists(db: Db, workspaceId: string): Promise<void> {
  if (!(await findWorkspace(db, workspaceId))) {
    throw new ApiError('not_found', `Workspace ${workspaceId} not found`);
  }
}

function invalidName(message: string): ApiError {
  return new ApiError('validation_failed', message, { fieldErrors: { name: [message] }, formErrors: [] });
}

/**
 * The invalidation topic every process's `Authenticator` listens on (deps.ts): after a revocation
 * or rotation its credential cache is dropped, so the change applies everywhere within the time a
 * Redis message takes, not the cache's 5 seconds.
 */
export const CREDENTIALS_TOPIC = 'credentials';

/** What the key use cases need: the database, and the bus that tells every process a key changed. */
export interface ApiKeysDeps {
  db: Db;
  invalidation: Pick<InvalidationBus, 'publish'>;
}

/** A key as the API shows it (the workspace is the caller's own, so it is left out). */
export function toApiKey(key: ApiKeyRow, now = new Date()): ApiKey {
  return {
    id: key.id,
    name: key.name,
    prefix: key.prefix,
    status: apiKeyStatus(key, now),
    createdAt: key.created_at.toISOString(),
    revokedAt: key.revoked_at?.toISOString() ?? null,
    expiresAt: key.expires_at?.toISOString() ?? null,
  };
}

/** The workspace's keys, newest first, revoked and expired ones included; never a secret. */
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

export async function createWorkspaceKey(db: Db, workspaceId: string, name: string): Promise<CreatedApiKey> {
  const { key, secret } = await createApiKey(db, { workspaceId, name });
  return { ...toApiKey(key), secret };
}

/**
 * Revokes one of the workspace's keys (another workspace's is a 404). Revoking a revoked key is
 * not an error: it stays revoked as of the first time. Every process forgets its cached
 * credentials, so the key stops everywhere at once.
 */
export async function revokeWorkspaceKey(deps: ApiKeysDeps, workspaceId: string, keyId: string): Promise<ApiKey> {
  const revoked = await apiKeys.revokeWorkspaceApiKey(deps.db, workspaceId, keyId, new Date());
  if (revoked) {
    await deps.invalidation.publish(CREDENTIALS_TOPIC, keyId);
    return toApiKey(revoked);
  }
  const existing = await apiKeys.findWorkspaceApiKey(deps.db, workspaceId, keyId);
  if (!existing) throw keyNotFound(keyId);
  return toApiKey(existing);
}

/**
 * Rotation: a new key with the old one's name, and the old key's `expires_at` set to the end of
 * the grace period (now, with 0), after which it answers `expired_api_key`. Only an active key
 * rotates: a revoked one is dead already, and a rotated one has its replacement (409
 * `key_not_active`). The row lock makes two concurrent rotations of one key produce one
 * replacement. `workspaceId` undefined: any workspace (the operator's CLI).
 */
export async function rotateApiKey(
  deps: ApiKeysDeps,
  input: { keyId: string; workspaceId: string | undefined; gracePeriodSeconds: number },
): Promise<{ previous: ApiKeyRow; key: ApiKeyRow; secret: string }> {
  const rotated = await deps.db.transaction().execute(async (trx) => {
    const previous = await apiKeys.findApiKeyForUpdate(trx, input.keyId, input.workspaceId);
    if (!previous) throw keyNotFound(input.keyId);
    const status = apiKeyStatus(previous);
    if (status !== 'active') {
      throw new ApiError('key_not_active', `API key ${input.keyId} is ${status}; only an active key can be rotated`, {
        status,
      });
    }
    const expiresAt = new Date(Date.now() + input.gracePeriodSeconds * 1000);
    const { key, secret } = await createApiKey(trx, { workspaceId: previous.workspace_id, name: previous.name });
    return { previous: await apiKeys.setApiKeyExpiry(trx, previous.id, expiresAt), key, secret };
  });
  await deps.invalidation.publish(CREDENTIALS_TOPIC, input.keyId);
  return rotated;
}

function keyNotFound(keyId: string): ApiError {
  return new ApiError('not_found', `API key ${keyId} not found`);
}
