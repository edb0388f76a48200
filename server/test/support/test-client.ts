import {
  type Contract,
  contract,
  type ErrorCode,
  type ErrorEnvelope,
  type errorCodes,
  inputInQuery,
  type PollkitContract,
  pathParams,
  type RouteDefinition,
  type ValidationErrorDetails,
} from '@pollkit/contracts';
import { expect } from 'vitest';
import type { z } from 'zod';
import { type HttpResponse, rawCall } from './http.js';

/**
 * A test client typed by the contract (contracts/src: `contract`, one route object per operation).
 * A route is named as the API reference names it, `'METHOD /path'` (`'POST /polls'`,
 * `'GET /polls/{id}'`); its path parameters, query and body are typed by the route's input schema
 * (`z.input`, path parameters apart), and the response is a union the test narrows: a success
 * (`ok: true`, the route's success status, the body typed by its output schema, `z.output`) or an
 * error (`ok: false`, an error status, the error envelope). `expectStatus(res, 201)` narrows as it
 * asserts, `expectOk(res)` returns the success body, and `if (res.status === 201)` narrows too.
 * Status, headers and text stay on the response for wire-level assertions.
 *
 * A request the contract does not allow (a wrong type, an unknown field) goes through `unchecked`,
 * whose answer is still typed; one that is not JSON, or not a route (pages, `/api/oauth/token`,
 * `/mcp`), through `rawCall` (http.ts).
 *
 * @example
 * const api = testClient(() => t.api, { apiKey: () => apiKey });
 * const poll = expectOk(await api.request('POST /polls', { body: { title: 'Lunch', content } }));
 * const got = await api.request('GET /polls/{id}', { params: { id: poll.id } });
 * expectStatus(got, 200); // narrows: got.body is a Poll from here on
 */
export interface TestClient {
  request<K extends RouteKey>(key: K, ...input: OptionalIfEmpty<RequestInput<K>>): Promise<ApiResponse<K>>;
  /**
   * `request` without the input's types, for a request the contract does not allow (a value out of
   * range, an unknown field, a missing one) whose answer is still read as the route's. The path
   * parameters are still named; anything goes in `query` and `body`.
   */
  unchecked<K extends RouteKey>(key: K, input?: UncheckedInput): Promise<ApiResponse<K>>;
}

/** What `unchecked` takes: the route's parts, untyped. */
export interface UncheckedInput extends CommonRequestOptions {
  params?: Record<string, string>;
  query?: Record<string, unknown>;
  body?: unknown;
}

type AnyRoute = { [G in keyof PollkitContract]: PollkitContract[G][keyof PollkitContract[G]] }[keyof PollkitContract];

/** Every route of the contract by `METHOD /path`, its path as the contract writes it (`/polls/{id}`). */
type RouteMap = { [R in AnyRoute as `${R['method']} ${R['path']}`]: R };
export type RouteKey = keyof RouteMap;

/** `/polls/{id}/votes/{voteId}` -> `'id' | 'voteId'`. */
type ParamNames<P extends string> = P extends `${string}{${infer Name}}${infer Rest}` ? Name | ParamNames<Rest> : never;

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** What the route's input holds besides its path parameters: its query (GET, DELETE) or JSON body. */
type InputRest<K extends RouteKey> = DistributiveOmit<z.input<RouteMap[K]['input']>, ParamNames<RouteMap[K]['path']>>;

/** `required` when some key of T is required, `optional` when every one may be left out. */
type Need<T> = Record<never, never> extends T ? 'optional' : 'required';

type ParamsPart<K extends RouteKey> = [ParamNames<RouteMap[K]['path']>] extends [never]
  ? { params?: undefined }
  : { params: { [N in ParamNames<RouteMap[K]['path']>]: string } };

type PayloadPart<K extends RouteKey> =
  InQuery<RouteMap[K]['method']> extends true
    ? Need<InputRest<K>> extends 'required'
      ? { query: InputRest<K> }
      : { query?: InputRest<K> }
    : Need<InputRest<K>> extends 'required'
      ? { body: InputRest<K> }
      : { body?: InputRest<K> };

