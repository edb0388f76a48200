import { type Kysely, sql } from 'kysely';
import { toNumber } from '../../db/database.js';
import { preparedStatement } from '../../db/prepared.js';
import type { AnswerRow, AnswerValue, Database, ParticipantRow } from '../../db/schema.js';

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

/**
 * One participant's quiz points, leaving out those of `hiddenSlideId` — the slide on screen whose
 * results the host has not shown: its points would tell whether the answer was right.
 */
export async function participantScore(
  db: Kysely<Database>,
  sessionId: string,
  participantId: string,
  hiddenSlideId: string | undefined,
): Promise<number> {
  let query = db
    .selectFrom('answers')
    .select((eb) => eb.fn.coalesce(eb.fn.sum<number | string>('points'), eb.lit(0)).as('score'))
    .where('session_id', '=', sessionId)
    .where('voter_id', '=', participantId);
  if (hiddenSlideId !== undefined) query = query.where('slide_id', '<>', hiddenSlideId);
  const row = await query.executeTakeFirstOrThrow();
  return toNumber(row.score);
}

/** The slides of the session each of these participants answered (one query for many). */
export async function answeredSlidesOfEach(
  db: Kysely<Database>,
  sessionId: string,
  participantIds: readonly string[],
): Promise<Map<string, Set<string>>> {
  // Prepared, as the token lookup above: a room connecting runs it hundreds of times.
  const { rows } = await sql<{ voter_id: string; slide_id: string }>`${sql.raw(ANSWERED_SLIDES)}
    select voter_id, slide_id from answers
    where session_id = ${sessionId}::text and voter_id = any(${participantIds}::text[])`.execute(db);
  const answered = new Map<string, Set<string>>(participantIds.map((id) => [id, new Set()]));
  for (const row of rows) answered.get(row.voter_id)?.add(row.slide_id);
  return answered;
}

const ANSWERED_SLIDES = preparedStatement('answered_slides');

/** The slides of the session this participant answered. */
export async function answeredSlides(
  db: Kysely<Database>,
  sessionId: string,
  participantId: string,
): Promise<Set<string>> {
  return (await answeredSlidesOfEach(db, sessionId, [participantId])).get(participantId) ?? new Set();
}

/** The participants of the session who answered this slide. */
export async function slideRespondents(db: Kysely<Database>, sessionId: string, slideId: string): Promise<Set<string>> {
  const rows = await db
    .selectFrom('answers')
    .select('voter_id')
    .where('session_id', '=', sessionId)
    .where('slide_id', '=', slideId)
    .execute();
  return new Set(rows.map((row) => row.voter_id));
}

/** The participant's row as stored now (a self-paced walk's place is read fresh, never from a cache). */
export function findParticipant(db: Kysely<Database>, id: string): Promise<ParticipantRow | undefined> {
  return db.selectFrom('session_participants').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The participant's answers in the session (a Q&A slide's several questions each), oldest first. */
export function participantAnswers(
  db: Kysely<Database>,
  sessionId: string,
  participantId: string,
): Promise<Array<Pick<AnswerRow, 'slide_id' | 'value' | 'points'>>> {
  return db
    .selectFrom('answers')
    .select(['slide_id', 'value', 'points'])
    .where('session_id', '=', sessionId)
    .where('voter_id', '=', participantId)
    .orderBy('id')
    .execute();
}

/** The participant's (first) answer to one slide of the session, if any. */
export async function participantAnswer(
  db: Kysely<Database>,
  sessionId: string,
  participantId: string,
  slideId: string,
): Promise<AnswerValue | undefined> {
  const row = await db
    .selectFrom('answers')
    .select('value')
    .where('session_id', '=', sessionId)
    .where('voter_id', '=', participantId)
    .where('slide_id', '=', slideId)
    .orderBy('id')
    .limit(1)
    .executeTakeFirst();
  return row?.value;
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
