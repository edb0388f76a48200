import { type Kysely, sql } from 'kysely';

/**
 * The join challenge (docs/moderation.md, "The join challenge").
 *
 * - `sessions.join_challenge`: `pow` when a new participant must solve a proof-of-work challenge
 *   before joining; null (every existing session) when not.
 * - `spent_join_challenges`: the challenges that joined, each until it expires, so that a solution
 *   joins once (without Redis; with it they are kept there). Each new entry clears a few expired ones
 *   (live/join-challenge.ts), so the table holds about five minutes of joins.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('sessions')
    .addColumn('join_challenge', 'text', (c) => c.check(sql`join_challenge in ('pow')`))
    .execute();
  await db.schema
    .createTable('spent_join_challenges')
    // The challenge's hex SHA-256, as issued: unique to one challenge.
    .addColumn('challenge', 'text', (c) => c.primaryKey())
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('spent_join_challenges_expires_idx')
    .on('spent_join_challenges')
    .column('expires_at')
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('spent_join_challenges').execute();
  await db.schema.alterTable('sessions').dropColumn('join_challenge').execute();
}