/** Whether a method's input travels in the query string (`inputInQuery`, as a type). */
type InQuery<M> = M extends 'GET' | 'DELETE' ? true : false;

/** A route's JSON body as the contract types it (`z.input`, path parameters left out): `BodyOf<'POST /polls'>`. */
export type BodyOf<K extends RouteKey> = InputRest<K>;

/** A route's query as the contract types it: `QueryOf<'GET /polls'>`. */
export type QueryOf<K extends RouteKey> = InputRest<K>;

/** What a route answers on success (`z.output` of its output schema): `OutputOf<'GET /polls/{id}'>`. */
export type OutputOf<K extends RouteKey> = SuccessBody<K>;

/** Per-request options every route takes. */
interface CommonRequestOptions {
  /** Sent as `Authorization: Bearer`; overrides the client's (`undefined` sends none). */
  apiKey?: string | undefined;
  headers?: Record<string, string>;
}

export type RequestInput<K extends RouteKey> = CommonRequestOptions & ParamsPart<K> & PayloadPart<K>;

/** The input argument may be left out when nothing in it is required. */
type OptionalIfEmpty<T> = Record<never, never> extends T ? [input?: T] : [input: T];

/** The statuses a route answers on success: its `successStatus`, and its `alternateSuccess` if it has one. */
export type SuccessStatus<K extends RouteKey> =
  | RouteMap[K]['successStatus']
  | (RouteMap[K] extends { alternateSuccess: { status: infer S } } ? S : never);

/** A JSON route's output; the text is what a file, an SVG image or an event stream answers. */
export type SuccessBody<K extends RouteKey> = RouteMap[K] extends { format: 'file' | 'svg' | 'sse' }
  ? unknown
  : z.output<RouteMap[K]['output']>;

/** Every status an error can be answered with (the error-code registry's). */
type ErrorStatus = (typeof errorCodes)[ErrorCode]['status'];

interface WireParts {
  headers: Headers;
  /** The body as received. */
  text: string;
}

export interface OkResponse<K extends RouteKey> extends WireParts {
  ok: true;
  status: SuccessStatus<K>;
  body: SuccessBody<K>;
}

interface ErrorResponse extends WireParts {
  ok: false;
  status: ErrorStatus;
  body: ErrorEnvelope;
}

/** What `request` answers: a success with the route's output, or an error with the envelope. */
export type ApiResponse<K extends RouteKey> = OkResponse<K> | ErrorResponse;

const routesByKey: ReadonlyMap<string, RouteDefinition> = new Map(
  Object.values(contract as Contract).flatMap((group) =>
    Object.values(group).map((route) => [`${route.method} ${route.path}`, route] as const),
  ),
);

type Lazy<T> = T | (() => T);
const read = <T>(value: Lazy<T>): T => (typeof value === 'function' ? (value as () => T)() : value);

/**
 * A client of the API at `apiUrl` (a TestServer's `api`, `…/api/v1`). Either argument may be a
 * function, read at each request: a file's server and key only exist once its `beforeAll` has run.
 */
