import { type Kysely, sql } from 'kysely';

/**
 * Idempotency keys (docs/idempotency.md): one row per (workspace, key), holding the fingerprint of
 * the request that claimed it and, once it completed, the response to replay.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('idempotency_keys')
    .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('fingerprint', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull().check(sql`state in ('in_progress', 'completed')`))
    // Who holds an in-progress claim: only that request may complete or release it.
    .addColumn('claim_token', 'text', (c) => c.notNull())
    // The X-Request-Id of the request that did the work, replayed as `Original-Request`.
    .addColumn('request_id', 'text', (c) => c.notNull())
    .addColumn('response_status', 'integer')
    .addColumn('response_body', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .addPrimaryKeyConstraint('idempotency_keys_pk', ['workspace_id', 'key'])
    .execute();
  // Expired rows of a workspace are deleted a few at a time when it claims a key.
  await db.schema
    .createIndex('idempotency_keys_expiry_idx')
    .on('idempotency_keys')
    .columns(['workspace_id', 'expires_at'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('idempotency_keys').execute();
}
