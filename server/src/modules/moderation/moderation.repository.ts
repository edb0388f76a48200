import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';

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
