import type { Insertable, Updateable } from 'kysely';
import { type Kysely, sql } from 'kysely';
import type {
  Database,
  WebhookAttemptRow,
  WebhookDeliveryRow,
  WebhookEndpointRow,
  WebhookEndpointsTable,
} from '../../db/schema.js';
import { fanOutEventBatches } from './outbox.repository.js';

type Db = Kysely<Database>;

export function insertEndpoint(db: Db, endpoint: Insertable<WebhookEndpointsTable>): Promise<WebhookEndpointRow> {
  return db.insertInto('webhook_endpoints').values(endpoint).returningAll().executeTakeFirstOrThrow();
}

export function findEndpoint(db: Db, workspaceId: string, id: string): Promise<WebhookEndpointRow | undefined> {
  return db
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** Locks the endpoint's row for the rest of the transaction (updates and rotations apply one at a time). */
export function findEndpointForUpdate(
  db: Db,
  workspaceId: string,
  id: string,
): Promise<WebhookEndpointRow | undefined> {
  return db
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id)
    .forUpdate()
    .executeTakeFirst();
}

export async function countEndpoints(db: Db, workspaceId: string): Promise<number> {
  const row = await db
    .selectFrom('webhook_endpoints')
    .select((eb) => eb.fn.countAll().as('count'))
    .where('workspace_id', '=', workspaceId)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

/** Newest first; `beforeId` is the last id of the previous page. */
export function listEndpoints(
  db: Db,
  workspaceId: string,
  options: { limit: number; beforeId?: string | undefined },
): Promise<WebhookEndpointRow[]> {
  let query = db.selectFrom('webhook_endpoints').selectAll().where('workspace_id', '=', workspaceId);
  if (options.beforeId) query = query.where('id', '<', options.beforeId);
  return query.orderBy('id', 'desc').limit(options.limit).execute();
}

export function updateEndpoint(
  db: Db,
  id: string,
  changes: Updateable<WebhookEndpointsTable>,
): Promise<WebhookEndpointRow> {
  return db
    .updateTable('webhook_endpoints')
    .set({ ...changes, updated_at: new Date() })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Deletes an endpoint; its deliveries and their attempts go with it (foreign keys, on delete cascade). */
export async function deleteEndpoint(db: Db, workspaceId: string, id: string): Promise<boolean> {
  const result = await db
    .deleteFrom('webhook_endpoints')
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id)
    .executeTakeFirst();
  return result.numDeletedRows > 0n;
}

/** Pending deliveries per endpoint (the counters that are not kept on the endpoint's row). */
export async function countPending(db: Db, endpointIds: string[]): Promise<Map<string, number>> {
  if (endpointIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('webhook_deliveries')
    .select(['endpoint_id', (eb) => eb.fn.countAll().as('count')])
    .where('endpoint_id', 'in', endpointIds)
    .where('status', '=', 'pending')
    .groupBy('endpoint_id')
    .execute();
  return new Map(rows.map((row) => [row.endpoint_id, Number(row.count)]));
}

/**
 * The event types of the endpoint's deliveries still waiting to go out (its answers' batches fanned
 * out first): what a new URL would receive besides the events of its filter, which may since have
 * been narrowed.
 */
export async function pendingEventTypes(db: Db, endpointId: string): Promise<string[]> {
  await fanOutEventBatches(db, { endpointIds: [endpointId], skipLocked: false });
  const rows = await db
    .selectFrom('webhook_deliveries')
    .select('event_type')
    .distinct()
    .where('endpoint_id', '=', endpointId)
    .where('status', '=', 'pending')
    .execute();
  return rows.map((row) => row.event_type);
}

/**
 * Disables an endpoint, saying why, and gives up its pending deliveries: they count as failed, and
 * redeliver sends them again once it is enabled. Nothing happens to an endpoint already disabled.
 */
export async function disableEndpoint(db: Db, endpointId: string, reason: string): Promise<void> {
  const disabled = await db
    .updateTable('webhook_endpoints')
    .set({ status: 'disabled', disabled_reason: reason, disabled_at: new Date(), updated_at: new Date() })
    .where('id', '=', endpointId)
    .where('status', '=', 'enabled')
    .executeTakeFirst();
  if (Number(disabled.numUpdatedRows) === 0) return;
  // Its answers' events still in batches become deliveries first, so they are given up too.
  await fanOutEventBatches(db, { endpointIds: [endpointId], skipLocked: false });
  const failed = await db
    .updateTable('webhook_deliveries')
    .set({ status: 'failed', next_attempt_at: null, updated_at: new Date() })
    .where('endpoint_id', '=', endpointId)
    .where('status', '=', 'pending')
    .executeTakeFirst();
  await db
    .updateTable('webhook_endpoints')
    .set({ failed_deliveries: sql`failed_deliveries + ${Number(failed.numUpdatedRows)}` })
    .where('id', '=', endpointId)
    .execute();
}

/** One delivery to one endpoint, made outside any change (a test event): `next_attempt_at` now. */
export function insertDelivery(
  db: Db,
  delivery: { id: string; endpoint_id: string; event_id: string; event_type: string; payload: string },
): Promise<WebhookDeliveryRow> {
  return db
    .insertInto('webhook_deliveries')
    .values({ ...delivery, status: 'pending', next_attempt_at: new Date() })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export function findDelivery(db: Db, endpointId: string, id: string): Promise<WebhookDeliveryRow | undefined> {
  return db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('endpoint_id', '=', endpointId)
    .where('id', '=', id)
    .executeTakeFirst();
}

export function listDeliveries(
  db: Db,
  endpointId: string,
  options: { limit: number; beforeId?: string | undefined; status?: WebhookDeliveryRow['status'] | undefined },
): Promise<WebhookDeliveryRow[]> {
  let query = db.selectFrom('webhook_deliveries').selectAll().where('endpoint_id', '=', endpointId);
  if (options.status) query = query.where('status', '=', options.status);
  if (options.beforeId) query = query.where('id', '<', options.beforeId);
  return query.orderBy('id', 'desc').limit(options.limit).execute();
}

/**
 * Queues a delivery again, due now, whatever its state; its retry schedule starts over from the
 * attempt it is at (`schedule_offset`). If an attempt of it is in flight, that attempt's outcome
 * still counts: a success then ends the delivery (the receiver has the event).
 */
export function requeueDelivery(db: Db, id: string): Promise<WebhookDeliveryRow> {
  return db
    .updateTable('webhook_deliveries')
    .set({
      status: 'pending',
      next_attempt_at: new Date(),
      schedule_offset: sql<number>`attempts`,
      updated_at: new Date(),
    })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** The last attempt of each delivery. */
export async function lastAttempts(db: Db, deliveryIds: string[]): Promise<Map<string, WebhookAttemptRow>> {
  if (deliveryIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('webhook_attempts')
    .selectAll()
    .distinctOn('delivery_id')
    .where('delivery_id', 'in', deliveryIds)
    .orderBy('delivery_id')
    .orderBy('attempt', 'desc')
    .execute();
  return new Map(rows.map((row) => [row.delivery_id, row]));
}

export function attemptsOf(db: Db, deliveryId: string): Promise<WebhookAttemptRow[]> {
  return db
    .selectFrom('webhook_attempts')
    .selectAll()
    .where('delivery_id', '=', deliveryId)
    .orderBy('attempt')
    .execute();
}

/** The endpoint's delivery log, newest first, with each attempt's event. */
export function listAttempts(
  db: Db,
  endpointId: string,
  options: { limit: number; beforeId?: string | undefined },
): Promise<Array<WebhookAttemptRow & { event_id: string; event_type: string }>> {
  let query = db
    .selectFrom('webhook_attempts as a')
    .innerJoin('webhook_deliveries as d', 'd.id', 'a.delivery_id')
    .selectAll('a')
    .select(['d.event_id', 'd.event_type'])
    .where('a.endpoint_id', '=', endpointId);
  if (options.beforeId) query = query.where('a.id', '<', options.beforeId);
  return query.orderBy('a.id', 'desc').limit(options.limit).execute();
}