export function testClient(
  apiUrl: Lazy<string>,
  defaults: { apiKey?: Lazy<string | undefined>; headers?: Record<string, string> } = {},
): TestClient {
  async function send<K extends RouteKey>(key: K, input: UncheckedInput | undefined): Promise<ApiResponse<K>> {
    const route = routesByKey.get(key);
    if (!route) throw new Error(`no route ${key} in the contract`);
    const { params, apiKey, headers, ...payload } = input ?? {};
    let path: string = route.path;
    for (const name of pathParams(route.path)) {
      const value = params?.[name];
      if (value === undefined) throw new Error(`${key}: no path parameter ${name}`);
      path = path.replace(`{${name}}`, () => encodeURIComponent(value));
    }
    let url = `${read(apiUrl)}${path}`;
    if (inputInQuery(route.method) && payload.query) {
      const query = new URLSearchParams();
      for (const [name, value] of Object.entries(payload.query)) {
        for (const item of Array.isArray(value) ? value : [value]) {
          if (item !== undefined) query.append(name, String(item));
        }
      }
      if (query.size > 0) url += `?${query}`;
    }
    const res = await rawCall(route.method, url, {
      apiKey: input && 'apiKey' in input ? apiKey : read(defaults.apiKey ?? undefined),
      body: inputInQuery(route.method) ? undefined : payload.body,
      headers: { ...defaults.headers, ...headers },
    });
    return { ...res, ok: res.status >= 200 && res.status < 300 } as ApiResponse<K>;
  }
  return {
    request: (key, ...[input]) => send(key, input as UncheckedInput | undefined),
    unchecked: send,
  };
}

/**
 * The response has this status (the assertion `expect(res.status).toBe(status)`, with the body,
 * after `label` if given, as the failure message), and its type narrows to match: after
 * `expectStatus(res, 201)`, `res.body` is the route's output; after `expectStatus(res, 404)`, the
 * error envelope.
 */
export function expectStatus<R extends HttpResponse<unknown> & { ok: boolean }, S extends R['status']>(
  res: R,
  status: S,
  label?: string,
): asserts res is WithStatus<R, S> {
  expect(res.status, label === undefined ? res.text : `${label}: ${res.text}`).toBe(status);
}

/** The members of a response union that can have status `S`. */
export type WithStatus<R, S> = R extends { status: infer T } ? (S extends T ? R : never) : never;

/**
 * Whether the response has this status, narrowing as `expectStatus` does; no assertion. For
 * `find`/`filter`: `pair.find((res) => hasStatus(res, 409))?.body.error.code`.
 */
export function hasStatus<R extends HttpResponse<unknown> & { ok: boolean }, S extends R['status']>(
  res: R,
  status: S,
): res is WithStatus<R, S> {
  return res.status === status;
}

/**
 * The slide `slideId` in a list of slides (a deck's, by `id`) or of per-slide items (results,
 * progress, by `slideId`), narrowed to its `kind`: `slideOf(results.slides, 'words', 'open_ended').recent`.
 * Fails the test when there is none, or when it is of another kind.
 */
export function slideOf<S extends { kind: string } & ({ slideId: string } | { id: string }), K extends S['kind']>(
  slides: readonly S[],
  slideId: string,
  kind: K,
): Extract<S, { kind: K }> {
  const slide = slides.find((s) => ('slideId' in s ? s.slideId : s.id) === slideId);
  expect(slide?.kind, `slide ${slideId}`).toBe(kind);
  return slide as Extract<S, { kind: K }>;
}

/**
 * The `error` of a response the test already knows failed (its status asserted elsewhere, a list of
 * them checked at once). No assertion: reading it off a success fails the test as it did when the
 * body was untyped.
 */
export function errorOf(res: { body: unknown }): ErrorEnvelope['error'] {
  return (res.body as ErrorEnvelope).error;
}

/**
 * The `details` of an error as a test reads them: a validation error's `fieldErrors` and `formErrors`
 * and any other code's fields (`limit`, `resetAt`). No assertion: reading a field of details the
 * response does not have fails the test as it did when the body was untyped.
 */
export function errorDetails(res: { body: ErrorEnvelope }): ValidationErrorDetails & Record<string, unknown> {
  return res.body.error.details as ValidationErrorDetails & Record<string, unknown>;
}

/**
 * The body of a success: asserts the response has `status` (when given) or a 2xx status, and returns
 * its body typed by the route's output schema.
 */
export function expectOk<K extends RouteKey>(res: ApiResponse<K>, status?: SuccessStatus<K>): SuccessBody<K> {
  if (status === undefined) expect(res.ok, `${res.status} ${res.text}`).toBe(true);
  else expect(res.status, res.text).toBe(status);
  return res.body as SuccessBody<K>;
}
