/**
 * `@pollkit/sdk/live`: the live-session helpers alone, for browser pages (an audience's phone, a
 * presenter's screen). They call the schema-free route table (`routeTable` of `@pollkit/contracts`,
 * generated from the contract) instead of the contract's zod routes, so a bundle of this entry
 * carries no zod: about 9 KB gzipped in all, against about 110 KB for the same helpers from
 * `@pollkit/sdk`. What it gives up is `validateResponses`, which needs the schemas.
 *
 * The helpers are {@link presenterSession} and {@link joinSession} of `@pollkit/sdk`, and their
 * errors are its error classes.
 *
 * @module @pollkit/sdk/live
 */
import { routeTable } from '@pollkit/contracts';
import {
  type JoinSessionOptions,
  joinSessionOver,
  type LiveParticipant,
  type PresenterSession,
  type PresenterSessionOptions,
  presenterSessionOver,
} from './live.js';

/** {@link PresenterSessionOptions} without `validateResponses`, which has no schemas to check against here. */
export type LivePresenterOptions = Omit<PresenterSessionOptions, 'validateResponses'>;
/** {@link JoinSessionOptions} without `validateResponses`, which has no schemas to check against here. */
export type LiveJoinOptions = Omit<JoinSessionOptions, 'validateResponses'>;

/** Drives a live session with its host token: `presenterSession` of `@pollkit/sdk`, without schemas. */
export function presenterSession(options: LivePresenterOptions): PresenterSession {
  return presenterSessionOver(routeTable, options);
}

/** Joins a live session with its PIN: `joinSession` of `@pollkit/sdk`, without schemas. */
export function joinSession(options: LiveJoinOptions): Promise<LiveParticipant> {
  return joinSessionOver(routeTable, options);
}

export type {
  DeckSlide,
  JoinChallenge,
  JoinedSession,
  Leaderboard,
  LiveAnswerReceipt,
  LiveCounts,
  LiveState,
  Participant,
  ParticipantCompletion,
  ParticipantEvent,
  ParticipantProgress,
  ParticipantSlide,
  PresenterEvent,
  Question,
  QuestionList,
  QuestionStatus,
  Session,
  SessionAction,
  SessionDeck,
  SessionPace,
  SessionProgress,
  SessionSummary,
  ShowScores,
  Slide,
  SlideResult,
  SlideResults,
  WalkProgress,
} from '@pollkit/contracts';
export type { PollkitErrorJson } from './core/errors.js';
export {
  AuthenticationError,
  ConflictError,
  ConnectionError,
  InternalServerError,
  NotFoundError,
  PermissionDeniedError,
  PollkitError,
  RateLimitError,
  TimeoutError,
  UpgradeRequiredError,
  ValidationError,
} from './core/errors.js';
export type { EventStream, EventStreamOptions } from './core/event-stream.js';
export { newIdempotencyKey } from './core/idempotency-key.js';
export { joinChallengeSolution, solveJoinChallenge } from './core/join-challenge.js';
export type { FetchLike, RequestOptions } from './core/request-options.js';
export type { LiveAnswer, LiveParticipant, PresenterSession } from './live.js';
