import { readdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import {
  type ErrorCode,
  errorCodeList,
  inputInQuery,
  pathParams,
  type RouteDefinition,
  statusOf,
  type ValidationErrorDetails,
} from '@pollkit/contracts';
import { sql } from 'kysely';
import sharp from 'sharp';
import { expect } from 'vitest';
import type { Variant } from './hostile-variants.js';
import { type HttpResponse, rawCall } from './http.js';
import { sampleContent } from './polls.js';
import { startTestServer, type TestServer } from './server.js';
import { type BodyOf, expectOk, testClient } from './test-client.js';

/**
 * The machinery of the contract's fuzz test (server/test/api/fuzz.test.ts): the server and the
 * image host it reaches, the world of resources the variants name (made afresh when one changed
 * it), the requests an input makes, the writes a 4xx must not make (noted by triggers), and what is
 * wrong with an answer. The state below is the one run's: the test file reads it, and makes a new
 * world through `useNewWorld`.
 */

/** What path parameters and ids can name: one of each resource, made afresh after any 2xx. */
export interface World {
  apiKey: string;
  pollId: string;
  questionId: string;
  /** A vote on the poll's first slide. */
  voteId: string;
  keyId: string;
  /** An active session of the poll, on its Q&A slide, with one participant. */
  sessionId: string;
  pin: string;
  participantToken: string;
  participantId: string;
  /** An active self-paced session's link id, and the token of a participant who joined by it. */
  walkLink: string;
  walkToken: string;
  /** A webhook endpoint (at the image host) and a delivery of a test event to it. */
  webhookId: string;
  deliveryId: string;
  /** A theme of the workspace. */
  themeId: string;
}

let t: TestServer;
let imageHost: Server;
export let imageUrl: string;
export let world: World;
/** The ids of the world the variants were derived from, replaced by the current world's when sent. */
export let firstWorld: World;
/** The served OpenAPI document: its error responses are what the fuzzed answers must keep to. */
let openApi: OpenApiDocument;
/** `allWrites` when the current world was made. */
export let worldMark = '';
/** Whether a write (any method but GET) has succeeded since the current world was made. */
export let worldUsed = false;

/** The run's beforeAll: the image host, the server, the triggers that note writes, the first world. */
export async function startFuzzServer(): Promise<void> {
  const png = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#3366ff' } })
    .png()
    .toBuffer();
  imageHost = createServer((_req, res) => res.writeHead(200, { 'content-type': 'image/png' }).end(png));
  await new Promise<void>((resolve) => imageHost.listen(0, '127.0.0.1', resolve));
  imageUrl = `http://127.0.0.1:${(imageHost.address() as AddressInfo).port}/pixel.png`;
  // Hostile PINs are unknown PINs: without room for them, the PIN-miss limit would answer 429, not 404.
  t = await startTestServer({
    MEDIA_ALLOW_LOOPBACK: 'true',
    WEBHOOK_ALLOW_HTTP: 'true',
    WEBHOOK_ALLOW_LOOPBACK: 'true',
    LIVE_PIN_MISSES_PER_IP_PER_MINUTE: '1000000',
    LIVE_JOINS_PER_IP_PER_MINUTE: '1000000',
    LIVE_RATE_LIMIT_PER_IP_PER_MINUTE: '1000000',
    // Every variant of `POST /polls/{id}/branch` reaches the parser, not the per-workspace draft limit.
    BRANCH_RATE_LIMIT_PER_MINUTE: '1000000',
  });
  await watchWrites();
  world = await newWorld();
  firstWorld = world;
  const served = await rawCall<OpenApiDocument>('GET', `${t.api}/openapi.json`);
  expect(served.status).toBe(200);
  openApi = served.body;
}

/** The run's afterAll. */
export async function stopFuzzServer(): Promise<void> {
  await t?.close();
  await new Promise((resolve) => imageHost?.close(resolve));
}

/** Makes a new world (in the workspace of `apiKey`, or a new one) the current one. */
export async function useNewWorld(apiKey?: string): Promise<void> {
  world = await newWorld(apiKey);
}

async function newWorld(apiKey?: string): Promise<World> {
  const key = apiKey ?? (await t.workspace('enterprise', { rateLimitPerMinute: 1_000_000 })).apiKey;
  const api = testClient(t.api, { apiKey: key });
  // Participants hold no API key: the PIN and their token are their way in.
  const audience = testClient(t.api);
  const poll = expectOk(await api.request('POST /polls', { body: { title: 'World', content: sampleContent() } }));
  expectOk(await api.request('PATCH /polls/{id}', { params: { id: poll.id }, body: { publish: true } }));
  const vote = expectOk(
    await api.request('POST /polls/{id}/votes', {
      params: { id: poll.id },
      body: { voterId: 'world', slideId: 'lunch', optionIds: ['pizza'] },
    }),
  );
  const created = expectOk(await api.request('POST /keys', { body: { name: 'fuzz target' } }));
  const session = expectOk(await api.request('POST /sessions', { body: { pollId: poll.id } }));
  // A presenter-paced session has a PIN.
  const pin = session.pin as string;
  const control = async (sessionId: string, body: BodyOf<'POST /sessions/{id}/control'>) =>
    expectOk(await api.request('POST /sessions/{id}/control', { params: { id: sessionId }, body }));
  await control(session.id, { action: 'start' });
  await control(session.id, { action: 'goto', slideIndex: 5 });
  const joined = expectOk(
    await audience.request('POST /live/{pin}/join', { params: { pin }, body: { name: 'World' } }),
  );
  // The world's question is asked in its session (a room's routes see only the questions asked in it).
  const asker = expectOk(await audience.request('POST /live/{pin}/join', { params: { pin }, body: { name: 'Asker' } }));
  const question = expectOk(
    await audience.request('POST /live/{pin}/answers', {
      params: { pin },
      body: { slideId: 'ask', text: 'Is this the world?' },
      headers: { 'x-participant-token': asker.participantToken },
    }),
  );
  expectOk(
    await api.request('PATCH /polls/{id}/questions/{questionId}', {
      params: { id: poll.id, questionId: question.id },
      body: { status: 'approved' },
    }),
  );
  const walk = expectOk(
    await api.request('POST /sessions', { body: { pollId: poll.id, pace: 'audience', pin: false } }),
  );
  await control(walk.id, { action: 'start' });
  const walkLink = String(walk.joinUrl).split('/').pop() as string;
  const walker = expectOk(
    await audience.request('POST /live/{pin}/join', { params: { pin: walkLink }, body: { name: 'Walker' } }),
  );
  // A workspace holds at most 20 endpoints, and worlds are remade in the same workspace: start afresh.
  const endpoints = expectOk(await api.request('GET /webhooks', { query: { limit: 100 } }));
  for (const old of endpoints.data) {
    expectOk(await api.request('DELETE /webhooks/{id}', { params: { id: old.id } }));
  }
  const endpoint = expectOk(await api.request('POST /webhooks', { body: { url: imageUrl } }));
  const delivery = expectOk(await api.request('POST /webhooks/{id}/test', { params: { id: endpoint.id } }));
  const theme = expectOk(
    await api.request('POST /themes', {
      body: { name: 'Fuzz', colors: { primary: '#1d4ed8', background: '#ffffff', text: '#111827' } },
    }),
  );
  worldUsed = false;
  worldMark = await allWrites();
  return {
    apiKey: key,
    pollId: poll.id,
    questionId: question.id,
    voteId: vote.id,
    keyId: created.id,
    sessionId: session.id,
    pin,
    participantToken: joined.participantToken,
    participantId: joined.participant.id,
    walkLink,
    walkToken: walker.participantToken,
    webhookId: endpoint.id,
    deliveryId: delivery.id,
    themeId: theme.id,
  };
}

/** Strings a generic sample may use, in order of preference: ids of the world first. */
export function sampleStrings(current: World): string[] {
  return [
    current.pollId,
    current.questionId,
    current.keyId,
    current.sessionId,
    current.pin,
    current.participantId,
    current.webhookId,
    current.deliveryId,
    current.themeId,
    'a',
    imageUrl,
    'Sample text',
  ];
}

/** `value` with the first world's ids replaced by the current world's, everywhere in it. */
function bind(value: unknown): unknown {
  if (typeof value === 'string') {
    return value
      .replaceAll(firstWorld.pollId, world.pollId)
      .replaceAll(firstWorld.questionId, world.questionId)
      .replaceAll(firstWorld.voteId, world.voteId)
      .replaceAll(firstWorld.keyId, world.keyId)
      .replaceAll(firstWorld.sessionId, world.sessionId)
      .replaceAll(firstWorld.pin, world.pin)
      .replaceAll(firstWorld.walkLink, world.walkLink)
      .replaceAll(firstWorld.participantId, world.participantId)
      .replaceAll(firstWorld.webhookId, world.webhookId)
      .replaceAll(firstWorld.deliveryId, world.deliveryId)
      .replaceAll(firstWorld.themeId, world.themeId);
  }
  if (Array.isArray(value)) return value.map(bind);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      Object.defineProperty(out, key, { value: bind(item), enumerable: true, writable: true, configurable: true });
    }
    return out;
  }
  return value;
}

