import { readFile } from 'node:fs/promises';
import {
  contract,
  type ErrorEnvelope,
  errorCodes,
  operationId,
  pathParams,
  type RouteDefinition,
  type RouteHead,
  requiredScopes,
  routeTable,
  scopes,
} from '@pollkit/contracts';
import { Validator } from '@seriousme/openapi-schema-validator';
import { type Document, OpenAPIBackend, SetMatchType } from 'openapi-backend';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPENAPI_JSON_PATH, STALE_MESSAGE } from '../../../docs/scripts/contract-artifacts.js';
import { ROUTE_TABLE_PATH, routeTableSource } from '../../../docs/scripts/route-table.js';
import { createClient, enableOAuth } from '../../src/modules/oauth/oauth.service.js';
import { openApiJson, servedOpenApiDocument } from '../../src/openapi/document.js';
import { sampleContent } from '../support/decks.js';
import { type HttpResponse, type LooseJson, rawCall } from '../support/http.js';
import type { OAuthToken } from '../support/oauth.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { errorDetails, expectOk, expectStatus, testClient } from '../support/test-client.js';

type Json = LooseJson;

let t: TestServer;
const apiClient = testClient(() => t.api);
let apiKey: string;
/** The document as the running server serves it. */
let served: Json;
/** openapi-backend over the served document: it validates real responses against their operation. */
let api: OpenAPIBackend;

beforeAll(async () => {
  t = await startTestServer();
  ({ apiKey } = await t.workspace('pro'));
  const res = await rawCall<Json>('GET', `${t.api}/openapi.json`);
  expect(res.status).toBe(200);
  served = res.body;
  // `quick` skips openapi-backend's own definition check, which knows only OpenAPI 3.0 (it rejects
  // `const`); the first test validates the document as 3.1. It dereferences in place: give it a copy.
  api = new OpenAPIBackend({
    definition: structuredClone(served) as Document,
    quick: true,
    strict: true,
    customizeAjv: (ajv) => ajv.addFormat('date-time', isDateTime).addFormat('uri', URL.canParse),
  });
  await api.init();
});
afterAll(() => t?.close());

/** openapi-backend's Ajv knows no `date-time` or `uri`; without these it would skip (and warn about) both. */
function isDateTime(value: string): boolean {
  return (
    /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(value) && !Number.isNaN(Date.parse(value))
  );
}

const routes = Object.entries(contract).flatMap(([group, members]) =>
  Object.entries(members).map(([name, route]) => ({ id: operationId(group, name), route: route as RouteDefinition })),
);

/** Follows a local JSON pointer (`#/components/schemas/Poll`) through the document. */
function resolvePointer(document: Json, ref: string): unknown {
  if (!ref.startsWith('#/')) return undefined;
  return ref
    .slice(2)
    .split('/')
    .map((part) => part.replaceAll('~1', '/').replaceAll('~0', '~'))
    .reduce<unknown>((node, key) => (node && typeof node === 'object' ? (node as Json)[key] : undefined), document);
}

function collectRefs(node: unknown, into: string[] = []): string[] {
  if (Array.isArray(node)) {
    for (const item of node) collectRefs(item, into);
  } else if (node && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string') into.push(value);
      else collectRefs(value, into);
    }
  }
  return into;
}

function operationOf(id: string): Json {
  const operation = api.getOperation(id);
  if (!operation) throw new Error(`The document has no operation ${id}`);
  return operation as Json;
}

/**
 * Fails unless `res` is a response the document promises for `id`: a documented status, a body
 * matching that status's schema, and headers matching theirs. `allHeaders` also requires every
 * documented header, not only the `required` ones (authenticated responses carry them all).
 */
function expectDocumented(id: string, res: HttpResponse, { allHeaders = false } = {}) {
  const label = `${id} ${res.status}`;
  const documented = Object.keys(operationOf(id).responses);
  expect(documented, `${label}: status not in the document`).toContain(String(res.status));

  const body = api.validateResponse(res.body, id, res.status);
  expect(body.errors ?? [], `${label}: body`).toEqual([]);

  const headers = Object.fromEntries(res.headers);
  const matched = api.validateResponseHeaders(headers, id, {
    statusCode: res.status,
    setMatchType: allHeaders ? SetMatchType.Superset : SetMatchType.Any,
  });
  expect(matched.errors ?? [], `${label}: headers`).toEqual([]);

  // openapi-backend ignores a header's `required`; check those by hand (its definition is dereferenced).
  const documentedHeaders: Json = operationOf(id).responses[String(res.status)].headers ?? {};
  for (const [name, header] of Object.entries<Json>(documentedHeaders)) {
    if (header.required) expect(headers, `${label}: header ${name}`).toHaveProperty(name.toLowerCase());
  }
}

