import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { CreatePollInput, contract, errorCodes, inputInQuery, type RouteDefinition } from '@pollkit/contracts';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERRORS_DOC_PATH, errorTableMarkdown, withErrorTable } from '../../../docs/scripts/error-table.js';
import { MAX_JSON_DEPTH } from '../../src/http/json-body.js';
import { revokeApiKey } from '../../src/modules/api-keys/api-keys.service.js';
import { createPoll as insertPoll } from '../../src/modules/polls/polls.service.js';
import { expectErrorEnvelope } from '../support/assertions.js';
import { sampleContent } from '../support/decks.js';
import { type HttpResponse, rawCall } from '../support/http.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { errorDetails, expectOk, expectStatus, testClient } from '../support/test-client.js';

/**
 * Every error the API can answer so far, through real HTTP: status, envelope, headers, and that a
 * refused write leaves the database as it was.
 */

let t: TestServer;
const api = testClient(() => t.api);

beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t?.close());

const SOME_POLL_ID = 'poll_01AAAAAAAAAAAAAAAAAAAAAAAA';

/** A 422 whose `details` names `field` (a dotted path) in `fieldErrors`. */
function expectValidation(res: HttpResponse, field: string) {
  expectErrorEnvelope(res, 422, 'validation_failed');
  const { fieldErrors, formErrors } = errorDetails(res);
  expect(Array.isArray(formErrors)).toBe(true);
  expect(Object.keys(fieldErrors), res.text).toContain(field);
  expect(fieldErrors[field]!.length).toBeGreaterThan(0);
  for (const message of fieldErrors[field]!) expect(typeof message).toBe('string');
}

/** Polls stored for a workspace, read straight from the database rather than through the API. */
async function storedPolls(server: TestServer, workspaceId: string) {
  return server.server.deps.db
    .selectFrom('polls')
    .select(['id', 'title', 'status', 'content', 'updated_at'])
    .where('workspace_id', '=', workspaceId)
    .orderBy('id')
    .execute();
}

async function keyIdOf(server: TestServer, workspaceId: string): Promise<string> {
  const row = await server.server.deps.db
    .selectFrom('api_keys')
    .select('id')
    .where('workspace_id', '=', workspaceId)
    .executeTakeFirstOrThrow();
  return row.id;
}

const json = { 'content-type': 'application/json' };

describe('400 invalid_json', () => {
  it('answers truncated JSON and a __proto__ key with 400 and stores nothing', async () => {
    const { id, apiKey } = await t.workspace('pro');
    // An empty body is no body (transport-errors.test.ts): 422 for the missing title, not 400.
    for (const rawBody of [
      '{"title":"Lunch"',
      '{"title":"Lunch",}',
      '{"title":"Lunch","__proto__":{"polluted":true}}',
      '{"title":"Lunch","constructor":{"prototype":{"polluted":true}}}',
    ]) {
      const res = await rawCall('POST', `${t.api}/polls`, { apiKey, rawBody, headers: json });
      expectErrorEnvelope(res, 400, 'invalid_json');
    }
    // The server runs in this process: a parser that merged `__proto__` would show up here.
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(await storedPolls(t, id)).toEqual([]);
  });

  it('answers invalid JSON on PATCH with 400 and leaves the poll as it was', async () => {
    const { apiKey } = await t.workspace('pro');
    const poll = expectOk(await api.request('POST /polls', { apiKey, body: { title: 'Keep me' } }));
    const res = await rawCall('PATCH', `${t.api}/polls/${poll.id}`, {
      apiKey,
      rawBody: '{"publish": tru',
      headers: json,
    });
    expectErrorEnvelope(res, 400, 'invalid_json');
    expect((await api.request('GET /polls/{id}', { params: { id: poll.id }, apiKey })).body).toEqual(poll);
  });
});