/** Percent-encodes any string, unpaired surrogates included (as the bytes WTF-8 gives them). */
function encode(value: unknown): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  let out = '';
  for (const char of text) {
    const unit = char.charCodeAt(0);
    if (char.length === 1 && unit >= 0xd800 && unit <= 0xdfff) {
      const bytes = [0xe0 | (unit >> 12), 0x80 | ((unit >> 6) & 0x3f), 0x80 | (unit & 0x3f)];
      out += bytes.map((byte) => `%${byte.toString(16).toUpperCase()}`).join('');
    } else {
      out += encodeURIComponent(char);
    }
  }
  return out;
}

/** The HTTP request an input makes, split as the OpenAPI document describes it. */
function requestOf(route: RouteDefinition, input: Record<string, unknown>) {
  const params = new Set(pathParams(route.path));
  let path = route.path as string;
  for (const name of params) path = path.replace(`{${name}}`, encode(input[name] ?? ''));
  const rest = Object.entries(input).filter(([key]) => !params.has(key));
  if (inputInQuery(route.method)) {
    const query = rest.flatMap(([key, value]) => {
      if (value === undefined) return [];
      if (value === null) return [encode(key)];
      if (Array.isArray(value)) return value.map((item) => `${encode(key)}=${encode(item)}`);
      return [`${encode(key)}=${encode(typeof value === 'object' ? value : String(value))}`];
    });
    return { method: route.method, url: `${t.api}${path}${query.length > 0 ? `?${query.join('&')}` : ''}` };
  }
  const body: Record<string, unknown> = {};
  for (const [key, value] of rest) {
    Object.defineProperty(body, key, { value, enumerable: true, writable: true, configurable: true });
  }
  return { method: route.method, url: `${t.api}${path}`, rawBody: JSON.stringify(body) };
}

