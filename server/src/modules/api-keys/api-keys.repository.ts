import type { Kysely } from 'kysely';
import type { ApiKeyRow, Database, WorkspaceRow } from '../../db/schema.js';
import { workspaceAccess } from '../workspaces/workspaces.service.js';

export function insertApiKey(
  db: Kysely<Database>,
  key: Pick<
    ApiKeyRow,
    'id' | 'workspace_id' | 'name' | 'prefix' | 'secret_hash' | 'scopes' | 'created_by_oauth_client_id'
  >,
): Promise<ApiKeyRow> {
  return db
    .insertInto('api_keys')
    .values({ ...key, scopes: key.scopes === null ? null : JSON.stringify(key.scopes) })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export function listApiKeys(db: Kysely<Database>, workspaceId: string): Promise<ApiKeyRow[]> {
  return db.selectFrom('api_keys').selectAll().where('workspace_id', '=', workspaceId).orderBy('id').execute();
}

/** A key by id, within one workspace when `workspaceId` is given (the API's scope). */
export interface KeyTarget {
  keyId: string;
  workspaceId?: string | undefined;
}

/** Revokes the key unless it is already revoked; undefined otherwise (unknown, other workspace, revoked). */
export function revokeApiKey(db: Kysely<Database>, target: KeyTarget, at: Date): Promise<ApiKeyRow | undefined> {
  let query = db.updateTable('api_keys').set({ revoked_at: at }).where('id', '=', target.keyId);
  if (target.workspaceId !== undefined) query = query.where('workspace_id', '=', target.workspaceId);
  return query.where('revoked_at', 'is', null).returningAll().executeTakeFirst();
}

export function findApiKey(db: Kysely<Database>, target: KeyTarget): Promise<ApiKeyRow | undefined> {
  return selectKey(db, target).executeTakeFirst();
}

/** The select both lookups share: by id, within the workspace when the target names one. */
function selectKey(db: Kysely<Database>, target: KeyTarget) {
  const query = db.selectFrom('api_keys').selectAll().where('id', '=', target.keyId);
  return target.workspaceId === undefined ? query : query.where('workspace_id', '=', target.workspaceId);
}

/** The key with this secret hash and its workspace, in one round trip. */
export function findApiKeyWithWorkspace(
  db: Kysely<Database>,
  secretHash: string,
): Promise<
  | (Pick<ApiKeyRow, 'id' | 'revoked_at' | 'expires_at' | 'scopes' | 'created_by_oauth_client_id'> &
      Pick<WorkspaceRow, 'plan' | 'rate_limit_per_minute'> & { workspace_id: string })
  | undefined
> {
  return db
    .selectFrom('api_keys')
    .innerJoin(workspaceAccess(db).as('workspaces'), 'workspaces.id', 'api_keys.workspace_id')
    .select([
      'api_keys.id',
      'api_keys.workspace_id',
      'api_keys.revoked_at',
      'api_keys.expires_at',
      'api_keys.scopes',
      'api_keys.created_by_oauth_client_id',
      'workspaces.plan',
      'workspaces.rate_limit_per_minute',
    ])
    .where('api_keys.secret_hash', '=', secretHash)
    .executeTakeFirst();
}

/** One page of a workspace's keys, newest first (ids are time-ordered). */
export function listApiKeysPage(
  db: Kysely<Database>,
  workspaceId: string,
  options: { limit: number; beforeId?: string | undefined },
): Promise<ApiKeyRow[]> {
  let query = db.selectFrom('api_keys').selectAll().where('workspace_id', '=', workspaceId);
  if (options.beforeId) query = query.where('id', '<', options.beforeId);
  return query.orderBy('id', 'desc').limit(options.limit).execute();
}

/** As findApiKey, with the row locked for the rest of the transaction. */
export function findApiKeyForUpdate(db: Kysely<Database>, target: KeyTarget): Promise<ApiKeyRow | undefined> {
  return selectKey(db, target).forUpdate().executeTakeFirst();
}

/**
 * Revokes every key the OAuth client created that is not revoked yet (its client was revoked): how
 * many it revoked.
 */
export async function revokeKeysOfOAuthClient(db: Kysely<Database>, clientId: string, at: Date): Promise<number> {
  const revoked = await db
    .updateTable('api_keys')
    .set({ revoked_at: at })
    .where('created_by_oauth_client_id', '=', clientId)
    .where('revoked_at', 'is', null)
    .returning('id')
    .execute();
  return revoked.length;
}

export function setApiKeyExpiry(db: Kysely<Database>, id: string, expiresAt: Date): Promise<ApiKeyRow> {
  return db
    .updateTable('api_keys')
    .set({ expires_at: expiresAt })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}
