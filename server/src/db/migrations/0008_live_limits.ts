import { type Kysely, sql } from 'kysely';

/**
 * What a session's host controls about its room (issue 24, docs/live-sessions.md "Limits"):
 * how many participants it takes (`max_participants`, with `participant_count` kept beside it so
 * a join claims a seat in one conditional UPDATE, never over the cap however many join at once),
 * whether it still takes new ones (`joins_locked`), and participants the host removed
 * (`removed_at`: their token stops working; their answers stay).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('sessions')
    // Sessions created before this had no cap: they get the ceiling the live benchmark measured.
    .addColumn('max_participants', 'integer', (c) => c.notNull().defaultTo(10_000))
    .addColumn('participant_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('joins_locked', 'boolean', (c) => c.notNull().defaultTo(false))
    .execute();
  await sql`
    UPDATE sessions s SET participant_count = counts.n
    FROM (SELECT session_id, count(*)::int AS n FROM session_participants GROUP BY session_id) counts
    WHERE counts.session_id = s.id`.execute(db);
  await db.schema.alterTable('session_participants').addColumn('removed_at', 'timestamptz').execute();
}
