import type { Kysely } from 'kysely';
import type { AnswerRow, Database } from '../../db/schema.js';

type Db = Kysely<Database>;

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
