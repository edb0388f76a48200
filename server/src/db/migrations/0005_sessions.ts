import { type Kysely, sql } from 'kysely';

/**
 * Live sessions (docs/live-sessions.md): sessions with their PIN, host token (SHA-256) and event
 * sequence; their participants (token as SHA-256); their event history (what a reconnecting stream
 * replays); and, on answers, the session an answer came from and the quiz points it earned, so a
 * leaderboard is one grouped read of answers that are stored with every other answer.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('sessions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('poll_id', 'text', (c) => c.notNull().references('polls.id').onDelete('cascade'))
    .addColumn('pin', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('current_slide_index', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('results_visible', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('locked', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('host_token_hash', 'text', (c) => c.notNull())
    .addColumn('seq', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('slide_started_at', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('started_at', 'timestamptz')
    .addColumn('ended_at', 'timestamptz')
    .execute();
  // A PIN names one session at a time: unique among sessions that have not ended (and free again after).
  await sql`CREATE UNIQUE INDEX sessions_live_pin_idx ON sessions (pin) WHERE status <> 'ended'`.execute(db);
  await db.schema.createIndex('sessions_workspace_idx').on('sessions').columns(['workspace_id', 'id']).execute();
  await db.schema
    .createIndex('sessions_workspace_poll_idx')
    .on('sessions')
    .columns(['workspace_id', 'poll_id', 'id'])
    .execute();

  await db.schema
    .createTable('session_participants')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('session_id', 'text', (c) => c.notNull().references('sessions.id').onDelete('cascade'))
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('name', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema
    .createIndex('session_participants_session_idx')
    .on('session_participants')
    .columns(['session_id', 'id'])
    .execute();

  await db.schema
    .createTable('session_events')
    .addColumn('session_id', 'text', (c) => c.notNull().references('sessions.id').onDelete('cascade'))
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('data', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('session_events_pk', ['session_id', 'seq'])
    .execute();

  await db.schema.alterTable('answers').addColumn('session_id', 'text').execute();
  await db.schema.alterTable('answers').addColumn('points', 'integer').execute();
  await sql`CREATE INDEX answers_session_idx ON answers (session_id, voter_id) WHERE session_id IS NOT NULL`.execute(
    db,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('answers').dropColumn('points').execute();
  await db.schema.alterTable('answers').dropColumn('session_id').execute();
  await db.schema.dropTable('session_events').execute();
  await db.schema.dropTable('session_participants').execute();
  await db.schema.dropTable('sessions').execute();
}
