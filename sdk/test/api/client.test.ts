import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { inspect } from 'node:util';
import { contract, defineRoute, GetPollInput, operationId, Poll as PollSchema } from '@pollkit/contracts';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { startTestServer, type TestServer } from '../../../server/test/support/server.js';
import { buildClient, resolveConfig } from '../../src/client.js';
import { prepareRequest } from '../../src/core/prepare-request.js';
import {
  ConnectionError,
  createClient,
  type DeletedPoll,
  type Page,
  type Poll,
  type PollContentInput,
  PollkitError,
} from '../../src/index.js';

let t: TestServer;
let apiKey: string;

beforeAll(async () => {
  t = await startTestServer();
  ({ apiKey } = await t.workspace('pro'));
});
afterAll(() => t?.close());

interface Exchange {
  method: string;
  url: string;
  headers: Headers;
  status: number;
}

/** A client whose fetch is the real one, with every exchange written down for the test to read. */
function recordingClient(key = apiKey, baseUrl = t.url) {
  const exchanges: Exchange[] = [];
  const client = createClient({
    apiKey: key,
    baseUrl,
    fetch: async (url, init) => {
      const response = await fetch(url, init);
      exchanges.push({
        method: init.method ?? 'GET',
        url,
        headers: new Headers(init.headers),
        status: response.status,
      });
      return response;
    },
  });
  return { client, exchanges };
}

/** Rejection of `promise` as a PollkitError, failing the test if it resolves or throws anything else. */
async function pollkitError(promise: Promise<unknown>): Promise<PollkitError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(PollkitError);
  return error as PollkitError;
}

/** The smallest deck a poll can be published with (a poll with no slides cannot be). */
const oneSlide = { questions: [{ id: 'hello', kind: 'content' as const, text: 'Hello' }] };

describe('the caller and answer resets through the SDK', () => {
  it('client.workspace.get() describes the key; client.answers.reset() empties a poll', async () => {
    const { client, exchanges } = recordingClient();
    const workspace = await client.workspace.get();
    expect(workspace).toMatchObject({ plan: 'pro', credential: { kind: 'api_key', expiresAt: null } });
    expect(workspace.credential.scopes).toContain('responses:write');

    const poll = await client.polls.create({
      title: 'Dry run',
      content: {
        questions: [
          {
            id: 'q',
            kind: 'multiple_choice',
            text: 'Pick',
            options: [
              { id: 'a', label: 'A' },
              { id: 'b', label: 'B' },
            ],
          },
        ],
      },
    });
    await client.polls.update({ id: poll.id, publish: true });
    await client.votes.cast({ id: poll.id, voterId: 'ada', slideId: 'q', optionIds: ['a'] });
    const reset = await client.answers.reset({ id: poll.id });
    expect(reset).toEqual({ pollId: poll.id, deleted: { votes: 1, responses: 0, questions: 0, upvotes: 0 } });
    expect(exchanges.map((e) => `${e.method} ${e.url.slice(t.api.length)}`)).toContain(
      `DELETE /polls/${poll.id}/answers`,
    );
    expect(exchanges[0]!.url).toBe(`${t.api}/workspace`);
  });
});

