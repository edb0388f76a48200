/**
 * `@pollkit/sdk`: the typed client of the Pollkit API. {@link createClient} gives one method per
 * operation of the contract (`client.polls.create()`…), with its input and output types; failures
 * throw the error classes ({@link PollkitError} and its families); live sessions, webhook signatures
 * and OAuth have their helpers here too.
 *
 * @module @pollkit/sdk
 */
import type {
  PollContent as PollContentSchema,
  PollkitContract,
  RouteDefinition,
  RouteInput,
  RouteOutput,
  Slide as SlideSchema,
} from '@pollkit/contracts';
import type { z } from 'zod';

// The API's types, as the contracts define them (each schema's type of the same name): request
// shapes as a client writes them, responses as the API answers them.
export type {
  AnswerReceipt,
  AnswersReset,
  ApiKey,
  ApiKeyList,
  ApiKeyStatus,
  BranchCondition,
  BranchDraft,
  BranchDraftSource,
  Branching,
  BranchPollInput,
  CallerCredential,
  CastVoteInput,
  ContentResult,
  CreateApiKeyInput,
  CreatedApiKey,
  CreatedSession,
  CreatedWebhookEndpoint,
  CreatePollInput,
  CreateResponseInput,
  CreateSessionInput,
  CreateWebhookEndpointInput,
  DeckSlide,
  DeletedPoll,
  DeletedWebhookEndpoint,
  EndedSession,
  ErrorCode,
  ErrorEnvelope,
  GetPollInput,
  IngestMediaInput,
  JoinChallenge,
  JoinChallengeInput,
  JoinChallengeMode,
  JoinedSession,
  JoinSessionInput,
  Leaderboard,
  LeaderboardEntry,
  ListAnswersInput,
  ListApiKeysInput,
  ListPollsInput,
  ListQuestionsInput,
  ListResponsesInput,
  ListSessionParticipantsInput,
  ListSessionQuestionsInput,
  ListSessionsInput,
  ListWebhookAttemptsInput,
  ListWebhookDeliveriesInput,
  ListWebhookEndpointsInput,
  LiveAdvanceInput,
  LiveAnswerInput,
  LiveAnswerReceipt,
  LiveCounts,
  LiveState,
  Media,
  MediaEnvelope,
  MediaType,
  ModerateQuestionInput,
  ModerateSessionQuestionInput,
  MultipleChoiceResult,
  NextSlide,
  NextSlideInput,
  OpenEndedResult,
  Participant,
  ParticipantCompletion,
  ParticipantEvent,
  ParticipantEventType,
  ParticipantProgress,
  ParticipantSlide,
  Poll,
  PollContent,
  PollkitContract,
  PollList,
  PollResponse,
  PollResults,
  PollStatus,
  PresenterEvent,
  PresenterEventType,
  QaResult,
  Question,
  QuestionList,
  QuestionStatus,
  QuizOutcome,
  QuizResult,
  RankingResult,
  ResetAnswersInput,
  ResponseList,
  RotateApiKeyInput,
  RotatedApiKey,
  ScaleResult,
  Session,
  SessionAction,
  SessionAnswersReset,
  SessionControlInput,
  SessionDeck,
  SessionList,
  SessionPace,
  SessionParticipant,
  SessionParticipantList,
  SessionProgress,
  SessionResults,
  SessionStatus,
  SessionSummary,
  ShowScores,
  Slide,
  SlideKind,
  SlideProgress,
  SlideResult,
  SlideResults,
  UpdatePollInput,
  UpdateWebhookEndpointInput,
  UpvoteQuestionInput,
  ValidationErrorDetails,
  Vote,
  VoteList,
  WalkProgress,
  WebhookAttempt,
  WebhookAttemptList,
  WebhookDelivery,
  WebhookDeliveryDetail,
  WebhookDeliveryList,
  WebhookEndpoint,
  WebhookEndpointList,
  WebhookEndpointStats,
  WebhookEndpointStatus,
  WebhookEvent,
  WebhookEventData,
  WebhookEventOf,
  WebhookEventType,
  Workspace,
} from '@pollkit/contracts';
export {
  type ApiKeyAuth,
  type ClientOf,
  type ClientOptions,
  type ClientOverrides,
  type CommonClientOptions,
  createClient,
  type DownloadMethod,
  type OAuthClientAuth,
  type PageItemOf,
  type PollkitClient,
  type RouteMethod,
  type RouteOptions,
  type RouteResult,
} from './client.js';
export {
  AuthenticationError,
  type ClientErrorCode,
  type CodeOfStatus,
  ConflictError,
  ConnectionError,
  type ErrorResponse,
  InternalServerError,
  NotFoundError,
  PermissionDeniedError,
  PollkitError,
  type PollkitErrorCode,
  type PollkitErrorDetails,
  type PollkitErrorJson,
  RateLimitError,
  type ServerErrorCode,
  TimeoutError,
  UpgradeRequiredError,
  ValidationError,
} from './core/errors.js';
export type { EventStream, EventStreamOptions } from './core/event-stream.js';
export { joinChallengeSolution, solveJoinChallenge } from './core/join-challenge.js';
export type { OAuthErrorCode } from './core/oauth.js';
export { Page, type PageData, PagePromise } from './core/pagination.js';
export type {
  DownloadOptions,
  FetchLike,
  HeadersLike,
  PollkitLogger,
  RequestLogRecord,
  RequestOptions,
} from './core/request-options.js';
export type { BackoffOptions } from './core/retry.js';
export {
  type SignWebhookInput,
  signWebhook,
  type VerifyWebhookOptions,
  verifyWebhook,
  type WebhookHeaders,
  type WebhookSignatureHeaders,
  WebhookVerificationError,
  type WebhookVerificationReason,
} from './core/webhooks.js';
export {
  type JoinSessionOptions,
  joinSession,
  type LiveAnswer,
  type LiveParticipant,
  type PresenterSession,
  type PresenterSessionOptions,
  presenterSession,
} from './live.js';

/** What `client.<group>.<operation>()` takes: `PollkitInput<'polls', 'create'>`. */
export type PollkitInput<
  G extends keyof PollkitContract,
  O extends keyof PollkitContract[G],
> = PollkitContract[G][O] extends RouteDefinition ? RouteInput<PollkitContract[G][O]> : never;

/** What `client.<group>.<operation>()` resolves to: `PollkitOutput<'polls', 'list'>`. */
export type PollkitOutput<
  G extends keyof PollkitContract,
  O extends keyof PollkitContract[G],
> = PollkitContract[G][O] extends RouteDefinition ? RouteOutput<PollkitContract[G][O]> : never;

/** `client.polls.delete()` takes the poll's id (the contract reuses `GetPollInput`). */
export type DeletePollInput = PollkitInput<'polls', 'delete'>;

/** A slide as written in a request: fields with a server default (`type`, `timeLimitSec`…) may be left out. */
export type SlideInput = z.input<typeof SlideSchema>;
/** `content` as written in a request. */
export type PollContentInput = z.input<typeof PollContentSchema>;
