/**
 * What other modules may use of answers (the rule `modules-use-no-foreign-repository` in
 * .dependency-cruiser.cjs): removing answers with their share of every aggregate, in the caller's
 * transaction (erasure: modules/respondents); counting an answer the text filter held once approved,
 * or taking it out when dismissed (modules/questions); a response as the owner reads it.
 */
export { count, type RemovedAnswers, removeAnswers, uncount } from './answer-removal.repository.js';
export { toResponse } from './answers.service.js';
export { releaseSeats } from './respondent-seats.repository.js';
