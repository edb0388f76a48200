import type { PollContent } from '@pollkit/contracts';
import { type Kysely, sql } from 'kysely';
import { toNumber } from '../../db/database.js';
import type { AnswerRow, Database, ParticipantRow } from '../../db/schema.js';

type Db = Kysely<Database>;

/**
 * A respondent's records across one workspace. A respondent is named by a voter id, a participant id
 * or a respondentId; every lookup starts from an index on the person, never from a scan of a poll:
 * session_participants by primary key and session_participants_respondent_idx, poll_voters_voter_idx
 * (a voter's polls) then answers_poll_voter_idx (their answers in each), question_upvotes_voter_idx.
 * Erasure reaches across the answers', sessions' and questions' tables by design: it is the one use
 * case about a person rather than a resource (docs/architecture.md, "Respondents").
 */

export type RespondentParticipantRow = ParticipantRow & { poll_id: string };

/** The workspace's participants the key names: by their id, or by the respondentId they joined with. */
export function findParticipants(
  db: Db,
  workspaceId: string,
  key: string,
  options: { afterId?: string; limit?: number; forUpdate?: boolean } = {},
): Promise<RespondentParticipantRow[]> {
  let query = db
    .selectFrom('session_participants as p')
    .innerJoin('sessions as s', 's.id', 'p.session_id')
    .selectAll('p')
    .select('s.poll_id')
    .where('s.workspace_id', '=', workspaceId)
    .where((eb) => eb.or([eb('p.id', '=', key), eb('p.respondent_id', '=', key)]));
  if (options.afterId !== undefined) query = query.where('p.id', '>', options.afterId);
  query = query.orderBy('p.id');
  if (options.limit !== undefined) query = query.limit(options.limit);
  if (options.forUpdate) query = query.forUpdate('p');
  return query.execute();
}

/** A participant's quiz points in its session. */
export async function participantScore(db: Db, sessionId: string, participantId: string): Promise<number> {
  const row = await db
    .selectFrom('answers')
    .select((eb) => eb.fn.coalesce(eb.fn.sum<number | string>('points'), eb.lit(0)).as('score'))
    .where('session_id', '=', sessionId)
    .where('voter_id', '=', participantId)
    .executeTakeFirstOrThrow();
  return toNumber(row.score);
}

/** The workspace's polls these voters answered through the API (poll_voters_voter_idx; a participant's poll is its session's). */
export async function pollsAnsweredBy(db: Db, workspaceId: string, voterIds: string[]): Promise<string[]> {
  if (voterIds.length === 0) return [];
  const rows = await db
    .selectFrom('poll_voters as v')
    .innerJoin('polls as p', 'p.id', 'v.poll_id')
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
    .innerJoin('polls as p', 'p.id', 'a.poll_id')
    .select('a.poll_id')
    .distinct()
    .where('u.voter_id', 'in', voterIds)
    .where('p.workspace_id', '=', workspaceId)
    .execute();
  return rows.map((row) => row.poll_id);
}

/** Locks the polls FOR UPDATE (in id order, as the answer batch locks them FOR SHARE) and answers their decks. */
export async function lockPolls(
  trx: Db,
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
    .innerJoin('polls as p', 'p.id', 'a.poll_id')
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

/**
 * Blanks the participants (name and respondentId) and marks them removed, so their tokens name nobody
 * (participants.repository.ts `findParticipantsByTokenHashes`), as a host's removal does. Answers the
 * rows it changed: a participant already erased is not counted again.
 */
export function blankParticipants(trx: Db, ids: string[]): Promise<ParticipantRow[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return trx
    .updateTable('session_participants')
    .set((eb) => ({
      name: null,
      respondent_id: null,
      removed_at: eb.fn.coalesce('removed_at', sql<Date>`now()`),
    }))
    .where('id', 'in', ids)
    .where((eb) =>
      eb.or([eb('name', 'is not', null), eb('respondent_id', 'is not', null), eb('removed_at', 'is', null)]),
    )
    .returningAll()
    .execute();
}
