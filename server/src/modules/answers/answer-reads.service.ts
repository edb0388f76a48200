import type { Kysely } from 'kysely';
import type { AnswerRow, AnswerValue, Database } from '../../db/schema.js';
import * as answers from './answers.repository.js';
import * as participantAnswers from './participant-answers.repository.js';
import * as respondentAnswers from './respondent-answers.repository.js';
import * as resultReads from './result-reads.repository.js';

/**
 * What other modules read of the answers and their aggregates (exported by index.ts): the results
 * and their exports, a live session's participants' answers, a respondent's records, whether a poll
 * was answered. Each takes the `Db` to read with: a caller's transaction reads inside it.
 */

type Db = Kysely<Database>;

export type { ResultsScope, TallyRow } from './result-reads.repository.js';

// Results (modules/results): bounded, indexed reads of a poll's or a session's aggregates.

/** Voters and answers of the scope (poll_stats or session_stats). */
export function resultTotals(db: Db, scope: resultReads.ResultsScope): Promise<resultReads.PollTotals> {
  return resultReads.findTotals(db, scope);
}

/** The scope's counters, or one slide's. */
export function resultTallies(
  db: Db,
  scope: resultReads.ResultsScope,
  slideId?: string,
): Promise<resultReads.TallyRow[]> {
  return resultReads.listTallies(db, scope, slideId);
}

/** An open-ended slide's newest shown answers. */
export function recentTexts(
  db: Db,
  scope: resultReads.ResultsScope,
  slideId: string,
  limit: number,
): Promise<{ text: string; createdAt: Date }[]> {
  return resultReads.listRecentTexts(db, scope, slideId, limit);
}

/** An open-ended slide's most frequent words. */
export function topWords(
  db: Db,
  scope: resultReads.ResultsScope,
  slideId: string,
  limit: number,
): Promise<{ word: string; count: number }[]> {
  return resultReads.listTopWords(db, scope, slideId, limit);
}

/** A Q&A slide's most upvoted approved questions. */
export function topQuestions(
  db: Db,
  scope: resultReads.ResultsScope,
  slideId: string,
  limit: number,
): Promise<resultReads.QuestionRow[]> {
  return resultReads.listTopQuestions(db, scope, slideId, limit);
}

/** One export page of a Q&A slide's approved questions, in the order they were asked. */
export function approvedQuestionsPage(
  db: Db,
  scope: resultReads.ResultsScope,
  slideId: string,
  page: { afterId: string | undefined; limit: number },
): Promise<resultReads.QuestionRow[]> {
  return resultReads.listApprovedQuestionsPage(db, scope, slideId, page);
}

/** One export page of an open-ended slide's distinct answers with their counts. */
export function openTextCountsPage(
  db: Db,
  scope: resultReads.ResultsScope,
  slideId: string,
  page: { afterHash: string | undefined; limit: number },
): Promise<{ hash: string; text: string; count: number }[]> {
  return resultReads.listOpenTextCountsPage(db, scope, slideId, page);
}

// One respondent's answer (branching's next slide, a participant's walk and streams).

/**
 * A respondent's answer to one slide of a poll (the first, on a Q&A slide), or undefined; with
 * `sessionId`, only one given in that session (a participant's).
 */
export function findVoterAnswer(
  db: Db,
  pollId: string,
  slideId: string,
  voterId: string,
  sessionId?: string,
): Promise<AnswerValue | undefined> {
  return answers.findVoterAnswer(db, pollId, slideId, voterId, sessionId);
}

/** Whether anyone answered the poll: its deck may not change then (modules/polls, through deps.ts). */
export function pollHasAnswers(db: Db, pollId: string): Promise<boolean> {
  return answers.pollHasAnswers(db, pollId);
}

// A live session's participants (modules/live, modules/sessions, modules/respondents).

/** A participant's quiz points in its session, leaving out those of `hiddenSlideId` (a result not shown yet). */
export function participantScore(
  db: Db,
  sessionId: string,
  participantId: string,
  hiddenSlideId?: string,
): Promise<number> {
  return participantAnswers.participantScore(db, sessionId, participantId, hiddenSlideId);
}

/** The slides of the session each of these participants answered (one query for many). */
export function answeredSlidesOfEach(
  db: Db,
  sessionId: string,
  participantIds: readonly string[],
): Promise<Map<string, Set<string>>> {
  return participantAnswers.answeredSlidesOfEach(db, sessionId, participantIds);
}

/** The slides of the session this participant answered. */
export async function answeredSlides(db: Db, sessionId: string, participantId: string): Promise<Set<string>> {
  return (await answeredSlidesOfEach(db, sessionId, [participantId])).get(participantId) ?? new Set();
}

/** The participants of the session who answered this slide. */
export function slideRespondents(db: Db, sessionId: string, slideId: string): Promise<Set<string>> {
  return participantAnswers.slideRespondents(db, sessionId, slideId);
}

/** The participant's answers in the session, oldest first. */
export function participantAnswersOf(
  db: Db,
  sessionId: string,
  participantId: string,
): Promise<Array<Pick<AnswerRow, 'slide_id' | 'value' | 'points'>>> {
  return participantAnswers.participantAnswers(db, sessionId, participantId);
}

/**
 * The session answers' points by participant and slide, as a subquery the sessions module's
 * standings join (one statement, as a join on answers itself).
 */
export function answerPoints(db: Db) {
  return participantAnswers.answerPoints(db);
}

// One respondent across a workspace (modules/respondents: access requests and erasure).

/** The workspace's polls these voters answered through the API. */
export function pollsAnsweredBy(db: Db, workspaceId: string, voterIds: string[]): Promise<string[]> {
  return respondentAnswers.pollsAnsweredBy(db, workspaceId, voterIds);
}

/** The workspace's polls whose questions these voters upvoted. */
export function pollsUpvotedIn(db: Db, workspaceId: string, voterIds: string[]): Promise<string[]> {
  return respondentAnswers.pollsUpvotedIn(db, workspaceId, voterIds);
}

/** The voters' answers of one sort (or all) in these polls, oldest first after `afterId`. */
export function answersOfVoters(
  db: Db,
  pollIds: string[],
  voterIds: string[],
  sort: respondentAnswers.AnswerSort | 'all',
  options: { afterId?: string; limit?: number } = {},
): Promise<AnswerRow[]> {
  return respondentAnswers.answersOf(db, pollIds, voterIds, sort, options);
}

/** The voters' upvotes on the workspace's questions, in (question, voter) order after `after`. */
export function upvotesOfVoters(
  db: Db,
  workspaceId: string,
  voterIds: string[],
  options: { after?: [string, string]; limit?: number } = {},
): Promise<respondentAnswers.UpvoteRow[]> {
  return respondentAnswers.upvotesOf(db, workspaceId, voterIds, options);
}
