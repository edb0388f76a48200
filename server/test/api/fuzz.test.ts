import { readdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import {
  contract,
  errorCodeList,
  inputInQuery,
  operationId,
  pathParams,
  type RouteDefinition,
  statusOf,
} from '@pollkit/contracts';
import { sql } from 'kysely';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hostileVariants, type Variant } from '../support/hostile-variants.js';
import { call, type JsonResponse } from '../support/http.js';
import { sampleContent } from '../support/polls.js';
import { sampleOf } from '../support/schemas.js';
import { startTestServer, type TestServer } from '../support/server.js';

/**
 * A generated fuzz test over the whole contract. For every operation it takes a valid input — built
 * from the route's input schema (schemas.ts `sampleOf`), or for the few whose cross-field rules a
 * generic sample cannot meet, from `seeds` below — checks that the input is accepted, then sends
 * every hostile variant of it (support/hostile-variants.ts) and asserts:
 *
 * - no 5xx, ever;
 * - every error is the envelope: JSON, `{ error: { code, message, details? } }`, a registered code
 *   whose status is the response's, `details` with field and form errors on `validation_failed`;
 * - every error's code is one the served OpenAPI document lists for that operation and status;
 * - a variant that breaks a path parameter is 404 `not_found`;
 * - nothing is stored on a 4xx: every table the API writes (idempotency records aside, which keep
 *   4xx outcomes for replay by design) and the media folder are as they were.
 *
 * A route added to the contract is fuzzed by this file without a line added here, unless a generic
 * sample of its input is refused — then the test says so and asks for a seed.
 */

/** Valid inputs for the operations whose rules span fields (unique ids, the slide an answer fits). */
const seeds: Record<string, (world: World) => Record<string, unknown>[]> = {
  pollsCreate: () => {
    const content = sampleContent();
    const first = content.questions[0] as { options: { media?: unknown }[] };
    (first.options[0] as { media?: unknown }).media = { type: 'link', url: 'https://example.com/menu' };
    return [{ title: 'Fuzzed poll', content }];
  },
  pollsUpdate: (world) => [
    { id: world.pollId, title: 'Renamed' },
    { id: world.pollId, closed: true },
  ],
  pollsBranch: (world) => [{ id: world.pollId, instruction: 'If Q1 is "Pizza", skip to Q3' }],
  pollsImport: () => [
    { format: 'gift', source: '::Lunch:: Where shall we eat? {=Pizza ~Sushi}\n\nAnything else? {}\n' },
    { format: 'aiken', source: 'Capital of France?\nA) Paris\nB) Lyon\nANSWER: A\n', dryRun: true },
  ],
  pollsNextSlide: (world) => [{ id: world.pollId, voterId: 'fuzz-voter', afterSlideId: 'lunch' }],
  votesCast: (world) => [{ id: world.pollId, voterId: 'fuzz-voter', slideId: 'lunch', optionIds: ['pizza'] }],
  responsesCreate: (world) => [
    { id: world.pollId, voterId: 'fuzz-voter', slideId: 'words', text: 'hello' },
    { id: world.pollId, voterId: 'fuzz-voter', slideId: 'mood', scaleValues: { work: 4 } },
    { id: world.pollId, voterId: 'fuzz-voter', slideId: 'rank', rankingOrder: ['b', 'a', 'c'] },
    { id: world.pollId, voterId: 'fuzz-voter', slideId: 'capital', optionIds: ['paris'] },
    { id: world.pollId, voterId: 'fuzz-voter', slideId: 'ask', text: 'Why?' },
  ],
  // The world's session is on its Q&A slide (`ask`), so questions are answers and upvotes apply.
  sessionsControl: (world) => [
    { id: world.sessionId, action: 'showResults' },
    { id: world.sessionId, action: 'goto', slideIndex: 1 },
  ],
  // A URL the server can reach (the image host answers 200 to anything): allowed under the file's settings.
  webhooksCreate: () => [{ url: imageUrl, events: ['vote.created', 'poll.closed'], description: 'Fuzzed endpoint' }],
  webhooksUpdate: (world) => [
    { id: world.webhookId, description: 'Renamed', events: ['*'] },
    { id: world.webhookId, status: 'disabled' },
  ],
  sessionsRemoveParticipant: (world) => [{ id: world.sessionId, participantId: world.participantId }],
  liveJoin: (world) => [{ pin: world.pin, name: 'Fuzzer' }],
  liveAnswer: (world) => [{ pin: world.pin, slideId: 'ask', text: 'Why?' }],
  liveUpvote: (world) => [{ pin: world.pin, questionId: world.questionId }],
  // The world's self-paced session, joined by its link: its participant stands on the first slide.
  liveAdvance: (world) => [{ pin: world.walkLink, slideId: 'lunch' }],
  // One answer of the world's poll each: a vote, and its Q&A question (deleted with its upvotes).
  votesDelete: (world) => [{ id: world.pollId, voteId: world.voteId }],
  responsesDelete: (world) => [{ id: world.pollId, responseId: world.questionId }],
  // The world's question is a text the filter moderates, asked in the world's session.
  responsesModerate: (world) => [{ id: world.pollId, responseId: world.questionId, status: 'approved' }],
  sessionsModerateResponse: (world) => [{ id: world.sessionId, responseId: world.questionId, status: 'approved' }],
  // A theme's colours must pass the contrast rules, and its logo comes from the image host.
  themesCreate: () => [
    {
      name: 'Fuzzed theme',
      colors: { primary: '#1d4ed8', background: '#ffffff', text: '#111827' },
      logo: { url: imageUrl, alt: 'Fuzz' },
      font: 'serif',
    },
  ],
  themesGet: (world) => [{ id: world.themeId }],
  themesUpdate: (world) => [
    { id: world.themeId, name: 'Renamed', colors: { primary: '#60a5fa', background: '#101418', text: '#f0f0f0' } },
  ],
  themesDelete: (world) => [{ id: world.themeId }],
  workspaceUpdate: (world) => [
    { language: 'de-AT', embedOrigins: ['https://events.example.com'], themeId: world.themeId },
    { blockedTerms: ['project bluebird'], allowedTerms: ['Scunthorpe'] },
  ],
  sessionsUpdate: (world) => [
    { id: world.sessionId, joinsLocked: false },
    { id: world.sessionId, closesAt: '2999-01-01T00:00:00.000Z' },
  ],
};

