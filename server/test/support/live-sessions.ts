import { expect } from 'vitest';
import type { ManualClock } from './clock.js';
import { type ControlAction, type CreatedSession, createdSession } from './live-deck.js';
import { type ContentInput, pollPublisher, sampleContent } from './polls.js';
import { startTestServer, type TestServer } from './server.js';
import { openSse, type SseStream } from './sse.js';
import { type BodyOf, expectStatus, type OutputOf, testClient } from './test-client.js';

/**
 * The server and the requests of the live session API tests (server/test/api/live-sessions.*.test.ts):
 * sessions created and controlled, participants joined and answering, participant and presenter
 * streams (closed after each test), results read back.
 */

export type Json = Record<string, any>;

interface ControlOptions {
  slideIndex?: number;
  hostToken?: string;
  apiKey?: string;
  headers?: Record<string, string>;
}

export interface Joined {
  id: string;
  name: string;
  token: string;
  state: OutputOf<'POST /live/{pin}/join'>['state'];
}

/** The server times quiz answers by `clock`: it moves only when a test advances it. */
export async function startLiveSessionsServer(
  clock: ManualClock,
): Promise<{ t: TestServer; apiKey: string; workspaceId: string }> {
  const t = await startTestServer(
    {
      // Every request here comes from 127.0.0.1 and one key: the limits are tested on their own.
      RATE_LIMIT_PER_MINUTE: '1000000',
      LIVE_RATE_LIMIT_PER_IP_PER_MINUTE: '1000000',
      LIVE_PIN_MISSES_PER_IP_PER_MINUTE: '1000000',
      LIVE_JOINS_PER_IP_PER_MINUTE: '1000000',
      LIVE_JOIN_URL: 'https://join.example.test/{pin}',
    },
    { clock },
  );
  const { apiKey, id: workspaceId } = await t.workspace('pro');
  return { t, apiKey, workspaceId };
}

/** The requests, on the server `current` answers once the file's beforeAll has started it. */
export function liveSessionsApi(current: () => { t: TestServer; apiKey: string }) {
  const api = testClient(() => current().t.api);

  /** Streams a test opened: closed after it (`closeStreams`, the file's afterEach), whatever it asserted. */
  const streams: SseStream[] = [];
  const closeStreams = () => {
    for (const stream of streams.splice(0)) stream.close();
  };

  /** Every PIN handed out by the test file's server: a PIN outside it names no session. */
  const pinsSeen = new Set<string>();

  const publishedPoll = pollPublisher(() => ({
    api: current().t.api,
    apiKey: current().apiKey,
    title: 'Live',
    content: sampleContent(),
  }));

  async function newSession(pollId: string, key = current().apiKey): Promise<CreatedSession> {
    const session = await createdSession(current().t, key, pollId);
    pinsSeen.add(session.pin);
    return session;
  }

  /** A published poll (sampleContent() unless said otherwise) and a session of it. */
  async function pollAndSession(content: ContentInput = sampleContent()) {
    const poll = await publishedPoll({ content });
    return { poll, session: await newSession(poll.id) };
  }

  /** Unchecked: the tests send actions, and slide indexes, the route refuses. */
  function control(sessionId: string, action: string, options: ControlOptions = {}) {
    const headers = { ...options.headers };
    if (options.hostToken) headers['x-host-token'] = options.hostToken;
    const body: Record<string, unknown> = { action };
    if (options.slideIndex !== undefined) body.slideIndex = options.slideIndex;
    return api.unchecked('POST /sessions/{id}/control', {
      params: { id: sessionId },
      apiKey: options.apiKey,
      body,
      headers,
    });
  }

  /** A control action by the host token that must succeed: the session as it now is. */
  async function act(
    session: CreatedSession,
    action: ControlAction,
    slideIndex?: number,
  ): Promise<OutputOf<'POST /sessions/{id}/control'>> {
    const res = await control(session.id, action, { hostToken: session.hostToken, slideIndex });
    expectStatus(res, 200, action);
    return res.body;
  }

  function join(pin: string, body: BodyOf<'POST /live/{pin}/join'> = {}, token?: string) {
    return api.request('POST /live/{pin}/join', {
      params: { pin },
      body,
      headers: token ? { 'x-participant-token': token } : {},
    });
  }

  async function joined(pin: string, name: string): Promise<Joined> {
    const res = await join(pin, { name });
    expectStatus(res, 200);
    return { id: res.body.participant.id, name, token: res.body.participantToken, state: res.body.state };
  }

  /** Unchecked: the tests send answers of the wrong shape, or none. */
  function answer(pin: string, token: string | undefined, body: unknown, headers: Record<string, string> = {}) {
    return api.unchecked('POST /live/{pin}/answers', {
      params: { pin },
      body,
      headers: token === undefined ? headers : { 'x-participant-token': token, ...headers },
    });
  }

  async function answered(
    pin: string,
    who: Joined,
    body: BodyOf<'POST /live/{pin}/answers'>,
  ): Promise<OutputOf<'POST /live/{pin}/answers'>> {
    const res = await answer(pin, who.token, body);
    expectStatus(res, 201, `${who.name} ${JSON.stringify(body)}`);
    expect(res.body.participantId).toBe(who.id);
    expect(res.body.slideId).toBe(body.slideId);
    return res.body;
  }

  async function participantStream(pin: string, token?: string, lastEventId?: string): Promise<SseStream> {
    const headers: Record<string, string> = {};
    if (token) headers['x-participant-token'] = token;
    if (lastEventId !== undefined) headers['last-event-id'] = lastEventId;
    const stream = await openSse(`${current().t.api}/live/${pin}/events`, headers);
    streams.push(stream);
    return stream;
  }

  async function presenterStream(session: CreatedSession, lastEventId?: string): Promise<SseStream> {
    const headers: Record<string, string> = { 'x-host-token': session.hostToken };
    if (lastEventId !== undefined) headers['last-event-id'] = lastEventId;
    const stream = await openSse(`${current().t.api}/sessions/${session.id}/events`, headers);
    streams.push(stream);
    return stream;
  }

  async function pollResults(pollId: string): Promise<OutputOf<'GET /polls/{id}/results'>> {
    const res = await api.request('GET /polls/{id}/results', { params: { id: pollId }, apiKey: current().apiKey });
    expectStatus(res, 200);
    return res.body;
  }

  /** A six-digit PIN that no session of the test file's server has. */
  function unusedPin(): string {
    for (;;) {
      const pin = String(Math.floor(Math.random() * 1_000_000)).padStart(6, '0');
      if (!pinsSeen.has(pin)) return pin;
    }
  }

  return {
    streams,
    closeStreams,
    pinsSeen,
    publishedPoll,
    newSession,
    pollAndSession,
    control,
    act,
    join,
    joined,
    answer,
    answered,
    participantStream,
    presenterStream,
    pollResults,
    unusedPin,
  };
}

export function slideResult(results: Json, slideId: string): Json {
  const slide = results.slides.find((s: Json) => s.slideId === slideId);
  expect(slide, `results of slide ${slideId}`).toBeDefined();
  return slide;
}

/** The ranks a leaderboard must carry: one more than the number of strictly higher scores. */
export function expectRanked(top: Json[]) {
  for (const [index, entry] of top.entries()) {
    if (index > 0) expect(entry.score).toBeLessThanOrEqual(top[index - 1]?.score);
    expect(entry.rank).toBe(1 + top.filter((other) => other.score > entry.score).length);
  }
}
