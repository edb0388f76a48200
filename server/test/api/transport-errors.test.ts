import type { ErrorCode } from '@pollkit/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectErrorEnvelope } from '../support/assertions.js';
import { rawCall } from '../support/http.js';
import { type RawResponse, rawRequest } from '../support/raw-http.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { errorDetails, expectOk, testClient } from '../support/test-client.js';

/**
 * The envelope on errors the framework and Node's HTTP parser raise before any route runs: requests
 * that are not valid HTTP, methods no route takes, and bodies that are empty. Sent over raw sockets
 * where fetch cannot send them.
 */

let t: TestServer;
const api = testClient(() => t.api);

beforeAll(async () => {
  t = await startTestServer({ RATE_LIMIT_PER_MINUTE: '77' });
});
afterAll(() => t?.close());

const SOME_POLL_ID = 'poll_01AAAAAAAAAAAAAAAAAAAAAAAA';

/** An error the server answered on its own and then closed the connection after. */
function expectClosingEnvelope(res: RawResponse, status: number, code: ErrorCode, { api }: { api: boolean }) {
  expectErrorEnvelope(res, status, code);
  expect(res.headers.get('connection')).toBe('close');
  expect(res.closedByServer).toBe(true);
  expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  expect(res.headers.get('x-ratelimit-limit')).toBe(api ? '77' : null);
  expect(res.headers.get('x-ratelimit-window')).toBe(api ? '60s' : null);
}

describe('requests Node cannot parse', () => {
  it('answers oversized headers and an oversized URL with 431 in the envelope', async () => {
    const bigHeader = `GET /api/v1/polls HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`;
    expectClosingEnvelope(await rawRequest(t.url, bigHeader), 431, 'request_header_fields_too_large', { api: true });
    const bigUrl = `GET /api/v1/polls?q=${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`;
    expectClosingEnvelope(await rawRequest(t.url, bigUrl), 431, 'request_header_fields_too_large', { api: true });
    const bigHealth = `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`;
    expectClosingEnvelope(await rawRequest(t.url, bigHealth), 431, 'request_header_fields_too_large', { api: false });
  });

  it('answers a bad Content-Length with 400 bad_request and stores nothing', async () => {
    const { id, apiKey } = await t.workspace('pro');
    const body = '{"title":"Nope"}';
    for (const headers of [
      'Content-Length: abc',
      'Content-Length: -1',
      'Content-Length: 5\r\nContent-Length: 16',
      `Content-Length: ${body.length}\r\nTransfer-Encoding: chunked`,
    ]) {
      const res = await rawRequest(
        t.url,
        `POST /api/v1/polls HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${apiKey}\r\nContent-Type: application/json\r\n${headers}\r\n\r\n${body}`,
      );
      expectClosingEnvelope(res, 400, 'bad_request', { api: true });
    }
    const stored = await t.server.deps.db.selectFrom('polls').select('id').where('workspace_id', '=', id).execute();
    expect(stored).toEqual([]);
  });

  it('answers control characters in a header or the URL with 400 bad_request', async () => {
    for (const request of [
      'GET /api/v1/polls HTTP/1.1\r\nHost: x\r\nX-Note: a\x01b\r\n\r\n',
      'GET /api/v1/polls HTTP/1.1\r\nHost: x\r\nX-No\x7fte: a\r\n\r\n',
      'GET /api/v1/po\x01lls HTTP/1.1\r\nHost: x\r\n\r\n',
    ]) {
      expectClosingEnvelope(await rawRequest(t.url, request), 400, 'bad_request', { api: true });
    }
    const outside = await rawRequest(t.url, 'GET /heal\x7fthz HTTP/1.1\r\nHost: x\r\n\r\n');
    expectClosingEnvelope(outside, 400, 'bad_request', { api: false });
  });

  it('answers an unknown method token with 400 bad_request', async () => {
    const res = await rawRequest(t.url, 'FOO /api/v1/polls HTTP/1.1\r\nHost: x\r\n\r\n');
    expectClosingEnvelope(res, 400, 'bad_request', { api: true });
  });

  it('answers CONNECT in the envelope instead of dropping the connection', async () => {
    const res = await rawRequest(t.url, 'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n');
    expectClosingEnvelope(res, 400, 'bad_request', { api: false });
  });

  it('keeps serving the next connection after each of them', async () => {
    expect((await rawCall('GET', `${t.url}/healthz`)).status).toBe(200);
  });
});

