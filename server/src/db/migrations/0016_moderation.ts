import { type Kysely, sql } from 'kysely';

/**
 * Participation that holds up in public (issue 38, docs/moderation.md).
 *
 * - `polls.text_filter`: what the text filter does with vulgar words in open-ended answers, Q&A
 *   questions and names. `mask` for every poll, existing ones included: they start masking on upgrade
 *   (the changelog says so). A slide's own mode lives in the poll's `content`.
 * - `workspaces.blocked_terms` / `allowed_terms`: the workspace's additions to the filter's lists.
 * - Open-ended answers held for review take Q&A's `answers.status` (`pending`); null stays "approved".
 * - `polls.max_respondents`, and the seats it counts: `respondent_seats` holds each respondent once
 *   (an API voter, or a session's participant) and `poll_seat_counts` how many there are. A new
 *   respondent's seat and the count's guarded increment commit together, so the cap is exact under
 *   concurrency (modules/answers/respondent-seats.repository.ts).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('polls')
    .addColumn('text_filter', 'text', (c) =>
      c.notNull().defaultTo('mask').check(sql`text_filter in ('off', 'mask', 'block', 'review')`),
    )
    .execute();
  await db.schema
    .alterTable('polls')
    .addColumn('max_respondents', 'integer', (c) => c.check(sql`max_respondents > 0`))
    .execute();
  await db.schema
    .alterTable('workspaces')
    .addColumn('blocked_terms', 'jsonb', (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
    .execute();
  await db.schema
    .alterTable('workspaces')
    .addColumn('allowed_terms', 'jsonb', (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
    .execute();

  await db.schema
    .createTable('respondent_seats')
    .addColumn('poll_id', 'text', (c) => c.notNull().references('polls.id').onDelete('cascade'))
    // `v:<voterId>` for an API voter, `p:<participantId>` for a session's participant.
    .addColumn('holder', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('respondent_seats_pk', ['poll_id', 'holder'])
    .execute();
  await db.schema
    .createTable('poll_seat_counts')
    .addColumn('poll_id', 'text', (c) => c.primaryKey().references('polls.id').onDelete('cascade'))
    .addColumn('taken', 'integer', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('poll_seat_counts').execute();
  await db.schema.dropTable('respondent_seats').execute();
  await db.schema.alterTable('workspaces').dropColumn('allowed_terms').execute();
  await db.schema.alterTable('workspaces').dropColumn('blocked_terms').execute();
  await db.schema.alterTable('polls').dropColumn('max_respondents').execute();
  await db.schema.alterTable('polls').dropColumn('text_filter').execute();
}
