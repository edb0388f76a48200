import { type Kysely, sql } from 'kysely';

/**
 * The pages an integrator ships (issue 37): their language, their theme and who may frame them.
 *
 * - `themes`: a workspace's colours, logo and font (docs/themes.md). Polls, sessions and the
 *   workspace name one by `theme_id`, under a foreign key on (workspace, theme): a theme of another
 *   workspace cannot be named, even by a write racing the check, and deleting a theme sets its
 *   users' `theme_id` (only that column) back to null, the default, in the same statement.
 * - `language`: a poll's is its sessions' default (existing polls: `en`, what they showed until now);
 *   a session's is null unless it overrides the poll's; the workspace's is new polls' default.
 * - `embed_origins`: the exact origins whose pages may frame the workspace's pages (docs/embedding.md).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('themes')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('colors', 'jsonb', (c) => c.notNull())
    .addColumn('logo', 'jsonb')
    .addColumn('font', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  // The target of the (workspace, theme) foreign keys below, and the list's keyset.
  await sql`alter table themes add constraint themes_workspace_id_key unique (workspace_id, id)`.execute(db);

  await db.schema
    .alterTable('workspaces')
    .addColumn('language', 'text', (c) => c.notNull().defaultTo('en'))
    .execute();
  await db.schema.alterTable('workspaces').addColumn('theme_id', 'text').execute();
  await db.schema
    .alterTable('workspaces')
    .addColumn('embed_origins', 'jsonb', (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
    .execute();

  await db.schema
    .alterTable('polls')
    .addColumn('language', 'text', (c) => c.notNull().defaultTo('en'))
    .execute();
  await db.schema.alterTable('polls').addColumn('theme_id', 'text').execute();

  await db.schema.alterTable('sessions').addColumn('language', 'text').execute();
  // A participant reloading an ended session's page finds it by its released PIN (pages.repository.ts).
  await sql`CREATE INDEX sessions_ended_pin_idx ON sessions (pin, ended_at) WHERE status = 'ended'`.execute(db);
  await db.schema.alterTable('sessions').addColumn('theme_id', 'text').execute();

  // `set null (theme_id)`: the column list (PostgreSQL 15) keeps `workspace_id`, part of the key.
  for (const [table, workspaceColumn] of [
    ['workspaces', 'id'],
    ['polls', 'workspace_id'],
    ['sessions', 'workspace_id'],
  ] as const) {
    await sql`alter table ${sql.table(table)} add constraint ${sql.id(`${table}_theme_fkey`)}
      foreign key (${sql.ref(workspaceColumn)}, theme_id) references themes (workspace_id, id)
      on delete set null (theme_id)`.execute(db);
    // A theme's deletion finds its users by these (the foreign key's `set null` scans the table otherwise).
    await db.schema
      .createIndex(`${table}_theme_idx`)
      .on(table)
      .column('theme_id')
      .where(sql.ref('theme_id'), 'is not', null)
      .execute();
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['sessions', 'polls', 'workspaces']) {
    await db.schema.dropIndex(`${table}_theme_idx`).execute();
    await sql`alter table ${sql.table(table)} drop constraint ${sql.id(`${table}_theme_fkey`)}`.execute(db);
    await db.schema.alterTable(table).dropColumn('theme_id').execute();
    await db.schema.alterTable(table).dropColumn('language').execute();
  }
  await db.schema.dropIndex('sessions_ended_pin_idx').execute();
  await db.schema.alterTable('workspaces').dropColumn('embed_origins').execute();
  await db.schema.dropTable('themes').execute();
}
