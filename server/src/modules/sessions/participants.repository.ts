import { type Kysely, sql } from 'kysely';
import { toNumber } from '../../db/database.js';
import { preparedStatement } from '../../db/prepared.js';
import type { Database, ParticipantRow } from '../../db/schema.js';

type Db = Kysely<Database>;

/**
 * A session's participants (session_participants): seated by the join, found by their tokens, walked
 * through a self-paced deck, and blanked by erasure. The live side and respondents call these
 * through participants.service.ts.
 */

/** A participant to seat: the row a join would insert. */
export interface NewParticipant {
  id: string;
  session_id: string;
  token_hash: string;
  name: string | null;
  respondent_id: string | null;
}

/**
 * New participants, each if its session has a seat for it, in one statement for all of them (joins
 * that arrive together, live-hub.ts): per session, the seats left are locked and counted
 * (`participant_count` below `max_participants`, joins not locked, not ended) and given to the first
 * of the newcomers in the order given; the rest get none. However many join at once, on however many
 * processes, the cap is never passed: the session row is locked while its seats are handed out (a
 * statement waiting on the lock reads the count as the other left it). Answers the inserted rows;
 * a newcomer missing from them found no seat.
 */
export async function insertParticipants(
  db: Kysely<Database>,
  newcomers: readonly NewParticipant[],
): Promise<ParticipantRow[]> {
  // A prepared statement (db/prepared.ts): a room of thousands joins in seconds, and parsing and
  // planning was most of a join's time on the embedded database (RESULTS.md, issue 29). Its
  // parameters are arrays, so its text is the same for one newcomer or five hundred; its columns
  // are named, so a column added later cannot change a prepared statement's result.
  const { rows } = await sql<ParticipantRow>`${sql.raw(INSERT_PARTICIPANTS)}
    with wanted as (
      select w.id, w.session_id, w.token_hash, w.name, w.respondent_id,
             row_number() over (partition by w.session_id order by w.ord) as place
      from unnest(${newcomers.map((p) => p.id)}::text[], ${newcomers.map((p) => p.session_id)}::text[],
                  ${newcomers.map((p) => p.token_hash)}::text[], ${newcomers.map((p) => p.name)}::text[],
                  ${newcomers.map((p) => p.respondent_id)}::text[])
           with ordinality as w(id, session_id, token_hash, name, respondent_id, ord)
    ),
    asked as (select session_id, count(*) as n from wanted group by session_id),
    open_session as (
      select s.id, least(asked.n, s.max_participants - s.participant_count) as seats
      from sessions s join asked on asked.session_id = s.id
      where s.participant_count < s.max_participants and s.joins_locked = false and s.status <> 'ended'
      for update of s
    ),
    seat as (
      update sessions set participant_count = sessions.participant_count + open_session.seats
      from open_session where sessions.id = open_session.id
      returning sessions.id, open_session.seats
    )
    insert into session_participants (id, session_id, token_hash, name, respondent_id)
    select wanted.id, wanted.session_id, wanted.token_hash, wanted.name, wanted.respondent_id
    from wanted join seat on seat.id = wanted.session_id
    where wanted.place <= seat.seats
    returning id, session_id, token_hash, name, created_at, removed_at, slide_index, slide_reached_at, steps, skips,
              completed_at, respondent_id`.execute(db);
  return rows;
}

const INSERT_PARTICIPANTS = preparedStatement('insert_participants');

/**
 * The participants these tokens name, unless the host removed them (one query for many lookups). A
 * prepared statement (the hashes travel as one array, so its text is the same for one or five
 * hundred): a room reconnecting runs it hundreds of times.
 */
export async function findParticipantsByTokenHashes(
  db: Kysely<Database>,
  tokenHashes: readonly string[],
): Promise<ParticipantRow[]> {
  const { rows } = await sql<ParticipantRow>`${sql.raw(PARTICIPANTS_BY_TOKEN)}
    select id, session_id, token_hash, name, created_at, removed_at, slide_index, slide_reached_at, steps, skips,
           completed_at, respondent_id
    from session_participants
    where token_hash = any(${tokenHashes}::text[]) and removed_at is null`.execute(db);
  return rows;
}

const PARTICIPANTS_BY_TOKEN = preparedStatement('participants_by_token');

/** The participant's row as stored now (a self-paced walk's place is read fresh, never from a cache). */
export function findParticipant(db: Kysely<Database>, id: string): Promise<ParticipantRow | undefined> {
  return db.selectFrom('session_participants').selectAll().where('id', '=', id).executeTakeFirst();
}

/**
 * Moves a self-paced participant from slide `from` to `to` (or past the end: `to` undefined), once:
 * the row changes only while it is still on `from` and not completed, so two racing requests for
 * the same step move it one step. Undefined when it had moved already.
 */
export function moveParticipant(
  db: Kysely<Database>,
  move: { id: string; from: number; to: number | undefined; skipped: boolean; at: Date },
): Promise<ParticipantRow | undefined> {
  return db
    .updateTable('session_participants')
    .set((eb) => ({
      slide_index: move.to ?? move.from,
      slide_reached_at: move.at,
      steps: eb('steps', '+', 1),
      skips: move.skipped ? eb('skips', '+', 1) : eb.ref('skips'),
      completed_at: move.to === undefined ? move.at : null,
    }))
    .where('id', '=', move.id)
    .where('slide_index', '=', move.from)
    .where('completed_at', 'is', null)
    .returningAll()
    .executeTakeFirst();
}

/** A self-paced session's participants per slide (those walking it: not completed, not removed). */
export async function participantsPerSlide(db: Kysely<Database>, sessionId: string): Promise<Map<number, number>> {
  const rows = await db
    .selectFrom('session_participants')
    .select(['slide_index', (eb) => eb.fn.countAll().as('count')])
    .where('session_id', '=', sessionId)
    .where('completed_at', 'is', null)
    .where('removed_at', 'is', null)
    .groupBy('slide_index')
    .execute();
  return new Map(rows.map((row) => [row.slide_index, toNumber(row.count as string | number)]));
}

/** A participant with its session's poll. */
export type RespondentParticipantRow = ParticipantRow & { poll_id: string };

/**
 * The workspace's participants a respondent's key names: by their id, or by the respondentId they
 * joined with (session_participants by primary key and session_participants_respondent_idx).
 */
export function findRespondentParticipants(
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

/**
 * Blanks the participants (name and respondentId) and marks them removed, so their tokens name nobody
 * (`findParticipantsByTokenHashes` above), as a host's removal does. Answers the rows it changed: a
 * participant already erased is not counted again.
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
