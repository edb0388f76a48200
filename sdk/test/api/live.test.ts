/**
 * Live sessions through the SDK against the real server: the session routes of the workspace client,
 * a presenter device on its host token, participants on the PIN, and the two event streams, including
 * a connection dropped mid-stream (the fault proxy) and a stream resumed from its last event id.
 */
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { sampleContent } from '../../../server/test/support/polls.js';
import { startTestServer, type TestServer } from '../../../server/test/support/server.js';
import {
  AuthenticationError,
  type CreatedSession,
  createClient,
  type EventStream,
  joinSession,
  NotFoundError,
  type PollkitClient,
  PollkitError,
  type PollResults,
  presenterSession,
  type SessionAnswersReset,
  type SessionParticipant,
  type SessionResults,
} from '../../src/index.js';
import { type FaultProxy, startFaultProxy } from '../support/fault-proxy.js';
import { rejectionOf } from '../support/rejection.js';

let t: TestServer;
let proxy: FaultProxy;
let client: PollkitClient;

/** Reconnections in a few milliseconds instead of the server's `retry: 2000`. */
const quickReconnect = { reconnectMaxDelayMs: 20 } as const;
/** Every response and event is checked against the contract. */
const strict = { validateResponses: true, retryBaseDelayMs: 1, retryMaxDelayMs: 4 } as const;

beforeAll(async () => {
  // Per-address limits count every test file's requests from 127.0.0.1 when Redis is shared:
  // they are tested on their own addresses in server/test/api/live-sessions.participants.test.ts.
  t = await startTestServer({
    LIVE_RATE_LIMIT_PER_IP_PER_MINUTE: '1000000',
    LIVE_PIN_MISSES_PER_IP_PER_MINUTE: '1000000',
    LIVE_JOINS_PER_IP_PER_MINUTE: '1000000',
  });
  proxy = await startFaultProxy(t.url);
  const { apiKey } = await t.workspace('pro');
  client = createClient({ apiKey, baseUrl: t.url, ...strict });
});
afterAll(async () => {
  await proxy?.close();
  await t?.close();
});

/** A published poll of the sample deck (lunch, capital, mood, …) and a session of it. */
async function newSession(content = sampleContent()): Promise<{ pollId: string; session: CreatedSession }> {
  const poll = await client.polls.create({ title: 'Live SDK', content });
  await client.polls.update({ id: poll.id, publish: true });
  return { pollId: poll.id, session: await client.sessions.create({ pollId: poll.id }) };
}

/** The next events of a stream, one at a time, failing on a stream that ends first. */
function reader<T extends { type: string }>(stream: EventStream<T>) {
  const iterator = stream[Symbol.asyncIterator]();
  const next = async (): Promise<T> => {
    const result = await iterator.next();
    if (result.done) throw new Error('the stream ended');
    return result.value;
  };
  return {
    next,
    /** Reads on until an event matches (throttled `counts` snapshots come in between), at most 50. */
    async until<U extends T>(matches: (event: T) => event is U): Promise<U> {
      for (let i = 0; i < 50; i++) {
        const event = await next();
        if (matches(event)) return event;
      }
      throw new Error('no matching event in 50');
    },
  };
}

const ofType =
  <K extends string>(type: K) =>
  <E extends { type: string }>(event: E): event is Extract<E, { type: K }> =>
    event.type === type;

