import { connect, createServer, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { frameOf, MAX_QUEUED_BYTES, sseText, write } from '../../src/http/event-stream.js';
import { sampleContent } from '../support/decks.js';
import type { LooseJson } from '../support/http.js';
import { UNLIMITED } from '../support/limits.js';
import { pollPublisher } from '../support/polls.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { SSE_TIMEOUT_MS } from '../support/sse.js';
import { type BodyOf, expectStatus, testClient } from '../support/test-client.js';

/**
 * The event streams on the wire (http/event-stream.ts): each event's frame is encoded once and the
 * same bytes written to every stream it reaches, bypassing Node's response (issue 42). What that must
 * not change is checked on raw sockets: HTTP/1.1 streams are valid chunked bodies ending with the
 * last chunk; an HTTP/1.0 client gets the same events unframed, ended by the close; the shared
 * heartbeat reaches every stream; and the frames streams share carry nobody's own answer or rank to
 * another participant. Runs on PGlite, and on PostgreSQL + Redis with TEST_DATABASE_URL.
 */

type Json = LooseJson;

let t: TestServer;
const api = testClient(() => t.api);
let apiKey: string;

beforeAll(async () => {
  t = await startTestServer({
    ...UNLIMITED,
    LIVE_HEARTBEAT_MS: '1000',
  });
  ({ apiKey } = await t.workspace('pro'));
});
afterAll(() => t.close());

/** What a raw socket received: every byte as text, and whether the server closed it. */
interface RawStream {
  text(): string;
  closed: Promise<void>;
  socket: Socket;
}

/** A raw connection to the server: every byte received as text, and whether the server closed it. */
function rawConnection(): RawStream & {
  request(method: string, path: string, headers?: Record<string, string>, version?: '1.0' | '1.1'): void;
} {
  const { port } = new URL(t.url);
  const socket = connect(Number(port), '127.0.0.1');
  let received = '';
  socket.setEncoding('latin1');
  socket.on('data', (chunk: string) => {
    received += chunk;
  });
  const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
  return {
    text: () => Buffer.from(received, 'latin1').toString('utf8'),
    closed,
    socket,
    request(method, path, headers = {}, version = '1.1') {
      const lines = [`${method} ${path} HTTP/${version}`, 'Host: 127.0.0.1', 'Accept: text/event-stream'];
      for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
      socket.write(`${lines.join('\r\n')}\r\n\r\n`);
    },
  };
}

function rawGet(path: string, headers: Record<string, string>, version: '1.0' | '1.1'): RawStream {
  const connection = rawConnection();
  connection.request('GET', path, headers, version);
  return connection;
}

/** Waits until `predicate` holds of the text received (bounded; the bound only turns a hang into a failure). */
async function until(stream: RawStream, predicate: (text: string) => boolean, what: string): Promise<string> {
  const deadline = Date.now() + SSE_TIMEOUT_MS;
  while (!predicate(stream.text())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; received:\n${stream.text()}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return stream.text();
}

/** Splits a raw HTTP/1.1 response into its head and its chunks, checking every chunk's size line. */
function dechunk(raw: string): { head: string; chunks: string[]; complete: boolean } {
  const bytes = Buffer.from(raw, 'utf8');
  const headEnd = bytes.indexOf('\r\n\r\n');
  const head = bytes.subarray(0, headEnd).toString('latin1');
  const chunks: string[] = [];
  let at = headEnd + 4;
  while (at < bytes.length) {
    const lineEnd = bytes.indexOf('\r\n', at);
    const size = Number.parseInt(bytes.subarray(at, lineEnd).toString('latin1'), 16);
    expect(Number.isNaN(size), `chunk size line at byte ${at}`).toBe(false);
    if (size === 0) return { head, chunks, complete: bytes.subarray(lineEnd, lineEnd + 4).toString() === '\r\n\r\n' };
    const body = bytes.subarray(lineEnd + 2, lineEnd + 2 + size);
    expect(bytes.subarray(lineEnd + 2 + size, lineEnd + 4 + size).toString('latin1')).toBe('\r\n');
    chunks.push(body.toString('utf8'));
    at = lineEnd + 4 + size;
  }
  return { head, chunks, complete: false };
}

/** The `event`/`data` pairs of an SSE body. */
function eventsOf(body: string): Array<{ type: string; id: string; data: Json }> {
  const events: Array<{ type: string; id: string; data: Json }> = [];
  for (const block of body.split('\n\n')) {
    const fields = Object.fromEntries(
      block
        .split('\n')
        .filter((line) => line !== '' && !line.startsWith(':'))
        .map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 1)]),
    );
    if (fields.event !== undefined) {
      events.push({ type: fields.event, id: fields.id ?? '', data: JSON.parse(fields.data ?? 'null') });
    }
  }
  return events;
}

