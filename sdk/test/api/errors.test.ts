import { errorCodeList, errorCodes } from '@pollkit/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sampleContent } from '../../../server/test/support/polls.js';
import { startTestServer, type TestServer } from '../../../server/test/support/server.js';
import {
  AuthenticationError,
  ConflictError,
  ConnectionError,
  createClient,
  InternalServerError,
  NotFoundError,
  PermissionDeniedError,
  type PollkitClient,
  PollkitError,
  RateLimitError,
  TimeoutError,
  UpgradeRequiredError,
  ValidationError,
} from '../../src/index.js';
import { type FaultProxy, startFaultProxy } from '../support/fault-proxy.js';
import { rejectionOf } from '../support/rejection.js';

let t: TestServer;
let proxy: FaultProxy;
let client: PollkitClient;

beforeAll(async () => {
  t = await startTestServer();
  proxy = await startFaultProxy(t.url);
  const { apiKey } = await t.workspace('pro');
  // No retries: each test looks at the first answer's error.
  client = createClient({ apiKey, baseUrl: t.url, maxRetries: 0 });
});
afterAll(async () => {
  await proxy?.close();
  await t?.close();
});

const missingPoll = { id: 'poll_01AAAAAAAAAAAAAAAAAAAAAAAA' };

describe('error classes, one per family, from real answers', () => {
  it('401: AuthenticationError keeps status, code, message, headers and the raw response', async () => {
    const anonymous = createClient({ apiKey: 'pk_not_a_real_key', baseUrl: t.url, maxRetries: 0 });
    const error = await rejectionOf(anonymous.polls.list());
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(error).toBeInstanceOf(PollkitError);
    const auth = error as AuthenticationError;
    expect(auth).toMatchObject({ name: 'AuthenticationError', status: 401, code: 'invalid_api_key' });
    expect(auth.message).toEqual(expect.any(String));
    expect(auth.requestId).toEqual(expect.any(String));
    expect(auth.response?.status).toBe(401);
    expect(auth.response?.headers.get('x-request-id')).toBe(auth.requestId);
    expect(JSON.parse(auth.response?.text ?? '')).toEqual(auth.body);
  });

  it('serializes what a log needs: JSON.stringify keeps code, message, status and requestId', async () => {
    const error = (await rejectionOf(client.polls.get(missingPoll))) as NotFoundError;
    const logged = JSON.parse(JSON.stringify({ err: error })).err;
    expect(logged).toEqual({
      name: 'NotFoundError',
      code: 'not_found',
      message: 'Poll not found',
      status: 404,
      requestId: error.requestId,
    });
    expect(logged.requestId).toMatch(/\S/);
    // No answer at all: the same fields, without a status or request id.
    const offline = createClient({ apiKey: 'pk_live_x', baseUrl: 'http://127.0.0.1:9', maxRetries: 0 });
    const refused = await rejectionOf(offline.polls.list());
    expect(JSON.parse(JSON.stringify(refused))).toEqual({
      name: 'ConnectionError',
      code: 'connection_error',
      message: expect.any(String),
    });
  });

  it('402: UpgradeRequiredError for a workspace whose plan has no API access', async () => {
    const { apiKey } = await t.workspace('free');
    const free = createClient({ apiKey, baseUrl: t.url, maxRetries: 0 });
    const error = await rejectionOf(free.polls.list());
    expect(error).toBeInstanceOf(UpgradeRequiredError);
    expect(error).toMatchObject({ status: 402, code: 'upgrade_required' });
  });

  it('404: NotFoundError', async () => {
    const error = await rejectionOf(client.polls.get(missingPoll));
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error).toMatchObject({ status: 404, code: 'not_found', message: 'Poll not found' });
  });

  it('409: ConflictError with the exact code, already_responded or poll_closed', async () => {
    const poll = await client.polls.create({ title: 'Conflicts', content: sampleContent() });
    await client.polls.update({ id: poll.id, publish: true });
    const vote = { id: poll.id, voterId: 'ada', slideId: 'lunch', optionIds: ['pizza'] };
    await client.votes.cast(vote);

    const again = await rejectionOf(client.votes.cast(vote));
    expect(again).toBeInstanceOf(ConflictError);
    expect(again).toMatchObject({ status: 409, code: 'already_responded' });

    await client.polls.update({ id: poll.id, closed: true });
    const closed = await rejectionOf(client.votes.cast({ ...vote, voterId: 'bob' }));
    expect(closed).toBeInstanceOf(ConflictError);
    expect(closed).toMatchObject({ status: 409, code: 'poll_closed' });
  });

  it('422: ValidationError exposes fieldErrors and formErrors', async () => {
    const error = await rejectionOf(client.polls.create({ title: '' }));
    expect(error).toBeInstanceOf(ValidationError);
    const invalid = error as ValidationError;
    expect(invalid).toMatchObject({ status: 422, code: 'validation_failed' });
    expect(invalid.fieldErrors.title).toEqual([expect.any(String)]);
    expect(invalid.formErrors).toEqual([]);
    expect(invalid.fieldErrors).toBe(invalid.details?.fieldErrors);
  });

  it('429: RateLimitError once the workspace used up its window', async () => {
    const { apiKey } = await t.workspace('enterprise', { rateLimitPerMinute: 1 });
    const limited = createClient({ apiKey, baseUrl: t.url, maxRetries: 0 });
    await limited.polls.list();
    const error = await rejectionOf(limited.polls.list());
    expect(error).toBeInstanceOf(RateLimitError);
    expect(error).toMatchObject({ status: 429, code: 'rate_limited' });
    expect((error as RateLimitError).headers.get('x-ratelimit-limit')).toBe('1');
  });

  it('403 and 5xx, answered by a proxy in front of the server: PermissionDeniedError, InternalServerError', async () => {
    const { apiKey } = await t.workspace('pro');
    const proxied = createClient({ apiKey, baseUrl: proxy.url, maxRetries: 0 });
    proxy.inject({ kind: 'status', status: 403, code: 'insufficient_scope' });
    expect(await rejectionOf(proxied.polls.list())).toBeInstanceOf(PermissionDeniedError);
    proxy.inject({ kind: 'status', status: 500, code: 'internal_error' });
    const internal = await rejectionOf(proxied.polls.list());
    expect(internal).toBeInstanceOf(InternalServerError);
    expect(internal).toMatchObject({ status: 500, code: 'internal_error' });
    proxy.inject({ kind: 'status', status: 503, code: 'service_unavailable' });
    expect(await rejectionOf(proxied.polls.list())).toMatchObject({ status: 503, code: 'service_unavailable' });
  });

  it('no answer: ConnectionError', async () => {
    const closedPort = createClient({ apiKey: 'pk_x', baseUrl: 'http://127.0.0.1:1', maxRetries: 0 });
    const error = await rejectionOf(closedPort.polls.list());
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error).not.toBeInstanceOf(TimeoutError);
    expect(error).toMatchObject({ status: undefined, code: 'connection_error', response: undefined });
  });
});

