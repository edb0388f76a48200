/**
 * What other modules may use of idempotency (the rule `modules-use-no-foreign-repository`), each in
 * the caller's transaction: the stored replies rewritten without a respondent (modules/respondents),
 * and the sealed replies moved to a new sealing key with the webhook secrets (modules/webhooks).
 */
export { redactRepliesAbout, resealReplies } from './idempotency.repository.js';
