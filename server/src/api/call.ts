import type { RouteDefinition } from '@pollkit/contracts';
import type { Logger } from 'pino';
import type { EventFeed } from '../core/event-stream.js';
import type { FileDownload } from '../core/file-download.js';
import type { WorkspaceCredential } from '../modules/credentials/workspace-credential.js';
import type { HostGrant, LiveCaller } from '../modules/live/live-caller.js';

/** The part of a pino logger the pipeline and handlers use (Fastify's request logger is one). */
type RequestLog = Pick<Logger, 'error' | 'warn' | 'info' | 'debug'>;

/**
 * One request as the pipeline sees it: what the transport read off the wire, in plain values. The
 * pipeline never sees Fastify, so it can be driven by another transport (or a test) unchanged.
 */
export interface ApiRequest {
  /** The request id (`X-Request-Id`), kept with an idempotent outcome. */
  id: string;
  /** The request's logger; it carries the request id. */
  log: RequestLog;
  /** The `Authorization` header, as sent. */
  authorization: string | undefined;
  /** `X-Host-Token`: a presenter device's credential for one session (`auth: 'host'` routes). */
  hostToken: string | string[] | undefined;
  /** `X-Participant-Token`: who a participant is (`auth: 'participant'` routes). */
  participantToken: string | string[] | undefined;
  /** `Last-Event-ID`: where a reconnecting event stream resumes. */
  lastEventId: string | string[] | undefined;
  /** The client's IP address (participant routes are limited per address). */
  ip: string;
  /** The `Idempotency-Key` header, as sent (repeated headers arrive as an array). */
  idempotencyKey: string | string[] | undefined;
  /** Path parameters, decoded. */
  params: Record<string, string>;
  /** The parsed query string. */
  query: Record<string, unknown>;
  /** The parsed JSON body (undefined without one). */
  body: unknown;
}

/**
 * What the rate limiter decided for this request. The transport writes it as the `X-RateLimit-*`
 * headers, whatever the outcome: a 422 or a 404 after the gate still tells the client its budget.
 */
export interface RateLimitDecision {
  limit: number;
  remaining: number;
  /** When the window ends, in ms since the epoch. */
  resetAt: number;
}

/** One call travelling through the pipeline: the request, and what each step has established so far. */
export interface ApiCall {
  readonly route: RouteDefinition;
  readonly request: ApiRequest;
  /** Set by `authenticate`; undefined on routes open to anyone (and on host routes called with a host token). */
  credential: WorkspaceCredential | undefined;
  /** Set on `auth: 'host'` routes called with `X-Host-Token`: the one session it controls. */
  host: HostGrant | undefined;
  /** Set on `auth: 'participant'` routes: the session the PIN names, and the participant if a token named one. */
  live: LiveCaller | undefined;
  /** Set by the rate limiter. */
  rateLimit: RateLimitDecision | undefined;
  /** Set by `validate`: the input, parsed by the route's schema. */
  input: unknown;
}

export function newCall(route: RouteDefinition, request: ApiRequest): ApiCall {
  return {
    route,
    request,
    credential: undefined,
    host: undefined,
    live: undefined,
    rateLimit: undefined,
    input: undefined,
  };
}

/**
 * How a call ended well, for the transport to render:
 * - `json`: a value to send as JSON with `status` (as `text` when its JSON is already made);
 * - `serialized`: JSON already serialised (an idempotent outcome, as stored); with `replayOf`, the
 *   stored response of an earlier request with the same `Idempotency-Key` (that request's id);
 * - `file`: a file to stream;
 * - `svg`: an SVG image;
 * - `sse`: a Server-Sent Events stream, fed by `feed` once the transport has opened it.
 * Failures are thrown as `ApiError` (core/api-error.ts) and rendered as the envelope.
 */
export type Outcome =
  | { kind: 'json'; status: number; body: unknown; text?: string }
  | { kind: 'serialized'; status: number; text: string; replayOf?: string }
  | { kind: 'file'; status: number; download: FileDownload }
  | { kind: 'svg'; status: number; text: string }
  | { kind: 'sse'; status: number; feed: EventFeed };

/** The rest of the pipeline after a step. */
export type Next = (call: ApiCall) => Promise<Outcome>;

/**
 * One step of the pipeline. A step checks or establishes something about the call and passes it on
 * (`return next(call)`), throws an `ApiError` to end it, or, like idempotency, wraps the steps after
 * it. Steps are chosen per route once, at start-up (api/pipeline.ts), so a step a route does not
 * need costs it nothing.
 */
export type Step = (call: ApiCall, next: Next) => Promise<Outcome>;