describe('polls through the SDK', () => {
  const content = {
    questions: [
      {
        id: 'lunch',
        kind: 'multiple_choice',
        text: 'Where shall we eat?',
        options: [
          { id: 'pizza', label: 'Pizza' },
          { id: 'sushi', label: 'Sushi' },
        ],
      },
      { id: 'words', kind: 'open_ended', text: 'One word?' },
    ],
  } satisfies PollContentInput;

  it('creates a draft poll (201) with a typed result', async () => {
    const { client, exchanges } = recordingClient();
    const poll = await client.polls.create({ title: 'Team lunch', content });
    expectTypeOf(poll).toEqualTypeOf<Poll>();
    expect(poll.id).toMatch(/^poll_[0-9A-Z]{26}$/);
    expect(poll).toMatchObject({ title: 'Team lunch', status: 'draft', publishedAt: null, closedAt: null });
    // Defaults the input left out come back filled in.
    expect(poll.content.questions).toEqual([
      { ...content.questions[0], type: 'single' },
      { ...content.questions[1], maxLength: 500, render: 'list' },
    ]);
    expect(exchanges).toEqual([expect.objectContaining({ method: 'POST', url: `${t.api}/polls`, status: 201 })]);
  });

  it('gets, publishes and deletes a poll; a deleted poll is a 404 not_found', async () => {
    const { client, exchanges } = recordingClient();
    const created = await client.polls.create({ title: 'Lifecycle', content: oneSlide });

    expect(await client.polls.get({ id: created.id })).toEqual(created);

    const published = await client.polls.update({ id: created.id, publish: true });
    expect(published.status).toBe('published');
    expect(published.publishedAt).not.toBeNull();

    const deleted = await client.polls.delete({ id: created.id });
    expectTypeOf(deleted).toEqualTypeOf<DeletedPoll>();
    expect(deleted).toEqual({ id: created.id, deleted: true });

    const error = await pollkitError(client.polls.get({ id: created.id }));
    expect(error).toMatchObject({ status: 404, code: 'not_found', message: 'Poll not found' });
    expect(error.body).toEqual({ error: { code: 'not_found', message: 'Poll not found' } });
    expect(error.requestId).toEqual(expect.any(String));

    expect(exchanges.map((e) => `${e.method} ${e.url.slice(t.api.length)} ${e.status}`)).toEqual([
      'POST /polls 201',
      `GET /polls/${created.id} 200`,
      `PATCH /polls/${created.id} 200`,
      `DELETE /polls/${created.id} 200`,
      `GET /polls/${created.id} 404`,
    ]);
  });

  it('lists polls page by page with limit and cursor, and filters by status', async () => {
    const { apiKey: key } = await t.workspace('pro');
    const { client, exchanges } = recordingClient(key);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await client.polls.create({ title: `Poll ${i}`, content: oneSlide })).id);
    await client.polls.update({ id: ids[1]!, publish: true });

    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await client.polls.list({ limit: 2, cursor });
      expectTypeOf(page).toEqualTypeOf<Page<Poll>>();
      expect(page.data.length).toBeLessThanOrEqual(2);
      seen.push(...page.data.map((p) => p.id));
      cursor = page.nextCursor ?? undefined;
      pages += 1;
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen).toEqual([...ids].reverse());
    // An undefined cursor is left out of the query string, not sent as "undefined".
    expect(exchanges.find((e) => e.url.includes('limit=2'))?.url).toBe(`${t.api}/polls?limit=2`);

    const published = await client.polls.list({ status: 'published' });
    expect(published.data.map((p) => p.id)).toEqual([ids[1]]);
    expect((await client.polls.list()).data).toHaveLength(5);
  });
});

describe('errors', () => {
  it('carries fieldErrors on a 422 validation_failed', async () => {
    const { client } = recordingClient();
    const error = await pollkitError(client.polls.create({ title: '' }));
    expect(error.status).toBe(422);
    expect(error.code).toBe('validation_failed');
    expect(error.details?.fieldErrors?.title).toEqual([expect.any(String)]);
    expect(error.details?.formErrors).toEqual([]);
  });

  it('answers a bad API key with 401 invalid_api_key', async () => {
    const { client } = recordingClient('pk_not_a_real_key');
    const error = await pollkitError(client.polls.list());
    expect(error).toMatchObject({ status: 401, code: 'invalid_api_key' });
    expect(error.name).toBe('AuthenticationError');
  });

  it('throws ConnectionError, with the cause, when nothing listens on the port', async () => {
    const probe = createServer();
    probe.listen(0, '127.0.0.1');
    await once(probe, 'listening');
    const { port } = probe.address() as AddressInfo;
    await new Promise((resolve) => probe.close(resolve));

    const client = createClient({ apiKey, baseUrl: `http://127.0.0.1:${port}`, maxRetries: 0 });
    const error = await pollkitError(client.polls.list());
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error).toMatchObject({ status: undefined, code: 'connection_error', name: 'ConnectionError' });
    expect(error.cause).toBeInstanceOf(Error);
    expect(error.message).toMatch(
      new RegExp(`^Could not reach the Pollkit API at http://127\\.0\\.0\\.1:${port}/api/v1: .*ECONNREFUSED`),
    );
  });

  it('rejects with the abort reason when the caller aborts', async () => {
    const { client, exchanges } = recordingClient();
    const error = await client.polls.list({}, { signal: AbortSignal.abort() }).catch((reason: unknown) => reason);
    expect(error).not.toBeInstanceOf(PollkitError);
    expect(error).toMatchObject({ name: 'AbortError' });
    expect(exchanges).toEqual([]);
  });

  describe('from a server that does not answer the envelope', () => {
    let proxy: Server;
    let proxyUrl: string;
    beforeAll(async () => {
      // Stands in for a proxy or load balancer in front of the API.
      proxy = createServer((request, response) => {
        if (request.method === 'DELETE') {
          // The status line arrives, then the connection drops before the promised body.
          response.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
          response.write('{"id":', () => response.destroy());
        } else if (request.url?.startsWith('/api/v1/polls/poll_')) {
          response.writeHead(404).end();
        } else if (request.method === 'GET') {
          response.writeHead(502, { 'content-type': 'text/html' }).end('<html><body>Bad gateway</body></html>\n');
        } else {
          response.writeHead(201, { 'content-type': 'text/plain' }).end('created');
        }
      });
      proxy.listen(0, '127.0.0.1');
      await once(proxy, 'listening');
      proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
    });
    afterAll(() => new Promise((resolve) => proxy.close(resolve)));

    it('turns a non-JSON 5xx into internal_error with the text', async () => {
      const client = createClient({ apiKey, baseUrl: proxyUrl, maxRetries: 0 });
      const error = await pollkitError(client.polls.list());
      expect(error).toMatchObject({
        status: 502,
        code: 'internal_error',
        message: '<html><body>Bad gateway</body></html>',
        body: '<html><body>Bad gateway</body></html>\n',
        details: undefined,
      });
    });

    it('turns an empty 404 into not_found', async () => {
      const client = createClient({ apiKey, baseUrl: proxyUrl, maxRetries: 0 });
      const error = await pollkitError(client.polls.get({ id: 'poll_01AAAAAAAAAAAAAAAAAAAAAAAA' }));
      expect(error).toMatchObject({ status: 404, code: 'not_found', message: 'HTTP 404' });
    });

    it('throws ConnectionError when the connection drops while the body arrives', async () => {
      const client = createClient({ apiKey, baseUrl: proxyUrl, maxRetries: 0 });
      const error = await pollkitError(client.polls.delete({ id: 'poll_01AAAAAAAAAAAAAAAAAAAAAAAA' }));
      expect(error).toBeInstanceOf(ConnectionError);
      expect(error.cause).toBeInstanceOf(Error);
    });

    it('turns a 2xx that is not JSON into invalid_response', async () => {
      const client = createClient({ apiKey, baseUrl: proxyUrl, maxRetries: 0 });
      const error = await pollkitError(client.polls.create({ title: 'x' }));
      expect(error).toMatchObject({ status: 201, code: 'invalid_response', body: 'created' });
    });
  });
});

