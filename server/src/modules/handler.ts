import type { PollkitContract, RouteDefinition, RouteGroup } from '@pollkit/contracts';
import type { Logger } from 'pino';
import type { z } from 'zod';
import type { JsonText } from '../core/json-text.js';
import type { AnswersDeps } from './answers/answers.service.js';
import type { ApiKeysDeps } from './api-keys/api-keys.service.js';
import type { WorkspaceCredential } from './auth/auth.service.js';
import type { MediaDeps } from './media/media.service.js';
import type { PollWriteDeps } from './polls/polls.service.js';
import type { WorkspacesDeps } from './workspaces/workspaces.service.js';

/**
 * What the handlers of the contract's operations need, all modules together: the union of each
 * module's own deps interface. The composition root (deps.ts) builds one object that satisfies it;
 * services each declare, and receive, only their own part.
 */
export interface ModuleDeps extends PollWriteDeps, AnswersDeps, ApiKeysDeps, Omit<MediaDeps, 'config'> {
  config: MediaDeps['config'] & WorkspacesDeps['config'];
}

/** What a handler knows of the call: who made it (the pipeline has authenticated them) and the deps. */
export interface HandlerContext<R extends RouteDefinition = RouteDefinition> {
  deps: ModuleDeps;
  credential: R['auth'] extends 'workspace' ? WorkspaceCredential : WorkspaceCredential | undefined;
  /** The request's logger (it carries the request id). */
  log: Pick<Logger, 'error' | 'warn' | 'info' | 'debug'>;
}

/** What a `format: 'csv'` route's handler returns: the file name and the document, streamed in chunks. */
export interface CsvDownload {
  filename: string;
  chunks: AsyncIterable<string>;
}

/**
 * A thin procedure: it receives the validated input and calls one service function with the
 * workspace it acts for. Its output is checked against the contract in tests (RESPONSE_VALIDATION);
 * a cached read may return it with its JSON text already made (`JsonText`).
 */
export type Handler<R extends RouteDefinition> = (args: {
  ctx: HandlerContext<R>;
  input: z.output<R['input']>;
}) => Promise<R['format'] extends 'csv' ? CsvDownload : z.input<R['output']> | JsonText<z.input<R['output']>>>;

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
