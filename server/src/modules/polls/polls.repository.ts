import type { PollContent, PollStatus } from '@pollkit/contracts';
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
 * Locks the workspace's polls among `pollIds` FOR UPDATE, in id order (as the answer batch locks
 * them FOR SHARE), and answers their decks.
 */
export async function lockPollDecks(
  trx: Kysely<Database>,
  workspaceId: string,
  pollIds: string[],
): Promise<Map<string, PollContent['questions']>> {
  if (pollIds.length === 0) return new Map();
  const rows = await trx
    .selectFrom('polls')
    .select(['id', 'content'])
    .where('workspace_id', '=', workspaceId)
    .where('id', 'in', [...new Set(pollIds)].sort())
    .orderBy('id')
    .forUpdate()
    .execute();
  return new Map(rows.map((row) => [row.id, row.content.questions]));
}

/**
 * Each poll's workspace, as a subquery other modules' queries join to keep to one workspace: the
 * polls table stays this module's, and PostgreSQL folds the subquery into the joining query (the
 * plan and the rows of a join on polls itself).
 */
export function pollWorkspaces(db: Kysely<Database>) {
  return db.selectFrom('polls').select(['id', 'workspace_id']);
}

/** What a page shows of its poll (the pages' read model joins it, as `pollWorkspaces` is joined). */
export function pollPageSettings(db: Kysely<Database>) {
  return db.selectFrom('polls').select(['id', 'theme_id', 'language']);
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