describe('sessions through the workspace client', () => {
  it('creates, gets, lists (across pages) and controls sessions', async () => {
    const { pollId, session } = await newSession();
    expect(session).toMatchObject({ pollId, status: 'pending', currentSlideIndex: 0 });
    expect(session.pin).toMatch(/^[0-9]{6}$/);
    expect(session.hostToken).toEqual(expect.any(String));

    const fetched = await client.sessions.get({ id: session.id });
    expect(fetched.id).toBe(session.id);
    expect(fetched).not.toHaveProperty('hostToken');

    const second = await client.sessions.create({ pollId });
    const firstPage = await client.sessions.list({ pollId, limit: 1 });
    expect(firstPage.data.map((s) => s.id)).toEqual([second.id]);
    expect(firstPage.hasNextPage()).toBe(true);
    const all: string[] = [];
    for await (const listed of client.sessions.list({ pollId, limit: 1 })) all.push(listed.id);
    expect(all).toEqual([second.id, session.id]);

    expect(await client.sessions.control({ id: session.id, action: 'start' })).toMatchObject({ status: 'active' });
    expect(await client.sessions.control({ id: session.id, action: 'goto', slideIndex: 2 })).toMatchObject({
      currentSlideIndex: 2,
    });
    const active = await client.sessions.list({ pollId, status: 'active' });
    expect(active.data.map((s) => s.id)).toEqual([session.id]);

    const refused = await rejectionOf(client.sessions.control({ id: second.id, action: 'next' }));
    expect(refused).toMatchObject({ status: 409, code: 'invalid_session_state' });
  });

  it('answers the QR code as SVG text', async () => {
    const { session } = await newSession();
    const svg = await client.sessions.qrCode({ id: session.id });
    expect(svg).toMatch(/^(<\?xml[^>]*>\s*)?<svg/);
    expect(svg).toContain('</svg>');
  });

  it('streams the presenter events: session and counts on connect, then each change', async () => {
    const { session } = await newSession();
    await client.sessions.control({ id: session.id, action: 'start' });
    const stream = client.sessions.events({ id: session.id });
    const events = reader(stream);

    const first = await events.until(ofType('session'));
    expect(first.data).toMatchObject({ id: session.id, status: 'active', currentSlideIndex: 0 });
    expect(first.id).toMatch(/^[0-9]+$/);
    const counts = await events.until(ofType('counts'));
    expect(counts.data).toMatchObject({ slideId: 'lunch', answerCount: 0, participantCount: 0 });

    const me = await joinSession({ baseUrl: t.url, pin: session.pin as string, name: 'Ada' });
    await me.answer({ slideId: 'lunch', optionIds: ['pizza'] });
    const answered = await events.until(
      (event): event is typeof counts => event.type === 'counts' && event.data.answerCount === 1,
    );
    expect(answered.data.participantCount).toBe(1);

    await client.sessions.control({ id: session.id, action: 'next' });
    const moved = await events.until(ofType('session'));
    expect(moved.data.currentSlideIndex).toBe(1);
    expect(Number(moved.id)).toBeGreaterThan(Number(first.id));
    expect(stream.lastEventId).toBe(moved.id);

    await client.sessions.control({ id: session.id, action: 'end' });
    const ended = await events.until(ofType('ended'));
    expect(ended.data).toMatchObject({ sessionId: session.id, participantCount: 1 });
    // After `ended` the iteration finishes.
    expect(await stream[Symbol.asyncIterator]().next()).toEqual({ done: true, value: undefined });
  });

  it('throws the typed error of a refused connection; retries a 503 as any call does', async () => {
    proxy.reset();
    const proxied = client.withOptions({ baseUrl: proxy.url });
    const missing = proxied.sessions.events({ id: 'ses_00000000000000000000000000' });
    const error = await rejectionOf(reader(missing).next());
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error).toMatchObject({ status: 404, code: 'not_found' });
    expect(proxy.requests).toHaveLength(1);

    // A 503 at connect is retried, as any call's is.
    const { session } = await newSession();
    proxy.reset();
    proxy.inject({ kind: 'status', status: 503, code: 'service_unavailable' }, 1);
    const retried = proxied.sessions.events({ id: session.id });
    expect((await reader(retried).next()).type).toBe('session');
    retried.close();
    expect(proxy.requests).toHaveLength(2);
  });
});

