import type {
  PollContent as PollContentSchema,
  PollkitContract,
  RouteDefinition,
  RouteInput,
  RouteOutput,
  Slide as SlideSchema,
} from '@pollkit/contracts';
import type { z } from 'zod';

export type {
  AnswerReceipt,
  Branching,
  ErrorCode,
  ErrorEnvelope,
  Media,
  Poll,
  PollContent,
  PollkitContract,
  PollResponse,
  PollResults,
  PollStatus,
  Question,
  QuestionStatus,
  Slide,
  SlideKind,
  SlideResult,
  Vote,
} from '@pollkit/contracts';
export {
  type ApiKeyAuth,
  type ClientOf,
  type ClientOptions,
  type ClientOverrides,
  type CommonClientOptions,
  createClient,
  type OAuthClientAuth,
  type PageItemOf,
  type PollkitClient,
  type RouteMethod,
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
  PollkitConnectionError,
  PollkitError,
  type PollkitErrorCode,
  type PollkitErrorDetails,
  RateLimitError,
  type ServerErrorCode,
  TimeoutError,
  UpgradeRequiredError,
  ValidationError,
} from './core/errors.js';
export type { OAuthErrorCode } from './core/oauth.js';
export { Page, type PageData, PagePromise } from './core/pagination.js';
export type {
  FetchLike,
  HeadersLike,
  PollkitLogger,
  RequestLogRecord,
  RequestOptions,
} from './core/request.js';
export type { BackoffOptions } from './core/retry.js';

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

export type ListPollsInput = PollkitInput<'polls', 'list'>;
export type CreatePollInput = PollkitInput<'polls', 'create'>;
export type GetPollInput = PollkitInput<'polls', 'get'>;
export type UpdatePollInput = PollkitInput<'polls', 'update'>;
export type DeletePollInput = PollkitInput<'polls', 'delete'>;
export type PollList = PollkitOutput<'polls', 'list'>;
export type DeletedPoll = PollkitOutput<'polls', 'delete'>;
export type CastVoteInput = PollkitInput<'votes', 'cast'>;
export type CreateResponseInput = PollkitInput<'responses', 'create'>;
export type ListAnswersInput = PollkitInput<'votes', 'list'>;
export type VoteList = PollkitOutput<'votes', 'list'>;
export type ResponseList = PollkitOutput<'responses', 'list'>;
export type QuestionList = PollkitOutput<'questions', 'list'>;

/** A slide as written in a request: fields with a server default (`type`, `timeLimitSec`…) may be left out. */
export type SlideInput = z.input<typeof SlideSchema>;
/** `content` as written in a request. */
export type PollContentInput = z.input<typeof PollContentSchema>;