describe('requests', () => {
  it('encodes a path parameter holding "/" and spaces as one segment, so the server answers "Poll not found", not a route miss', async () => {
    const { client, exchanges } = recordingClient();
    const error = await pollkitError(client.polls.get({ id: 'poll 1/../x' }));
    expect(error).toMatchObject({ status: 404, code: 'not_found', message: 'Poll not found' });
    expect(exchanges[0]?.url).toBe(`${t.api}/polls/poll%201%2F..%2Fx`);
  });

  it('refuses path parameters that would address another route, before sending anything', async () => {
    const { client, exchanges } = recordingClient();
    for (const id of ['', '.', '..']) {
      await expect(client.polls.get({ id }), JSON.stringify(id)).rejects.toThrow(TypeError);
    }
    await expect(client.polls.delete(undefined as never)).rejects.toThrow(/path parameter "id"/);
    expect(exchanges).toEqual([]);
  });

  it('accepts the server origin or the /api/v1 URL as baseUrl, with or without a trailing slash', async () => {
    for (const baseUrl of [t.url, `${t.url}/`, t.api, `${t.api}/`]) {
      const { client, exchanges } = recordingClient(apiKey, baseUrl);
      await client.polls.list({ limit: 1 });
      expect(exchanges[0]?.url, baseUrl).toBe(`${t.api}/polls?limit=1`);
    }
    expect(() => createClient({ apiKey, baseUrl: 'not a url' })).toThrow(TypeError);
    expect(() => createClient({ apiKey, baseUrl: `${t.url}?x=1` })).toThrow(TypeError);
  });

  it('sends client headers and per-call headers, the latter winning', async () => {
    const client = createClient({ apiKey, baseUrl: t.url, headers: { 'x-request-id': 'from-client' } });
    const missing = { id: 'poll_01AAAAAAAAAAAAAAAAAAAAAAAA' };
    expect((await pollkitError(client.polls.get(missing))).requestId).toBe('from-client');
    const perCall = await pollkitError(client.polls.get(missing, { headers: { 'x-request-id': 'from-call' } }));
    expect(perCall.requestId).toBe('from-call');
  });

  it('takes an option given as undefined as not given (exactOptionalPropertyTypes passes them on)', async () => {
    const defaults = resolveConfig({ apiKey: 'pk_x', baseUrl: 'https://polls.test' });
    const given = resolveConfig({
      apiKey: 'pk_x',
      baseUrl: 'https://polls.test',
      timeout: undefined,
      maxRetries: undefined,
      headers: undefined,
    });
    expect(defaults.timeout).toBeGreaterThan(0);
    expect(defaults.maxRetries).toBeGreaterThan(0);
    expect([given.timeout, given.maxRetries]).toEqual([defaults.timeout, defaults.maxRetries]);
    const client = createClient({ apiKey, baseUrl: t.url, timeout: 5_000, maxRetries: 0 });
    const same = client.withOptions({ timeout: undefined, maxRetries: undefined });
    const page = await same.polls.list({ limit: 1, cursor: undefined });
    expect(Array.isArray(page.data)).toBe(true);
  });

  it('splits input into path, query string and JSON body the way the server reads it', () => {
    const config = resolveConfig({ apiKey: 'pk_x', baseUrl: 'https://polls.test' });
    const search = defineRoute({
      method: 'GET',
      path: '/things/{id}/items',
      tags: [],
      summary: 'Probe',
      auth: 'workspace',
      successStatus: 200,
      input: GetPollInput,
      output: PollSchema,
      errors: [],
    });
    const query = prepareRequest(config, search, {
      id: 'a b',
      tag: ['x', 'y&z'],
      flag: false,
      since: new Date('2025-01-02T03:04:05.000Z'),
      skipped: undefined,
    });
    expect(query.url).toBe(
      'https://polls.test/api/v1/things/a%20b/items?tag=x&tag=y%26z&flag=false&since=2025-01-02T03%3A04%3A05.000Z',
    );
    expect(query.body).toBeUndefined();

    const update = prepareRequest(config, contract.polls.update, { id: 'poll_1', publish: true }, {});
    expect(update.url).toBe('https://polls.test/api/v1/polls/poll_1');
    expect(update.body).toBe('{"publish":true}');
    expect(update.headers.get('content-type')).toBe('application/json');
    expect(update.headers.get('authorization')).toBe('Bearer pk_x');

    const overridden = prepareRequest(config, contract.polls.list, {}, { headers: { authorization: 'Bearer other' } });
    expect(overridden.headers.get('authorization')).toBe('Bearer pk_x');
  });
});

