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
