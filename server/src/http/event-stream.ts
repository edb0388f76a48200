import { Session } from 'better-sse';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { EventFeed, EventSink } from '../core/event-stream.js';

/** Data arrives as JSON text, made once per event for every stream: written as it is. */
const asIs = (data: unknown) => data as string;

/**
 * Opens a Server-Sent Events stream on the request's socket with better-sse (which writes the
 * head, the `retry:` hint, the events and a comment every `heartbeatMs` so proxies and phones keep
 * the connection), then lets the feed write to it until either side closes it. The headers Fastify
 * already holds for this reply (request id, rate-limit headers) go out with the head.
 */
export function openEventStream(
  request: FastifyRequest,
  reply: FastifyReply,
  feed: EventFeed,
  options: { heartbeatMs: number; onError: (error: unknown) => void },
): void {
  reply.hijack();
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(reply.getHeaders())) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value : String(value);
  }
  headers['cache-control'] = 'no-store';
  // nginx and some other proxies buffer responses unless told not to.
  headers['x-accel-buffering'] = 'no';
  const session = new Session(request.raw, reply.raw, {
    headers,
    keepAlive: options.heartbeatMs,
    retry: 2000,
    // Where the stream resumes is the feed's business (it checks the id against the history).
    trustClientEventId: false,
    serializer: asIs,
    sanitizer: asIs,
  });
  let open = true;
  let gone = false;
  const sink: EventSink = {
    send(event) {
      if (!open || !session.isConnected) return;
      session.push(event.data, event.type, event.id);
    },
    close() {
      if (!open) return;
      open = false;
      reply.raw.end();
    },
  };
  session.once('connected', () => {
    // The client can leave before the head is even written: nothing to start then.
    if (gone) return;
    feed.start(sink).catch((error: unknown) => {
      options.onError(error);
      sink.close();
    });
  });
  session.once('disconnected', () => {
    open = false;
    gone = true;
    feed.stop();
  });
}
