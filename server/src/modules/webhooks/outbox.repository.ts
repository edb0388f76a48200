import type { WebhookEventData, WebhookEventType } from '@pollkit/contracts';
import { type Kysely, sql } from 'kysely';
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
 * then sends it. Delivery ids are made in SQL (`pollkit_ulid()`, migration 0006), one per matching
 * endpoint, so the endpoints are matched inside the transaction too.
 */
export async function recordWebhookEvent(db: Kysely<Database>, workspaceId: string, event: OutboxEvent): Promise<void> {
  await sql`
    insert into webhook_deliveries (id, endpoint_id, event_id, event_type, payload, status, next_attempt_at)
    select 'dlv_' || pollkit_ulid(), e.id, ${event.id}, ${event.type}, ${event.payload}, 'pending', now()
    from webhook_endpoints e
    where e.workspace_id = ${workspaceId} and e.status = 'enabled'
      and (e.events @> ${JSON.stringify([event.type])}::jsonb or e.events @> '["*"]'::jsonb)`.execute(db);
}