/**
 * An answer to a fuzzed request as `problemWith` reads it: the error envelope it should be when it
 * is an error, any part of which may be missing or of another type (each is checked before use).
 */
type FuzzAnswer = HttpResponse<
  { error?: { code?: unknown; message?: unknown; details?: Partial<ValidationErrorDetails> } } | undefined
>;

export async function send(route: RouteDefinition, input: Record<string, unknown>): Promise<FuzzAnswer> {
  const request = requestOf(route, bind(input) as Record<string, unknown>);
  const res = await sendRequest(route, request);
  // A write that succeeded may have changed what the tables watched do not show (a webhook endpoint).
  if (res.status < 400 && route.method !== 'GET') worldUsed = true;
  return res;
}

async function sendRequest(route: RouteDefinition, request: ReturnType<typeof requestOf>): Promise<FuzzAnswer> {
  // Participants hold no API key: the PIN and their token are their way in.
  const participant = route.auth === 'participant';
  // `advance` is a self-paced session's: its participant's token goes with it.
  const token = route.path.endsWith('/advance') ? world.walkToken : world.participantToken;
  const headers: Record<string, string> = participant ? { 'x-participant-token': token } : {};
  if (request.rawBody !== undefined) headers['content-type'] = 'application/json';
  if (route.format === 'sse')
    return openStream(request.url, participant ? headers : { ...headers, authorization: `Bearer ${world.apiKey}` });
  // Raw: the variants are hostile on purpose, and their bodies are sent as written.
  return rawCall(request.method, request.url, {
    ...(participant ? {} : { apiKey: world.apiKey }),
    headers,
    ...(request.rawBody === undefined ? {} : { rawBody: request.rawBody }),
  });
}

