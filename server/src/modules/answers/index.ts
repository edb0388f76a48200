/**
 * What other modules may use of answers, the owner of the answers table and of every table derived
 * from it (server/src/db/table-owners.ts): service functions only, never a repository's (the rule
 * `modules-use-no-foreign-repository` in .dependency-cruiser.cjs, and server/test/unit/table-owners.test.ts).
 * Reads of answers and their aggregates (results, live sessions, respondents, branching, polls);
 * the moderation of questions and held texts (modules/questions); erasing a respondent's answers, in
 * the caller's transaction (modules/respondents); a response as the owner reads it.
 */
export {
  answeredSlides,
  answeredSlidesOfEach,
  answerPoints,
  answersOfVoters,
  approvedQuestionsPage,
  findVoterAnswer,
  openTextCountsPage,
  participantAnswersOf,
  participantScore,
  pollHasAnswers,
  pollsAnsweredBy,
  pollsUpvotedIn,
  type ResultsScope,
  recentTexts,
  resultTallies,
  resultTotals,
  slideRespondents,
  type TallyRow,
  topQuestions,
  topWords,
  upvotesOfVoters,
} from './answer-reads.service.js';
export { eraseAnswers, eraseSeats, eraseUpvotes } from './answer-removal.service.js';
export { toResponse } from './answers.service.js';
export {
  countApprovedText,
  countPendingQuestions,
  findModeratedTextForUpdate,
  findQuestion,
  incrementApprovedUpvotes,
  listQuestions,
  listSessionOpenAnswers,
  recordUpvote,
  setAnswerStatus,
  setQuestionStatus,
  uncountDismissedText,
} from './question-rows.service.js';