describe('401 authentication', () => {
  it('answers missing_authorization without a header or with another scheme', async () => {
    for (const authorization of [undefined, 'Basic Zm9vOmJhcg==', 'Bearer', 'Token pk_live_abc']) {
      const headers: Record<string, string> = authorization ? { authorization } : {};
      expectErrorEnvelope(await api.request('GET /polls', { headers }), 401, 'missing_authorization');
    }
  });

  it('answers invalid_api_key for an unknown pk_live_ key, garbage and a tampered real key', async () => {
    const { id, apiKey } = await t.workspace('pro');
    const tampered = `${apiKey.slice(0, -1)}${apiKey.endsWith('A') ? 'B' : 'A'}`;
    for (const key of [`pk_live_${randomBytes(32).toString('base64url')}`, 'garbage', tampered]) {
      expectErrorEnvelope(await api.request('GET /polls', { apiKey: key }), 401, 'invalid_api_key');
      const write = await api.request('POST /polls', { apiKey: key, body: { title: 'Nope' } });
      expectErrorEnvelope(write, 401, 'invalid_api_key');
    }
    expect(await storedPolls(t, id)).toEqual([]);
  });

  it('answers revoked_api_key for a revoked key, used before or not', async () => {
    const used = await t.workspace('pro');
    expect((await api.request('GET /polls', { apiKey: used.apiKey })).status).toBe(200);
    await revokeApiKey(t.server.deps, { keyId: await keyIdOf(t, used.id) });
    // The key is now in the server's 5-second credential cache, which a change in the database
    // does not reach; invalidate() empties it so the test need not wait for the entry to expire.
    t.server.deps.authenticator.invalidate();
    expectErrorEnvelope(await api.request('GET /polls', { apiKey: used.apiKey }), 401, 'revoked_api_key');

    // A key never presented before its revocation was never cached: no invalidation needed.
    const unused = await t.workspace('pro');
    await revokeApiKey(t.server.deps, { keyId: await keyIdOf(t, unused.id) });
    expectErrorEnvelope(await api.request('GET /polls', { apiKey: unused.apiKey }), 401, 'revoked_api_key');
    const write = await api.request('POST /polls', { apiKey: unused.apiKey, body: { title: 'Nope' } });
    expectErrorEnvelope(write, 401, 'revoked_api_key');
    expect(await storedPolls(t, unused.id)).toEqual([]);
  });

  it('answers expired_api_key once expires_at has passed, and accepts a key still in its grace period', async () => {
    // Neither key is used before its row is changed, so the credential cache plays no part.
    const expired = await t.workspace('pro');
    const graced = await t.workspace('pro');
    const { db } = t.server.deps;
    await db
      .updateTable('api_keys')
      .set({ expires_at: new Date(Date.now() - 60_000) })
      .where('workspace_id', '=', expired.id)
      .execute();
    await db
      .updateTable('api_keys')
      .set({ expires_at: new Date(Date.now() + 3_600_000) })
      .where('workspace_id', '=', graced.id)
      .execute();

    expectErrorEnvelope(await api.request('GET /polls', { apiKey: expired.apiKey }), 401, 'expired_api_key');
    const write = await api.request('POST /polls', { apiKey: expired.apiKey, body: { title: 'Nope' } });
    expectErrorEnvelope(write, 401, 'expired_api_key');
    expect(await storedPolls(t, expired.id)).toEqual([]);

    expect((await api.request('GET /polls', { apiKey: graced.apiKey })).status).toBe(200);
  });
});

describe('402 upgrade_required', () => {
  it('refuses a free workspace on every poll route and changes nothing', async () => {
    const free = await t.workspace('free');
    // A poll the free workspace owns, so the routes that take an id point at something real.
    const poll = await insertPoll(
      t.server.deps,
      free.id,
      CreatePollInput.parse({ title: 'Owned', content: sampleContent() }),
    );
    const before = await storedPolls(t, free.id);

    const routes: RouteDefinition[] = Object.values(contract.polls);
    expect(routes.length).toBeGreaterThanOrEqual(5);
    for (const route of routes) {
      const path = route.path.replace('{id}', poll.id);
      const body = inputInQuery(route.method) ? undefined : { title: 'Changed by a free plan' };
      const res = await rawCall(route.method, `${t.api}${path}`, { apiKey: free.apiKey, body });
      expectErrorEnvelope(res, 402, 'upgrade_required');
      // As docs/errors.md says: the Free plan gets its plan alone, no `requiredPlan`.
      expect(res.body.error.details).toEqual({ plan: 'free' });
    }
    expect(await storedPolls(t, free.id)).toEqual(before);
  });
});