describe('event streams on the wire', () => {
  it('frames an event once, as SSE, with each line of a multi-line `data` its own field', () => {
    const event = { type: 'slide', id: '7', data: '{"a":1}' };
    expect(sseText(event)).toBe('event:slide\nid:7\ndata:{"a":1}\n\n');
    expect(sseText({ type: 'x', id: '1', data: 'one\ntwo\r\nthree' })).toBe(
      'event:x\nid:1\ndata:one\ndata:two\ndata:three\n\n',
    );
    // One object, one buffer, whatever the number of streams.
    expect(frameOf(event, 'chunked')).toBe(frameOf(event, 'chunked'));
    const chunk = frameOf({ type: 'slide', id: '8', data: '"é"' }, 'chunked').toString('utf8');
    const body = 'event:slide\nid:8\ndata:"é"\n\n';
    expect(chunk).toBe(`${Buffer.byteLength(body).toString(16)}\r\n${body}\r\n`);
    expect(frameOf(event, 'plain').toString()).toBe(sseText(event));
  });

  it('streams chunked HTTP/1.1 and plain HTTP/1.0 alike, with shared heartbeats, and ends both when the session ends', async () => {
    const poll = await pollPublisher(() => ({ api: t.api, apiKey, title: 'Wire', content: sampleContent() }))();
    const created = await api.request('POST /sessions', { apiKey, body: { pollId: poll.id } });
    expectStatus(created, 201);
    const session = created.body;
    const host = { 'x-host-token': session.hostToken };
    const control = async (action: BodyOf<'POST /sessions/{id}/control'>['action']) => {
      const res = await api.request('POST /sessions/{id}/control', {
        params: { id: session.id },
        body: { action },
        headers: host,
      });
      expectStatus(res, 200);
    };
    const join = async (name: string) => {
      const res = await api.request('POST /live/{pin}/join', { params: { pin: session.pin! }, body: { name } });
      expectStatus(res, 200);
      return res.body.participantToken as string;
    };
    await control('start');
    const alice = await join('Alice');
    const bob = await join('Bob');
    const path = `/api/v1/live/${session.pin}/events`;
    const eleven = rawGet(path, { 'X-Participant-Token': alice }, '1.1');
    const ten = rawGet(path, { 'X-Participant-Token': bob }, '1.0');
    // Both get their snapshot, then heartbeats from the one shared timer (1 s here).
    await until(eleven, (text) => text.includes('event:slide') && text.includes('\r\n3\r\n:\n\n\r\n'), 'a heartbeat');
    await until(ten, (text) => text.includes('event:slide') && text.includes('\n:\n\n'), 'a heartbeat');

    // Alice answers the first slide; the session moves on and back: only Alice is told she answered.
    const answered = await api.request('POST /live/{pin}/answers', {
      params: { pin: session.pin! },
      body: { slideId: 'lunch', optionIds: ['pizza'] },
      headers: { 'x-participant-token': alice },
    });
    expectStatus(answered, 201);
    await control('next');
    await control('prev');
    await until(ten, (text) => eventsOf(text.slice(text.indexOf('\r\n\r\n') + 4)).length >= 3, 'the moves');
    await control('end');
    // HTTP/1.1: the last chunk ends the body (the connection may serve another request); HTTP/1.0: the close.
    await until(eleven, (text) => text.endsWith('\r\n0\r\n\r\n'), 'the last chunk');
    eleven.socket.destroy();
    await ten.closed;

    const chunked = dechunk(eleven.text());
    expect(chunked.head).toMatch(/^HTTP\/1\.1 200 OK/);
    expect(chunked.head.toLowerCase()).toContain('transfer-encoding: chunked');
    expect(chunked.head.toLowerCase()).toContain('content-type: text/event-stream');
    expect(chunked.head.toLowerCase()).toContain('cache-control: no-store');
    expect(chunked.complete).toBe(true);
    // Every chunk is whole SSE: events never straddle chunks.
    for (const chunk of chunked.chunks) expect(chunk.endsWith('\n\n')).toBe(true);
    expect(chunked.chunks[0]).toBe('retry:2000\n\n');

    const plain = ten.text();
    expect(plain).toMatch(/^HTTP\/1\.1 200 OK/);
    expect(plain.toLowerCase()).not.toContain('transfer-encoding');
    const plainBody = plain.slice(plain.indexOf('\r\n\r\n') + 4);
    expect(plainBody.startsWith('retry:2000\n\n')).toBe(true);

    const forAlice = eventsOf(chunked.chunks.join(''));
    const forBob = eventsOf(plainBody);
    const slides = (events: typeof forAlice) =>
      events.filter((event) => event.type === 'slide').map((event) => [event.data.slideIndex, event.data.answered]);
    // Snapshot at slide 0, `next` to 1, `prev` back to 0: answered only in Alice's stream.
    expect(slides(forAlice)).toEqual([
      [0, false],
      [1, false],
      [0, true],
    ]);
    expect(slides(forBob)).toEqual([
      [0, false],
      [1, false],
      [0, false],
    ]);
    expect(forAlice.at(-1)?.type).toBe('ended');
    expect(forBob.at(-1)?.type).toBe('ended');
  });

  it('cuts a stream whose client stopped reading once a megabyte waits for it, rather than hold every event since', async () => {
    const accepted = new Promise<Socket>((resolve) => {
      const server = createServer((socket) => {
        server.close();
        resolve(socket);
      }).listen(0, '127.0.0.1', () => {
        const { port } = server.address() as { port: number };
        // A client that connects and never reads.
        connect(port, '127.0.0.1').pause();
      });
    });
    const socket = await accepted;
    const stream = { socket, framing: 'plain' as const, ended: false };
    const event = Buffer.alloc(64 * 1024, 'x');
    let written = 0;
    while (!socket.destroyed && written < 64 * MAX_QUEUED_BYTES) {
      write(stream, event);
      written += event.length;
      // Let the kernel take what it will, as between broadcasts.
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(socket.destroyed).toBe(true);
    // What the kernel's buffers took, plus the megabyte: far less than the 64 MB offered.
    expect(written).toBeLessThan(16 * MAX_QUEUED_BYTES);
    // A write to a cut stream is a no-op.
    write(stream, event);
  });

  it('answers HEAD with the head alone: no stream opened, and the connection serves the next request', async () => {
    const poll = await pollPublisher(() => ({ api: t.api, apiKey, title: 'Head', content: sampleContent() }))();
    const created = await api.request('POST /sessions', { apiKey, body: { pollId: poll.id } });
    expectStatus(created, 201);
    const connection = rawConnection();
    connection.request('HEAD', `/api/v1/live/${created.body.pin}/events`);
    connection.request('GET', '/healthz');
    await until(connection, (text) => text.includes('"status"'), 'the second response');
    connection.socket.destroy();
    const received = connection.text();
    const [head, second] = received.split(/(?=HTTP\/1\.1 )/);
    expect(head).toMatch(/^HTTP\/1\.1 200 OK/);
    expect(head?.toLowerCase()).toContain('content-type: text/event-stream');
    // Nothing after the head: the next bytes are the second response's.
    expect(head?.endsWith('\r\n\r\n')).toBe(true);
    expect(second).toMatch(/^HTTP\/1\.1 200 OK/);
  });
});
