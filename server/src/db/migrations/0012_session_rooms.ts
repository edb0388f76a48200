import { type Kysely, sql } from 'kysely';

/**
 * Sessions as rooms, and respondents (issue 28; docs/results-and-export.md, docs/privacy.md).
 *
 * Every session keeps its own aggregates beside the poll's, written by the same batch statement as
 * the answers (modules/answers/answer-batch.repository.ts), so `GET /sessions/{id}/results` reads
 * counters, never answers — the same model as the poll's tables of migration 0002, keyed by session.
 * The poll's tables keep counting everything (every session and every API answer): the poll-level
 * views are the sum, as before.
 *
 * The answers' own session indexes serve what a room reads from answers: its Q&A board (approved
 * questions by upvotes) and its moderation queue.
 *
 * Respondents: a participant may carry the customer's own `respondent_id` (given at join, unverified);
 * `GET/DELETE /respondents/{id}` find every record of one respondent across the workspace through
 * `poll_voters (voter_id)` (a voter's polls; one row per poll rather than one index entry per answer,
 * so the answer writer's hot path gains no index), `question_upvotes (voter_id)` and
 * `session_participants (respondent_id)`.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const sessionRef = (c: any) => c.notNull().references('sessions.id').onDelete('cascade');
  await db.schema
    .createTable('session_stats')
    .addColumn('session_id', 'text', (c) => c.primaryKey().references('sessions.id').onDelete('cascade'))
    .addColumn('voters', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('answers', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .createTable('session_voters')
    .addColumn('session_id', 'text', sessionRef)
    .addColumn('voter_id', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('session_voters_pk', ['session_id', 'voter_id'])
    .execute();
  await db.schema
    .createTable('session_tallies')
    .addColumn('session_id', 'text', sessionRef)
    .addColumn('slide_id', 'text', (c) => c.notNull())
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('count', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('total', 'double precision', (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('session_tallies_pk', ['session_id', 'slide_id', 'key'])
    .execute();
  await db.schema
    .createTable('session_text_counts')
    .addColumn('session_id', 'text', sessionRef)
    .addColumn('slide_id', 'text', (c) => c.notNull())
    .addColumn('text_hash', 'text', (c) => c.notNull())
    .addColumn('text', 'text', (c) => c.notNull())
    .addColumn('count', 'bigint', (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('session_text_counts_pk', ['session_id', 'slide_id', 'text_hash'])
    .execute();
  await db.schema
    .createTable('session_word_counts')
    .addColumn('session_id', 'text', sessionRef)
    .addColumn('slide_id', 'text', (c) => c.notNull())
    .addColumn('word', 'text', (c) => c.notNull())
    .addColumn('count', 'bigint', (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('session_word_counts_pk', ['session_id', 'slide_id', 'word'])
    .execute();
  await sql`create index session_word_counts_top on session_word_counts (session_id, slide_id, count desc, word)`.execute(
    db,
  );

  // A room's Q&A board and its moderation queue (newest first): Q&A answers only. An open-ended
  // slide's newest answers in a room come from answers_poll_session_idx (migration 0011) — no index of
  // its own, so the answers of a live room, the writer's hottest path, maintain no more indexes than
  // before rooms.
  await sql`create index answers_session_top_questions on answers (session_id, slide_id, upvotes desc, id) where slide_kind = 'qa' and status = 'approved' and session_id is not null`.execute(
    db,
  );
  await sql`create index answers_session_questions on answers (session_id, id) where slide_kind = 'qa' and session_id is not null`.execute(
    db,
  );

  await db.schema.alterTable('session_participants').addColumn('respondent_id', 'text').execute();
  await sql`create index session_participants_respondent_idx on session_participants (respondent_id) where respondent_id is not null`.execute(
    db,
  );
  await db.schema.createIndex('poll_voters_voter_idx').on('poll_voters').columns(['voter_id', 'poll_id']).execute();
  await db.schema.createIndex('question_upvotes_voter_idx').on('question_upvotes').column('voter_id').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('question_upvotes_voter_idx').execute();
  await db.schema.dropIndex('poll_voters_voter_idx').execute();
  await db.schema.dropIndex('session_participants_respondent_idx').execute();
  await db.schema.alterTable('session_participants').dropColumn('respondent_id').execute();
  for (const index of ['answers_session_questions', 'answers_session_top_questions']) {
    await db.schema.dropIndex(index).execute();
  }
  for (const table of [
    'session_word_counts',
    'session_text_counts',
    'session_tallies',
    'session_voters',
    'session_stats',
  ]) {
    await db.schema.dropTable(table).execute();
  }
}