describe('a presenter device on the host token', () => {
  it('resumes after the session ended and finishes the iteration with `ended`', async () => {
    const { session } = await newSession();
    const presenter = presenterSession({ baseUrl: t.url, sessionId: session.id, hostToken: session.hostToken });
    await presenter.control('start');
    const before = presenter.events();
    await reader(before).until(ofType('session'));
    before.close();

    await presenter.control('showResults');
    await presenter.control('end');
    const rest: string[] = [];
    for await (const event of presenter.events({ lastEventId: before.lastEventId })) rest.push(event.type);
    expect(rest).toEqual(['session', 'results', 'session', 'ended']);
  });

  it('gets, controls, streams and shows the QR code without an API key', async () => {
    const { session } = await newSession();
    proxy.reset();
    const presenter = presenterSession({
      baseUrl: proxy.url,
      sessionId: session.id,
      hostToken: session.hostToken,
      ...strict,
    });
    expect((await presenter.get()).status).toBe('pending');
    const stream = presenter.events();
    const events = reader(stream);
    expect((await events.until(ofType('session'))).data.status).toBe('pending');

    expect(await presenter.control('start')).toMatchObject({ status: 'active' });
    expect((await events.until(ofType('session'))).data.status).toBe('active');
    expect(await presenter.control('goto', 3)).toMatchObject({ currentSlideIndex: 3 });
    expect(await presenter.qrCode()).toContain('<svg');
    stream.close();

    // Every call carried the host token and no Authorization.
    expect(proxy.requests.length).toBeGreaterThanOrEqual(5);
    for (const request of proxy.requests) {
      expect(request.headers['x-host-token']).toBe(session.hostToken);
      expect(request.headers.authorization).toBeUndefined();
    }
    expect(proxy.requests.find((r) => r.url.endsWith('/events'))?.headers.accept).toBe('text/event-stream');
    expect(proxy.requests.find((r) => r.url.endsWith('/qr.svg'))?.headers.accept).toBe('image/svg+xml');
  });

  it('reads the deck and the Q&A questions, and moderates them, without an API key', async () => {
    const { pollId, session } = await newSession();
    proxy.reset();
    const presenter = presenterSession({
      baseUrl: proxy.url,
      sessionId: session.id,
      hostToken: session.hostToken,
      ...strict,
    });

    const deck = await presenter.deck();
    expect(deck).toMatchObject({ sessionId: session.id, pollId, title: 'Live SDK' });
    expect(deck.slides.map((slide) => slide.id)).toEqual(sampleContent().questions.map((slide) => slide.id));
    // The presenter reveals the quiz's answer, so it has it.
    const quiz = deck.slides.find((slide) => slide.id === 'capital');
    expect(quiz?.kind === 'quiz' && quiz.correctOptionIds).toEqual(['paris']);

    const askIndex = deck.slides.findIndex((slide) => slide.id === 'ask');
    await presenter.control('start');
    await presenter.control('goto', askIndex);
    const me = await joinSession({ baseUrl: t.url, pin: session.pin as string, name: 'Ada', ...strict });
    const stream = me.events();
    const events = reader(stream);
    const cake = await me.answer({ slideId: 'ask', text: 'Will there be cake?' });
    const coffee = await me.answer({ slideId: 'ask', text: 'And coffee?' });

    // The moderation queue, newest first, one to a page.
    const first = await presenter.questions({ status: 'pending', limit: 1 });
    expect(first.data.map((q) => [q.id, q.text, q.status])).toEqual([[coffee.id, 'And coffee?', 'pending']]);
    expect(first.nextCursor).toEqual(expect.any(String));
    const second = await presenter.questions({ status: 'pending', limit: 1, cursor: first.nextCursor ?? '' });
    expect(second.data.map((q) => q.id)).toEqual([cake.id]);
    expect(second.nextCursor).toBeNull();
    expect((await presenter.questions({ slideId: 'lunch' })).data).toEqual([]);

    const approved = await presenter.moderate(cake.id, 'approved');
    expect(approved).toMatchObject({ id: cake.id, pollId, slideId: 'ask', status: 'approved' });
    // The participant's Q&A board shows the approved question, and only it.
    const board = await events.until(
      (event): event is Extract<typeof event, { type: 'questions' }> =>
        event.type === 'questions' && event.data.questions.length > 0,
    );
    expect(board.data.questions.map((q) => q.text)).toEqual(['Will there be cake?']);
    stream.close();
    expect((await presenter.questions()).data.map((q) => [q.id, q.status])).toEqual([
      [coffee.id, 'pending'],
      [cake.id, 'approved'],
    ]);

    const missing = await rejectionOf(presenter.moderate('rsp_01AAAAAAAAAAAAAAAAAAAAAAAA', 'approved'));
    expect(missing).toBeInstanceOf(NotFoundError);

    // Every call carried the host token and no Authorization; moderation went to the session's route.
    for (const request of proxy.requests) {
      expect(request.headers['x-host-token']).toBe(session.hostToken);
      expect(request.headers.authorization).toBeUndefined();
    }
    const patch = proxy.requests.find((r) => r.method === 'PATCH');
    expect(patch?.url).toBe(`/api/v1/sessions/${session.id}/questions/${cake.id}`);
    expect(proxy.requests.map((r) => r.url)).toContain(
      `/api/v1/sessions/${session.id}/questions?status=pending&limit=1`,
    );
  });

  it('a wrong host token is an AuthenticationError', async () => {
    const { session } = await newSession();
    const presenter = presenterSession({ baseUrl: t.url, sessionId: session.id, hostToken: 'hst_wrong' });
    const error = await rejectionOf(presenter.get());
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(error).toMatchObject({ status: 401, code: 'invalid_host_token' });
    const streamError = await rejectionOf(reader(presenter.events()).next());
    expect(streamError).toMatchObject({ status: 401, code: 'invalid_host_token' });
  });
});