describe('PollkitError.from, the one factory', () => {
  const headers = new Headers({ 'x-request-id': 'req_1' });

  it('picks the family of every registry code from its status', () => {
    for (const code of errorCodeList) {
      const { status } = errorCodes[code];
      const error = PollkitError.from({ status, headers, text: JSON.stringify({ error: { code, message: code } }) });
      expect(error.code, code).toBe(code);
      const family = {
        401: AuthenticationError,
        402: UpgradeRequiredError,
        403: PermissionDeniedError,
        404: NotFoundError,
        409: ConflictError,
        422: ValidationError,
        429: RateLimitError,
      }[status as 401];
      if (family) expect(error, code).toBeInstanceOf(family);
      else if (status >= 500) expect(error, code).toBeInstanceOf(InternalServerError);
      else expect(error.constructor, code).toBe(PollkitError);
    }
  });

  it('keeps a code from a newer server, in the family of its status', () => {
    const text = JSON.stringify({ error: { code: 'poll_archived', message: 'Archived' } });
    const error = PollkitError.from({ status: 409, headers, text });
    expect(error).toBeInstanceOf(ConflictError);
    expect(error).toMatchObject({ code: 'poll_archived', message: 'Archived', requestId: 'req_1' });
    expect(error.response).toEqual({ status: 409, headers, text });
  });

  it('reads a body that is not the envelope: the code from the registry, the family from the status', () => {
    expect(PollkitError.from({ status: 429, headers, text: '' })).toMatchObject({ code: 'rate_limited' });
    expect(PollkitError.from({ status: 429, headers, text: '' })).toBeInstanceOf(RateLimitError);
    expect(PollkitError.from({ status: 404, headers, text: '' })).toBeInstanceOf(NotFoundError);
    expect(PollkitError.from({ status: 409, headers, text: 'conflict' })).toBeInstanceOf(ConflictError);
    const gateway = PollkitError.from({ status: 502, headers, text: '<html>Bad gateway</html>' });
    expect(gateway).toBeInstanceOf(InternalServerError);
    expect(gateway).toMatchObject({ code: 'internal_error', message: '<html>Bad gateway</html>' });
  });
});
