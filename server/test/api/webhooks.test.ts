import { webhookEventTypes } from '@pollkit/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../support/assertions.js';
import { call } from '../support/http.js';
import { issuedToken, oauthClient } from '../support/oauth.js';
import { sampleContent } from '../support/polls.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';
import { createEndpoint, deliveriesOf, waitForDelivery } from '../support/webhooks.js';

/**
 * Webhooks end to end over real HTTP: the endpoints API, every event type delivered to a loopback
 * receiver that verifies each request with the `standardwebhooks` npm package (an implementation
 * independent of ours), retries, 410, a run of failures, rotation, test events, redelivery and the
 * delivery log. Runs on PGlite and, in CI's second leg, on PostgreSQL.
 */

let t: TestServer;
let receiver: WebhookReceiver;

// Retries in tens of milliseconds, so a whole schedule runs inside a test.
const SCHEDULE = '40,80';

beforeAll(async () => {
  receiver = await WebhookReceiver.start();
  t = await startTestServer({
    WEBHOOK_ALLOW_HTTP: 'true',
    WEBHOOK_ALLOW_LOOPBACK: 'true',
    WEBHOOK_RETRY_SCHEDULE_MS: SCHEDULE,
    WEBHOOK_POLL_INTERVAL_MS: '50',
  });
});
afterAll(async () => {
  await t?.close();
  await receiver?.close();
});

/** Endpoint fields the API shows (never the secret, except on create and rotate). */
const endpointFields = [
  'createdAt',
  'description',
  'disabledAt',
  'disabledReason',
  'events',
  'id',
  'previousSecretExpiresAt',
  'stats',
  'status',
  'updatedAt',
  'url',
];

