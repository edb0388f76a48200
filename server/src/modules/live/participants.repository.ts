import type { Kysely } from 'kysely';
import { toNumber } from '../../db/database.js';
import type { Database, ParticipantRow } from '../../db/schema.js';

/**
 * A new participant, if the session has a seat for it: one statement claims the seat (the session's
 * `participant_count` below `max_participants`, joins not locked, not ended) and inserts the
 * participant, so however many join at once the cap is never passed. Undefined when there was no seat.
 */
export async function insertParticipant(
  db: Kysely<Database>,
  participant: { id: string; session_id: string; token_hash: string; name: string | null },
): Promise<ParticipantRow | undefined> {
  return db
    .with('seat', (qb) =>
      qb
        .updateTable('sessions')
        .set((eb) => ({ participant_count: eb('participant_count', '+', 1) }))
        .where('id', '=', participant.session_id)
        .whereRef('participant_count', '<', 'max_participants')
        .where('joins_locked', '=', false)
        .where('status', '<>', 'ended')
        .returning('id'),
    )
    .insertInto('session_participants')
    .columns(['id', 'session_id', 'token_hash', 'name'])
    .expression((eb) =>
      eb
        .selectFrom('seat')
        .select([
          eb.val(participant.id).as('id'),
          'seat.id as session_id',
          eb.val(participant.token_hash).as('token_hash'),
          eb.val(participant.name).as('name'),
        ]),
    )
    .returningAll()
    .executeTakeFirst();
}

/** The participant a token names, unless the host removed it. */
export function findParticipantByTokenHash(
  db: Kysely<Database>,
  tokenHash: string,
): Promise<ParticipantRow | undefined> {
  return db
    .selectFrom('session_participants')
    .selectAll()
    .where('token_hash', '=', tokenHash)
    .where('removed_at', 'is', null)
    .executeTakeFirst();
}

/** Every participant of the session with the quiz points its answers earned. */
export async function listScores(
  db: Kysely<Database>,
  sessionId: string,
): Promise<Array<{ id: string; name: string | null; score: number }>> {
  const rows = await db
    .selectFrom('session_participants as p')
    .leftJoin('answers as a', (join) =>
      join.onRef('a.session_id', '=', 'p.session_id').onRef('a.voter_id', '=', 'p.id'),
    )
    .select(['p.id', 'p.name', (eb) => eb.fn.coalesce(eb.fn.sum<number | string>('a.points'), eb.lit(0)).as('score')])
    .where('p.session_id', '=', sessionId)
    .groupBy(['p.id', 'p.name'])
    .execute();
  return rows.map((row) => ({ id: row.id, name: row.name, score: toNumber(row.score) }));
}

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

/** The slides of the session this participant answered. */
export async function answeredSlides(
  db: Kysely<Database>,
  sessionId: string,
  participantId: string,
): Promise<Set<string>> {
  const rows = await db
    .selectFrom('answers')
    .select('slide_id')
    .where('session_id', '=', sessionId)
    .where('voter_id', '=', participantId)
    .execute();
  return new Set(rows.map((row) => row.slide_id));
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