describe('docs/errors.md', () => {
  it('holds the error table the registry generates, with every code', async () => {
    const doc = await readFile(ERRORS_DOC_PATH, 'utf8');
    expect(doc === withErrorTable(doc), 'stale: run `npx -y pnpm@10 generate`').toBe(true);
    const table = errorTableMarkdown();
    for (const [code, { status, description }] of Object.entries(errorCodes)) {
      expect(table).toContain(`| ${status} | \`${code}\` | ${description} |`);
    }
  });
});

describe('404 not_found', () => {
  it('answers an unknown poll id on read, update and delete', async () => {
    const { id, apiKey } = await t.workspace('pro');
    const res = await api.request('GET /polls/{id}', { params: { id: SOME_POLL_ID }, apiKey });
    expectErrorEnvelope(res, 404, 'not_found');
    expectErrorEnvelope(
      await api.request('PATCH /polls/{id}', { params: { id: SOME_POLL_ID }, apiKey, body: { publish: true } }),
      404,
      'not_found',
    );
    expectErrorEnvelope(
      await api.request('DELETE /polls/{id}', { params: { id: SOME_POLL_ID }, apiKey }),
      404,
      'not_found',
    );
    expect(await storedPolls(t, id)).toEqual([]);
  });

  it('answers unknown routes inside and outside /api/v1, with or without a key', async () => {
    const { apiKey } = await t.workspace('pro');
    for (const url of [
      `${t.api}/nope`,
      `${t.url}/nope`,
      `${t.api}/polls/${SOME_POLL_ID}/nope`,
      `${t.url}/api/v2/polls`,
    ]) {
      expectErrorEnvelope(await rawCall('GET', url, { apiKey }), 404, 'not_found');
      expectErrorEnvelope(await rawCall('GET', url), 404, 'not_found');
    }
  });

  it('answers a wrong method on a known path with 405 method_not_allowed and Allow, and changes nothing', async () => {
    const { id, apiKey } = await t.workspace('pro');
    const poll = expectOk(await api.request('POST /polls', { apiKey, body: { title: 'Stays' } }));
    for (const [method, path, allow] of [
      ['PUT', '/polls', 'GET, POST, HEAD'],
      ['DELETE', '/polls', 'GET, POST, HEAD'],
      ['PATCH', '/polls', 'GET, POST, HEAD'],
      ['PUT', `/polls/${poll.id}`, 'GET, PATCH, DELETE, HEAD'],
      ['POST', `/polls/${poll.id}`, 'GET, PATCH, DELETE, HEAD'],
    ] as const) {
      const res = await rawCall(method, `${t.api}${path}`, { apiKey, body: { title: 'Replaced' } });
      expectErrorEnvelope(res, 405, 'method_not_allowed');
      expect(res.headers.get('allow'), `${method} ${path}`).toBe(allow);
    }
    const stored = await storedPolls(t, id);
    expect(stored.map((p) => [p.id, p.title])).toEqual([[poll.id, 'Stays']]);
  });
});