/** What path parameters and ids can name: one of each resource, made afresh after any 2xx. */
interface World {
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
let imageUrl: string;
let world: World;
/** The ids of the world the variants were derived from, replaced by the current world's when sent. */
let firstWorld: World;
/** The served OpenAPI document: its error responses are what the fuzzed answers must keep to. */
let openApi: OpenApiDocument;
/** `allWrites` when the current world was made. */
let worldMark = '';
/** Whether a write (any method but GET) has succeeded since the current world was made. */
let worldUsed = false;

beforeAll(async () => {
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
  const served = await call('GET', `${t.api}/openapi.json`);
  expect(served.status).toBe(200);
  openApi = served.body;
});

afterAll(async () => {
  await t?.close();
  await new Promise((resolve) => imageHost?.close(resolve));
});

async function newWorld(apiKey?: string): Promise<World> {
  const key = apiKey ?? (await t.workspace('enterprise', { rateLimitPerMinute: 1_000_000 })).apiKey;
  const ok = async (res: Promise<JsonResponse>) => {
    const done = await res;
    expect(done.status, done.text).toBeLessThan(300);
    return done.body;
  };
  const poll = await ok(
    call('POST', `${t.api}/polls`, { apiKey: key, body: { title: 'World', content: sampleContent() } }),
  );
  await ok(call('PATCH', `${t.api}/polls/${poll.id}`, { apiKey: key, body: { publish: true } }));
  const vote = await ok(
    call('POST', `${t.api}/polls/${poll.id}/votes`, {
      apiKey: key,
      body: { voterId: 'world', slideId: 'lunch', optionIds: ['pizza'] },
    }),
  );
  const created = await ok(call('POST', `${t.api}/keys`, { apiKey: key, body: { name: 'fuzz target' } }));
  const session = await ok(call('POST', `${t.api}/sessions`, { apiKey: key, body: { pollId: poll.id } }));
  await ok(call('POST', `${t.api}/sessions/${session.id}/control`, { apiKey: key, body: { action: 'start' } }));
  await ok(
    call('POST', `${t.api}/sessions/${session.id}/control`, {
      apiKey: key,
      body: { action: 'goto', slideIndex: 5 },
    }),
  );
  const joined = await ok(call('POST', `${t.api}/live/${session.pin}/join`, { body: { name: 'World' } }));
  // The world's question is asked in its session (a room's routes see only the questions asked in it).
  const asker = await ok(call('POST', `${t.api}/live/${session.pin}/join`, { body: { name: 'Asker' } }));
  const question = await ok(
    call('POST', `${t.api}/live/${session.pin}/answers`, {
      body: { slideId: 'ask', text: 'Is this the world?' },
      headers: { 'x-participant-token': asker.participantToken },
    }),
  );
  await ok(
    call('PATCH', `${t.api}/polls/${poll.id}/questions/${question.id}`, { apiKey: key, body: { status: 'approved' } }),
  );
  const walk = await ok(
    call('POST', `${t.api}/sessions`, { apiKey: key, body: { pollId: poll.id, pace: 'audience', pin: false } }),
  );
  await ok(call('POST', `${t.api}/sessions/${walk.id}/control`, { apiKey: key, body: { action: 'start' } }));
  const walkLink = String(walk.joinUrl).split('/').pop() as string;
  const walker = await ok(call('POST', `${t.api}/live/${walkLink}/join`, { body: { name: 'Walker' } }));
  // A workspace holds at most 20 endpoints, and worlds are remade in the same workspace: start afresh.
  const endpoints = await ok(call('GET', `${t.api}/webhooks?limit=100`, { apiKey: key }));
  for (const old of endpoints.data as { id: string }[]) {
    await ok(call('DELETE', `${t.api}/webhooks/${old.id}`, { apiKey: key }));
  }
  const endpoint = await ok(call('POST', `${t.api}/webhooks`, { apiKey: key, body: { url: imageUrl } }));
  const delivery = await ok(call('POST', `${t.api}/webhooks/${endpoint.id}/test`, { apiKey: key }));
  const theme = await ok(
    call('POST', `${t.api}/themes`, {
      apiKey: key,
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
    pin: session.pin,
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
function sampleStrings(current: World): string[] {
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

async function send(route: RouteDefinition, input: Record<string, unknown>): Promise<JsonResponse> {
  const request = requestOf(route, bind(input) as Record<string, unknown>);
  const res = await sendRequest(route, request);
  // A write that succeeded may have changed what the tables watched do not show (a webhook endpoint).
  if (res.status < 400 && route.method !== 'GET') worldUsed = true;
  return res;
}

async function sendRequest(route: RouteDefinition, request: ReturnType<typeof requestOf>): Promise<JsonResponse> {
  // Participants hold no API key: the PIN and their token are their way in.
  const participant = route.auth === 'participant';
  // `advance` is a self-paced session's: its participant's token goes with it.
  const token = route.path.endsWith('/advance') ? world.walkToken : world.participantToken;
  const headers: Record<string, string> = participant ? { 'x-participant-token': token } : {};
  if (request.rawBody !== undefined) headers['content-type'] = 'application/json';
  if (route.format === 'sse')
    return openStream(request.url, participant ? headers : { ...headers, authorization: `Bearer ${world.apiKey}` });
  return call(request.method, request.url, {
    ...(participant ? {} : { apiKey: world.apiKey }),
    headers,
    ...(request.rawBody === undefined ? {} : { rawBody: request.rawBody }),
  });
}

/** An event stream never ends by itself: a 200 is its head; an error is read whole. */
async function openStream(url: string, headers: Record<string, string>): Promise<JsonResponse> {
  const controller = new AbortController();
  const response = await fetch(url, { headers, signal: controller.signal });
  if (response.status === 200) {
    controller.abort();
    return { status: 200, headers: response.headers, body: undefined, text: '' };
  }
  const text = await response.text();
  let body: unknown;
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
 * them, a cost that grew with every world (a third of this file's time).
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
let lastWrites = '';

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
async function storedState(): Promise<string> {
  await takeWrites();
  return JSON.stringify({
    ...Object.fromEntries(CHECKED_TABLES.map((name) => [name, writes.get(name) ?? 0])),
    media: mediaFiles(),
  });
}

/** Whether `workspaces` is the one table whose writes differ between two stored states. */
function onlyWorkspacesChanged(before: string, after: string): boolean {
  const was: Record<string, number> = JSON.parse(before);
  const is: Record<string, number> = JSON.parse(after);
  return Object.keys(is).every((name) => name === 'workspaces' || is[name] === was[name]);
}

/** Every write so far to a watched table, and the media files: the mark of a world as it was made. */
async function allWrites(): Promise<string> {
  await takeWrites();
  return `${[...writes.values()].reduce((sum, n) => sum + n, 0)} ${mediaFiles()}`;
}

/** The parts of the OpenAPI document this file reads: each operation's error codes by status. */
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
function problemWith(res: JsonResponse, variant: Variant, route: RouteDefinition): string | undefined {
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
  const error = res.body?.error;
  if (!error || Object.keys(res.body).join() !== 'error') return `not the envelope: ${res.text.slice(0, 200)}`;
  if (!(errorCodeList as readonly string[]).includes(error.code)) return `unregistered code ${error.code}`;
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

const operations = Object.entries(contract).flatMap(([group, routes]) =>
  Object.entries(routes).map(([name, route]) => ({ id: operationId(group, name), route: route as RouteDefinition })),
);

describe('fuzz: hostile variants of a valid input, for every operation of the contract', () => {
  const totals = { requests: 0, rejected: 0 };

  it.each(operations)(
    '$id',
    async ({ id, route }) => {
      const bases = seeds[id]?.(firstWorld) ?? [sampleOf(route.input, sampleStrings(firstWorld))];
      const inUrl = (field: string) => pathParams(route.path).includes(field) || inputInQuery(route.method);
      const problems: string[] = [];
      for (const base of bases) {
        // A generic sample the route refuses: give the operation a seed above.
        expect(base, `${id}: no valid sample input; add a seed`).toBeDefined();
        const accepted = await send(route, base as Record<string, unknown>);
        expect(accepted.status, `${id}: its valid input was refused: ${accepted.text}`).toBeLessThan(300);
        // The variants meet a world as made: a fresh one, unless the current one is still as it was
        // made (nothing written since, and no write succeeded: a read on a world only read since).
        if (worldUsed || (await allWrites()) !== worldMark) world = await newWorld(world.apiKey);

        const variants = hostileVariants(base as Record<string, unknown>, route.input, { inUrl });
        expect(variants.length).toBeGreaterThan(10);
        let before = await storedState();
        for (const variant of variants) {
          const res = await send(route, variant.input);
          totals.requests += 1;
          const problem = problemWith(res, variant, route);
          if (problem) problems.push(`${variant.label} -> ${problem}`);
          if (res.status >= 400) {
            totals.rejected += 1;
            const after = await storedState();
            if (after !== before)
              problems.push(`${variant.label} -> ${res.status} but stored: ${before} -> ${after} (${lastWrites})`);
          } else {
            // A hostile-looking input that is still valid (a title named `constructor`) may have been
            // stored: then a fresh world, so the next variant meets the same state as the first did. A
            // read, or a delete that found nothing (any text names a respondent, or nobody), changed
            // nothing and keeps the world — making one costs a dozen requests.
            // A create (201) leaves the world as it was, one thing more: the stored state becomes the
            // baseline (a later variant may then meet a 409, still an answer in the envelope). So does
            // a write to the workspace alone (its settings): a fresh world is made in the same
            // workspace and could not undo it.
            const after = await storedState();
            if (after !== before && (route.successStatus === 201 || onlyWorkspacesChanged(before, after)))
              before = after;
            else if (after !== before) {
              world = await newWorld(world.apiKey);
              before = await storedState();
            }
          }
          // Routes with a limit of their own (POST /media: 30 a minute) move to a fresh workspace.
          if (Number(res.headers.get('x-ratelimit-remaining') ?? 100) < 3) {
            world = await newWorld();
            before = await storedState();
          }
        }
      }
      expect(problems).toEqual([]);
    },
    // Hundreds of requests per operation: 'pollsCreate' ran past 240 s on a busy 2-core machine.
    600_000,
  );

  it('sent thousands of hostile requests', () => {
    // Guards against a walk that silently stops deriving variants.
    expect(totals.requests).toBeGreaterThan(2000);
    expect(totals.rejected).toBeGreaterThan(totals.requests * 0.8);
  });
});
