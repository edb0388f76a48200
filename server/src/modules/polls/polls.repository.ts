import type { PollStatus } from '@pollkit/contracts';
import type { Kysely } from 'kysely';
import type { Database, NewPoll, PollRow, PollUpdate } from '../../db/schema.js';

export function insertPoll(db: Kysely<Database>, poll: NewPoll): Promise<PollRow> {
  return db.insertInto('polls').values(poll).returningAll().executeTakeFirstOrThrow();
}

export function findPoll(db: Kysely<Database>, workspaceId: string, id: string): Promise<PollRow | undefined> {
  return db
    .selectFrom('polls')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** Locks the row for the rest of the transaction, so concurrent transitions apply one after another. */
export function findPollForUpdate(db: Kysely<Database>, workspaceId: string, id: string): Promise<PollRow | undefined> {
  return db
    .selectFrom('polls')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id)
    .forUpdate()
    .executeTakeFirst();
}

/** Newest first; `beforeId` is the last id of the previous page (ids sort by creation time). */
export function listPolls(
  db: Kysely<Database>,
  workspaceId: string,
  options: { limit: number; beforeId?: string | undefined; status?: PollStatus | undefined },
): Promise<PollRow[]> {
  let query = db.selectFrom('polls').selectAll().where('workspace_id', '=', workspaceId);
  if (options.status) query = query.where('status', '=', options.status);
  if (options.beforeId) query = query.where('id', '<', options.beforeId);
  return query.orderBy('id', 'desc').limit(options.limit).execute();
}

export function updatePoll(
  db: Kysely<Database>,
  workspaceId: string,
  id: string,
  changes: PollUpdate,
): Promise<PollRow> {
  return db
    .updateTable('polls')
    .set(changes)
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function deletePoll(db: Kysely<Database>, workspaceId: string, id: string): Promise<boolean> {
  const result = await db
    .deleteFrom('polls')
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id)
    .executeTakeFirst();
  return result.numDeletedRows > 0n;
}

/**
 * Whether anyone answered the poll: its deck may not change then (answers refer to slides and
 * options by id). The answers module writes the rows; the poll's own rule reads them here.
 */
export async function pollHasAnswers(db: Kysely<Database>, pollId: string): Promise<boolean> {
  const row = await db.selectFrom('answers').select('id').where('poll_id', '=', pollId).limit(1).executeTakeFirst();
  return row !== undefined;
}

/** Sets `theme_id` back to null on the workspace's polls that name this theme; their ids. */
export async function clearTheme(db: Kysely<Database>, workspaceId: string, themeId: string): Promise<string[]> {
  const rows = await db
    .updateTable('polls')
    .set({ theme_id: null })
    .where('workspace_id', '=', workspaceId)
    .where('theme_id', '=', themeId)
    .returning('id')
    .execute();
  return rows.map((row) => row.id);
}
