import type { Socket } from 'node:net';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { EventFeed, EventSink, StreamEvent } from '../core/event-stream.js';

/**
 * Server-Sent Events on the request's socket, written so that a broadcast costs each stream one
 * write of bytes made once (issue 42; docs/decisions/ "SSE frames written by the transport").
 *
 * An event's frame — `event:…\nid:…\ndata:…\n\n`, the WHATWG format — is encoded once per event
 * object, already wrapped in its HTTP/1.1 chunk (`<size>\r\n…\r\n`), and the same `Buffer` goes to
 * every stream the event object reaches: the session channel hands every stream that is sent alike
 * the same object (live-projection.ts), so a room of 10,000 costs one `JSON.stringify`, one UTF-8
 * encoding and 10,000 `socket.write`s of one buffer. Node's `ServerResponse` writes the head and
 * the last chunk; the events bypass it, which saves its per-write chunk framing, corking and tick.
 * Heartbeats are one timer and one buffer for every stream of the process (OpenStreams).
 */

/** How a response's body is framed on its socket: chunked (HTTP/1.1), or plain until close (HTTP/1.0). */
type Framing = 'chunked' | 'plain';

const chunkedFrames = new WeakMap<StreamEvent, Buffer>();
const plainFrames = new WeakMap<StreamEvent, Buffer>();

/** The SSE text of an event. A line break inside `data` would end the field: each line is a `data:` of its own. */
export function sseText(event: StreamEvent): string {
  const { data } = event;
  const lines = data.includes('\n') || data.includes('\r') ? data.split(/\r\n|\r|\n/) : [data];
  let text = `event:${event.type}\nid:${event.id}\n`;
  for (const line of lines) text += `data:${line}\n`;
  return `${text}\n`;
}

/** Bytes in the body's framing: as they are, or as one HTTP/1.1 chunk. */
function framed(text: string, framing: Framing): Buffer {
  const body = Buffer.from(text, 'utf8');
  if (framing === 'plain') return body;
  const head = `${body.length.toString(16)}\r\n`;
  const frame = Buffer.allocUnsafe(head.length + body.length + 2);
  frame.write(head, 0, 'latin1');
  body.copy(frame, head.length);
  frame.write('\r\n', head.length + body.length, 'latin1');
  return frame;
}

/** The bytes of an event as a stream of `framing` writes them: made at the first write, then shared. */
export function frameOf(event: StreamEvent, framing: Framing): Buffer {
  const cache = framing === 'chunked' ? chunkedFrames : plainFrames;
  let frame = cache.get(event);
  if (frame === undefined) {
    frame = framed(sseText(event), framing);
    cache.set(event, frame);
  }
  return frame;
}

/** The reconnection delay every stream opens with (ms): a client that loses its stream retries after it. */
const RETRY_MS = 2000;
const OPENING = {
  chunked: framed(`retry:${RETRY_MS}\n\n`, 'chunked'),
  plain: framed(`retry:${RETRY_MS}\n\n`, 'plain'),
};
/** An empty comment: proxies and phones see traffic on an idle stream. */
const HEARTBEAT = { chunked: framed(':\n\n', 'chunked'), plain: framed(':\n\n', 'plain') };
/**
 * Bytes queued for one stream past which it is cut: a client that stopped reading (a phone asleep,
 * a stalled proxy) would otherwise hold every event since in the server's memory. It reconnects with
 * its `Last-Event-ID` and is sent what it missed from the history.
 */
export const MAX_QUEUED_BYTES = 1024 * 1024;

/** One open stream: its socket and framing, and how to end it. */
export interface OpenStream {
  socket: Socket;
  framing: Framing;
  /** The server ended the body (its last chunk is written): nothing may follow it on the socket. */
  ended: boolean;
}

/**
 * The event streams this process has open, for their heartbeat: one interval timer writes one shared
 * buffer to each (a timer per stream cost a timer object and a wake-up each). Started with the first
 * stream, stopped with the last.
 */
export class OpenStreams {
  readonly #streams = new Set<OpenStream>();
  #timer: NodeJS.Timeout | undefined;

  constructor(readonly heartbeatMs: number) {}

  get size(): number {
    return this.#streams.size;
  }

  add(stream: OpenStream): void {
    this.#streams.add(stream);
    if (this.#timer === undefined) {
      this.#timer = setInterval(() => this.#beat(), this.heartbeatMs);
      this.#timer.unref();
    }
  }

  delete(stream: OpenStream): void {
    this.#streams.delete(stream);
    if (this.#streams.size === 0) this.close();
  }

  /** Stops the heartbeat (the streams themselves end with their sockets). */
  close(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
  }

  #beat(): void {
    for (const stream of this.#streams) write(stream, HEARTBEAT[stream.framing]);
  }
}

/** Writes to a stream's socket; cuts a stream whose client has stopped reading (MAX_QUEUED_BYTES). */
export function write(stream: OpenStream, bytes: Buffer): void {
  const { socket } = stream;
  if (stream.ended || socket.destroyed) return;
  if (socket.writableLength > MAX_QUEUED_BYTES) {
    socket.destroy();
    return;
  }
  socket.write(bytes);
}

/**
 * Opens a Server-Sent Events stream on the request's socket and lets the feed write to it until
 * either side closes it. The headers Fastify already holds for this reply (request id, rate-limit
 * headers) go out with the head.
 */
export function openEventStream(
  request: FastifyRequest,
  reply: FastifyReply,
  feed: EventFeed,
  options: { streams: OpenStreams; onError: (error: unknown) => void },
): void {
  reply.hijack();
  const response = reply.raw;
  const socket = request.raw.socket as Socket | null;
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(reply.getHeaders())) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value : String(value);
  }
  headers['content-type'] = 'text/event-stream';
  headers['cache-control'] = 'no-store';
  // nginx and some other proxies buffer responses unless told not to.
  headers['x-accel-buffering'] = 'no';
  let stopped = false;
  const stop = () => {
    if (stopped) return;
    stopped = true;
    if (stream) options.streams.delete(stream);
    feed.stop();
  };
  let stream: OpenStream | undefined;
  response.once('close', stop);
  if (!socket || socket.destroyed || response.destroyed) {
    // The client left before the head could be written: nothing to start.
    stop();
    return;
  }
  response.writeHead(200, headers);
  if (request.raw.method === 'HEAD') {
    // The head alone (Fastify answers HEAD on every GET route): no stream, and no byte of a body.
    response.end();
    return;
  }
  // The head goes out now, through Node; from here on the body's bytes go to the socket directly,
  // framed as Node framed the head (chunked, unless the client spoke HTTP/1.0).
  response.flushHeaders();
  const opened: OpenStream = { socket, framing: response.chunkedEncoding ? 'chunked' : 'plain', ended: false };
  stream = opened;
  options.streams.add(opened);
  write(opened, OPENING[opened.framing]);
  const sink: EventSink = {
    send(event) {
      if (!stopped) write(opened, frameOf(event, opened.framing));
    },
    sendAll(events) {
      if (stopped || events.length === 0) return;
      if (events.length === 1) return write(opened, frameOf(events[0] as StreamEvent, opened.framing));
      // Several events for one stream leave in one write (writev), not one syscall each.
      socket.cork();
      for (const event of events) write(opened, frameOf(event, opened.framing));
      socket.uncork();
    },
    close() {
      if (stopped || opened.ended) return;
      opened.ended = true;
      // Node writes the last chunk (`0\r\n\r\n`) and, the response done, may reuse the connection.
      response.end();
    },
  };
  feed.start(sink).catch((error: unknown) => {
    options.onError(error);
    sink.close();
  });
}
