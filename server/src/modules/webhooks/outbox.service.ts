import type { WebhookEventData, WebhookEventType } from '@pollkit/contracts';
import type { Kysely, RawBuilder } from 'kysely';
import type { Database } from '../../db/schema.js';
import * as outbox from './outbox.repository.js';
import { type Redaction, redactWebhookData as redactStoredWebhookData } from './redaction.repository.js';

/**
 * The outbox as other modules use it (exported by index.ts). A module that makes a change records
 * its event with the transaction that makes the change (`recordWebhookEvent(trx, …)`), so both commit
 * or neither does; erasure rewrites the stored payloads about a respondent in its transaction.
 */

export type { OutboxEvent } from './outbox.repository.js';
export type { Redaction } from './redaction.repository.js';

/** The body of an event, with its id: `{ id, type, createdAt, data }`, as the contract's WebhookEvent describes it. */
export function outboxEvent<T extends WebhookEventType | 'webhook.test'>(
  type: T,
  data: WebhookEventData[T],
  createdAt?: Date,
): outbox.OutboxEvent {
  return outbox.outboxEvent(type, data, createdAt);
}

/**
 * Records `event` as one pending delivery per enabled endpoint of the workspace that subscribed to
 * its type, in `db`: the transaction that makes the change the event reports.
 */
export function recordWebhookEvent(
  db: Kysely<Database>,
  workspaceId: string,
  event: outbox.OutboxEvent,
): Promise<void> {
  return outbox.recordWebhookEvent(db, workspaceId, event);
}

/**
 * The id of an event batch (one answer-writer flush, one endpoint), made in SQL: the answers' batch
 * statement writes the batches with it (answers/answer-batch.repository.ts).
 */
export function eventBatchId(firstEventId: RawBuilder<unknown>, endpointId: RawBuilder<unknown>): RawBuilder<string> {
  return outbox.eventBatchId(firstEventId, endpointId);
}

/** Erasure, in its transaction: the workspace's stored payloads about a respondent rewritten; how many were. */
export function redactWebhookData(trx: Kysely<Database>, workspaceId: string, redaction: Redaction): Promise<number> {
  return redactStoredWebhookData(trx, workspaceId, redaction);
}
