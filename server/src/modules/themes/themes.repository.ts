import type { Insertable, Kysely, Updateable } from 'kysely';
import type { Database, ThemeRow, ThemesTable } from '../../db/schema.js';

type Db = Kysely<Database>;

export function insertTheme(db: Db, theme: Insertable<ThemesTable>): Promise<ThemeRow> {
  return db.insertInto('themes').values(theme).returningAll().executeTakeFirstOrThrow();
}

export function findTheme(db: Db, workspaceId: string, id: string): Promise<ThemeRow | undefined> {
  return db
    .selectFrom('themes')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id)
    .executeTakeFirst();
}

export function listThemes(
  db: Db,
  workspaceId: string,
  options: { limit: number; beforeId?: string | undefined },
): Promise<ThemeRow[]> {
  let query = db.selectFrom('themes').selectAll().where('workspace_id', '=', workspaceId);
  if (options.beforeId) query = query.where('id', '<', options.beforeId);
  return query.orderBy('id', 'desc').limit(options.limit).execute();
}

export function updateTheme(
  db: Db,
  workspaceId: string,
  id: string,
  changes: Updateable<ThemesTable>,
): Promise<ThemeRow | undefined> {
  return db
    .updateTable('themes')
    .set(changes)
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}

/** Locks the theme's row for the rest of the transaction: a write naming it waits, then finds it gone. */
export async function lockTheme(db: Db, workspaceId: string, id: string): Promise<boolean> {
  const row = await db
    .selectFrom('themes')
    .select('id')
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id)
    .forUpdate()
    .executeTakeFirst();
  return row !== undefined;
}

/** Deletes it; the foreign keys set `theme_id` back to null wherever it was still named. */
export async function deleteTheme(db: Db, workspaceId: string, id: string): Promise<boolean> {
  const row = await db
    .deleteFrom('themes')
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id)
    .returning('id')
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * What a page shows of a theme, as a subquery the pages' read model joins: the table stays this
 * module's, and PostgreSQL folds the subquery into the joining query (the plan and the rows of a
 * join on themes itself).
 */
export function pageThemes(db: Db) {
  return db.selectFrom('themes').select(['id', 'colors', 'logo', 'font', 'updated_at']);
}
