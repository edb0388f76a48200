import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('workspaces')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('plan', 'text', (c) => c.notNull().check(sql`plan in ('free', 'pro', 'enterprise')`))
    .addColumn('rate_limit_per_minute', 'integer')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();

  await db.schema
    .createTable('api_keys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('prefix', 'text', (c) => c.notNull())
    .addColumn('secret_hash', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('revoked_at', 'timestamptz')
    .addColumn('expires_at', 'timestamptz')
    .execute();
  await db.schema.createIndex('api_keys_workspace_idx').on('api_keys').columns(['workspace_id', 'id']).execute();

  await db.schema
    .createTable('polls')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('draft', 'published', 'closed')`))
    .addColumn('content', 'jsonb', (c) => c.notNull())
    .addColumn('branching', 'jsonb')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('published_at', 'timestamptz')
    .addColumn('closed_at', 'timestamptz')
    .execute();
  // Serves the workspace's list (newest first, by id) with and without the status filter.
  await db.schema.createIndex('polls_workspace_idx').on('polls').columns(['workspace_id', 'id desc']).execute();
  await db.schema
    .createIndex('polls_workspace_status_idx')
    .on('polls')
    .columns(['workspace_id', 'status', 'id desc'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('polls').execute();
  await db.schema.dropTable('api_keys').execute();
  await db.schema.dropTable('workspaces').execute();
}
