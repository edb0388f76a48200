import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { sampleContent } from '../../../server/test/support/polls.js';
import { startTestServer, type TestServer } from '../../../server/test/support/server.js';
import {
  ConnectionError,
  createClient,
  InternalServerError,
  NotFoundError,
  type PollkitClient,
  TimeoutError,
} from '../../src/index.js';
import { type FaultProxy, startFaultProxy } from '../support/fault-proxy.js';
import { rejectionOf } from '../support/rejection.js';

/**
 * CSV downloads as streams (issue 36, point 3): `{ stream: true }` answers the export as a web
 * `ReadableStream` of its bytes, the same document as the string; retries cover the wait for the
 * response to begin, `timeout` each wait for the next chunk, and a failure or an abort errors the
 * stream with the SDK's error.
 */

let t: TestServer;
let proxy: FaultProxy;
let client: PollkitClient;
let pollId: string;

beforeAll(async () => {
  t = await startTestServer({ RATE_LIMIT_PER_MINUTE: '1000000' });
  proxy = await startFaultProxy(t.url);
  const { apiKey } = await t.workspace('pro');
  client = createClient({ apiKey, baseUrl: proxy.url, maxRetries: 2, retryBaseDelayMs: 1, retryMaxDelayMs: 5 });
  const essay = { id: 'essay', kind: 'open_ended' as const, text: 'Tell us more', maxLength: 500 };
  const poll = await client.polls.create({ title: 'Streamed export', content: sampleContent(essay) });
  await client.polls.update({ id: poll.id, publish: true });
  // Enough open-ended rows that the document arrives in many pieces.
  for (let index = 0; index < 300; index += 1) {
    await client.responses.create({
      id: poll.id,
      voterId: `voter-${index}`,
      slideId: 'essay',
      text: `answer number ${index} ${'x'.repeat(200)}`,
    });
  }
  pollId = poll.id;
}, 120_000);
afterAll(async () => {
  await proxy?.close();
  await t?.close();
});

async function textOf(stream: ReadableStream<Uint8Array>): Promise<{ text: string; chunks: number }> {
  const decoder = new TextDecoder();
  let text = '';
  let chunks = 0;
  for await (const chunk of stream) {
    chunks += 1;
    text += decoder.decode(chunk, { stream: true });
  }
  return { text: text + decoder.decode(), chunks };
}

describe('a CSV download as a stream', () => {
  it('is the same document as the string, as a web ReadableStream or through Readable.fromWeb', async () => {
    const whole = await client.results.export({ id: pollId });
    expectTypeOf(whole).toEqualTypeOf<string>();
    expect(whole.length).toBeGreaterThan(60_000);

    const stream = await client.results.export({ id: pollId }, { stream: true });
    expectTypeOf(stream).toEqualTypeOf<ReadableStream<Uint8Array>>();
    const { text, chunks } = await textOf(stream);
    expect(text).toBe(whole);
    expect(chunks).toBeGreaterThan(1);

    // The Node way (docs/sdk.md): a Readable piped to a writable, as to a file.
    const pieces: Buffer[] = [];
    await pipeline(
      Readable.from(await client.results.export({ id: pollId }, { stream: true })),
      new Writable({
        write(chunk: Buffer, _encoding, done) {
          pieces.push(chunk);
          done();
        },
      }),
    );
    expect(Buffer.concat(pieces).toString('utf8')).toBe(whole);

    // A session's export streams the same way; `stream: false` is the string.
    const session = await client.sessions.create({ pollId });
    const sessionCsv = await client.sessions.export({ id: session.id }, { stream: false });
    expectTypeOf(sessionCsv).toEqualTypeOf<string>();
    expect((await textOf(await client.sessions.export({ id: session.id }, { stream: true }))).text).toBe(sessionCsv);
  });

  it('throws the error of a refused request, and retries a 503 before the body begins', async () => {
    const missing = await rejectionOf(
      client.results.export({ id: 'poll_01AAAAAAAAAAAAAAAAAAAAAAAA' }, { stream: true }),
    );
    expect(missing).toBeInstanceOf(NotFoundError);

    proxy.reset();
    proxy.inject({ kind: 'status', status: 503, code: 'service_unavailable' }, 1);
    const retried = await client.results.export({ id: pollId }, { stream: true });
    expect((await textOf(retried)).text).toBe(await client.results.export({ id: pollId }));
    expect(proxy.requests.filter((request) => request.url.endsWith('/export'))).toHaveLength(3);

    proxy.inject({ kind: 'status', status: 503, code: 'service_unavailable' }, 3);
    const unavailable = await rejectionOf(client.results.export({ id: pollId }, { stream: true }));
    expect(unavailable).toBeInstanceOf(InternalServerError);
    expect((unavailable as InternalServerError).status).toBe(503);
    proxy.reset();
  });

  it('is refused on a route that is not a file download', async () => {
    const refused = await rejectionOf(
      (client.polls.get as (input: unknown, options: unknown) => Promise<unknown>)({ id: pollId }, { stream: true }),
    );
    expect(refused).toBeInstanceOf(TypeError);
    expect(String(refused)).toContain('file downloads only');
  });
});

describe('a stream whose server stalls, breaks or is left', () => {
  let stalling: Server;
  let base: string;
  const open = new Set<ServerResponse>();
  let behaviour: 'stall' | 'break' = 'stall';

  beforeAll(async () => {
    // A stand-in on loopback that begins a CSV, then either stops sending or drops the connection.
    stalling = createServer((_request, response) => {
      open.add(response);
      response.writeHead(200, { 'content-type': 'text/csv; charset=utf-8' });
      response.write('Slide,Question,Type,Answer / Label,Count / Value\r\n');
      if (behaviour === 'break') setTimeout(() => response.socket?.destroy(), 50);
    });
    await new Promise<void>((resolve) => stalling.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(stalling.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    for (const response of open) response.destroy();
    await new Promise((resolve) => stalling.close(resolve));
  });

  const stub = (timeout: number) => createClient({ apiKey: 'pk_test_stub', baseUrl: base, timeout, maxRetries: 0 });

  it('errors with a TimeoutError when no further data comes within the timeout', async () => {
    behaviour = 'stall';
    const stream = await stub(300).results.export({ id: pollId }, { stream: true });
    const reader = stream.getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toContain('Slide,Question');
    const stalled = await rejectionOf(reader.read());
    expect(stalled).toBeInstanceOf(TimeoutError);
    expect(String((stalled as Error).message)).toContain('300 ms');
  });

  it('errors with a ConnectionError when the connection drops mid-body', async () => {
    behaviour = 'break';
    const stream = await stub(5_000).results.export({ id: pollId }, { stream: true });
    expect(await rejectionOf(textOf(stream))).toBeInstanceOf(ConnectionError);
  });

  it('errors with the caller’s abort reason, and a cancelled stream lets the connection go', async () => {
    behaviour = 'stall';
    const controller = new AbortController();
    const stream = await stub(60_000).results.export({ id: pollId }, { stream: true, signal: controller.signal });
    const reader = stream.getReader();
    await reader.read();
    const pending = rejectionOf(reader.read());
    controller.abort(new Error('the user left'));
    expect(String(await pending)).toContain('the user left');

    const before = open.size;
    const cancelled = await stub(60_000).results.export({ id: pollId }, { stream: true });
    expect(open.size).toBe(before + 1);
    const last = [...open].at(-1) as ServerResponse;
    const closed = new Promise((resolve) => last.on('close', resolve));
    await cancelled.cancel();
    await closed;
  });
});
