import { type Scope, webhookEventTypes } from '@pollkit/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../support/assertions.js';
import { sampleContent } from '../support/polls.js';
import type { TestServer } from '../support/server.js';
import { type BodyOf, expectOk, expectStatus, testClient } from '../support/test-client.js';
import type { WebhookReceiver } from '../support/webhook-receiver.js';
import { createEndpoint, deliveriesOf, waitForDelivery } from '../support/webhooks.js';
import { closeWebhookServer, startWebhookServer, waitFor } from '../support/webhooks-server.js';

/**
 * Webhooks over real HTTP, what is delivered: every event type, to a loopback receiver that
 * verifies each request with the `standardwebhooks` npm package (an implementation independent of
 * ours), only the types an endpoint subscribed to, and a delivery's payload shown, or sent, only to
 * a credential holding the scope of its data. The endpoints API and the delivery machinery:
 * webhooks.endpoints.test.ts, webhooks.delivery.test.ts. Runs on PGlite and, in CI's second leg, on
 * PostgreSQL.
 */

let t: TestServer;
let receiver: WebhookReceiver;
const api = testClient(() => t.api);

beforeAll(async () => {
  ({ t, receiver } = await startWebhookServer());
});
afterAll(() => closeWebhookServer({ t, receiver }));

describe('events', () => {
  it('delivers every event type, signed per Standard Webhooks, with the resource as the API reads it', async () => {
    const { apiKey } = await t.workspace('pro');
    const endpoint = await createEndpoint(t, apiKey, { url: receiver.urlFor('every-type') });
    receiver.secrets.push(endpoint.secret);

    const content = sampleContent({ id: 'ama', kind: 'qa', text: 'Ask me anything', moderated: false });
    const poll = await api.request('POST /polls', { apiKey, body: { title: 'Offsite', content } });
    const pollId = expectOk(poll).id;
    const patchPoll = (body: BodyOf<'PATCH /polls/{id}'>) =>
      api.request('PATCH /polls/{id}', { params: { id: pollId }, apiKey, body });
    await patchPoll({ title: 'Team offsite' });
    await patchPoll({ publish: true });
    const vote = await api.request('POST /polls/{id}/votes', {
      params: { id: pollId },
      apiKey,
      body: { voterId: 'ada', slideId: 'lunch', optionIds: ['sushi'] },
    });
    expectStatus(vote, 201);
    const response = await api.request('POST /polls/{id}/responses', {
      params: { id: pollId },
      apiKey,
      body: { voterId: 'ada', slideId: 'mood', scaleValues: { work: 4 } },
    });
    expectStatus(response, 201);
    const question = await api.request('POST /polls/{id}/responses', {
      params: { id: pollId },
      apiKey,
      body: { voterId: 'ada', slideId: 'ama', text: 'When is the next offsite?' },
    });
    expectStatus(question, 201);
    // A fan upvotes the question and is then erased: `respondent.erased` (its id names the poll, so
    // `mine()` finds it; an upvote makes no event of its own).
    const fan = `fan-${pollId}`;
    const upvote = await api.request('POST /polls/{id}/questions/{questionId}/upvotes', {
      params: { id: pollId, questionId: question.body.id },
      apiKey,
      body: { voterId: fan },
    });
    expectStatus(upvote, 201);
    const erased = await api.request('DELETE /respondents/{id}', { params: { id: fan }, apiKey });
    expectStatus(erased, 200);
    // A self-paced session, walked to the end by skipping every slide: `session.participant_completed`.
    const walk = await api.request('POST /sessions', { apiKey, body: { pollId, pace: 'audience', pin: false } });
    expectStatus(walk, 201);
    await api.request('POST /sessions/{id}/control', {
      params: { id: walk.body.id },
      apiKey,
      body: { action: 'start' },
    });
    const link = String(walk.body.joinUrl).split('/').pop() as string;
    const walker = expectOk(
      await api.request('POST /live/{pin}/join', { params: { pin: link }, body: { name: 'Wanda' } }),
    );
    const headers = { 'x-participant-token': walker.participantToken };
    for (const slide of content.questions) {
      const moved = await api.request('POST /live/{pin}/advance', {
        params: { pin: link },
        body: { slideId: slide.id },
        headers,
      });
      expectStatus(moved, 200);
    }
    const session = await api.request('POST /sessions', { apiKey, body: { pollId } });
    expectStatus(session, 201);
    const sessionId = session.body.id;
    for (const action of ['start', 'lock', 'next', 'showResults', 'end'] as const) {
      const res = await api.request('POST /sessions/{id}/control', {
        params: { id: sessionId },
        apiKey,
        body: { action },
      });
      expectStatus(res, 200);
    }
    await patchPoll({ closed: true });
    await api.request('DELETE /polls/{id}', { params: { id: pollId }, apiKey });

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
      participantId: walker.participant.id,
      name: 'Wanda',
      answerCount: 0,
      score: 0,
    });

    // Every delivery succeeded at its first attempt, and the counters say so (the self-paced
    // session's `session.created` and `session.started` among them).
    const delivered = expected.length + 2;
    const readEndpoint = async () =>
      expectOk(await api.request('GET /webhooks/{id}', { params: { id: endpoint.id }, apiKey }));
    await waitFor(async () => {
      const { stats } = await readEndpoint();
      return stats.succeededDeliveries === delivered && stats.pendingDeliveries === 0;
    });
    const read = await readEndpoint();
    expect(read.stats).toMatchObject({
      succeededDeliveries: delivered,
      failedDeliveries: 0,
      attempts: delivered,
      failedAttempts: 0,
      consecutiveFailures: 0,
    });
    expect(read.stats.lastSuccessAt).not.toBeNull();
  });

  it('sends an endpoint only the types it subscribed to, and nothing for changes that were refused', async () => {
    const { apiKey } = await t.workspace('pro');
    const votesOnly = await createEndpoint(t, apiKey, { url: receiver.urlFor('votes-only'), events: ['vote.created'] });
    const pollsOnly = await createEndpoint(t, apiKey, {
      url: receiver.urlFor('polls-only'),
      events: ['poll.published'],
    });
    receiver.secrets.push(votesOnly.secret, pollsOnly.secret);
    const poll = expectOk(
      await api.request('POST /polls', { apiKey, body: { title: 'Filter', content: sampleContent() } }),
    );
    await api.request('PATCH /polls/{id}', { params: { id: poll.id }, apiKey, body: { publish: true } });
    const voteFor = (body: BodyOf<'POST /polls/{id}/votes'>) =>
      api.request('POST /polls/{id}/votes', { params: { id: poll.id }, apiKey, body });
    const first = await voteFor({ voterId: 'bo', slideId: 'lunch', optionIds: ['pizza'] });
    expect(first.status).toBe(201);
    // Refused: the same voter again, an unknown option, a slide edit after answers. No event for any.
    expectError(await voteFor({ voterId: 'bo', slideId: 'lunch', optionIds: ['sushi'] }), 409, 'already_responded');
    expectError(await voteFor({ voterId: 'cy', slideId: 'lunch', optionIds: ['curry'] }), 422, 'validation_failed');
    expectError(
      await api.request('PATCH /polls/{id}', { params: { id: poll.id }, apiKey, body: { content: sampleContent() } }),
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
  async function keyWith(apiKey: string, keyScopes: Scope[]): Promise<string> {
    const res = await api.request('POST /keys', { apiKey, body: { name: keyScopes.join(' '), scopes: keyScopes } });
    expectStatus(res, 201);
    return res.body.secret;
  }

  it('shows a delivery’s payload, and the receiver’s answers to it, only to a credential holding the scope of its data', async () => {
    const { apiKey } = await t.workspace('pro');
    const endpoint = await createEndpoint(t, apiKey, {
      url: receiver.urlFor('scoped-reads'),
      events: ['vote.created', 'poll.published'],
    });
    receiver.secrets.push(endpoint.secret);
    const poll = expectOk(
      await api.request('POST /polls', { apiKey, body: { title: 'Scoped', content: sampleContent() } }),
    );
    await api.request('PATCH /polls/{id}', { params: { id: poll.id }, apiKey, body: { publish: true } });
    const vote = await api.request('POST /polls/{id}/votes', {
      params: { id: poll.id },
      apiKey,
      body: { voterId: 'voter-ada-7', slideId: 'lunch', optionIds: ['sushi'] },
    });
    expectStatus(vote, 201);
    const test = await api.request('POST /webhooks/{id}/test', { params: { id: endpoint.id }, apiKey });
    expectStatus(test, 202);
    const deliveries = await deliveriesOf(t, apiKey, endpoint.id);
    const idOf = (type: string) => deliveries.find((d) => d.eventType === type)?.id ?? '';
    for (const type of ['vote.created', 'poll.published', 'webhook.test']) {
      await waitForDelivery(t, apiKey, endpoint.id, idOf(type), 'succeeded');
    }
    const voteDelivery = idOf('vote.created');
    const pollDelivery = idOf('poll.published');
    const testDelivery = idOf('webhook.test');
    const read = (key: string, deliveryId: string) =>
      api.request('GET /webhooks/{id}/deliveries/{deliveryId}', {
        params: { id: endpoint.id, deliveryId },
        apiKey: key,
      });

    // webhooks:read alone: that each delivery happened and how it went, not the data it carried.
    const hooksOnly = await keyWith(apiKey, ['webhooks:read']);
    const hiddenVote = await read(hooksOnly, voteDelivery);
    expectStatus(hiddenVote, 200);
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
    expect(expectOk(testEvent).lastAttempt?.responseExcerpt).toBe('ok');
    const listed = await api.request('GET /webhooks/{id}/deliveries', {
      params: { id: endpoint.id },
      apiKey: hooksOnly,
    });
    const attempts = await api.request('GET /webhooks/{id}/attempts', {
      params: { id: endpoint.id },
      apiKey: hooksOnly,
    });
    for (const res of [listed, attempts]) {
      expect(res.status, res.text).toBe(200);
      expect(res.text).not.toContain('voter-ada-7');
    }
    // The row of `type` is read as there: a missing one fails the test as it reads it.
    const excerptOf = <Row extends { eventType: string }>(
      rows: Row[],
      type: string,
      pick: (row: Row) => { responseExcerpt: string | null } | null,
    ) => pick(rows.find((row) => row.eventType === type) as Row)?.responseExcerpt;
    const deliveryRows = expectOk(listed).data;
    const attemptRows = expectOk(attempts).data;
    expect(excerptOf(deliveryRows, 'vote.created', (row) => row.lastAttempt)).toBeNull();
    expect(excerptOf(deliveryRows, 'webhook.test', (row) => row.lastAttempt)).toBe('ok');
    expect(excerptOf(attemptRows, 'vote.created', (row) => row)).toBeNull();
    expect(excerptOf(attemptRows, 'poll.published', (row) => row)).toBeNull();
    expect(excerptOf(attemptRows, 'webhook.test', (row) => row)).toBe('ok');

    // With responses:read as well it reads the vote as before, and still not the poll.
    const hooksAndResponses = await keyWith(apiKey, ['webhooks:read', 'responses:read']);
    const full = expectOk(await read(apiKey, voteDelivery));
    expect(full.payload).toContain('voter-ada-7');
    const shown = expectOk(await read(hooksAndResponses, voteDelivery));
    expect(shown.payload).toBe(full.payload);
    expect(shown.attemptLog).toEqual(full.attemptLog);
    expect(shown.lastAttempt?.responseExcerpt).toBe('ok');
    expect(expectOk(await read(hooksAndResponses, pollDelivery)).payload).toBeNull();
    expect(expectOk(await read(apiKey, pollDelivery)).payload).toContain('"poll.published"');
  });

  it('lets webhooks:write send to a URL only the events whose data the credential reads', async () => {
    const { apiKey } = await t.workspace('pro');
    const existing = await createEndpoint(t, apiKey, {
      url: receiver.urlFor('votes-elsewhere'),
      events: ['vote.created'],
    });
    const writer = await keyWith(apiKey, ['webhooks:read', 'webhooks:write']);
    const create = (key: string, body: Omit<BodyOf<'POST /webhooks'>, 'url'>) =>
      api.request('POST /webhooks', { apiKey: key, body: { url: receiver.urlFor('mine'), ...body } });
    const update = (key: string, body: BodyOf<'PATCH /webhooks/{id}'>) =>
      api.request('PATCH /webhooks/{id}', { params: { id: existing.id }, apiKey: key, body });

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
    const moved = await update(writer, { url: receiver.urlFor('mine') });
    expectError(moved, 403, 'insufficient_scope');
    const resubscribed = await update(writer, { events: ['session.ended'] });
    expectError(resubscribed, 403, 'insufficient_scope');
    expect((await api.request('GET /webhooks/{id}', { params: { id: existing.id }, apiKey })).body).toMatchObject({
      url: receiver.urlFor('votes-elsewhere'),
      events: ['vote.created'],
    });
    const described = await update(writer, { description: 'Only words' });
    expect(described.status, described.text).toBe(200);
    expect(expectOk(await api.request('GET /webhooks', { apiKey })).data).toHaveLength(1);

    const voteWriter = await keyWith(apiKey, ['webhooks:write', 'responses:read']);
    expect((await create(voteWriter, { events: ['vote.created', 'question.created'] })).status).toBe(201);
    const movedNow = await update(voteWriter, { url: receiver.urlFor('mine') });
    expect(movedNow.status, movedNow.text).toBe(200);
    // A full key, as before: every type, `*` included.
    expect((await create(apiKey, {})).status).toBe(201);
  });
});