describe('413 payload_too_large', () => {
  let small: TestServer;
  beforeAll(async () => {
    small = await startTestServer({ BODY_LIMIT_BYTES: '2048' });
  });
  afterAll(() => small?.close());

  it('refuses a body over BODY_LIMIT_BYTES, sized up front or streamed, and stores nothing', async () => {
    const { id, apiKey } = await small.workspace('pro');
    const oversized = { title: 'Big', content: { questions: [{ id: 'c', kind: 'content', text: 'x'.repeat(3000) }] } };
    expectErrorEnvelope(
      await rawCall('POST', `${small.api}/polls`, { apiKey, body: oversized }),
      413,
      'payload_too_large',
    );

    // Chunked: no Content-Length, so the limit is enforced while reading.
    const bytes = new TextEncoder().encode(JSON.stringify(oversized));
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < bytes.length; i += 512) controller.enqueue(bytes.slice(i, i + 512));
        controller.close();
      },
    });
    const response = await fetch(`${small.api}/polls`, {
      method: 'POST',
      headers: { ...json, authorization: `Bearer ${apiKey}` },
      body: stream,
      duplex: 'half',
    } as RequestInit);
    const text = await response.text();
    expectErrorEnvelope(
      { status: response.status, headers: response.headers, body: JSON.parse(text), text },
      413,
      'payload_too_large',
    );

    expect(await storedPolls(small, id)).toEqual([]);
    // Just under the limit is accepted: the limit is the configured one, not something smaller.
    const fits = { title: 'Fits', content: { questions: [{ id: 'c', kind: 'content', text: 'x'.repeat(900) }] } };
    expect((await rawCall('POST', `${small.api}/polls`, { apiKey, body: fits })).status).toBe(201);
  });
});

