import { type Kysely, sql } from 'kysely';

/**
 * Answers and the aggregates kept as they arrive. Reading results touches only the aggregate tables
 * (a few rows per slide) and indexed top-N lists, never the answers themselves.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('answers')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('poll_id', 'text', (c) => c.notNull().references('polls.id').onDelete('cascade'))
    .addColumn('slide_id', 'text', (c) => c.notNull())
    .addColumn('voter_id', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull().check(sql`kind in ('vote', 'response')`))
    .addColumn('slide_kind', 'text', (c) => c.notNull())
    .addColumn('value', 'jsonb', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.check(sql`status in ('pending', 'approved', 'dismissed')`))
    .addColumn('upvotes', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  // One answer per voter per slide, enforced by the database so racing requests cannot both win.
  // Q&A is exempt: a voter may ask several questions.
  await sql`create unique index answers_one_per_voter on answers (poll_id, slide_id, voter_id) where slide_kind <> 'qa'`.execute(
    db,
  );
  await db.schema.createIndex('answers_poll_idx').on('answers').columns(['poll_id', 'kind', 'id']).execute();
  await db.schema
    .createIndex('answers_poll_slide_idx')
    .on('answers')
    .columns(['poll_id', 'kind', 'slide_id', 'id'])
    .execute();
  await db.schema
    .createIndex('answers_poll_voter_idx')
    .on('answers')
    .columns(['poll_id', 'kind', 'voter_id', 'id'])
    .execute();
  // The most upvoted approved questions of a Q&A slide, for results and export.
  await sql`create index answers_top_questions on answers (poll_id, slide_id, upvotes desc, id) where slide_kind = 'qa' and status = 'approved'`.execute(
    db,
  );

  // Approved questions in the order asked, for the export's keyset pages.
  await sql`create index answers_approved_questions on answers (poll_id, slide_id, id) where slide_kind = 'qa' and status = 'approved'`.execute(
    db,
  );

  await db.schema
    .createTable('question_upvotes')
    .addColumn('question_id', 'text', (c) => c.notNull().references('answers.id').onDelete('cascade'))
    .addColumn('voter_id', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('question_upvotes_pk', ['question_id', 'voter_id'])
    .execute();

  await db.schema
    .createTable('poll_voters')
    .addColumn('poll_id', 'text', (c) => c.notNull().references('polls.id').onDelete('cascade'))
    .addColumn('voter_id', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('poll_voters_pk', ['poll_id', 'voter_id'])
    .execute();

  await db.schema
    .createTable('poll_stats')
    .addColumn('poll_id', 'text', (c) => c.primaryKey().references('polls.id').onDelete('cascade'))
    .addColumn('voters', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('answers', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();

  // Counters per slide: `key` names what is counted (see modules/answers/tallies.ts); `total` sums a
  // value alongside (ratings, rank positions) so averages need no scan.
  await db.schema
    .createTable('slide_tallies')
    .addColumn('poll_id', 'text', (c) => c.notNull().references('polls.id').onDelete('cascade'))
    .addColumn('slide_id', 'text', (c) => c.notNull())
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('count', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('total', 'double precision', (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('slide_tallies_pk', ['poll_id', 'slide_id', 'key'])
    .execute();

  // Distinct open-ended answers with their counts, for the export. Keyed by a hash because a 5,000
  // character answer is too long for a B-tree key.
  await db.schema
    .createTable('open_text_counts')
    .addColumn('poll_id', 'text', (c) => c.notNull().references('polls.id').onDelete('cascade'))
    .addColumn('slide_id', 'text', (c) => c.notNull())
    .addColumn('text_hash', 'text', (c) => c.notNull())
    .addColumn('text', 'text', (c) => c.notNull())
    .addColumn('count', 'bigint', (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('open_text_counts_pk', ['poll_id', 'slide_id', 'text_hash'])
    .execute();

  await db.schema
    .createTable('word_counts')
    .addColumn('poll_id', 'text', (c) => c.notNull().references('polls.id').onDelete('cascade'))
    .addColumn('slide_id', 'text', (c) => c.notNull())
    .addColumn('word', 'text', (c) => c.notNull())
    .addColumn('count', 'bigint', (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('word_counts_pk', ['poll_id', 'slide_id', 'word'])
    .execute();
  await sql`create index word_counts_top on word_counts (poll_id, slide_id, count desc, word)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of [
    'word_counts',
    'open_text_counts',
    'slide_tallies',
    'poll_stats',
    'poll_voters',
    'question_upvotes',
    'answers',
  ]) {
    await db.schema.dropTable(table).execute();
  }
}