describe('the endpoints API', () => {
  it('creates an endpoint whose secret is shown once, then lists, reads, updates and deletes it', async () => {
    const { apiKey } = await t.workspace('pro');
    const created = await call('POST', `${t.api}/webhooks`, {
      apiKey,
      body: { url: receiver.urlFor('crud'), events: ['vote.created', 'poll.closed'], description: 'CRM sync' },
    });
    expect(created.status, created.text).toBe(201);
    expect(Object.keys(created.body).sort()).toEqual([...endpointFields, 'secret'].sort());
    expect(created.body.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(created.body).toMatchObject({
      url: receiver.urlFor('crud'),
      events: ['vote.created', 'poll.closed'],
      description: 'CRM sync',
      status: 'enabled',
      disabledReason: null,
      stats: { pendingDeliveries: 0, succeededDeliveries: 0, failedDeliveries: 0, attempts: 0, failedAttempts: 0 },
    });
    const id = created.body.id;
    expect(id).toMatch(/^whk_[0-9A-HJKMNP-TV-Z]{26}$/);

    const list = await call('GET', `${t.api}/webhooks`, { apiKey });
    expect(list.status).toBe(200);
    expect(list.body.data.map((e: { id: string }) => e.id)).toEqual([id]);
    const read = await call('GET', `${t.api}/webhooks/${id}`, { apiKey });
    expect(Object.keys(read.body).sort()).toEqual(endpointFields);
    for (const res of [list, read]) expect(res.text).not.toContain(created.body.secret);

    // The secret is stored sealed: the database never holds it in the clear.
    const stored = await t.server.deps.db
      .selectFrom('webhook_endpoints')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirst();
    expect(JSON.stringify(stored)).not.toContain(created.body.secret.slice(6));

    const updated = await call('PATCH', `${t.api}/webhooks/${id}`, {
      apiKey,
      body: { events: ['*', 'vote.created'], description: 'All of it' },
    });
    expect(updated.status, updated.text).toBe(200);
    expect(updated.body).toMatchObject({ events: ['*'], description: 'All of it', url: receiver.urlFor('crud') });

    const disabled = await call('PATCH', `${t.api}/webhooks/${id}`, { apiKey, body: { status: 'disabled' } });
    expect(disabled.body).toMatchObject({ status: 'disabled', disabledReason: 'Disabled through the API' });
    expectError(await call('POST', `${t.api}/webhooks/${id}/test`, { apiKey }), 409, 'webhook_endpoint_disabled');
    const enabled = await call('PATCH', `${t.api}/webhooks/${id}`, { apiKey, body: { status: 'enabled' } });
    expect(enabled.body).toMatchObject({ status: 'enabled', disabledReason: null, disabledAt: null });

    const deleted = await call('DELETE', `${t.api}/webhooks/${id}`, { apiKey });
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ id, deleted: true });
    expectError(await call('GET', `${t.api}/webhooks/${id}`, { apiKey }), 404, 'not_found');
    expectError(await call('DELETE', `${t.api}/webhooks/${id}`, { apiKey }), 404, 'not_found');
  });

  it("answers 404 for another workspace's endpoints and deliveries", async () => {
    const owner = await t.workspace('pro');
    const other = await t.workspace('pro');
    const endpoint = await createEndpoint(t, owner.apiKey, { url: receiver.urlFor('isolation') });
    const test = await call('POST', `${t.api}/webhooks/${endpoint.id}/test`, { apiKey: owner.apiKey });
    expect(test.status, test.text).toBe(202);
    for (const [method, path] of [
      ['GET', `/webhooks/${endpoint.id}`],
      ['PATCH', `/webhooks/${endpoint.id}`],
      ['DELETE', `/webhooks/${endpoint.id}`],
      ['POST', `/webhooks/${endpoint.id}/rotate-secret`],
      ['POST', `/webhooks/${endpoint.id}/test`],
      ['GET', `/webhooks/${endpoint.id}/deliveries`],
      ['GET', `/webhooks/${endpoint.id}/deliveries/${test.body.id}`],
      ['POST', `/webhooks/${endpoint.id}/deliveries/${test.body.id}/redeliver`],
      ['GET', `/webhooks/${endpoint.id}/attempts`],
    ] as const) {
      const res = await call(method, `${t.api}${path}`, {
        apiKey: other.apiKey,
        body: method === 'PATCH' ? { description: 'mine now' } : undefined,
      });
      expectError(res, 404, 'not_found');
    }
    expect((await call('GET', `${t.api}/webhooks`, { apiKey: other.apiKey })).body.data).toEqual([]);
  });

  it('refuses URLs that are not https or that resolve to private addresses, and changes nothing', async () => {
    // On PGlite its own in-memory copy (an undefined DATABASE_URL would mean PGlite on disk, migrated
    // afresh, in a folder close() removes); on PostgreSQL, t's database.
    const strict = await startTestServer(t.databaseUrl === 'memory://' ? {} : { DATABASE_URL: t.databaseUrl });
    try {
      const { apiKey } = await strict.workspace('pro');
      for (const [url, message] of [
        ['http://example.com/hooks', /must be https/],
        ['ftp://example.com/hooks', /must be https/],
        ['https://user:pass@example.com/hooks', /credentials/],
        [
          'https://127.0.0.1/hooks',
          /loopback address; the server allows loopback addresses only with WEBHOOK_ALLOW_LOOPBACK=true/,
        ],
        [
          'https://localhost:8443/hooks',
          /loopback address; the server allows loopback addresses only with WEBHOOK_ALLOW_LOOPBACK=true/,
        ],
        [
          'https://[::1]/hooks',
          /loopback address; the server allows loopback addresses only with WEBHOOK_ALLOW_LOOPBACK=true/,
        ],
        ['https://10.0.0.8/hooks', /private/],
        ['https://192.168.1.20/hooks', /private/],
        ['https://169.254.169.254/latest/meta-data', /private, link-local/],
        ['https://[fd00::1]/hooks', /private/],
        ['https://[::ffff:10.0.0.1]/hooks', /private/],
      ] as const) {
        const res = await call('POST', `${strict.api}/webhooks`, { apiKey, body: { url } });
        expectError(res, 422, 'webhook_url_not_allowed');
        expect(res.body.error.message, url).toMatch(message);
        // Only a loopback refusal names the setting: no setting allows a private address.
        if (/private/.test(String(message))) expect(res.body.error.message).not.toContain('ALLOW');
      }
      expectError(
        await call('POST', `${strict.api}/webhooks`, { apiKey, body: { url: 'not a url' } }),
        422,
        'validation_failed',
      );
      expect((await call('GET', `${strict.api}/webhooks`, { apiKey })).body.data).toEqual([]);
    } finally {
      await strict.close();
    }
    // With WEBHOOK_ALLOW_LOOPBACK, loopback is allowed; private addresses still are not.
    const { apiKey } = await t.workspace('pro');
    expectError(
      await call('POST', `${t.api}/webhooks`, { apiKey, body: { url: 'http://10.1.2.3/hooks' } }),
      422,
      'webhook_url_not_allowed',
    );
    const endpoint = await createEndpoint(t, apiKey, { url: receiver.urlFor('loopback') });
    expectError(
      await call('PATCH', `${t.api}/webhooks/${endpoint.id}`, { apiKey, body: { url: 'http://192.168.0.1/' } }),
      422,
      'webhook_url_not_allowed',
    );
    expect((await call('GET', `${t.api}/webhooks/${endpoint.id}`, { apiKey })).body.url).toBe(
      receiver.urlFor('loopback'),
    );
  });

  it('validates the event filter and allows at most 20 endpoints per workspace', async () => {
    const { apiKey } = await t.workspace('pro');
    for (const events of [[], ['vote.deleted'], ['webhook.test'], 'vote.created']) {
      const res = await call('POST', `${t.api}/webhooks`, { apiKey, body: { url: receiver.urlFor('filter'), events } });
      expectError(res, 422, 'validation_failed');
      expect(Object.keys(res.body.error.details.fieldErrors).some((field) => field.startsWith('events'))).toBe(true);
    }
    for (let i = 0; i < 20; i++)
      await createEndpoint(t, apiKey, { url: receiver.urlFor(`many-${i}`), events: ['poll.deleted'] });
    const over = await call('POST', `${t.api}/webhooks`, { apiKey, body: { url: receiver.urlFor('one-too-many') } });
    expectError(over, 409, 'webhook_endpoint_limit');
    expect(over.body.error.details).toEqual({ limit: 20 });
  });

  it('needs webhooks:read to read and webhooks:write to change', async () => {
    const client = await oauthClient(t, 'webhooks:read polls:read');
    const endpoint = await createEndpoint(t, client.apiKey, { url: receiver.urlFor('scopes') });
    const { access_token: token } = await issuedToken(t, client, 'webhooks:read');
    const auth = { headers: { authorization: `Bearer ${token}` } };
    expect((await call('GET', `${t.api}/webhooks`, auth)).status).toBe(200);
    expect((await call('GET', `${t.api}/webhooks/${endpoint.id}/attempts`, auth)).status).toBe(200);
    const refused = await call('POST', `${t.api}/webhooks`, { ...auth, body: { url: receiver.urlFor('scopes') } });
    expectError(refused, 403, 'insufficient_scope');
    expect(refused.body.error.details).toMatchObject({ requiredScope: 'webhooks:write' });
    expectError(await call('POST', `${t.api}/webhooks/${endpoint.id}/test`, auth), 403, 'insufficient_scope');
  });
});

