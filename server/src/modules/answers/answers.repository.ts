import type { PollStatus } from '@pollkit/contracts';
import type { Kysely } from 'kysely';
import type { AnswerRow, Database } from '../../db/schema.js';

type Db = Kysely<Database>;

/**
 * The status and version (`updated_at`) of the polls a batch answers, locked FOR SHARE until the batch
 * commits: a PATCH or DELETE of one of these polls waits for the batch, and the batch, if it came
 * second, reads what the PATCH wrote. Sorted by id so concurrent batches take the locks in one order.
 */
export async function lockPollVersions(
  db: Db,
  pollIds: string[],
): Promise<Map<string, { status: PollStatus; version: string }>> {
  if (pollIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('polls')
    .select(['id', 'status', 'updated_at'])
    .where('id', 'in', [...pollIds].sort())
    .orderBy('id')
    .forShare()
    .execute();
  return new Map(rows.map((row) => [row.id, { status: row.status, version: row.updated_at.toISOString() }]));
}

/** Newest first, keyset-paginated on the time-ordered id, using the (poll_id, kind, …, id) indexes. */
export function listAnswers(
  db: Db,
  filter: {
    pollId: string;
    kind: 'vote' | 'response';
    slideId?: string | undefined;
    voterId?: string | undefined;
    slideKind?: 'qa' | undefined;
    status?: AnswerRow['status'] | undefined;
    beforeId?: string | undefined;
    limit: number;
  },
): Promise<AnswerRow[]> {
  let query = db.selectFrom('answers').selectAll().where('poll_id', '=', filter.pollId).where('kind', '=', filter.kind);
  if (filter.slideId !== undefined) query = query.where('slide_id', '=', filter.slideId);
  if (filter.voterId !== undefined) query = query.where('voter_id', '=', filter.voterId);
  if (filter.slideKind !== undefined) query = query.where('slide_kind', '=', filter.slideKind);
  if (filter.status !== undefined) query = query.where('status', '=', filter.status);
  if (filter.beforeId !== undefined) query = query.where('id', '<', filter.beforeId);
  return query.orderBy('id', 'desc').limit(filter.limit).execute();
}

export async function pollHasAnswers(db: Db, pollId: string): Promise<boolean> {
  const row = await db.selectFrom('answers').select('id').where('poll_id', '=', pollId).limit(1).executeTakeFirst();
  return row !== undefined;
}