describe('the OpenAPI document', () => {
  it('is a valid OpenAPI 3.1 document whose every $ref resolves', async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(served));
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');

    const refs = collectRefs(served);
    expect(refs.length).toBeGreaterThan(0);
    expect(refs.filter((ref) => resolvePointer(served, ref) === undefined)).toEqual([]);
  });

  it('is what docs/openapi.json holds', async () => {
    const committed = await readFile(OPENAPI_JSON_PATH, 'utf8').catch(() => '');
    const generated = openApiJson();
    expect(committed === generated, STALE_MESSAGE).toBe(true);
    expect(served, 'the server serves the generated document').toEqual(
      servedOpenApiDocument(t.url, JSON.parse(generated)),
    );
  });

  it('names the server it is served by in `servers`; docs/openapi.json keeps relative ones', () => {
    // No PUBLIC_BASE_URL here: the bound address (the entry-point test sets PUBLIC_BASE_URL).
    expect(served.servers).toEqual([{ url: `${t.url}/api/v1` }]);
    expect(served.paths['/oauth/token'].servers).toEqual([expect.objectContaining({ url: `${t.url}/api` })]);
    const committed = JSON.parse(openApiJson());
    expect(committed.servers).toEqual([{ url: '/api/v1' }]);
    expect(committed.paths['/oauth/token'].servers).toEqual([expect.objectContaining({ url: '/api' })]);
    expect(servedOpenApiDocument('https://polls.example.com/', committed).servers).toEqual([
      { url: 'https://polls.example.com/api/v1' },
    ]);
  });

  it('names the error envelope and validation details once, as output schemas', () => {
    const schemas: Json = served.components.schemas;
    expect(schemas.ErrorEnvelope).toMatchObject({
      type: 'object',
      required: ['error'],
      properties: {
        error: {
          required: ['code', 'message'],
          properties: { code: { enum: Object.keys(errorCodes) } },
        },
      },
    });
    expect(collectRefs(schemas.ErrorEnvelope)).toContain('#/components/schemas/ValidationErrorDetails');
    expect(schemas.ValidationErrorDetails).toMatchObject({ required: ['fieldErrors', 'formErrors'] });
    expect(Object.keys(schemas).filter((name) => name.startsWith('ValidationErrorDetails'))).toEqual([
      'ValidationErrorDetails',
    ]);
  });

  it('describes every contract route with its id, summary, tags, security, statuses and headers', () => {
    for (const { id, route } of routes) {
      const operation = served.paths[route.path]?.[route.method.toLowerCase()];
      expect(operation, id).toBeDefined();
      expect(operation).toMatchObject({ operationId: id, summary: route.summary, tags: [...route.tags] });
      // A route without a scope takes any OAuth token, one with several a token holding them all; host
      // routes also the session's host token; participant routes no workspace credential at all.
      const workspace = [{ ApiKey: [] }, { OAuth2: requiredScopes(route) }];
      const security = {
        workspace,
        host: [...workspace, { HostToken: [] }],
        participant: route.errors.includes('missing_authorization')
          ? [{ ParticipantToken: [] }]
          : [{}, { ParticipantToken: [] }],
        none: [],
      }[route.auth];
      expect(operation.security, id).toEqual(security);
      const authCodes =
        route.auth === 'participant'
          ? (['rate_limited'] as const)
          : ([
              'missing_authorization',
              'invalid_oauth_token',
              ...(route.scope ? (['insufficient_scope'] as const) : []),
              'rate_limited',
              ...(route.auth === 'host' ? (['invalid_host_token'] as const) : []),
            ] as const);

      const statuses = Object.keys(operation.responses);
      expect(statuses, id).toContain(String(route.successStatus));
      if (route.successStatus !== 200 && route.alternateSuccess?.status !== 200)
        expect(statuses, id).not.toContain('200');
      for (const code of [...route.errors, ...authCodes]) {
        const response = operation.responses[String(errorCodes[code].status)];
        expect(response, `${id} ${code}`).toBeDefined();
        expect(response.content['application/json'].schema.allOf[1].properties.error.properties.code.enum).toContain(
          code,
        );
      }
      for (const [status, response] of Object.entries<Json>(operation.responses)) {
        expect(Object.keys(response.headers ?? {}), `${id} ${status}`).toEqual(
          expect.arrayContaining([
            'X-RateLimit-Limit',
            'X-RateLimit-Window',
            'X-RateLimit-Remaining',
            'X-RateLimit-Reset',
          ]),
        );
      }

      const outputId = route.output.meta()?.id;
      const firstFile = Object.values(route.files ?? {})[0]?.contentType.split(';')[0];
      const mediaType = {
        json: 'application/json',
        file: firstFile ?? 'application/octet-stream',
        svg: 'image/svg+xml',
        sse: 'text/event-stream',
      }[route.format ?? 'json'];
      const success = operation.responses[String(route.successStatus)].content[mediaType];
      expect(success, `${id} ${mediaType}`).toBeDefined();
      // An event stream's events are its output schema (a union discriminated by `type`).
      if (outputId && (route.format ?? 'json') !== 'file') {
        expect(success.schema).toEqual({ $ref: `#/components/schemas/${outputId}` });
      }
      for (const parameter of operation.parameters ?? []) {
        expect(parameter.description, `${id} ${parameter.in} ${parameter.name}`).toEqual(expect.any(String));
      }
      const inPath = (operation.parameters ?? []).filter((p: Json) => p.in === 'path');
      expect(inPath.map((p: Json) => p.name).sort(), id).toEqual(pathParams(route.path).sort());
      expect(
        inPath.every((p: Json) => p.required === true),
        id,
      ).toBe(true);
    }
  });

  it('documents the list filters and the named request body', () => {
    const list = served.paths['/polls'].get;
    expect(list.parameters.map((p: Json) => [p.in, p.name])).toEqual([
      ['query', 'limit'],
      ['query', 'cursor'],
      ['query', 'status'],
    ]);
    expect(served.paths['/polls'].post.requestBody.content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/CreatePollInput',
    });
    expect(served.components.schemas.CreatePollInput.required).toEqual(['title']);
  });

  it('has the bearer API key and the OAuth2 client-credentials scheme with every scope', () => {
    const schemes: Json = served.components.securitySchemes;
    expect(schemes.ApiKey).toMatchObject({ type: 'http', scheme: 'bearer' });
    const flow = schemes.OAuth2.flows.clientCredentials;
    expect(schemes.OAuth2.type).toBe('oauth2');
    expect(flow.tokenUrl).toBe('/api/oauth/token');
    expect(Object.keys(flow.scopes)).toEqual([...scopes]);
    for (const scope of scopes) expect(flow.scopes[scope], scope).toMatch(/\S/);
  });

  it('describes POST /api/oauth/token: form and JSON bodies, RFC 6749 errors, no-store', () => {
    const pathItem = served.paths['/oauth/token'];
    expect(pathItem.servers).toEqual([expect.objectContaining({ url: `${t.url}/api` })]);
    const operation = pathItem.post;
    expect(operation.operationId).toBe('oauthToken');
    expect(Object.keys(operation.requestBody.content).sort()).toEqual([
      'application/json',
      'application/x-www-form-urlencoded',
    ]);
    expect(Object.keys(operation.responses)).toEqual(['200', '400', '401', '429', '500', '503']);
    expect(operation.responses['200'].headers['Cache-Control'].schema.const).toBe('no-store');
    expect(operation.responses['401'].headers).toHaveProperty('WWW-Authenticate');
    expect(served.components.schemas.OAuthError.required).toEqual(['error', 'error_description']);
  });

  it('describes GET /openapi.json itself, with no credential', () => {
    const operation = served.paths['/openapi.json'].get;
    expect(operation).toMatchObject({ operationId: 'openapiDocument', security: [] });
  });
});

