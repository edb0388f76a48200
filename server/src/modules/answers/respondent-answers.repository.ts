import { type Kysely, sql } from 'kysely';
import type { AnswerRow, Database } from '../../db/schema.js';
import { pollWorkspaces } from '../polls/polls.service.js';

type Db = Kysely<Database>;

/**
 * One respondent's answers and upvotes across a workspace, for access requests and erasure
 * (modules/respondents, through answer-reads.service.ts and answer-removal.service.ts). Every
 * lookup starts from an index on the person, never from a scan of a poll: poll_voters_voter_idx (a
 * voter's polls) then answers_poll_voter_idx (their answers in each), question_upvotes_voter_idx. A
 * poll's workspace is read through the polls module's `pollWorkspaces`.
 */

/** The workspace's polls these voters answered through the API (poll_voters_voter_idx; a participant's poll is its session's). */
export async function pollsAnsweredBy(db: Db, workspaceId: string, voterIds: string[]): Promise<string[]> {
  if (voterIds.length === 0) return [];
  const rows = await db
    .selectFrom('poll_voters as v')
    .innerJoin(pollWorkspaces(db).as('p'), 'p.id', 'v.poll_id')
    .select('v.poll_id')
    .distinct()
    .where('v.voter_id', 'in', voterIds)
    .where('p.workspace_id', '=', workspaceId)
    .execute();
  return rows.map((row) => row.poll_id);
}

/** The workspace's polls whose questions these voters upvoted (question_upvotes_voter_idx). */
export async function pollsUpvotedIn(db: Db, workspaceId: string, voterIds: string[]): Promise<string[]> {
  if (voterIds.length === 0) return [];
  const rows = await db
    .selectFrom('question_upvotes as u')
    .innerJoin('answers as a', 'a.id', 'u.question_id')
    .innerJoin(pollWorkspaces(db).as('p'), 'p.id', 'a.poll_id')
    .select('a.poll_id')
    .distinct()
    .where('u.voter_id', 'in', voterIds)
    .where('p.workspace_id', '=', workspaceId)
    .execute();
  return rows.map((row) => row.poll_id);
}

export type AnswerSort = 'vote' | 'response' | 'question';

/**
 * The voters' answers of one sort in these polls, oldest first after `afterId`
 * (answers_poll_voter_idx: poll, kind, voter).
 */
export function answersOf(
  db: Db,
  pollIds: string[],
  voterIds: string[],
  sort: AnswerSort | 'all',
  options: { afterId?: string; limit?: number } = {},
): Promise<AnswerRow[]> {
  if (pollIds.length === 0 || voterIds.length === 0) return Promise.resolve([]);
  const kinds: Array<'vote' | 'response'> =
    sort === 'all' ? ['vote', 'response'] : sort === 'vote' ? ['vote'] : ['response'];
  let query = db
    .selectFrom('answers')
    .selectAll()
    .where('poll_id', 'in', pollIds)
    .where('kind', 'in', kinds)
    .where('voter_id', 'in', voterIds);
  if (sort === 'response') query = query.where('slide_kind', '<>', 'qa');
  if (sort === 'question') query = query.where('slide_kind', '=', 'qa');
  if (options.afterId !== undefined) query = query.where('id', '>', options.afterId);
  query = query.orderBy('id');
  if (options.limit !== undefined) query = query.limit(options.limit);
  return query.execute();
}

export interface UpvoteRow {
  question_id: string;
  voter_id: string;
  poll_id: string;
  slide_id: string;
  created_at: Date;
}

/** The voters' upvotes on the workspace's questions, in (question, voter) order after `after`. */
export function upvotesOf(
  db: Db,
  workspaceId: string,
  voterIds: string[],
  options: { after?: [string, string]; limit?: number } = {},
): Promise<UpvoteRow[]> {
  if (voterIds.length === 0) return Promise.resolve([]);
  let query = db
    .selectFrom('question_upvotes as u')
    .innerJoin('answers as a', 'a.id', 'u.question_id')
    .innerJoin(pollWorkspaces(db).as('p'), 'p.id', 'a.poll_id')
    .select(['u.question_id', 'u.voter_id', 'a.poll_id', 'a.slide_id', 'u.created_at'])
    .where('u.voter_id', 'in', voterIds)
    .where('p.workspace_id', '=', workspaceId);
  const after = options.after;
  if (after !== undefined) query = query.where(sql<boolean>`(u.question_id, u.voter_id) > (${after[0]}, ${after[1]})`);
  query = query.orderBy('u.question_id').orderBy('u.voter_id');
  if (options.limit !== undefined) query = query.limit(options.limit);
  return query.execute();
}

/**
 * Removes the voters' upvotes on the workspace's questions (the questions of polls the caller has
 * locked) and takes each out of its question's `upvotes`. Answers how many were removed.
 */
export async function removeUpvotes(trx: Db, workspaceId: string, voterIds: string[]): Promise<number> {
  const upvotes = await upvotesOf(trx, workspaceId, voterIds);
  if (upvotes.length === 0) return 0;
  let removed = 0;
  const perQuestion = new Map<string, number>();
  for (const upvote of upvotes) {
    const gone = await trx
      .deleteFrom('question_upvotes')
      .where('question_id', '=', upvote.question_id)
      .where('voter_id', '=', upvote.voter_id)
      .executeTakeFirst();
    if (Number(gone.numDeletedRows) === 0) continue;
    removed++;
    perQuestion.set(upvote.question_id, (perQuestion.get(upvote.question_id) ?? 0) + 1);
  }
  for (const [questionId, count] of perQuestion) {
    await trx
      .updateTable('answers')
      .set((eb) => ({ upvotes: sql<number>`greatest(${eb.ref('upvotes')} - ${count}, 0)` }))
      .where('id', '=', questionId)
      .execute();
  }
  return removed;
}