describe('participants', () => {
  it('join, receive the slide on connect and on next, answer once, and resume with the token', async () => {
    const { pollId, session } = await newSession();
    await client.sessions.control({ id: session.id, action: 'start' });

    const me = await joinSession({ baseUrl: t.url, pin: session.pin as string, name: 'Ada', ...strict });
    expect(me.resumed).toBe(false);
    expect(me.participant).toMatchObject({ name: 'Ada', score: 0 });
    expect(me.state).toMatchObject({ sessionId: session.id, status: 'active', slideIndex: 0, answered: false });
    expect(me.state.slide?.id).toBe('lunch');

    const stream = me.events();
    const events = reader(stream);
    const onConnect = await events.next();
    expect(onConnect).toMatchObject({ type: 'slide', data: { slideIndex: 0, slide: { id: 'lunch' } } });

    // An answer, then the same answer again with its idempotency key: the stored receipt, one vote.
    const receipt = await me.answer({ slideId: 'lunch', optionIds: ['pizza'] }, { idempotencyKey: 'answer-lunch-1' });
    expect(receipt).toMatchObject({ sessionId: session.id, slideId: 'lunch', participantId: me.participant.id });
    const again = await me.answer({ slideId: 'lunch', optionIds: ['pizza'] }, { idempotencyKey: 'answer-lunch-1' });
    expect(again).toEqual(receipt);
    // Without the key it is a second answer, which the server refuses.
    const duplicate = await rejectionOf(me.answer({ slideId: 'lunch', optionIds: ['sushi'] }));
    expect(duplicate).toMatchObject({ status: 409, code: 'already_responded' });
    expect((await client.votes.list({ id: pollId, slideId: 'lunch' })).data).toHaveLength(1);

    await client.sessions.control({ id: session.id, action: 'next' });
    const moved = await events.next();
    expect(moved).toMatchObject({ type: 'slide', data: { slideIndex: 1, slide: { id: 'capital', kind: 'quiz' } } });
    // Participants never see the correct options.
    expect(moved.type === 'slide' && moved.data.slide).not.toHaveProperty('correctOptionIds');
    stream.close();

    const back = await joinSession({
      baseUrl: t.url,
      pin: session.pin as string,
      participantToken: me.participantToken,
    });
    expect(back.resumed).toBe(true);
    expect(back.participant.id).toBe(me.participant.id);
    expect(back.participant.name).toBe('Ada');
    expect(back.participantToken).toBe(me.participantToken);
  });

  it('reads, exports and resets one session’s answers: client.sessions.results/export/resetAnswers', async () => {
    const { pollId, session } = await newSession();
    const other = await client.sessions.create({ pollId });
    for (const [room, choice] of [
      [session, 'pizza'],
      [other, 'sushi'],
    ] as const) {
      await client.sessions.control({ id: room.id, action: 'start' });
      const me = await joinSession({ baseUrl: t.url, pin: room.pin as string, name: 'Ada', ...strict });
      await me.answer({ slideId: 'lunch', optionIds: [choice] });
    }
    const counts = (results: PollResults) => {
      const lunch = results.slides.find((slide) => slide.slideId === 'lunch');
      return lunch?.kind === 'multiple_choice' ? lunch.options.map((option) => option.count) : [];
    };
    const results = await client.sessions.results({ id: session.id });
    expectTypeOf(results).toEqualTypeOf<SessionResults>();
    expect([results.totalVoters, ...counts(results)]).toEqual([1, 1, 0]);
    expect(results.participantCount).toBe(1);
    expect(results.leaderboard?.map((entry) => [entry.rank, entry.name])).toEqual([[1, 'Ada']]);
    expect(counts(await client.results.get({ id: pollId }))).toEqual([1, 1]);
    // Everyone by rank: a page promise, iterable across pages; the presenter's host token reads the same.
    const everyone: SessionParticipant[] = [];
    for await (const participant of client.sessions.participants({ id: session.id, limit: 1 })) {
      everyone.push(participant);
    }
    expect(everyone.map((participant) => [participant.rank, participant.name, participant.answerCount])).toEqual([
      [1, 'Ada', 1],
    ]);
    const presenter = presenterSession({ baseUrl: t.url, sessionId: session.id, hostToken: session.hostToken });
    expect((await presenter.participants()).data).toEqual(everyone);
    expect((await presenter.results()).leaderboard).toEqual(results.leaderboard);
    const csv = await client.sessions.export({ id: session.id });
    expect(csv).toContain('"Where shall we eat?",multiple_choice,Pizza,1');
    expect(csv).toContain('"Where shall we eat?",multiple_choice,Sushi,0');

    const reset = await client.sessions.resetAnswers({ id: session.id });
    expectTypeOf(reset).toEqualTypeOf<SessionAnswersReset>();
    expect(reset).toEqual({
      sessionId: session.id,
      pollId,
      deleted: { votes: 1, responses: 0, questions: 0, upvotes: 0 },
    });
    expect(counts(await client.results.get({ id: pollId }))).toEqual([0, 1]);
  });

  it('retries an answer whose response was lost with the same Idempotency-Key: counted once', async () => {
    const { pollId, session } = await newSession();
    await client.sessions.control({ id: session.id, action: 'start' });
    const me = await joinSession({ baseUrl: proxy.url, pin: session.pin as string, ...strict });
    proxy.reset();
    proxy.inject({ kind: 'drop' }, 1, (request) => request.method === 'POST');

    const receipt = await me.answer({ slideId: 'lunch', optionIds: ['sushi'] });
    expect(receipt.participantId).toBe(me.participant.id);
    const attempts = proxy.requests.filter((r) => r.method === 'POST');
    expect(attempts).toHaveLength(2);
    expect(attempts[0]?.url).toBe(`/api/v1/live/${session.pin}/answers`);
    expect(attempts[0]?.headers['idempotency-key']).toEqual(expect.any(String));
    expect(attempts[1]?.headers['idempotency-key']).toBe(attempts[0]?.headers['idempotency-key']);
    expect(attempts[1]?.headers['x-participant-token']).toBe(me.participantToken);
    expect(attempts[1]?.headers.authorization).toBeUndefined();
    const votes = await client.votes.list({ id: pollId, slideId: 'lunch' });
    expect(votes.data.map((vote) => vote.id)).toEqual([receipt.id]);
  });

  it('upvotes a question of the Q&A slide', async () => {
    const content = sampleContent({ id: 'ama', kind: 'qa', text: 'Ask me', moderated: false, allowUpvotes: true });
    const { session } = await newSession(content);
    await client.sessions.control({ id: session.id, action: 'start' });
    await client.sessions.control({ id: session.id, action: 'goto', slideIndex: content.questions.length - 1 });
    const asker = await joinSession({ baseUrl: t.url, pin: session.pin as string, ...strict });
    const voter = await joinSession({ baseUrl: t.url, pin: session.pin as string, ...strict });
    const slideId = asker.state.slide?.id ?? '';
    expect(slideId).toBe('ama');
    const question = await asker.answer({ slideId, text: 'When is lunch?' });
    const upvoted = await voter.upvote(question.id);
    expect(upvoted).toMatchObject({ id: question.id, upvotes: 1 });
  });

  it('reconnects after a dropped connection with Last-Event-ID and gets the events it missed', async () => {
    const { session } = await newSession();
    await client.sessions.control({ id: session.id, action: 'start' });
    const me = await joinSession({ baseUrl: proxy.url, pin: session.pin as string, ...strict });
    proxy.reset();
    const stream = me.events(quickReconnect);
    const events = reader(stream);
    const first = await events.next();
    expect(first).toMatchObject({ type: 'slide', data: { slideIndex: 0 } });
    const seenId = stream.lastEventId;
    expect(seenId).toBe(first.id);

    // The network goes; the presenter moves on meanwhile.
    expect(proxy.dropStreams()).toBe(1);
    await client.sessions.control({ id: session.id, action: 'next' });
    await client.sessions.control({ id: session.id, action: 'lock' });

    const missed = [await events.next(), await events.next()];
    expect(missed).toMatchObject([
      { type: 'slide', data: { slideIndex: 1, slide: { id: 'capital' } } },
      { type: 'locked', data: { slideId: 'capital' } },
    ]);
    expect(Number(missed[1]?.id)).toBeGreaterThan(Number(seenId));
    const connections = proxy.requests.filter((r) => r.url === `/api/v1/live/${session.pin}/events`);
    expect(connections.map((r) => r.headers['last-event-id'])).toEqual([undefined, seenId]);
    expect(connections[1]?.headers['x-participant-token']).toBe(me.participantToken);

    // And it keeps streaming on the new connection.
    await client.sessions.control({ id: session.id, action: 'unlock' });
    expect(await events.next()).toMatchObject({ type: 'unlocked', data: { slideId: 'capital' } });
    stream.close();
  });

  it('a participant stream that missed `ended` gets it on reconnect, for ten minutes after the end', async () => {
    const { session } = await newSession();
    await client.sessions.control({ id: session.id, action: 'start' });
    const me = await joinSession({ baseUrl: proxy.url, pin: session.pin as string });
    const stream = me.events(quickReconnect);
    const events = reader(stream);
    expect((await events.next()).type).toBe('slide');
    expect(proxy.dropStreams()).toBe(1);
    await client.sessions.control({ id: session.id, action: 'lock' });
    await client.sessions.control({ id: session.id, action: 'end' });
    expect(await events.next()).toMatchObject({ type: 'locked' });
    expect(await events.next()).toMatchObject({ type: 'ended', data: { sessionId: session.id } });
    await expect(events.next()).rejects.toThrow('the stream ended');
  });

  it('a closed stream resumes from its lastEventId', async () => {
    const { session } = await newSession();
    await client.sessions.control({ id: session.id, action: 'start' });
    const me = await joinSession({ baseUrl: t.url, pin: session.pin as string, name: 'Bo', ...strict });
    const before = me.events();
    await reader(before).next();
    before.close();

    await client.sessions.control({ id: session.id, action: 'showResults' });
    await client.sessions.control({ id: session.id, action: 'lock' });

    const after = me.events({ lastEventId: before.lastEventId });
    const events = reader(after);
    expect([(await events.next()).type, (await events.next()).type]).toEqual(['results', 'locked']);
    after.close();
  });

  it('break closes the connection', async () => {
    const { session } = await newSession();
    await client.sessions.control({ id: session.id, action: 'start' });
    const me = await joinSession({ baseUrl: proxy.url, pin: session.pin as string });
    proxy.reset();
    for await (const event of me.events()) {
      expect(event.type).toBe('slide');
      break;
    }
    await expect.poll(() => proxy.openStreams).toBe(0);
  });

  it('an unknown PIN is a NotFoundError at join', async () => {
    const error = await rejectionOf(joinSession({ baseUrl: t.url, pin: '000000' }));
    expect(error).toBeInstanceOf(PollkitError);
    expect(error).toMatchObject({ status: 404, code: 'not_found' });
  });
});
