import type { Kysely } from 'kysely';
import type { ApiKeyRow, Database, WorkspaceRow } from '../../db/schema.js';

export function insertApiKey(
  db: Kysely<Database>,
  key: Pick<ApiKeyRow, 'id' | 'workspace_id' | 'name' | 'prefix' | 'secret_hash'>,
): Promise<ApiKeyRow> {
  return db.insertInto('api_keys').values(key).returningAll().executeTakeFirstOrThrow();
}

export function listApiKeys(db: Kysely<Database>, workspaceId: string): Promise<ApiKeyRow[]> {
  return db.selectFrom('api_keys').selectAll().where('workspace_id', '=', workspaceId).orderBy('id').execute();
}

export function revokeApiKey(db: Kysely<Database>, id: string, at: Date): Promise<ApiKeyRow | undefined> {
  return db
    .updateTable('api_keys')
    .set({ revoked_at: at })
    .where('id', '=', id)
    .where('revoked_at', 'is', null)
    .returningAll()
    .executeTakeFirst();
}

export function findApiKey(db: Kysely<Database>, id: string): Promise<ApiKeyRow | undefined> {
  return db.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The key with this secret hash and its workspace, in one round trip. */
export function findApiKeyWithWorkspace(
  db: Kysely<Database>,
  secretHash: string,
): Promise<
  | (Pick<ApiKeyRow, 'id' | 'revoked_at' | 'expires_at'> &
      Pick<WorkspaceRow, 'plan' | 'rate_limit_per_minute'> & { workspace_id: string })
  | undefined
> {
  return db
    .selectFrom('api_keys')
    .innerJoin('workspaces', 'workspaces.id', 'api_keys.workspace_id')
    .select([
      'api_keys.id',
      'api_keys.workspace_id',
      'api_keys.revoked_at',
      'api_keys.expires_at',
      'workspaces.plan',
      'workspaces.rate_limit_per_minute',
    ])
    .where('api_keys.secret_hash', '=', secretHash)
    .executeTakeFirst();
}