/** An event stream never ends by itself: a 200 is its head; an error is read whole. */
async function openStream(url: string, headers: Record<string, string>): Promise<FuzzAnswer> {
  const controller = new AbortController();
  const response = await fetch(url, { headers, signal: controller.signal });
  if (response.status === 200) {
    controller.abort();
    return { status: 200, headers: response.headers, body: undefined, text: '' };
  }
  const text = await response.text();
  let body: FuzzAnswer['body'];
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: response.status, headers: response.headers, body, text };
}

/**
 * The tables whose every write a 4xx must not make: every table the API writes for a request,
 * idempotency records aside (they keep 4xx outcomes for replay by design).
 */
const CHECKED_TABLES = [
  'workspaces',
  'api_keys',
  'polls',
  'answers',
  'question_upvotes',
  'poll_voters',
  'poll_stats',
  'slide_tallies',
  'open_text_counts',
  'word_counts',
  'oauth_clients',
  'oauth_tokens',
  'sessions',
  'session_participants',
  'session_events',
];

/**
 * Tables no write to which says that a request changed the world: idempotency records, and the
 * webhook tables, which the delivery worker writes in the background (a change to an endpoint comes
 * from a request that succeeded, which `send` notes).
 */
const UNWATCHED_TABLES = [
  'idempotency_keys',
  'webhook_endpoints',
  'webhook_deliveries',
  'webhook_event_batches',
  'webhook_attempts',
];

/**
 * Triggers on every other table of the schema note each row inserted, deleted or changed (an update
 * that leaves the row as it was is no change), and each truncation, in `fuzz_writes`. A note is
 * written in the writer's transaction, so a write rolled back leaves none. Counting the notes is
 * exact and cheap; counting and summing the checked tables after each request scanned every one of
 * them, a cost that grew with every world (a third of the fuzz test's time).
 */
async function watchWrites(): Promise<void> {
  const db = t.server.deps.db;
  const { rows } = await sql<{ name: string }>`
    select tablename as name from pg_tables where schemaname = current_schema() order by tablename
  `.execute(db);
  const watched = rows
    .map((row) => row.name)
    .filter((name) => !UNWATCHED_TABLES.includes(name) && !name.startsWith('kysely_'));
  // Every checked table is watched: one renamed or dropped fails here, not silently.
  expect(watched).toEqual(expect.arrayContaining(CHECKED_TABLES));
  await sql`create table fuzz_writes (table_name text not null, operation text not null)`.execute(db);
  await sql`
    create function fuzz_note_write() returns trigger language plpgsql as $$
    begin
      if tg_op = 'UPDATE' and old::text = new::text then
        return null;
      end if;
      insert into fuzz_writes (table_name, operation) values (tg_table_name, tg_op);
      return null;
    end
    $$
  `.execute(db);
  for (const table of watched) {
    await sql`create trigger fuzz_note_rows after insert or update or delete on ${sql.table(table)} for each row execute function fuzz_note_write()`.execute(
      db,
    );
    await sql`create trigger fuzz_note_truncate after truncate on ${sql.table(table)} for each statement execute function fuzz_note_write()`.execute(
      db,
    );
  }
}

/** The committed writes noted so far, by table, and the last ones taken (for a failure message). */
const writes = new Map<string, number>();
export let lastWrites = '';

/** Takes the notes committed since the last call (all of them: none is left for the next). */
async function takeWrites(): Promise<void> {
  const { rows } = await sql<{ table_name: string; operation: string; n: number }>`
    with taken as (delete from fuzz_writes returning table_name, operation)
    select table_name, operation, count(*)::int as n from taken group by table_name, operation
  `.execute(t.server.deps.db);
  if (rows.length === 0) return;
  for (const row of rows) writes.set(row.table_name, (writes.get(row.table_name) ?? 0) + Number(row.n));
  lastWrites = rows.map((row) => `${row.operation} ${row.table_name} x${row.n}`).join(', ');
}

function mediaFiles(): number {
  try {
    return readdirSync(join(t.server.deps.config.DATA_DIR, 'media')).length;
  } catch {
    return 0;
  }
}

