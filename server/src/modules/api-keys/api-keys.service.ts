import { createHash, randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import { newId } from '../../db/ids.js';
import type { ApiKeyRow, Database } from '../../db/schema.js';
import { ApiError } from '../../http/api-error.js';
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

export type ApiKeyStatus = 'active' | 'revoked' | 'expired';

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
  if (key.expires_at && key.expires_at.getTime() <= now.getTime()) return 'expired';
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