describe('the client', () => {
  it('has one method per route of the contract, named by its operationId', () => {
    const client = createClient({ apiKey, baseUrl: t.url });
    const routes = Object.entries(contract).flatMap(([group, ops]) => Object.keys(ops).map((name) => [group, name]));
    expect(routes.length).toBeGreaterThan(0);
    for (const [group, name] of routes) {
      const method = (client as unknown as Record<string, Record<string, unknown>>)[group!]?.[name!];
      expect(method, `${group}.${name}`).toBeInstanceOf(Function);
      expect((method as () => unknown).name).toBe(operationId(group!, name!));
    }
  });

  it('derives methods for routes it has never seen', async () => {
    const titleOnly = defineRoute({
      ...contract.polls.get,
      summary: 'A poll title',
      output: PollSchema.pick({ id: true, title: true }),
    });
    const client = buildClient({ drafts: { title: titleOnly } }, { apiKey, baseUrl: t.url });
    const { id } = await createClient({ apiKey, baseUrl: t.url }).polls.create({ title: 'Derived' });
    const result = await client.drafts.title({ id });
    expectTypeOf(result).toEqualTypeOf<{ id: string; title: string }>();
    expect(result).toMatchObject({ id, title: 'Derived' });
  });

  it('never shows the API key when printed, serialised or failing', async () => {
    const { client, exchanges } = recordingClient();
    const secretKey = apiKey;
    expect(inspect(client, { depth: Number.POSITIVE_INFINITY, showHidden: true })).not.toContain(secretKey);
    expect(String(client)).not.toContain(secretKey);
    expect(JSON.stringify(client)).not.toContain(secretKey);

    const error = await pollkitError(client.polls.get({ id: 'poll_01AAAAAAAAAAAAAAAAAAAAAAAA' }));
    expect(inspect(error, { depth: Number.POSITIVE_INFINITY, showHidden: true })).not.toContain(secretKey);
    expect(JSON.stringify(error)).not.toContain(secretKey);

    const [sent] = exchanges;
    expect(sent?.url).not.toContain(secretKey);
    const carrying = [...(sent?.headers ?? [])].filter(([, value]) => value.includes(secretKey));
    expect(carrying).toEqual([['authorization', `Bearer ${secretKey}`]]);
  });

  it('refuses an API key that cannot be a header value without quoting it', () => {
    const badKey = 'pk_with a space\n';
    let thrown: unknown;
    try {
      createClient({ apiKey: badKey, baseUrl: t.url });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(TypeError);
    expect((thrown as Error).message).not.toContain('pk_with');
    expect(() => createClient({ apiKey: '', baseUrl: t.url })).toThrow(/apiKey is required/);
  });
});
