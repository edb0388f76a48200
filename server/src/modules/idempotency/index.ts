/**
 * What other modules may use of idempotency (the rule `modules-use-no-foreign-repository`): the
 * stored replies rewritten without a respondent, in the caller's transaction (modules/respondents).
 */
export { redactResponseBodies } from './idempotency.repository.js';
