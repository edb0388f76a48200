/**
 * The event stream reader against a scripted loopback SSE server, for what the real server cannot be
 * made to do: fall silent without closing, send a `retry:` field, split an event across chunks, send
 * data that is not JSON or not of the contract. Everything the real server does (events, replay with
 * `Last-Event-ID`, drops through the fault proxy) is tested against it in live.test.ts.
 */
import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createClient, PollkitError } from '../../src/index.js';
import { rejectionOf } from '../support/rejection.js';

/** What one connection to the scripted server does, given its number (1 for the first). */
type Script = (response: ServerResponse, connection: number) => void;

let script: Script;
let connections: IncomingHttpHeaders[];
let origin: string;
const server = createServer((request, response) => {
  connections.push(request.headers);
  script(response, connections.length);
});

beforeAll(async () => {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.closeAllConnections();
  server.close();
});
beforeEach(() => {
  connections = [];
});

const open = (response: ServerResponse) =>
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store' });
const session = (id: number, status: string) => ({ id: 'ses_1', status, currentSlideIndex: id });
const frame = (type: string, data: unknown, id?: number) =>
  `event: ${type}\n${id === undefined ? '' : `id: ${id}\n`}data: ${JSON.stringify(data)}\n\n`;

function client(options: { validateResponses?: boolean } = {}) {
  return createClient({
    apiKey: 'pk_test_loopback',
    baseUrl: origin,
    retryBaseDelayMs: 1,
    retryMaxDelayMs: 4,
    ...options,
  });
}

