/**
 * What other modules may use of idempotency, the owner of idempotency_keys (server/src/db/table-owners.ts),
 * each in the caller's transaction: the stored replies rewritten without a respondent
 * (modules/respondents), and the sealed replies moved to a new sealing key with the webhook secrets
 * (modules/webhooks).
 */
export { redactRepliesAbout, resealReplies } from './idempotency.service.js';
