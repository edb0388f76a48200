import { createHash, randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import { newId } from '../../db/ids.js';
import type { ApiKeyRow, Database } from '../../db/schema.js';
import * as apiKeys from './api-keys.repository.js';

/** Every API key secret starts with this, so it is recognisable (and findable by secret scanners). */
export const API_KEY_PREFIX = 'pk_live_';

/**
 * The secret is 32 random bytes. It is stored only as its SHA-256: with that much entropy a slow
 * password hash adds nothing, and lookup by hash means no secret is ever compared byte by byte.
 */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

export async function createApiKey(
  db: Kysely<Database>,
  input: { workspaceId: string; name: string },
): Promise<{ key: ApiKeyRow; secret: string }> {
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

export function listApiKeys(db: Kysely<Database>, workspaceId: string): Promise<ApiKeyRow[]> {
  return apiKeys.listApiKeys(db, workspaceId);
}

export async function revokeApiKey(db: Kysely<Database>, keyId: string): Promise<ApiKeyRow | undefined> {
  return (await apiKeys.revokeApiKey(db, keyId, new Date())) ?? undefined;
}