/** What a 4xx must leave as it was: the writes to each checked table so far, and the media files. */
export async function storedState(): Promise<string> {
  await takeWrites();
  return JSON.stringify({
    ...Object.fromEntries(CHECKED_TABLES.map((name) => [name, writes.get(name) ?? 0])),
    media: mediaFiles(),
  });
}

/** Whether `workspaces` is the one table whose writes differ between two stored states. */
export function onlyWorkspacesChanged(before: string, after: string): boolean {
  const was: Record<string, number> = JSON.parse(before);
  const is: Record<string, number> = JSON.parse(after);
  return Object.keys(is).every((name) => name === 'workspaces' || is[name] === was[name]);
}

/** Every write so far to a watched table, and the media files: the mark of a world as it was made. */
export async function allWrites(): Promise<string> {
  await takeWrites();
  return `${[...writes.values()].reduce((sum, n) => sum + n, 0)} ${mediaFiles()}`;
}

function isErrorCode(code: unknown): code is ErrorCode {
  return (errorCodeList as readonly unknown[]).includes(code);
}

/** The parts of the OpenAPI document the checks read: each operation's error codes by status. */
interface OpenApiDocument {
  paths: Record<string, Record<string, { responses: Record<string, OpenApiResponse | undefined> }>>;
}

interface OpenApiResponse {
  content?: Record<
    string,
    { schema?: { allOf?: { properties?: { error?: { properties?: { code?: { enum?: string[] } } } } }[] } }
  >;
}

/** The codes the served document lists for `route` answering `status` (none for a status it does not list). */
function documentedCodes(route: RouteDefinition, status: number): string[] {
  const response = openApi.paths[route.path]?.[route.method.toLowerCase()]?.responses[String(status)];
  const schema = response?.content?.['application/json']?.schema;
  return schema?.allOf?.flatMap((part) => part.properties?.error?.properties?.code?.enum ?? []) ?? [];
}

/**
 * Path parameters with no fixed form: any text names something (a respondent is whatever voter id or
 * respondentId the customer chose), so a "broken" one — `123`, `__proto__` — is a valid id that names
 * nobody, answered like any other.
 */
const FREE_FORM_PATH_PARAMS = new Set(['/respondents/{id} id']);

/** What is wrong with a response to a hostile variant, or undefined. */
export function problemWith(res: FuzzAnswer, variant: Variant, route: RouteDefinition): string | undefined {
  if (res.status >= 500) return `${res.status}: ${res.text.slice(0, 200)}`;
  if (!res.headers.get('x-ratelimit-limit')) return 'no X-RateLimit-Limit header';
  if (
    variant.field !== undefined &&
    pathParams(route.path).includes(variant.field) &&
    !FREE_FORM_PATH_PARAMS.has(`${route.path} ${variant.field}`)
  ) {
    if (res.status !== 404 || res.body?.error?.code !== 'not_found')
      return `a broken path parameter answered ${res.status}`;
  }
  if (res.status < 400) return undefined;
  if (!/^application\/json/.test(res.headers.get('content-type') ?? ''))
    return `content-type ${res.headers.get('content-type')}`;
  if (!res.body?.error || Object.keys(res.body).join() !== 'error') {
    return `not the envelope: ${res.text.slice(0, 200)}`;
  }
  const error = res.body.error;
  if (!isErrorCode(error.code)) return `unregistered code ${error.code}`;
  if (statusOf(error.code) !== res.status) return `code ${error.code} with status ${res.status}`;
  if (!documentedCodes(route, res.status).includes(error.code)) {
    return `code ${error.code} (${res.status}) is not in the document's list for this operation`;
  }
  if (typeof error.message !== 'string' || error.message.length === 0) return 'no message';
  if (Object.keys(error).some((key) => !['code', 'message', 'details'].includes(key))) return 'extra keys in error';
  if (error.code === 'validation_failed') {
    const { fieldErrors, formErrors } = error.details ?? {};
    if (typeof fieldErrors !== 'object' || !Array.isArray(formErrors)) return 'validation_failed without details';
    if (Object.keys(fieldErrors).length === 0 && formErrors.length === 0) return 'validation_failed naming nothing';
  }
  return undefined;
}
