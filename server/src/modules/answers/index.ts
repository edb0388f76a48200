/**
 * What other modules may use of answers (the rule `modules-use-no-foreign-repository` in
 * .dependency-cruiser.cjs): removing answers with their share of every aggregate, in the caller's
 * transaction (erasure: modules/respondents).
 */
export { type RemovedAnswers, removeAnswers } from './answer-removal.repository.js';