describe('events', () => {
  it('delivers every event type, signed per Standard Webhooks, with the resource as the API reads it', async () => {
    const { apiKey } = await t.workspace('pro');
    const endpoint = await createEndpoint(t, apiKey, { url: receiver.urlFor('every-type') });
    receiver.secrets.push(endpoint.secret);

    const content = sampleContent({ id: 'ama', kind: 'qa', text: 'Ask me anything', moderated: false });
    const poll = await call('POST', `${t.api}/polls`, { apiKey, body: { title: 'Offsite', content } });
    const pollId = poll.body.id;
    await call('PATCH', `${t.api}/polls/${pollId}`, { apiKey, body: { title: 'Team offsite' } });
    await call('PATCH', `${t.api}/polls/${pollId}`, { apiKey, body: { publish: true } });
    const vote = await call('POST', `${t.api}/polls/${pollId}/votes`, {
      apiKey,
      body: { voterId: 'ada', slideId: 'lunch', optionIds: ['sushi'] },
    });
    expect(vote.status, vote.text).toBe(201);
    const response = await call('POST', `${t.api}/polls/${pollId}/responses`, {
      apiKey,
      body: { voterId: 'ada', slideId: 'mood', scaleValues: { work: 4 } },
    });
    expect(response.status, response.text).toBe(201);
    const question = await call('POST', `${t.api}/polls/${pollId}/responses`, {
      apiKey,
      body: { voterId: 'ada', slideId: 'ama', text: 'When is the next offsite?' },
    });
    expect(question.status, question.text).toBe(201);
    // A fan upvotes the question and is then erased: `respondent.erased` (its id names the poll, so
    // `mine()` finds it; an upvote makes no event of its own).
    const fan = `fan-${pollId}`;
    const upvote = await call('POST', `${t.api}/polls/${pollId}/questions/${question.body.id}/upvotes`, {
      apiKey,
      body: { voterId: fan },
    });
    expect(upvote.status, upvote.text).toBe(201);
    const erased = await call('DELETE', `${t.api}/respondents/${fan}`, { apiKey });
    expect(erased.status, erased.text).toBe(200);
    // A self-paced session, walked to the end by skipping every slide: `session.participant_completed`.
    const walk = await call('POST', `${t.api}/sessions`, { apiKey, body: { pollId, pace: 'audience', pin: false } });
    expect(walk.status, walk.text).toBe(201);
    await call('POST', `${t.api}/sessions/${walk.body.id}/control`, { apiKey, body: { action: 'start' } });
    const link = String(walk.body.joinUrl).split('/').pop();
    const walker = await call('POST', `${t.api}/live/${link}/join`, { body: { name: 'Wanda' } });
    const headers = { 'x-participant-token': walker.body.participantToken };
    for (const slide of content.questions) {
      const moved = await call('POST', `${t.api}/live/${link}/advance`, { body: { slideId: slide.id }, headers });
      expect(moved.status, moved.text).toBe(200);
    }
    const session = await call('POST', `${t.api}/sessions`, { apiKey, body: { pollId } });
    expect(session.status, session.text).toBe(201);
    for (const action of ['start', 'lock', 'next', 'showResults', 'end']) {
      const res = await call('POST', `${t.api}/sessions/${session.body.id}/control`, { apiKey, body: { action } });
      expect(res.status, res.text).toBe(200);
    }
    await call('PATCH', `${t.api}/polls/${pollId}`, { apiKey, body: { closed: true } });
    await call('DELETE', `${t.api}/polls/${pollId}`, { apiKey });

    // Every type the contract lists: a type added later fails here until this walk makes it.
    const expected = [...webhookEventTypes];
    // The self-paced session's own `session.created` and `session.started` are left out: the presenter's
    // session makes those.
    const walkSessionEvent = (d: { body: string; event?: { type: string } }) =>
      d.body.includes(walk.body.id) && d.event?.type !== 'session.participant_completed';
    const mine = () => receiver.received.filter((d) => d.event && d.body.includes(pollId) && !walkSessionEvent(d));
    await receiver.waitFor(() => mine().length >= expected.length, 20_000, 'every event type');
    const received = mine();
    // Each event once (nothing failed, so nothing was retried), each verified by the independent library.
    expect(received.map((d) => d.event?.type).sort()).toEqual([...expected].sort());
    for (const delivery of received) {
      expect(delivery.verified, delivery.body).toBe(true);
      expect(delivery.event?.id).toBe(delivery.id);
      expect(delivery.id).toMatch(/^evt_[0-9A-HJKMNP-TV-Z]{26}$/);
    }
    const data = (type: string) => received.find((d) => d.event?.type === type)?.event?.data as Record<string, unknown>;
    expect(data('poll.created')).toMatchObject({ id: pollId, title: 'Offsite', status: 'draft' });
    expect(data('poll.updated')).toMatchObject({ id: pollId, title: 'Team offsite' });
    expect(data('poll.published')).toMatchObject({ id: pollId, status: 'published' });
    expect(data('poll.closed')).toMatchObject({ id: pollId, status: 'closed' });
    expect(data('poll.deleted')).toEqual({ id: pollId, deleted: true });
    expect(data('vote.created')).toEqual({ ...vote.body, optionIds: ['sushi'], sessionId: null });
    expect(data('response.created')).toMatchObject({
      id: response.body.id,
      kind: 'scale',
      scaleValues: { work: 4 },
      sessionId: null,
    });
    expect(data('question.created')).toMatchObject({
      id: question.body.id,
      text: 'When is the next offsite?',
      status: 'approved',
      upvotes: 0,
    });
    expect(data('session.created')).toMatchObject({ id: session.body.id, status: 'pending', pin: session.body.pin });
    expect(data('session.started')).toMatchObject({ status: 'active', currentSlideIndex: 0 });
    expect(data('session.slide_changed')).toMatchObject({ status: 'active', currentSlideIndex: 1 });
    expect(data('session.ended')).toMatchObject({ status: 'ended' });
    expect(JSON.stringify(data('session.created'))).not.toContain(session.body.hostToken);
    expect(data('respondent.erased')).toEqual({
      id: fan,
      erased: { votes: 0, responses: 0, questions: 0, upvotes: 1, participants: 0, redacted: 0 },
    });
    expect(data('session.participant_completed')).toEqual({
      sessionId: walk.body.id,
      pollId,
      participantId: walker.body.participant.id,
      name: 'Wanda',
      answerCount: 0,
      score: 0,
    });

    // Every delivery succeeded at its first attempt, and the counters say so (the self-paced
    // session's `session.created` and `session.started` among them).
    const delivered = expected.length + 2;
    await waitFor(async () => {
      const stats = (await call('GET', `${t.api}/webhooks/${endpoint.id}`, { apiKey })).body.stats;
      return stats.succeededDeliveries === delivered && stats.pendingDeliveries === 0;
    });
    const read = await call('GET', `${t.api}/webhooks/${endpoint.id}`, { apiKey });
    expect(read.body.stats).toMatchObject({
      succeededDeliveries: delivered,
      failedDeliveries: 0,
      attempts: delivered,
      failedAttempts: 0,
      consecutiveFailures: 0,
    });
    expect(read.body.stats.lastSuccessAt).not.toBeNull();
  });

  it('sends an endpoint only the types it subscribed to, and nothing for changes that were refused', async () => {
    const { apiKey } = await t.workspace('pro');
    const votesOnly = await createEndpoint(t, apiKey, { url: receiver.urlFor('votes-only'), events: ['vote.created'] });
    const pollsOnly = await createEndpoint(t, apiKey, {
      url: receiver.urlFor('polls-only'),
      events: ['poll.published'],
    });
    receiver.secrets.push(votesOnly.secret, pollsOnly.secret);
    const poll = await call('POST', `${t.api}/polls`, { apiKey, body: { title: 'Filter', content: sampleContent() } });
    await call('PATCH', `${t.api}/polls/${poll.body.id}`, { apiKey, body: { publish: true } });
    const first = await call('POST', `${t.api}/polls/${poll.body.id}/votes`, {
      apiKey,
      body: { voterId: 'bo', slideId: 'lunch', optionIds: ['pizza'] },
    });
    expect(first.status).toBe(201);
    // Refused: the same voter again, an unknown option, a slide edit after answers. No event for any.
    expectError(
      await call('POST', `${t.api}/polls/${poll.body.id}/votes`, {
        apiKey,
        body: { voterId: 'bo', slideId: 'lunch', optionIds: ['sushi'] },
      }),
      409,
      'already_responded',
    );
    expectError(
      await call('POST', `${t.api}/polls/${poll.body.id}/votes`, {
        apiKey,
        body: { voterId: 'cy', slideId: 'lunch', optionIds: ['curry'] },
      }),
      422,
      'validation_failed',
    );
    expectError(
      await call('PATCH', `${t.api}/polls/${poll.body.id}`, { apiKey, body: { content: sampleContent() } }),
      409,
      'poll_has_responses',
    );
    const votes = await deliveriesOf(t, apiKey, votesOnly.id);
    const polls = await deliveriesOf(t, apiKey, pollsOnly.id);
    expect(votes.map((d) => d.eventType)).toEqual(['vote.created']);
    expect(polls.map((d) => d.eventType)).toEqual(['poll.published']);
    // One event, one id, whichever endpoint: here each endpoint got a different event.
    expect(votes[0]?.eventId).not.toBe(polls[0]?.eventId);
    await receiver.waitFor(
      () =>
        receiver.received.some((d) => d.id === votes[0]?.eventId) &&
        receiver.received.some((d) => d.id === polls[0]?.eventId),
    );
  });
});

