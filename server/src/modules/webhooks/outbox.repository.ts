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
 * costs one md5, where a random ULID built in SQL took a function call per row. Being a function of
 * the pair, it also makes fanning a batch out twice harmless (`on conflict do nothing`).
 */
function deliveryId(eventId: RawBuilder<unknown>, endpointId: RawBuilder<unknown>): RawBuilder<string> {
  return pairId('dlv_', eventId, endpointId);
}

/**
 * The id of an event batch (one answer-writer flush, one endpoint): made as a delivery id is, from
 * the batch's first event, which is in no other batch of that endpoint.
 */
export function eventBatchId(firstEventId: RawBuilder<unknown>, endpointId: RawBuilder<unknown>): RawBuilder<string> {
  return pairId('whb_', firstEventId, endpointId);
}

function pairId(prefix: string, eventId: RawBuilder<unknown>, endpointId: RawBuilder<unknown>): RawBuilder<string> {
  return sql<string>`${prefix}::text || substr(${eventId}, 5, 10) || upper(substr(md5(${eventId} || ':' || ${endpointId}), 1, 16))`;
}

/**
 * Fans event batches (webhook_event_batches, written by the answer writer's batch statement) out
 * into one pending delivery per event, due since the batch was written, and deletes the batches, in
 * one statement: a batch is fanned out exactly once, and a second fan-out of the same events would
 * insert nothing (delivery ids are a function of event and endpoint).
 *
 * - The delivery workers call it before they claim, oldest batches first, at most `limit` of them,
 *   skipping batches another worker is fanning out (`skipLocked`).
 * - Every read of an endpoint's deliveries calls it for that endpoint first (`endpointIds`, all of
 *   its batches, waiting for a worker's fan-out in progress rather than skipping it), so the API
 *   shows an answer's delivery as soon as the answer is recorded, as it shows every other event's.
 *
 * Returns how many deliveries it wrote.
 */
export async function fanOutEventBatches(
  db: Kysely<Database>,
  options: { limit?: number; endpointIds?: string[]; skipLocked: boolean },
): Promise<number> {
  if (options.endpointIds?.length === 0) return 0;
  const result = await sql<{ written: string | number }>`
    with taken as (
      delete from webhook_event_batches
      where id in (
        select id from webhook_event_batches
        ${options.endpointIds ? sql`where endpoint_id = any(${options.endpointIds}::text[])` : sql``}
        order by created_at, id
        ${options.limit === undefined ? sql`` : sql`limit ${options.limit}`}
        for update ${options.skipLocked ? sql`skip locked` : sql``}
      )
      returning endpoint_id, event_ids, event_types, payloads, created_at
    ),
    written as (
      insert into webhook_deliveries (id, endpoint_id, event_id, event_type, payload, status, next_attempt_at,
                                      created_at, updated_at)
      select ${deliveryId(sql.ref('e.event_id'), sql.ref('t.endpoint_id'))}, t.endpoint_id, e.event_id, e.event_type,
             e.payload, 'pending', t.created_at, t.created_at, t.created_at
      from taken t cross join lateral unnest(t.event_ids, t.event_types, t.payloads) as e (event_id, event_type, payload)
      on conflict (id) do nothing
      returning 1
    )
    select count(*) as written from written`.execute(db);
  return Number(result.rows[0]?.written ?? 0);
}
