/**
 * What other modules may use of webhooks, the owner of the webhook tables (server/src/db/table-owners.ts):
 * the outbox, through its service (the rule `modules-use-no-foreign-repository` in
 * .dependency-cruiser.cjs). A module that makes a change records its event with the transaction that
 * makes the change (`recordWebhookEvent(trx, …)`), so both commit or neither does; the answers' batch
 * statement names its event batches with `eventBatchId`.
 */
export {
  eventBatchId,
  type OutboxEvent,
  outboxEvent,
  type Redaction,
  recordWebhookEvent,
  redactWebhookData,
} from './outbox.service.js';
