import type { PollkitContract, RouteDefinition, RouteGroup } from '@pollkit/contracts';
import type { Logger } from 'pino';
import type { z } from 'zod';
import type { EventFeed } from '../core/event-stream.js';
import type { FileDownload, WithStatus } from '../core/file-download.js';
import type { JsonText } from '../core/json-text.js';
import type { AnswerResetDeps, AnswersDeps } from './answers/answers.service.js';
import type { KeyIssuingDeps } from './api-keys/api-keys.service.js';
import type { BranchingDeps } from './branching/branching.service.js';
import type { HeldScopes } from './credentials/credential-scopes.js';
import type { WorkspaceCredential } from './credentials/workspace-credential.js';
import type { LiveDeps } from './live/live.service.js';
import type { HostGrant, LiveCaller } from './live/live-caller.js';
import type { MediaDeps } from './media/media.service.js';
import type { PollUpdateDeps } from './polls/polls.service.js';
import type { RespondentsDeps } from './respondents/respondents.service.js';
import type { SessionsDeps } from './sessions/sessions.service.js';
import type { WebhooksDeps } from './webhooks/webhooks.service.js';
import type { WorkspacesDeps } from './workspaces/workspaces.service.js';

/**
 * What the handlers of the contract's operations need, all modules together: the union of each
 * module's own deps interface. The composition root (deps.ts) builds one object that satisfies it;
 * services each declare, and receive, only their own part.
 */
export interface ModuleDeps
  extends PollUpdateDeps,
    AnswersDeps,
    AnswerResetDeps,
    KeyIssuingDeps,
    // Sessions knows the live hub by the part it uses (LiveSide); LiveDeps names the hub itself.
    Omit<SessionsDeps, 'config' | 'liveHub'>,
    Omit<LiveDeps, 'config'>,
    BranchingDeps,
    // Respondents knows the live hub by the part it uses, as sessions does.
    Omit<RespondentsDeps, 'liveHub'>,
    Omit<WebhooksDeps, 'config'>,
    Omit<MediaDeps, 'config'> {
  config: MediaDeps['config'] &
    WorkspacesDeps['config'] &
    WebhooksDeps['config'] &
    SessionsDeps['config'] &
    LiveDeps['config'] &
    BranchingDeps['config'];
}

/** What a handler knows of the call: who made it (the pipeline has authenticated them) and the deps. */
export interface HandlerContext<R extends RouteDefinition = RouteDefinition> {
  deps: ModuleDeps;
  credential: R['auth'] extends 'workspace' ? WorkspaceCredential : WorkspaceCredential | undefined;
  /** `auth: 'host'` routes called with `X-Host-Token` (then `credential` is undefined). */
  host: HostGrant | undefined;
  /** `auth: 'participant'` routes: the session the PIN names and the participant, if any. */
  live: R['auth'] extends 'participant' ? LiveCaller : undefined;
  /** `Last-Event-ID`, on event-stream routes. */
  lastEventId: string | undefined;
  /** The request's logger (it carries the request id). */
  log: Pick<Logger, 'error' | 'warn' | 'info' | 'debug'>;
}

/**
 * A thin procedure: it receives the validated input and calls one service function with the
 * workspace it acts for. Its output is checked against the contract in tests (RESPONSE_VALIDATION);
 * a cached read may return it with its JSON text already made (`JsonText`).
 */
export type Handler<R extends RouteDefinition> = (args: {
  ctx: HandlerContext<R>;
  input: z.output<R['input']>;
}) => Promise<HandlerResult<R>>;

/**
 * What a handler answers: per the route's `format`, a file download, SVG text, an event feed (or
 * undefined when the stream has nothing left to send: 204), or JSON.
 */
type HandlerResult<R extends RouteDefinition> = R['format'] extends 'file'
  ? FileDownload
  : R['format'] extends 'svg'
    ? string
    : R['format'] extends 'sse'
      ? EventFeed | undefined
      : z.input<R['output']> | JsonText<z.input<R['output']>> | WithStatus<z.input<R['output']>>;

/** The workspace a host route acts in: the credential's, or the session's for a host token. */
export function hostWorkspaceId(ctx: Pick<HandlerContext, 'credential' | 'host'>): string {
  const workspaceId = ctx.credential?.workspaceId ?? ctx.host?.workspaceId;
  if (workspaceId === undefined) throw new Error('host route reached its handler unauthenticated');
  return workspaceId;
}

/** The scopes a host route's caller holds: the credential's, or those the host token carries. */
export function hostScopes(ctx: Pick<HandlerContext, 'credential' | 'host'>): HeldScopes {
  const scopes = ctx.credential?.scopes ?? ctx.host?.scopes;
  if (scopes === undefined) throw new Error('host route reached its handler unauthenticated');
  return scopes;
}

/** A handler for every route of a group: leaving one out is a compile error. */
export type GroupHandlers<G extends RouteGroup> = { [K in keyof G]: Handler<G[K]> };

/** A handler for every route of the contract: the registry the pipeline serves (modules/index.ts). */
export type ContractHandlers = { [G in keyof PollkitContract]: GroupHandlers<PollkitContract[G]> };

/**
 * Declares the handlers of one contract group. Identity at run time; it exists so that each
 * handler's `input` and return type are inferred from its route object.
 */
export function defineHandlers<G extends RouteGroup>(_routes: G, handlers: GroupHandlers<G>): GroupHandlers<G> {
  return handlers;
}
