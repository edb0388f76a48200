import type { Kysely } from 'kysely';
import { toNumber } from '../../db/database.js';
import type { Database, ParticipantRow } from '../../db/schema.js';
import { countParticipants } from '../sessions/sessions.repository.js';

export function insertParticipant(
  db: Kysely<Database>,
  participant: { id: string; session_id: string; token_hash: string; name: string | null },
): Promise<ParticipantRow> {
  return db.insertInto('session_participants').values(participant).returningAll().executeTakeFirstOrThrow();
}

export function findParticipantByTokenHash(
  db: Kysely<Database>,
  tokenHash: string,
): Promise<ParticipantRow | undefined> {
  return db.selectFrom('session_participants').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
}

/** Participants who joined the session (sessions.repository counts them for a page of sessions). */
export async function countSessionParticipants(db: Kysely<Database>, sessionId: string): Promise<number> {
  return (await countParticipants(db, [sessionId])).get(sessionId) ?? 0;
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

/** One participant's quiz points. */
export async function participantScore(
  db: Kysely<Database>,
  sessionId: string,
  participantId: string,
): Promise<number> {
  const row = await db
    .selectFrom('answers')
    .select((eb) => eb.fn.coalesce(eb.fn.sum<number | string>('points'), eb.lit(0)).as('score'))
    .where('session_id', '=', sessionId)
    .where('voter_id', '=', participantId)
    .executeTakeFirstOrThrow();
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