describe('scopes of what a delivery carries', () => {
  /** A key of the workspace holding only `keyScopes`, made through the API. */
  async function keyWith(apiKey: string, keyScopes: string[]): Promise<string> {
    const res = await call('POST', `${t.api}/keys`, { apiKey, body: { name: keyScopes.join(' '), scopes: keyScopes } });
    expect(res.status, res.text).toBe(201);
    return res.body.secret;
  }
  const read = (apiKey: string, path: string) => call('GET', `${t.api}/webhooks/${path}`, { apiKey });

  it('shows a delivery’s payload, and the receiver’s answers to it, only to a credential holding the scope of its data', async () => {
    const { apiKey } = await t.workspace('pro');
    const endpoint = await createEndpoint(t, apiKey, {
      url: receiver.urlFor('scoped-reads'),
      events: ['vote.created', 'poll.published'],
    });
    receiver.secrets.push(endpoint.secret);
    const poll = await call('POST', `${t.api}/polls`, { apiKey, body: { title: 'Scoped', content: sampleContent() } });
    await call('PATCH', `${t.api}/polls/${poll.body.id}`, { apiKey, body: { publish: true } });
    const vote = await call('POST', `${t.api}/polls/${poll.body.id}/votes`, {
      apiKey,
      body: { voterId: 'voter-ada-7', slideId: 'lunch', optionIds: ['sushi'] },
    });
    expect(vote.status, vote.text).toBe(201);
    const test = await call('POST', `${t.api}/webhooks/${endpoint.id}/test`, { apiKey });
    expect(test.status, test.text).toBe(202);
    const deliveries = await deliveriesOf(t, apiKey, endpoint.id);
    const idOf = (type: string) => deliveries.find((d) => d.eventType === type)?.id ?? '';
    for (const type of ['vote.created', 'poll.published', 'webhook.test']) {
      await waitForDelivery(t, apiKey, endpoint.id, idOf(type), 'succeeded');
    }
    const voteDelivery = `${endpoint.id}/deliveries/${idOf('vote.created')}`;
    const pollDelivery = `${endpoint.id}/deliveries/${idOf('poll.published')}`;
    const testDelivery = `${endpoint.id}/deliveries/${idOf('webhook.test')}`;

    // webhooks:read alone: that each delivery happened and how it went, not the data it carried.
    const hooksOnly = await keyWith(apiKey, ['webhooks:read']);
    const hiddenVote = await read(hooksOnly, voteDelivery);
    expect(hiddenVote.status, hiddenVote.text).toBe(200);
    expect(hiddenVote.body).toMatchObject({ status: 'succeeded', payloadScope: 'responses:read', payload: null });
    expect(hiddenVote.body.lastAttempt).toMatchObject({
      outcome: 'succeeded',
      responseStatus: 200,
      responseExcerpt: null,
    });
    expect(hiddenVote.body.attemptLog.map((a: { responseExcerpt: unknown }) => a.responseExcerpt)).toEqual([null]);
    expect(hiddenVote.text).not.toContain('voter-ada-7');
    const hiddenPoll = await read(hooksOnly, pollDelivery);
    expect(hiddenPoll.body).toMatchObject({ payloadScope: 'polls:read', payload: null });
    expect(hiddenPoll.text).not.toContain('correctOptionIds');
    const testEvent = await read(hooksOnly, testDelivery);
    expect(testEvent.body).toMatchObject({ payloadScope: null, payload: expect.stringContaining('webhook.test') });
    expect(testEvent.body.lastAttempt.responseExcerpt).toBe('ok');
    const listed = await read(hooksOnly, `${endpoint.id}/deliveries`);
    const attempts = await read(hooksOnly, `${endpoint.id}/attempts`);
    for (const res of [listed, attempts]) {
      expect(res.status, res.text).toBe(200);
      expect(res.text).not.toContain('voter-ada-7');
    }
    const excerptOf = (rows: any[], type: string, pick = (row: any) => row.lastAttempt) =>
      pick(rows.find((row) => row.eventType === type)).responseExcerpt;
    expect(excerptOf(listed.body.data, 'vote.created')).toBeNull();
    expect(excerptOf(listed.body.data, 'webhook.test')).toBe('ok');
    expect(excerptOf(attempts.body.data, 'vote.created', (row) => row)).toBeNull();
    expect(excerptOf(attempts.body.data, 'poll.published', (row) => row)).toBeNull();
    expect(excerptOf(attempts.body.data, 'webhook.test', (row) => row)).toBe('ok');

    // With responses:read as well it reads the vote as before, and still not the poll.
    const hooksAndResponses = await keyWith(apiKey, ['webhooks:read', 'responses:read']);
    const full = await read(apiKey, voteDelivery);
    expect(full.body.payload).toContain('voter-ada-7');
    const shown = await read(hooksAndResponses, voteDelivery);
    expect(shown.body.payload).toBe(full.body.payload);
    expect(shown.body.attemptLog).toEqual(full.body.attemptLog);
    expect(shown.body.lastAttempt.responseExcerpt).toBe('ok');
    expect((await read(hooksAndResponses, pollDelivery)).body.payload).toBeNull();
    expect((await read(apiKey, pollDelivery)).body.payload).toContain('"poll.published"');
  });

  it('lets webhooks:write send to a URL only the events whose data the credential reads', async () => {
    const { apiKey } = await t.workspace('pro');
    const existing = await createEndpoint(t, apiKey, {
      url: receiver.urlFor('votes-elsewhere'),
      events: ['vote.created'],
    });
    const writer = await keyWith(apiKey, ['webhooks:read', 'webhooks:write']);
    const create = (key: string, body: Record<string, unknown>) =>
      call('POST', `${t.api}/webhooks`, { apiKey: key, body: { url: receiver.urlFor('mine'), ...body } });

    const everything = await create(writer, {});
    expectError(everything, 403, 'insufficient_scope');
    expect(everything.body.error.details).toEqual({
      requiredScope: 'polls:read',
      missingScopes: ['polls:read', 'responses:read', 'sessions:read'],
    });
    const votes = await create(writer, { events: ['vote.created'] });
    expectError(votes, 403, 'insufficient_scope');
    expect(votes.body.error.details).toEqual({ requiredScope: 'responses:read', missingScopes: ['responses:read'] });
    // Pointing an endpoint that receives votes at another URL is receiving them there.
    const moved = await call('PATCH', `${t.api}/webhooks/${existing.id}`, {
      apiKey: writer,
      body: { url: receiver.urlFor('mine') },
    });
    expectError(moved, 403, 'insufficient_scope');
    const resubscribed = await call('PATCH', `${t.api}/webhooks/${existing.id}`, {
      apiKey: writer,
      body: { events: ['session.ended'] },
    });
    expectError(resubscribed, 403, 'insufficient_scope');
    expect((await read(apiKey, existing.id)).body).toMatchObject({
      url: receiver.urlFor('votes-elsewhere'),
      events: ['vote.created'],
    });
    const described = await call('PATCH', `${t.api}/webhooks/${existing.id}`, {
      apiKey: writer,
      body: { description: 'Only words' },
    });
    expect(described.status, described.text).toBe(200);
    expect((await call('GET', `${t.api}/webhooks`, { apiKey })).body.data).toHaveLength(1);

    const voteWriter = await keyWith(apiKey, ['webhooks:write', 'responses:read']);
    expect((await create(voteWriter, { events: ['vote.created', 'question.created'] })).status).toBe(201);
    const movedNow = await call('PATCH', `${t.api}/webhooks/${existing.id}`, {
      apiKey: voteWriter,
      body: { url: receiver.urlFor('mine') },
    });
    expect(movedNow.status, movedNow.text).toBe(200);
    // A full key, as before: every type, `*` included.
    expect((await create(apiKey, {})).status).toBe(201);
  });
});

