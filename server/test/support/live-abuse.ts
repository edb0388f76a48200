/**
 * A live server with the limits of one group of the abuse tests (server/test/api/live-abuse.*.test.ts),
 * a Pro workspace, and the requests those tests make of it.
 */
import { ManualClock } from './clock.js';
import { randomLoopback, requestFrom } from './from-address.js';
import { type ControlAction, type CreatedSession, createdSession } from './live-deck.js';
import { pollPublisher, sampleContent } from './polls.js';
import { startTestServer, type TestServerOptions } from './server.js';
import { openSse, type SseStream } from './sse.js';
import { type BodyOf, testClient } from './test-client.js';

export type Json = Record<string, any>;

/** The streams the tests opened; `closeStreams` (in an `afterEach`) closes them. */
export const streams: SseStream[] = [];
export function closeStreams(): void {
  for (const stream of streams.splice(0)) stream.close();
}

/** A server with the limits of one test group, a Pro workspace, and its helpers. */
export async function liveServer(env: Record<string, string> = {}, options: TestServerOptions = {}) {
  const t = await startTestServer(
    {
      RATE_LIMIT_PER_MINUTE: '1000000',
      LIVE_RATE_LIMIT_PER_IP_PER_MINUTE: '1000000',
      ...env,
    },
    // Held still unless a test brings its own: a burst's count is all in one rate-limit window
    // however long the machine takes to send it.
    { clock: new ManualClock(), ...options },
  );
  const { apiKey } = await t.workspace('pro');
  const api = testClient(t.api);
  const port = new URL(t.url).port;
  const publish = pollPublisher(() => ({ api: t.api, apiKey, title: 'Abuse', content: sampleContent() }));
  const session = async (body: Omit<BodyOf<'POST /sessions'>, 'pollId'> = {}): Promise<CreatedSession> =>
    createdSession(t, apiKey, (await publish()).id, body);
  const control = (s: { id: string; hostToken: string }, action: ControlAction) =>
    api.request('POST /sessions/{id}/control', {
      params: { id: s.id },
      body: { action },
      headers: { 'x-host-token': s.hostToken },
    });
  const join = (pin: string, from = randomLoopback(), token?: string) =>
    requestFrom(
      from,
      port,
      'POST',
      `/api/v1/live/${pin}/join`,
      { name: 'P' },
      token ? { 'x-participant-token': token } : {},
    );
  const answer = (pin: string, token: string, body: Json, from = '127.0.0.1') =>
    requestFrom(from, port, 'POST', `/api/v1/live/${pin}/answers`, body, { 'x-participant-token': token });
  const stream = async (pin: string, headers: Record<string, string> = {}) => {
    const opened = await openSse(`${t.api}/live/${pin}/events`, headers);
    streams.push(opened);
    return opened;
  };
  return { t, apiKey, port, session, control, join, answer, stream };
}

/** A PIN no session has: the first of 000000, 000001, … that is not `pin`. */
export function otherPin(pin: string, offset = 0): string {
  return String((Number(pin) + 1 + offset) % 1_000_000).padStart(6, '0');
}