describe('the schema-free route table, contracts/src/route-table.ts', () => {
  it('is what the contract generates', async () => {
    const committed = await readFile(ROUTE_TABLE_PATH, 'utf8').catch(() => '');
    expect(
      committed === routeTableSource(),
      'contracts/src/route-table.ts is stale: run `npx -y pnpm@10 generate` and commit the result.',
    ).toBe(true);
  });

  it("holds every operation of the contract, each with the route's method, path, success status, auth and format", () => {
    const table: Record<string, Record<string, RouteHead>> = routeTable;
    expect(Object.keys(table)).toEqual(Object.keys(contract));
    for (const [group, members] of Object.entries(contract)) {
      expect(Object.keys(table[group] ?? {}), group).toEqual(Object.keys(members));
      for (const [name, route] of Object.entries<RouteDefinition>(members)) {
        const { method, path, successStatus, auth, format } = route;
        const head =
          format === undefined ? { method, path, successStatus, auth } : { method, path, successStatus, auth, format };
        // Nothing more: no schema, so that a client importing the table imports no zod.
        expect(table[group]?.[name], `${group}.${name}`).toStrictEqual(head);
      }
    }
  });
});

describe('real responses match the document', () => {
  const createBody = () => ({ title: 'Contract check', content: sampleContent() });

  it('create, get, list, publish and delete', async () => {
    const created = await apiClient.request('POST /polls', { apiKey, body: createBody() });
    expectStatus(created, 201);
    expectDocumented('pollsCreate', created, { allHeaders: true });

    const got = await apiClient.request('GET /polls/{id}', { params: { id: created.body.id }, apiKey });
    expectStatus(got, 200);
    expectDocumented('pollsGet', got, { allHeaders: true });

    const listed = await apiClient.request('GET /polls', { query: { limit: 1 }, apiKey });
    expectStatus(listed, 200);
    expect(listed.body.data).toHaveLength(1);
    expectDocumented('pollsList', listed, { allHeaders: true });

    const published = await apiClient.request('PATCH /polls/{id}', {
      params: { id: created.body.id },
      apiKey,
      body: { publish: true },
    });
    expectStatus(published, 200);
    expect(published.body.status).toBe('published');
    expectDocumented('pollsUpdate', published, { allHeaders: true });

    const deleted = await apiClient.request('DELETE /polls/{id}', { params: { id: created.body.id }, apiKey });
    expectStatus(deleted, 200);
    expectDocumented('pollsDelete', deleted, { allHeaders: true });
  });

  it("the caller's workspace, a key rotation and a reset of a poll's answers", async () => {
    const workspace = await apiClient.request('GET /workspace', { apiKey });
    expectStatus(workspace, 200);
    expectDocumented('workspaceGet', workspace, { allHeaders: true });

    const key = await apiClient.request('POST /keys', { apiKey, body: { name: 'doc' } });
    expectStatus(key, 201);
    const rotated = await apiClient.request('POST /keys/{id}/rotate', {
      params: { id: key.body.id },
      apiKey,
      body: {},
    });
    expectStatus(rotated, 201);
    expectDocumented('keysRotate', rotated, { allHeaders: true });

    const poll = await apiClient.request('POST /polls', { apiKey, body: createBody() });
    expectStatus(poll, 201);
    await apiClient.request('PATCH /polls/{id}', { params: { id: poll.body.id }, apiKey, body: { publish: true } });
    await apiClient.request('POST /polls/{id}/votes', {
      params: { id: poll.body.id },
      apiKey,
      body: { voterId: 'ada', slideId: 'lunch', optionIds: ['pizza'] },
    });
    const reset = await apiClient.request('DELETE /polls/{id}/answers', { params: { id: poll.body.id }, apiKey });
    expectStatus(reset, 200);
    expectDocumented('answersReset', reset, { allHeaders: true });
  });

  it("a presenter device's deck, question list and moderation, with the host token", async () => {
    const poll = await apiClient.request('POST /polls', { apiKey, body: createBody() });
    expectStatus(poll, 201);
    await apiClient.request('PATCH /polls/{id}', { params: { id: poll.body.id }, apiKey, body: { publish: true } });
    const session = await apiClient.request('POST /sessions', { apiKey, body: { pollId: poll.body.id } });
    expectStatus(session, 201);
    const asHost = { 'x-host-token': session.body.hostToken };
    const id = { id: session.body.id };
    // A question asked in the session (its routes see only those).
    const slides = expectOk(poll).content.questions.map((slide) => slide.id);
    await apiClient.request('POST /sessions/{id}/control', { params: id, apiKey, body: { action: 'start' } });
    await apiClient.request('POST /sessions/{id}/control', {
      params: id,
      apiKey,
      body: { action: 'goto', slideIndex: slides.indexOf('ask') },
    });
    const joined = await apiClient.request('POST /live/{pin}/join', {
      params: { pin: session.body.pin! },
      body: { name: 'Ada' },
    });
    expectStatus(joined, 200);
    const question = await apiClient.request('POST /live/{pin}/answers', {
      params: { pin: session.body.pin! },
      body: { slideId: 'ask', text: 'Documented?' },
      headers: { 'x-participant-token': joined.body.participantToken },
    });
    expectStatus(question, 201);

    const deck = await apiClient.request('GET /sessions/{id}/deck', { params: id, headers: asHost });
    expectStatus(deck, 200);
    expectDocumented('sessionsDeck', deck, { allHeaders: true });

    const listed = await apiClient.request('GET /sessions/{id}/questions', {
      params: id,
      query: { status: 'pending' },
      headers: asHost,
    });
    expectStatus(listed, 200);
    expect(listed.body.data).toHaveLength(1);
    expectDocumented('sessionsQuestions', listed, { allHeaders: true });

    const moderated = await apiClient.request('PATCH /sessions/{id}/questions/{questionId}', {
      params: { ...id, questionId: question.body.id },
      headers: asHost,
      body: { status: 'approved' },
    });
    expectStatus(moderated, 200);
    expectDocumented('sessionsModerateQuestion', moderated, { allHeaders: true });

    const results = await apiClient.request('GET /sessions/{id}/results', { params: id, headers: asHost });
    expectStatus(results, 200);
    expectDocumented('sessionsResults', results, { allHeaders: true });
    const reset = await apiClient.request('DELETE /sessions/{id}/answers', { params: id, apiKey });
    expectStatus(reset, 200);
    expectDocumented('sessionsResetAnswers', reset, { allHeaders: true });

    const wrongToken = await apiClient.request('GET /sessions/{id}/deck', {
      params: id,
      headers: { 'x-host-token': 'pht_wrong' },
    });
    expectStatus(wrongToken, 401);
    expectDocumented('sessionsDeck', wrongToken);
    const badStatus = await rawCall('PATCH', `${t.api}/sessions/${id.id}/questions/${question.body.id}`, {
      headers: asHost,
      body: { status: 'hidden' },
    });
    expect(badStatus.status).toBe(422);
    expectDocumented('sessionsModerateQuestion', badStatus);
    const unknown = await apiClient.request('PATCH /sessions/{id}/questions/{questionId}', {
      params: { ...id, questionId: 'rsp_01AAAAAAAAAAAAAAAAAAAAAAAA' },
      headers: asHost,
      body: { status: 'approved' },
    });
    expectStatus(unknown, 404);
    expectDocumented('sessionsModerateQuestion', unknown);
  });

  it('the document itself', async () => {
    const res = await rawCall('GET', `${t.api}/openapi.json`);
    expectDocumented('openapiDocument', res);
  });

  it('errors: 401, 402, 404, 409, 422, 400 and 415', async () => {
    const unauthenticated = await apiClient.request('GET /polls');
    expectStatus(unauthenticated, 401);
    expect(unauthenticated.body.error.code).toBe('missing_authorization');
    expectDocumented('pollsList', unauthenticated);

    const { apiKey: freeKey } = await t.workspace('free');
    const freePlan = await apiClient.request('GET /polls', { apiKey: freeKey });
    expectStatus(freePlan, 402);
    expectDocumented('pollsList', freePlan, { allHeaders: true });

    const missing = await apiClient.request('GET /polls/{id}', {
      params: { id: 'poll_01AAAAAAAAAAAAAAAAAAAAAAAA' },
      apiKey,
    });
    expectStatus(missing, 404);
    expect(missing.body.error.code).toBe('not_found');
    expectDocumented('pollsGet', missing, { allHeaders: true });

    const draft = await apiClient.request('POST /polls', { apiKey, body: createBody() });
    expectStatus(draft, 201);
    const closeDraft = await apiClient.request('PATCH /polls/{id}', {
      params: { id: draft.body.id },
      apiKey,
      body: { closed: true },
    });
    expectStatus(closeDraft, 409);
    expect(closeDraft.body.error.code).toBe('poll_not_published');
    expectDocumented('pollsUpdate', closeDraft, { allHeaders: true });

    const invalid = await rawCall<ErrorEnvelope>('POST', `${t.api}/polls`, { apiKey, body: { title: '', extra: 1 } });
    expect(invalid.status).toBe(422);
    expect(invalid.body.error.code).toBe('validation_failed');
    expect(errorDetails(invalid).fieldErrors).toHaveProperty('title');
    expectDocumented('pollsCreate', invalid, { allHeaders: true });

    const badQuery = await apiClient.request('GET /polls', { query: { limit: 0 }, apiKey });
    expectStatus(badQuery, 422);
    expectDocumented('pollsList', badQuery, { allHeaders: true });

    const malformed = await rawCall<ErrorEnvelope>('POST', `${t.api}/polls`, {
      apiKey,
      rawBody: '{"title":',
      headers: { 'content-type': 'application/json' },
    });
    expect(malformed.status).toBe(400);
    expect(malformed.body.error.code).toBe('invalid_json');
    expectDocumented('pollsCreate', malformed);

    const notJson = await rawCall('POST', `${t.api}/polls`, {
      apiKey,
      rawBody: 'title=x',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(notJson.status).toBe(415);
    expectDocumented('pollsCreate', notJson);
  });

  it('OAuth: the token endpoint, its errors, and a token outside its scope or unknown', async () => {
    const { id: workspaceId } = await t.workspace('enterprise');
    await enableOAuth(t.server.deps.db, workspaceId);
    const { client, secret } = await createClient(t.server.deps.db, { workspaceId, name: 'doc', scopes: 'polls:read' });
    const tokenUrl = `${t.url}/api/oauth/token`;
    const form = { 'content-type': 'application/x-www-form-urlencoded' };

    const issued = await rawCall<OAuthToken>('POST', tokenUrl, {
      rawBody: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: client.id,
        client_secret: secret,
      }).toString(),
      headers: form,
    });
    expect(issued.status).toBe(200);
    expectDocumented('oauthToken', issued, { allHeaders: true });

    const unsupported = await rawCall('POST', tokenUrl, { rawBody: 'grant_type=password', headers: form });
    expect(unsupported.status).toBe(400);
    expectDocumented('oauthToken', unsupported);

    const wrongSecret = await rawCall('POST', tokenUrl, {
      body: { grant_type: 'client_credentials' },
      headers: { authorization: `Basic ${Buffer.from(`${client.id}:nope`).toString('base64')}` },
    });
    expect(wrongSecret.status).toBe(401);
    expectDocumented('oauthToken', wrongSecret);

    const outOfScope = await apiClient.request('POST /polls', {
      apiKey: issued.body.access_token,
      body: { title: 'x' },
    });
    expectStatus(outOfScope, 403);
    expect(outOfScope.body.error.code).toBe('insufficient_scope');
    expectDocumented('pollsCreate', outOfScope, { allHeaders: true });

    const unknown = await apiClient.request('GET /polls', { apiKey: 'oat_unknown' });
    expectStatus(unknown, 401);
    expect(unknown.body.error.code).toBe('invalid_oauth_token');
    expectDocumented('pollsList', unknown);
  });

  it('are checked for real: wrong bodies and headers are rejected', async () => {
    const created = await apiClient.request('POST /polls', { apiKey, body: createBody() });
    expect(api.validateResponse(created.body, 'pollsCreate', 201).valid).toBe(true);

    const { id: _id, ...withoutId } = expectOk(created);
    expect(api.validateResponse(withoutId, 'pollsCreate', 201).valid).toBe(false);
    expect(api.validateResponse({ ...created.body, status: 'archived' }, 'pollsCreate', 201).valid).toBe(false);

    // Each status admits only its own codes: a 404 cannot say `validation_failed`.
    const wrongCode = { error: { code: 'validation_failed', message: 'Poll not found' } };
    expect(api.validateResponse(wrongCode, 'pollsGet', 404).valid).toBe(false);
    expect(
      api.validateResponse({ error: { code: 'not_found', message: 'Poll not found' } }, 'pollsGet', 404).valid,
    ).toBe(true);
    expect(api.validateResponse({ message: 'Poll not found', code: 'NOT_FOUND' }, 'pollsGet', 404).valid).toBe(false);

    const headers = Object.fromEntries(created.headers);
    const checkHeaders = (candidate: Record<string, string>) =>
      api.validateResponseHeaders(candidate, 'pollsCreate', { statusCode: 201, setMatchType: SetMatchType.Superset })
        .valid;
    expect(checkHeaders(headers)).toBe(true);
    expect(checkHeaders({ ...headers, 'x-ratelimit-window': '30s' })).toBe(false);
    expect(checkHeaders({ ...headers, 'x-ratelimit-remaining': 'many' })).toBe(false);
    const { 'x-ratelimit-reset': _reset, ...withoutReset } = headers;
    expect(checkHeaders(withoutReset)).toBe(false);
  });
});