describe('405 method_not_allowed on every known path', () => {
  it('answers OPTIONS, TRACE and other methods no route takes with 405 and Allow, on API and other paths', async () => {
    const { apiKey } = await t.workspace('pro');
    for (const [method, path, allow] of [
      ['OPTIONS', '/api/v1/polls', 'GET, POST, HEAD'],
      ['TRACE', '/api/v1/polls', 'GET, POST, HEAD'],
      ['PROPFIND', `/api/v1/polls/${SOME_POLL_ID}`, 'GET, PATCH, DELETE, HEAD'],
      ['OPTIONS', '/api/v1/keys/key_01AAAAAAAAAAAAAAAAAAAAAAAA/revoke', 'POST'],
      ['GET', '/api/v1/keys/key_01AAAAAAAAAAAAAAAAAAAAAAAA/revoke', 'POST'],
      ['DELETE', '/api/v1/openapi.json', 'GET, HEAD'],
      ['OPTIONS', '/healthz', 'GET, HEAD'],
      ['TRACE', '/readyz', 'GET, HEAD'],
    ] as const) {
      const res = await rawRequest(
        t.url,
        `${method} ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${apiKey}\r\n\r\n`,
      );
      expectErrorEnvelope(res, 405, 'method_not_allowed');
      expect(res.headers.get('allow'), `${method} ${path}`).toBe(allow);
      expect(res.headers.get('x-ratelimit-limit')).toBe(path.startsWith('/api/') ? '77' : null);
    }
  });

  it('answers HEAD on a path without GET with 405 and Allow', async () => {
    const res = await rawCall('HEAD', `${t.api}/keys/key_01AAAAAAAAAAAAAAAAAAAAAAAA/revoke`);
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST');
  });

  it('keeps 404 for an unknown path, whatever the method', async () => {
    for (const method of ['OPTIONS', 'TRACE', 'GET']) {
      const res = await rawRequest(t.url, `${method} /api/v1/nowhere HTTP/1.1\r\nHost: x\r\n\r\n`);
      expectErrorEnvelope(res, 404, 'not_found');
    }
  });
});

describe('an empty body sent as application/json', () => {
  const json = { 'content-type': 'application/json' };

  it('is no body on DELETE /polls/{id}: the poll is deleted', async () => {
    const { apiKey } = await t.workspace('pro');
    const poll = expectOk(await api.request('POST /polls', { apiKey, body: { title: 'Goes' } }));
    const res = await rawCall('DELETE', `${t.api}/polls/${poll.id}`, { apiKey, rawBody: '', headers: json });
    expect(res.status, res.text).toBe(200);
    expect((await api.request('GET /polls/{id}', { params: { id: poll.id }, apiKey })).status).toBe(404);
  });

  it('is no body on POST /keys/{id}/revoke: the key is revoked', async () => {
    const { id, apiKey } = await t.workspace('pro');
    const key = await t.server.deps.db
      .selectFrom('api_keys')
      .select('id')
      .where('workspace_id', '=', id)
      .executeTakeFirstOrThrow();
    const res = await rawCall('POST', `${t.api}/keys/${key.id}/revoke`, { apiKey, rawBody: '', headers: json });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ id: key.id, status: 'revoked' });
  });

  it('is judged as {} where the route takes a body: 422 naming the missing fields', async () => {
    const { apiKey } = await t.workspace('pro');
    for (const rawBody of ['', ' \r\n']) {
      const res = await rawCall('POST', `${t.api}/polls`, { apiKey, rawBody, headers: json });
      expectErrorEnvelope(res, 422, 'validation_failed');
      expect(Object.keys(errorDetails(res).fieldErrors)).toContain('title');
    }
  });
});
