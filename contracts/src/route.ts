import type { z } from 'zod';
import type { ErrorCode } from './errors.js';
import type { Plan, Scope } from './scopes.js';

export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';

/**
 * Who may call a route:
 * - `workspace`: a workspace credential (API key or OAuth access token);
 * - `host`: a workspace credential, or the `X-Host-Token` of the session named by the path's `{id}`
 *   (a presenter device holds no API key);
 * - `participant`: anyone who knows the session's `{pin}`, limited per IP address; the participant
 *   is named by `X-Participant-Token` where the route needs one;
 * - `none`: anyone.
 */
export type RouteAuth = 'workspace' | 'host' | 'participant' | 'none';

/**
 * One operation of the API as plain data, read by the server (to serve it through its pipeline and
 * to describe it in the OpenAPI document) and by the SDK (to build the client method). Nothing about
 * an operation is written anywhere else.
 *
 * `input` is one object schema holding path parameters (named like `{id}` in `path`), plus the
 * query string for GET/DELETE or the JSON body otherwise, as the OpenAPI document describes it.
 */
export interface RouteDefinition<TInput extends z.ZodType = z.ZodType, TOutput extends z.ZodType = z.ZodType> {
  method: HttpMethod;
  path: `/${string}`;
  summary: string;
  description?: string;
  tags: readonly string[];
  auth: RouteAuth;
  /** The scope a workspace credential (an OAuth token, or an API key given scopes) needs. */
  scope?: Scope;
  /**
   * Scopes a workspace credential needs besides `scope`, where the route answers data another scope
   * guards: a session's deck is the poll's content, quiz answers included (`polls:read`). A host
   * token (`X-Host-Token`) is checked against `hostTokenScopes` instead.
   */
  additionalScopes?: readonly Scope[];
  /**
   * `auth: 'host'` routes: the scopes a host token must carry to call the route. A host token acts
   * for its own session, and carries the scopes of the credential that created it (`POST /sessions`,
   * `POST /sessions/{id}/host-token`); one without these answers 403 `insufficient_scope`, as a
   * workspace credential without `scope` does. Routes that answer the audience's answers name
   * `responses:read`; the rest need none.
   */
  hostTokenScopes?: readonly Scope[];
  /** Minimum plan beyond the API access every paid plan has; a lesser plan answers 402. */
  plan?: Exclude<Plan, 'free'>;
  successStatus: 200 | 201 | 202 | 204;
  /**
   * A limit of its own (requests per minute per credential) on top of the general one: both
   * counters must have room. When this one is the binding limit, the `X-RateLimit-*` headers
   * describe it.
   */
  rateLimitPerMinute?: number;
  /**
   * What the success body is: JSON matching `output` (the default); a file download (`files`
   * says which), which the server streams and the SDK returns as text, or as bytes for a binary
   * type; an SVG image (text); or a Server-Sent Events stream whose events (`event:` name, JSON
   * `data:`) each match one member of `output`, a union discriminated by `type`, which the SDK
   * reads as an async iterator.
   */
  format?: 'json' | 'file' | 'svg' | 'sse';
  /**
   * `format: 'file'` routes: the file types the route downloads, keyed by the value of the input's
   * `format` field (a route without one has a single key, its only type). The first key is the
   * default.
   */
  files?: Readonly<Record<string, FileType>>;
  /**
   * A second success status, for a variant the input selects (`POST /polls/import` with
   * `dryRun: true` creates nothing and answers 200).
   */
  alternateSuccess?: { status: 200 | 201 | 202 | 204; description: string };
  /**
   * The largest request body this route accepts, in bytes, where it needs more than the server's
   * `BODY_LIMIT_BYTES` (an imported file travels in the body).
   */
  bodyLimitBytes?: number;
  /**
   * What a call changes, as tools for AI agents describe it (the MCP annotations of `/mcp`):
   * - `reads`: nothing; every GET, and a POST that only computes (a skip-logic draft);
   * - `writes`: creates or changes something another call can change back;
   * - `destroys`: removes or invalidates something for good; every DELETE, a revocation, a rotation.
   * By default `reads` for GET, `destroys` for DELETE, `writes` otherwise (`routeEffect`).
   */
  effect?: RouteEffect;
  /**
   * Whether a call may reach outside this server: a URL the caller names (media, a logo, a webhook
   * endpoint) or the AI provider.
   */
  reachesOut?: boolean;
  input: TInput;
  output: TOutput;
  /** Error codes this operation can answer besides those every authenticated route can. */
  errors: readonly ErrorCode[];
}

/** A file a `format: 'file'` route downloads. */
export interface FileType {
  /** The `Content-Type` it is sent with. */
  contentType: string;
  /** Bytes rather than text: the SDK returns a `Uint8Array`. */
  binary?: boolean;
  /** Response headers it carries besides `Content-Disposition`, with what each says. */
  headers?: Readonly<Record<string, string>>;
}

export type RouteEffect = 'reads' | 'writes' | 'destroys';

/** What a call of the route changes: its `effect`, or the one its method implies. */
export function routeEffect(route: Pick<RouteDefinition, 'method' | 'effect'>): RouteEffect {
  if (route.effect) return route.effect;
  if (route.method === 'GET') return 'reads';
  return route.method === 'DELETE' ? 'destroys' : 'writes';
}

/** Every scope a workspace credential needs to call the route: `scope`, then `additionalScopes`. */
export function requiredScopes(route: Pick<RouteDefinition, 'scope' | 'additionalScopes'>): Scope[] {
  return route.scope ? [route.scope, ...(route.additionalScopes ?? [])] : [...(route.additionalScopes ?? [])];
}

/** Identity at run time; keeps every literal (`auth: 'workspace'`, the path) in the type. */
export function defineRoute<const R extends RouteDefinition>(route: R): R {
  return Object.freeze(route);
}

/** A group of routes (`contract.polls`) and the whole contract. */
export type RouteGroup = Record<string, RouteDefinition>;
export type Contract = Record<string, RouteGroup>;

export type RouteInput<R extends RouteDefinition> = z.input<R['input']>;
export type RouteOutput<R extends RouteDefinition> = z.output<R['output']>;

/** Path parameter names of a route path, e.g. `/polls/{id}` -> `['id']`. */
export function pathParams(path: string): string[] {
  return Array.from(path.matchAll(/\{([^}]+)\}/g), (m) => m[1] as string);
}

/** Whether the route's non-path input travels in the query string (else in a JSON body). */
export function inputInQuery(method: HttpMethod): boolean {
  return method === 'GET' || method === 'DELETE';
}

/** `polls` + `list` -> `pollsList`: the operationId in the OpenAPI document. */
export function operationId(group: string, name: string): string {
  return `${group}${name.charAt(0).toUpperCase()}${name.slice(1)}`;
}

/**
 * A route's HTTP shape without its schemas: what a client needs to call it. `routeTable`
 * (route-table.ts, generated from `contract`) holds one per operation, for clients that must stay
 * small, such as the SDK's browser entry `@pollkit/sdk/live`, which would otherwise carry zod.
 */
export type RouteHead = Pick<RouteDefinition, 'method' | 'path' | 'successStatus' | 'auth' | 'format'>;
