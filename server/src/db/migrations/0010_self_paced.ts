import { type Kysely, sql } from 'kysely';

/**
 * Self-paced sessions (issue 26, docs/live-sessions.md "Self-paced sessions"). A session has a pace;
 * an audience-paced one has a link id that joins without the PIN (`link_id`, unique: it is looked up
 * like a PIN), may go without a PIN at all (`pin` nullable), shows scores at the end or on completion
 * (`show_scores`) and may end itself (`closes_at`, swept by every process: the partial index keeps
 * that sweep to the sessions that can still close). Each participant's walk is stored with them —
 * the deck index they are on, when they reached it (quiz answers are timed from it), how many slides
 * they passed (the progress indicator's "step") and skipped, and when they completed it — so a restart, another
 * process or a reload resumes exactly there.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('sessions')
    .addColumn('pace', 'text', (c) => c.notNull().defaultTo('presenter'))
    .addColumn('link_id', 'text')
    .addColumn('show_scores', 'text')
    .addColumn('closes_at', 'timestamptz')
    .execute();
  await sql`ALTER TABLE sessions ALTER COLUMN pin DROP NOT NULL`.execute(db);
  await sql`CREATE UNIQUE INDEX sessions_link_id_idx ON sessions (link_id) WHERE link_id IS NOT NULL`.execute(db);
  await sql`CREATE INDEX sessions_closing_idx ON sessions (closes_at) WHERE status <> 'ended' AND closes_at IS NOT NULL`.execute(
    db,
  );
  await db.schema
    .alterTable('session_participants')
    .addColumn('slide_index', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('slide_reached_at', 'timestamptz')
    .addColumn('steps', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('skips', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('completed_at', 'timestamptz')
    .execute();
}