describe('delivery', () => {
  it('retries failures with the same id and signature scheme until a 2xx, and logs every attempt', async () => {
    const { apiKey } = await t.workspace('pro');
    const endpoint = await createEndpoint(t, apiKey, { url: receiver.urlFor('flaky') });
    receiver.secrets.push(endpoint.secret);
    const previous = receiver.respond;
    receiver.respond = (delivery, count) =>
      delivery.event?.type === 'webhook.test' && delivery.body.includes(endpoint.id) && count <= 2
        ? 503
        : previous(delivery, count);
    try {
      const queued = await call('POST', `${t.api}/webhooks/${endpoint.id}/test`, { apiKey });
      expect(queued.status, queued.text).toBe(202);
      expect(queued.body).toMatchObject({
        status: 'pending',
        attempts: 0,
        eventType: 'webhook.test',
        lastAttempt: null,
      });
      const done = await waitForDelivery(t, apiKey, endpoint.id, queued.body.id, 'succeeded');
      expect(done.attemptLog.map((a: { responseStatus: number }) => a.responseStatus)).toEqual([503, 503, 200]);
      expect(done.attemptLog.map((a: { attempt: number }) => a.attempt)).toEqual([1, 2, 3]);
      expect(done.attemptLog[0]).toMatchObject({ outcome: 'failed', responseExcerpt: 'refused with 503', error: null });
      expect(done.attemptLog[2]).toMatchObject({ outcome: 'succeeded', responseExcerpt: 'ok' });
      const sent = receiver.received.filter((d) => d.id === queued.body.eventId);
      expect(sent).toHaveLength(3);
      for (const delivery of sent) {
        expect(delivery.verified).toBe(true);
        expect(delivery.body).toBe(done.payload);
      }
      // The waits grow: the schedule's 40 ms then 80 ms, each jittered by at most 25%.
      const gaps = [sent[1]!.receivedAt - sent[0]!.receivedAt, sent[2]!.receivedAt - sent[1]!.receivedAt];
      expect(gaps[0]).toBeGreaterThanOrEqual(30);
      expect(gaps[1]).toBeGreaterThanOrEqual(60);

      const log = await call('GET', `${t.api}/webhooks/${endpoint.id}/attempts?limit=2`, { apiKey });
      expect(log.status).toBe(200);
      expect(log.body.data.map((a: { attempt: number }) => a.attempt)).toEqual([3, 2]);
      const rest = await call(
        'GET',
        `${t.api}/webhooks/${endpoint.id}/attempts?limit=2&cursor=${log.body.nextCursor}`,
        {
          apiKey,
        },
      );
      expect(rest.body.data.map((a: { attempt: number }) => a.attempt)).toEqual([1]);
      expect(rest.body.nextCursor).toBeNull();
      const stats = (await call('GET', `${t.api}/webhooks/${endpoint.id}`, { apiKey })).body.stats;
      expect(stats).toMatchObject({ attempts: 3, failedAttempts: 2, succeededDeliveries: 1, consecutiveFailures: 0 });
    } finally {
      receiver.respond = previous;
    }
  });

  it('disables an endpoint that answers 410 Gone, and gives up what it had pending', async () => {
    const { apiKey } = await t.workspace('pro');
    const endpoint = await createEndpoint(t, apiKey, { url: receiver.urlFor('gone') });
    const previous = receiver.respond;
    receiver.respond = (delivery, count) => (delivery.body.includes(endpoint.id) ? 410 : previous(delivery, count));
    try {
      const queued = await call('POST', `${t.api}/webhooks/${endpoint.id}/test`, { apiKey });
      const failed = await waitForDelivery(t, apiKey, endpoint.id, queued.body.id, 'failed');
      expect(failed.attemptLog).toHaveLength(1);
      const read = await call('GET', `${t.api}/webhooks/${endpoint.id}`, { apiKey });
      expect(read.body).toMatchObject({ status: 'disabled', disabledReason: 'The endpoint answered 410 Gone' });
      expect(read.body.disabledAt).not.toBeNull();
      expectError(
        await call('POST', `${t.api}/webhooks/${endpoint.id}/deliveries/${queued.body.id}/redeliver`, { apiKey }),
        409,
        'webhook_endpoint_disabled',
      );
    } finally {
      receiver.respond = previous;
    }
  });

  it('disables an endpoint after a whole retry schedule of failures, saying why', async () => {
    const { apiKey } = await t.workspace('pro');
    const endpoint = await createEndpoint(t, apiKey, { url: receiver.urlFor('down') });
    const previous = receiver.respond;
    receiver.respond = (delivery, count) => (delivery.body.includes(endpoint.id) ? 500 : previous(delivery, count));
    try {
      const queued = await call('POST', `${t.api}/webhooks/${endpoint.id}/test`, { apiKey });
      const failed = await waitForDelivery(t, apiKey, endpoint.id, queued.body.id, 'failed');
      // One attempt plus one per wait of the schedule.
      expect(failed.attemptLog.map((a: { responseStatus: number }) => a.responseStatus)).toEqual([500, 500, 500]);
      const read = await call('GET', `${t.api}/webhooks/${endpoint.id}`, { apiKey });
      expect(read.body.status).toBe('disabled');
      expect(read.body.disabledReason).toBe(
        'Every attempt failed for a whole retry schedule (3 failed attempts in a row; the last: HTTP 500)',
      );
      expect(read.body.stats).toMatchObject({
        attempts: 3,
        failedAttempts: 3,
        failedDeliveries: 1,
        consecutiveFailures: 3,
      });

      // Enabled again and redelivered: the schedule starts over, and this time the receiver takes it.
      receiver.respond = previous;
      receiver.secrets.push(endpoint.secret);
      await call('PATCH', `${t.api}/webhooks/${endpoint.id}`, { apiKey, body: { status: 'enabled' } });
      const again = await call('POST', `${t.api}/webhooks/${endpoint.id}/deliveries/${queued.body.id}/redeliver`, {
        apiKey,
      });
      expect(again.status, again.text).toBe(202);
      expect(again.body).toMatchObject({ status: 'pending', attempts: 3 });
      const delivered = await waitForDelivery(t, apiKey, endpoint.id, queued.body.id, 'succeeded');
      expect(delivered.attemptLog.map((a: { attempt: number }) => a.attempt)).toEqual([1, 2, 3, 4]);
      expect(receiver.received.filter((d) => d.id === queued.body.eventId).at(-1)?.verified).toBe(true);
    } finally {
      receiver.respond = previous;
    }
  });

  it('signs with both secrets for 24 hours after a rotation', async () => {
    const { apiKey } = await t.workspace('pro');
    const endpoint = await createEndpoint(t, apiKey, { url: receiver.urlFor('rotation') });
    const rotated = await call('POST', `${t.api}/webhooks/${endpoint.id}/rotate-secret`, { apiKey });
    expect(rotated.status, rotated.text).toBe(200);
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(endpoint.secret);
    const expires = Date.parse(rotated.body.previousSecretExpiresAt);
    expect(expires - Date.now()).toBeGreaterThan(86_400_000 - 60_000);
    expect(expires - Date.now()).toBeLessThanOrEqual(86_400_000);

    receiver.secrets.push(rotated.body.secret);
    const queued = await call('POST', `${t.api}/webhooks/${endpoint.id}/test`, { apiKey });
    await waitForDelivery(t, apiKey, endpoint.id, queued.body.id, 'succeeded');
    const delivery = receiver.received.find((d) => d.id === queued.body.eventId);
    expect(delivery?.signature.split(' ')).toHaveLength(2);
    const { Webhook } = await import('standardwebhooks');
    const headers = {
      'webhook-id': delivery!.id,
      'webhook-timestamp': delivery!.timestamp,
      'webhook-signature': delivery!.signature,
    };
    // A receiver holding either secret alone verifies it.
    expect(() => new Webhook(endpoint.secret).verify(delivery!.body, headers)).not.toThrow();
    expect(() => new Webhook(rotated.body.secret).verify(delivery!.body, headers)).not.toThrow();

    // A second rotation retires the first secret at once: two signatures, the newest two secrets.
    const second = await call('POST', `${t.api}/webhooks/${endpoint.id}/rotate-secret`, { apiKey });
    receiver.secrets.push(second.body.secret);
    const next = await call('POST', `${t.api}/webhooks/${endpoint.id}/test`, { apiKey });
    await waitForDelivery(t, apiKey, endpoint.id, next.body.id, 'succeeded');
    const later = receiver.received.find((d) => d.id === next.body.eventId)!;
    const laterHeaders = {
      'webhook-id': later.id,
      'webhook-timestamp': later.timestamp,
      'webhook-signature': later.signature,
    };
    expect(later.signature.split(' ')).toHaveLength(2);
    expect(() => new Webhook(second.body.secret).verify(later.body, laterHeaders)).not.toThrow();
    expect(() => new Webhook(rotated.body.secret).verify(later.body, laterHeaders)).not.toThrow();
    expect(() => new Webhook(endpoint.secret).verify(later.body, laterHeaders)).toThrow();
  });

  it("does not let one slow receiver hold up another workspace's deliveries", async () => {
    const slowOwner = await t.workspace('pro');
    const fastOwner = await t.workspace('pro');
    const slow = await createEndpoint(t, slowOwner.apiKey, { url: receiver.urlFor('slow') });
    const fast = await createEndpoint(t, fastOwner.apiKey, { url: receiver.urlFor('fast') });
    receiver.delayMs = (path) => (path === '/hooks/slow' ? 1_500 : 0);
    try {
      // More deliveries for the slow receiver than the worker's per-endpoint limit (16) allows in flight.
      const backlog: string[] = [];
      for (let i = 0; i < 40; i++) {
        const res = await call('POST', `${t.api}/webhooks/${slow.id}/test`, { apiKey: slowOwner.apiKey });
        backlog.push(res.body.eventId);
      }
      const queued = await call('POST', `${t.api}/webhooks/${fast.id}/test`, { apiKey: fastOwner.apiKey });
      await receiver.waitFor(() => receiver.received.some((d) => d.id === queued.body.eventId));
      // The fast endpoint's event went through while most of the slow one's backlog still waited.
      const slowDone = receiver.received.filter((d) => backlog.includes(d.id)).length;
      expect(slowDone).toBeLessThan(backlog.length);
      const waiting = await call('GET', `${t.api}/webhooks/${slow.id}`, { apiKey: slowOwner.apiKey });
      expect(waiting.body.stats.pendingDeliveries).toBeGreaterThan(0);
      await receiver.waitFor(() => backlog.every((id) => receiver.received.some((d) => d.id === id)), 30_000);
    } finally {
      receiver.delayMs = () => 0;
    }
  });

  it('deletes finished deliveries past the retention period, with their attempts', async () => {
    const { apiKey } = await t.workspace('pro');
    const endpoint = await createEndpoint(t, apiKey, { url: receiver.urlFor('retention') });
    receiver.secrets.push(endpoint.secret);
    const done = await call('POST', `${t.api}/webhooks/${endpoint.id}/test`, { apiKey });
    await waitForDelivery(t, apiKey, endpoint.id, done.body.id, 'succeeded');
    const { db } = t.server.deps;
    // Finished 40 days ago, by its clock.
    await db
      .updateTable('webhook_deliveries')
      .set({ updated_at: new Date(Date.now() - 40 * 86_400_000) })
      .where('id', '=', done.body.id)
      .execute();
    const { pruneFinishedDeliveries } = await import('../../src/modules/webhooks/delivery.repository.js');
    const pruned = await pruneFinishedDeliveries(db, new Date(Date.now() - 30 * 86_400_000), 1_000);
    expect(pruned).toBeGreaterThanOrEqual(1);
    expectError(
      await call('GET', `${t.api}/webhooks/${endpoint.id}/deliveries/${done.body.id}`, { apiKey }),
      404,
      'not_found',
    );
    const attempts = await db
      .selectFrom('webhook_attempts')
      .select('id')
      .where('delivery_id', '=', done.body.id)
      .execute();
    expect(attempts).toEqual([]);
  });

  it('stops delivering to a deleted endpoint', async () => {
    const { apiKey } = await t.workspace('pro');
    const endpoint = await createEndpoint(t, apiKey, { url: receiver.urlFor('deleted'), events: ['poll.created'] });
    const sent = await call('POST', `${t.api}/webhooks/${endpoint.id}/test`, { apiKey });
    await waitForDelivery(t, apiKey, endpoint.id, sent.body.id, 'succeeded');
    await call('DELETE', `${t.api}/webhooks/${endpoint.id}`, { apiKey });
    // Its deliveries and their attempts went with it.
    const { db } = t.server.deps;
    expect(
      await db.selectFrom('webhook_attempts').select('id').where('endpoint_id', '=', endpoint.id).execute(),
    ).toEqual([]);
    const poll = await call('POST', `${t.api}/polls`, {
      apiKey,
      body: { title: 'After delete', content: sampleContent() },
    });
    expect(poll.status).toBe(201);
    const rows = await t.server.deps.db
      .selectFrom('webhook_deliveries')
      .select('id')
      .where('endpoint_id', '=', endpoint.id)
      .execute();
    expect(rows).toEqual([]);
  });
});

async function waitFor(check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 30));
  }
}
