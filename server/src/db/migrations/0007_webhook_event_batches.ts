import { type Kysely, sql } from 'kysely';

/**
 * The answers' side of the webhooks outbox (modules/webhooks/outbox.repository.ts). The answer
 * writer's batch statement writes the events of its answers as one row per subscribed endpoint — the
 * batch's event ids, types and bodies as three arrays — instead of one delivery row per event and
 * endpoint: still in the answers' transaction, but a single row and index entry per flush where a
 * delivery per answer cost 14 µs each on the writer's one-at-a-time path (server/bench/RESULTS.md,
 * issue 14). The delivery workers, and every read of deliveries, fan batches out into
 * `webhook_deliveries` on their own connection.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('webhook_event_batches')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('endpoint_id', 'text', (c) => c.notNull().references('webhook_endpoints.id').onDelete('cascade'))
    .addColumn('event_ids', sql`text[]`, (c) => c.notNull())
    .addColumn('event_types', sql`text[]`, (c) => c.notNull())
    .addColumn('payloads', sql`text[]`, (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema
    .createIndex('webhook_event_batches_endpoint_idx')
    .on('webhook_event_batches')
    .columns(['endpoint_id'])
    .execute();
}