async function collect<T>(stream: AsyncIterable<T>): Promise<T[]> {
  const events: T[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

describe('reading an event stream', () => {
  it('parses events split across chunks, ignores heartbeats, and finishes after `ended`', async () => {
    script = (response) => {
      open(response);
      const text = `: ping\n\n${frame('session', session(0, 'active'), 1)}: ping\n\n${frame('ended', { sessionId: 'ses_1' }, 2)}`;
      // One byte at a time: events and lines cut anywhere.
      let at = 0;
      const next = () => {
        if (at >= text.length) return; // the server keeps the stream open: `ended` must end it
        response.write(text.slice(at, at + 7));
        at += 7;
        setImmediate(next);
      };
      next();
    };
    const stream = client().sessions.events({ id: 'ses_1' }, { reconnectMaxDelayMs: 4 });
    expect(await collect(stream)).toEqual([
      { type: 'session', id: '1', data: session(0, 'active') },
      { type: 'ended', id: '2', data: { sessionId: 'ses_1' } },
    ]);
    expect(stream.lastEventId).toBe('2');
    expect(connections).toHaveLength(1);
    expect(connections[0]?.accept).toBe('text/event-stream');
    expect(connections[0]?.authorization).toBe('Bearer pk_test_loopback');
  });

  it('takes a silent connection for dropped after idleTimeout and resumes after the last id', async () => {
    script = (response, connection) => {
      open(response);
      // The first connection falls silent (no heartbeat, no close): a half-open TCP connection.
      if (connection === 1) response.write(frame('session', session(0, 'active'), 4));
      else response.end(frame('counts', { answerCount: 1 }) + frame('ended', { sessionId: 'ses_1' }, 5));
    };
    const stream = client().sessions.events({ id: 'ses_1' }, { idleTimeout: 150, reconnectMaxDelayMs: 4 });
    const events = await collect(stream);
    expect(events.map((event) => event.type)).toEqual(['session', 'counts', 'ended']);
    expect(events[1]).toEqual({ type: 'counts', data: { answerCount: 1 } });
    expect(connections.map((headers) => headers['last-event-id'])).toEqual([undefined, '4']);
  });

  it("waits the server's `retry:` before reconnecting", async () => {
    script = (response, connection) => {
      open(response);
      if (connection === 1) response.end(`retry: 400\n\n${frame('session', session(0, 'active'), 1)}`);
      else response.end(frame('ended', { sessionId: 'ses_1' }, 2));
    };
    const stream = client().sessions.events({ id: 'ses_1' }, { reconnectMaxDelayMs: 10_000 });
    const iterator = stream[Symbol.asyncIterator]();
    expect((await iterator.next()).value?.type).toBe('session');
    const started = performance.now();
    expect((await iterator.next()).value?.type).toBe('ended');
    // Up to a quarter of the wait is taken off at random, as after any failure.
    expect(performance.now() - started).toBeGreaterThanOrEqual(290);
    expect(connections[1]?.['last-event-id']).toBe('1');
  });

  it('gives up after maxReconnects failed reconnections in a row', async () => {
    script = (response, connection) => {
      if (connection === 1) {
        open(response);
        response.end(frame('session', session(0, 'active'), 1));
      } else {
        response.writeHead(503, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ error: { code: 'service_unavailable', message: 'Restarting' } }));
      }
    };
    const error = await rejectionOf(
      collect(client().sessions.events({ id: 'ses_1' }, { maxReconnects: 3, reconnectMaxDelayMs: 4 })),
    );
    expect(error).toBeInstanceOf(PollkitError);
    expect(error).toMatchObject({ status: 503, code: 'service_unavailable' });
    // The stream ending early, then the three reconnections that failed.
    expect(connections).toHaveLength(4);
  });

  it('throws invalid_response for data that is not JSON, without reconnecting', async () => {
    script = (response) => {
      open(response);
      response.end('event: session\ndata: {not json\n\n');
    };
    const error = await rejectionOf(collect(client().sessions.events({ id: 'ses_1' })));
    expect(error).toMatchObject({ code: 'invalid_response', status: 200 });
    expect(connections).toHaveLength(1);
  });

  it('validates each event against the route union with validateResponses', async () => {
    script = (response) => {
      open(response);
      response.end(frame('counts', { answerCount: 'many' }));
    };
    const error = await rejectionOf(collect(client({ validateResponses: true }).sessions.events({ id: 'ses_1' })));
    expect(error).toMatchObject({ code: 'invalid_response' });
    expect((error as PollkitError).message).toMatch(/"counts" event does not match its schema/);
  });

  it('refuses a 2xx answer that is not an event stream', async () => {
    script = (response) => {
      response.writeHead(200, { 'content-type': 'text/html' }).end('<html>captive portal</html>');
    };
    const error = await rejectionOf(collect(client().sessions.events({ id: 'ses_1' })));
    expect(error).toMatchObject({ code: 'invalid_response' });
    expect((error as PollkitError).message).toMatch(/expected an event stream, got text\/html/);
  });

  it('close() while waiting for data finishes the iteration and closes the connection', async () => {
    let closed: Promise<unknown> = Promise.resolve();
    script = (response) => {
      open(response);
      response.write(frame('session', session(0, 'active'), 1));
      closed = once(response, 'close');
    };
    const stream = client().sessions.events({ id: 'ses_1' });
    const iterator = stream[Symbol.asyncIterator]();
    expect((await iterator.next()).done).toBe(false);
    const pending = iterator.next();
    stream.close();
    expect(await pending).toEqual({ done: true, value: undefined });
    await closed;
    expect(connections).toHaveLength(1);
  });

  it("the caller's signal stops the stream with the signal's reason", async () => {
    script = (response) => {
      open(response);
      response.write(frame('session', session(0, 'active'), 1));
    };
    const controller = new AbortController();
    const iterator = client().sessions.events({ id: 'ses_1' }, { signal: controller.signal })[Symbol.asyncIterator]();
    expect((await iterator.next()).done).toBe(false);
    const pending = iterator.next();
    const reason = new Error('navigated away');
    controller.abort(reason);
    expect(await rejectionOf(pending)).toBe(reason);
    expect(connections).toHaveLength(1);
  });
});
