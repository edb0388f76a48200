/**
 * What other modules may use of webhooks (the rule `modules-use-no-foreign-repository` in
 * .dependency-cruiser.cjs): the outbox. A module that makes a change records its event with the
 * transaction that makes the change (`recordWebhookEvent(trx, …)`), so both commit or neither does;
 * the answers' batch statement names its event batches with `eventBatchId`.
 */
export { eventBatchId, type OutboxEvent, outboxEvent, recordWebhookEvent } from './outbox.repository.js';
export { type Redaction, redactWebhookData } from './redaction.repository.js';