describe('415 unsupported_media_type', () => {
  it('refuses text/plain, form-encoded and untyped bodies and stores nothing', async () => {
    const { id, apiKey } = await t.workspace('pro');
    const body = JSON.stringify({ title: 'Lunch' });
    for (const contentType of ['text/plain', 'application/x-www-form-urlencoded', 'application/xml']) {
      const res = await rawCall('POST', `${t.api}/polls`, {
        apiKey,
        rawBody: body,
        headers: { 'content-type': contentType },
      });
      expectErrorEnvelope(res, 415, 'unsupported_media_type');
    }
    const form = await rawCall('POST', `${t.api}/polls`, {
      apiKey,
      rawBody: 'title=Lunch',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expectErrorEnvelope(form, 415, 'unsupported_media_type');

    // A byte body: fetch sends no Content-Type for it.
    const response = await fetch(`${t.api}/polls`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}` },
      body: new TextEncoder().encode(body),
    });
    const text = await response.text();
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(response.status).toBe(415);
    expect(JSON.parse(text).error.code).toBe('unsupported_media_type');

    expect(await storedPolls(t, id)).toEqual([]);
  });

  it('refuses a text/plain PATCH and leaves the poll as it was', async () => {
    const { apiKey } = await t.workspace('pro');
    const poll = expectOk(await api.request('POST /polls', { apiKey, body: { title: 'Keep me' } }));
    const res = await rawCall('PATCH', `${t.api}/polls/${poll.id}`, {
      apiKey,
      rawBody: '{"publish":true}',
      headers: { 'content-type': 'text/plain' },
    });
    expectErrorEnvelope(res, 415, 'unsupported_media_type');
    expect(expectOk(await api.request('GET /polls/{id}', { params: { id: poll.id }, apiKey })).status).toBe('draft');
  });
});

describe('422 validation_failed', () => {
  const slide = (fields: Record<string, unknown>) => ({ title: 'Deck', content: { questions: [fields] } });
  const options = [
    { id: 'a', label: 'A' },
    { id: 'b', label: 'B' },
  ];

  const cases: [name: string, body: unknown, field: string][] = [
    ['missing title', { content: sampleContent() }, 'title'],
    ['empty title', { title: '   ' }, 'title'],
    ['title of the wrong type', { title: 42 }, 'title'],
    ['title over the maximum length', { title: 'x'.repeat(5000) }, 'title'],
    ['content of the wrong type', { title: 'Deck', content: 'slides' }, 'content'],
    ['questions of the wrong type', { title: 'Deck', content: { questions: {} } }, 'content.questions'],
    ['unknown top-level field', { title: 'Deck', colour: 'red' }, 'colour'],
    ['unknown field in content', { title: 'Deck', content: { questions: [], theme: 'dark' } }, 'content.theme'],
    [
      'unknown field on a slide',
      slide({ id: 'c', kind: 'content', text: 'Hi', colour: 'red' }),
      'content.questions.0.colour',
    ],
    [
      'unknown field on an option',
      slide({ id: 'm', kind: 'multiple_choice', text: 'Q', options: [{ id: 'a', label: 'A', x: 1 }, options[1]] }),
      'content.questions.0.options.0.x',
    ],
    [
      'duplicate slide ids',
      {
        title: 'Deck',
        content: {
          questions: [
            { id: 'same', kind: 'content', text: 'One' },
            { id: 'same', kind: 'content', text: 'Two' },
          ],
        },
      },
      'content.questions',
    ],
    [
      'duplicate option ids',
      slide({ id: 'm', kind: 'multiple_choice', text: 'Q', options: [options[0], { id: 'a', label: 'Again' }] }),
      'content.questions.0.options',
    ],
    [
      'quiz answer naming a missing option',
      slide({ id: 'q', kind: 'quiz', text: 'Q', options, correctOptionIds: ['z'] }),
      'content.questions.0.correctOptionIds',
    ],
    [
      'scale with min equal to max',
      slide({ id: 's', kind: 'scale', text: 'S', min: 3, max: 3 }),
      'content.questions.0.max',
    ],
    [
      'scale with min above max',
      slide({ id: 's', kind: 'scale', text: 'S', min: 5, max: 1 }),
      'content.questions.0.max',
    ],
    ['unknown slide kind', slide({ id: 'p', kind: 'poll', text: 'P' }), 'content.questions.0.kind'],
    [
      'bad open_ended render',
      slide({ id: 'o', kind: 'open_ended', text: 'O', render: 'grid' }),
      'content.questions.0.render',
    ],
    [
      'option label of the wrong type',
      slide({ id: 'm', kind: 'multiple_choice', text: 'Q', options: [{ id: 'a', label: 7 }, options[1]] }),
      'content.questions.0.options.0.label',
    ],
  ];

  it.each(cases)('refuses %s on create and stores nothing', async (_name, body, field) => {
    const { id, apiKey } = await t.workspace('pro');
    expectValidation(await rawCall('POST', `${t.api}/polls`, { apiKey, body }), field);
    expect(await storedPolls(t, id)).toEqual([]);
  });

  it('refuses a bad slide on update and leaves the poll as it was', async () => {
    const { id, apiKey } = await t.workspace('pro');
    const poll = expectOk(
      await api.request('POST /polls', {
        apiKey,
        body: { title: 'Deck', content: sampleContent() },
      }),
    );
    const before = await storedPolls(t, id);
    for (const [, body, field] of cases.filter(([, , f]) => f.startsWith('content.questions.0'))) {
      const { content } = body as { content: unknown };
      expectValidation(await rawCall('PATCH', `${t.api}/polls/${poll.id}`, { apiKey, body: { content } }), field);
    }
    expect(await storedPolls(t, id)).toEqual(before);
  });

  it('treats {"publish":"false"} and other non-booleans as 422, not as a publish', async () => {
    const { apiKey } = await t.workspace('pro');
    const poll = expectOk(await api.request('POST /polls', { apiKey, body: { title: 'Draft' } }));
    for (const publish of ['false', 'true', 1, 0, null]) {
      const res = await rawCall('PATCH', `${t.api}/polls/${poll.id}`, { apiKey, body: { publish } });
      expectValidation(res, 'publish');
    }
    expect((await api.request('GET /polls/{id}', { params: { id: poll.id }, apiKey })).body).toEqual(poll);
  });

  it('refuses a form-level error with formErrors filled and fieldErrors empty', async () => {
    const { apiKey } = await t.workspace('pro');
    const poll = expectOk(await api.request('POST /polls', { apiKey, body: { title: 'Draft' } }));
    const res = await api.request('PATCH /polls/{id}', { params: { id: poll.id }, apiKey, body: {} });
    expectErrorEnvelope(res, 422, 'validation_failed');
    expect(res.body.error.details).toEqual({ fieldErrors: {}, formErrors: ['Send at least one field to change'] });
  });

  it('refuses deeply nested bodies with a 4xx and stays up', async () => {
    const { id, apiKey } = await t.workspace('pro');
    const nestedArrays = `${'['.repeat(5000)}${']'.repeat(5000)}`;
    const nestedObjects = `${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}`;
    for (const content of [nestedArrays, nestedObjects, `{"questions":${nestedArrays}}`]) {
      const res = await rawCall('POST', `${t.api}/polls`, {
        apiKey,
        rawBody: `{"title":"Deep","content":${content}}`,
        headers: json,
      });
      expectErrorEnvelope(res, 422, 'validation_failed');
      expect(errorDetails(res).formErrors).toEqual([`The request body nests deeper than ${MAX_JSON_DEPTH} levels`]);
    }
    // Brackets inside a string are text, not nesting, escaped quotes included.
    const bracketTitle = `\\"${'['.repeat(150)}`;
    const res = await api.request('POST /polls', { apiKey, body: { title: bracketTitle } });
    expectStatus(res, 201);
    expect(res.body.title).toBe(bracketTitle);

    expect((await rawCall('GET', `${t.url}/healthz`)).status).toBe(200);
    expect((await storedPolls(t, id)).map((p) => p.title)).toEqual([bracketTitle]);
  });
});

/**
 * Runs `sequence` with a fresh key until every response in it fell in one rate-limit window.
 * Windows are clock-aligned 60-second buckets, so a sequence of a few quick requests can straddle
 * at most one boundary; the second attempt then runs wholly inside the next window.
 */
async function inOneWindow(
  rateLimitPerMinute: number | undefined,
  sequence: (key: { id: string; apiKey: string }) => Promise<HttpResponse[]>,
): Promise<{ key: { id: string; apiKey: string }; responses: HttpResponse[] }> {
  for (let attempt = 0; attempt < 2; attempt++) {
    // Per-workspace limits are an enterprise override; the default limit needs no particular plan.
    const key = await t.workspace(rateLimitPerMinute ? 'enterprise' : 'pro', { rateLimitPerMinute });
    const responses = await sequence(key);
    const resets = new Set(responses.map((r) => r.headers.get('x-ratelimit-reset')));
    if (resets.size === 1) return { key, responses };
  }
  throw new Error('two attempts straddled a rate-limit window boundary');
}

describe('429 rate_limited', () => {
  it('answers the 4th request of a 3-per-minute workspace with 429, Remaining 0, a future Reset and no Retry-After', async () => {
    const { key, responses } = await inOneWindow(3, async ({ apiKey }) => [
      await api.request('GET /polls', { apiKey }),
      await api.request('GET /polls', { apiKey }),
      await api.request('GET /polls', { apiKey }),
      await api.request('POST /polls', { apiKey, body: { title: 'Over the limit' } }),
    ]);
    expect(responses.map((r) => r.status)).toEqual([200, 200, 200, 429]);
    expect(responses.map((r) => r.headers.get('x-ratelimit-remaining'))).toEqual(['2', '1', '0', '0']);
    const limited = responses[3] as HttpResponse;
    expectErrorEnvelope(limited, 429, 'rate_limited');
    expect(limited.headers.get('x-ratelimit-limit')).toBe('3');
    expect(limited.headers.get('x-ratelimit-window')).toBe('60s');
    const reset = Number(limited.headers.get('x-ratelimit-reset'));
    expect(reset * 1000).toBeGreaterThan(Date.now() - 1000);
    expect(reset * 1000).toBeLessThanOrEqual(Date.now() + 61_000);
    expect(limited.headers.get('retry-after')).toBeNull();
    expect(await storedPolls(t, key.id)).toEqual([]);
  });
});

describe('rate-limit headers', () => {
  it('puts X-RateLimit-Limit and X-RateLimit-Window on every API response and never Retry-After', async () => {
    const { apiKey } = await t.workspace('pro');
    const free = await t.workspace('free');
    const { responses: limited } = await inOneWindow(1, async (key) => [
      await api.request('GET /polls', { apiKey: key.apiKey }),
      await api.request('GET /polls', { apiKey: key.apiKey }),
    ]);
    const created = await api.request('POST /polls', { apiKey, body: { title: 'Headers' } });
    expectStatus(created, 201);
    const responses: [string, HttpResponse, number][] = [
      ['200 list', await api.request('GET /polls', { apiKey }), 200],
      ['201 create', created, 201],
      ['200 get', await api.request('GET /polls/{id}', { params: { id: created.body.id }, apiKey }), 200],
      ['400', await rawCall('POST', `${t.api}/polls`, { apiKey, rawBody: '{', headers: json }), 400],
      ['401', await api.request('GET /polls'), 401],
      ['402', await api.request('GET /polls', { apiKey: free.apiKey }), 402],
      ['404 poll', await api.request('GET /polls/{id}', { params: { id: SOME_POLL_ID }, apiKey }), 404],
      ['404 route', await rawCall('GET', `${t.api}/nope`, { apiKey }), 404],
      ['404 route, no key', await rawCall('GET', `${t.api}/nope`), 404],
      [
        '415',
        await rawCall('POST', `${t.api}/polls`, { apiKey, rawBody: 'x', headers: { 'content-type': 'text/plain' } }),
        415,
      ],
      ['422', await rawCall('POST', `${t.api}/polls`, { apiKey, body: {} }), 422],
      ['429', limited[1] as HttpResponse, 429],
    ];
    for (const [name, res, status] of responses) {
      expect(res.status, name).toBe(status);
      expect(res.headers.get('x-ratelimit-limit'), name).toMatch(/^[1-9][0-9]*$/);
      expect(res.headers.get('x-ratelimit-window'), name).toBe('60s');
      expect(res.headers.get('retry-after'), name).toBeNull();
    }
    expect(limited[1]?.headers.get('x-ratelimit-limit')).toBe('1');
  });

  it('counts X-RateLimit-Remaining down per key on authenticated calls', async () => {
    const { responses } = await inOneWindow(undefined, async ({ apiKey }) => [
      await api.request('GET /polls', { apiKey }),
      await api.request('POST /polls', { apiKey, body: { title: 'Counted' } }),
      await rawCall('POST', `${t.api}/polls`, { apiKey, body: {} }),
      await api.request('GET /polls/{id}', { params: { id: SOME_POLL_ID }, apiKey }),
    ]);
    expect(responses.map((r) => r.status)).toEqual([200, 201, 422, 404]);
    const limit = Number(responses[0]?.headers.get('x-ratelimit-limit'));
    expect(limit).toBe(t.server.deps.config.RATE_LIMIT_PER_MINUTE);
    expect(responses.map((r) => Number(r.headers.get('x-ratelimit-remaining')))).toEqual([
      limit - 1,
      limit - 2,
      limit - 3,
      limit - 4,
    ]);
  });
});

describe('500 internal_error', () => {
  let broken: TestServer;
  beforeAll(async () => {
    broken = await startTestServer();
  });
  afterAll(() => broken?.close());

  it('answers a real database fault with a generic envelope that leaks nothing, and stays up', async () => {
    const { apiKey } = await broken.workspace('pro');
    await sql`drop table polls cascade`.execute(broken.server.deps.db);

    const responses = [
      await rawCall('GET', `${broken.api}/polls`, { apiKey }),
      await rawCall('POST', `${broken.api}/polls`, { apiKey, body: { title: 'Lost' } }),
      await rawCall('GET', `${broken.api}/polls/${SOME_POLL_ID}`, { apiKey }),
    ];
    for (const res of responses) {
      expectErrorEnvelope(res, 500, 'internal_error');
      expect(res.body).toEqual({ error: { code: 'internal_error', message: 'Internal server error' } });
      const text = res.text.toLowerCase();
      for (const leak of ['stack', 'at ', 'relation', 'select', 'insert', 'polls', 'pglite', 'postgres']) {
        expect(text).not.toContain(leak);
      }
      expect(res.headers.get('x-ratelimit-window')).toBe('60s');
      expect(res.headers.get('retry-after')).toBeNull();
    }
    expect((await rawCall('GET', `${broken.url}/healthz`)).status).toBe(200);
  });
});
