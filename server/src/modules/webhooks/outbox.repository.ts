import type { WebhookEventData, WebhookEventType } from '@pollkit/contracts';
import { type Kysely, type RawBuilder, sql } from 'kysely';
import { newId } from '../../db/ids.js';
import type { Database } from '../../db/schema.js';

/** An event as every delivery of it sends it: the JSON body and its id (`webhook-id`). */
export interface OutboxEvent {
  id: string;
  type: string;
  payload: string;
}

/** The body of an event: `{ id, type, createdAt, data }`, as the contract's WebhookEvent describes it. */
export function outboxEvent<T extends WebhookEventType | 'webhook.test'>(
  type: T,
  data: WebhookEventData[T],
  createdAt: Date = new Date(),
): OutboxEvent {
  const id = newId('event');
  return { id, type, payload: JSON.stringify({ id, type, createdAt: createdAt.toISOString(), data }) };
}

/**
 * The outbox: writes `event` as one pending delivery per enabled endpoint of the workspace that
 * subscribed to its type (none: nothing is written). Call it with the transaction that makes the
 * change the event reports, so both commit or neither does — a delivery worker, in any process,
 * then sends it. The endpoints are matched inside the transaction too, so delivery ids are made in
 * SQL (deliveryId below).
 */
export async function recordWebhookEvent(db: Kysely<Database>, workspaceId: string, event: OutboxEvent): Promise<void> {
  await sql`
    insert into webhook_deliveries (id, endpoint_id, event_id, event_type, payload, status, next_attempt_at)
    select ${deliveryId(sql`${event.id}::text`, sql.ref('e.id'))}, e.id, ${event.id}, ${event.type}, ${event.payload}, 'pending', now()
    from webhook_endpoints e
    where e.workspace_id = ${workspaceId} and e.status = 'enabled'
      and (e.events @> ${JSON.stringify([event.type])}::jsonb or e.events @> '["*"]'::jsonb)`.execute(db);
}

/**
 * The id of an event's delivery to an endpoint, made in SQL by the statement that matches the
 * endpoints: `dlv_`, the event id's 10 time characters (so deliveries sort by their event's time, as
 * every id does), and 16 hex digits of md5(event id, endpoint id) — hex digits are Crockford base32
 * digits too, so it reads as any other id. (event, endpoint) is unique, and so is the id; making it
 * costs one md5, where a random ULID built in SQL took a function call per row.
 */
export function deliveryId(eventId: RawBuilder<unknown>, endpointId: RawBuilder<unknown>): RawBuilder<string> {
  return sql<string>`'dlv_' || substr(${eventId}, 5, 10) || upper(substr(md5(${eventId} || ':' || ${endpointId}), 1, 16))`;
}
