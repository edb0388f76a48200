import type { Kysely, Updateable } from 'kysely';
import type { Database, NewWorkspace, WorkspaceRow, WorkspacesTable } from '../../db/schema.js';

export function insertWorkspace(db: Kysely<Database>, workspace: NewWorkspace): Promise<WorkspaceRow> {
  return db.insertInto('workspaces').values(workspace).returningAll().executeTakeFirstOrThrow();
}

export function findWorkspace(db: Kysely<Database>, id: string): Promise<WorkspaceRow | undefined> {
  return db.selectFrom('workspaces').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Locks the row for the rest of the transaction, so a check-then-update sees no concurrent change. */
export function findWorkspaceForUpdate(db: Kysely<Database>, id: string): Promise<WorkspaceRow | undefined> {
  return db.selectFrom('workspaces').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
}

export function listWorkspaces(db: Kysely<Database>): Promise<WorkspaceRow[]> {
  return db.selectFrom('workspaces').selectAll().orderBy('id').execute();
}

export async function countWorkspaces(db: Kysely<Database>): Promise<number> {
  const row = await db
    .selectFrom('workspaces')
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export function updateWorkspace(
  db: Kysely<Database>,
  id: string,
  changes: Updateable<WorkspacesTable>,
): Promise<WorkspaceRow | undefined> {
  return db.updateTable('workspaces').set(changes).where('id', '=', id).returningAll().executeTakeFirst();
}

/**
 * Locks the workspace's row for the rest of the transaction, reading nothing else: a caller
 * counting the workspace's rows of some kind before adding one counts alone.
 */
export async function lockWorkspace(db: Kysely<Database>, id: string): Promise<void> {
  await db.selectFrom('workspaces').select('id').where('id', '=', id).forUpdate().execute();
}

/** A workspace's additions to the text filter's lists, as `PATCH /workspace` stored them. */
export interface StoredFilterTerms {
  blocked: string[];
  allowed: string[];
}

/** One read by primary key; undefined for a workspace that is gone. */
export async function findFilterTerms(
  db: Kysely<Database>,
  workspaceId: string,
): Promise<StoredFilterTerms | undefined> {
  const row = await db
    .selectFrom('workspaces')
    .select(['blocked_terms', 'allowed_terms'])
    .where('id', '=', workspaceId)
    .executeTakeFirst();
  return row && { blocked: row.blocked_terms, allowed: row.allowed_terms };
}

export function setOAuthEnabled(
  db: Kysely<Database>,
  workspaceId: string,
  enabled: boolean,
): Promise<WorkspaceRow | undefined> {
  return db
    .updateTable('workspaces')
    .set({ oauth_enabled: enabled })
    .where('id', '=', workspaceId)
    .returningAll()
    .executeTakeFirst();
}

/**
 * What checking a credential reads of its workspace (plan, limit, OAuth switch), as a subquery the
 * credential lookups of api-keys and oauth join: the table stays this module's, and PostgreSQL folds
 * the subquery into the joining query (the plan and the rows of a join on workspaces itself).
 */
export function workspaceAccess(db: Kysely<Database>) {
  return db.selectFrom('workspaces').select(['id', 'plan', 'oauth_enabled', 'rate_limit_per_minute']);
}

/** What a page reads of its workspace (default theme, embedding origins), as a subquery the pages' read model joins. */
export function workspacePageSettings(db: Kysely<Database>) {
  return db.selectFrom('workspaces').select(['id', 'theme_id', 'embed_origins']);
}
