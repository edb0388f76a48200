/**
 * A Server-Sent Events stream as the modules see it, with no HTTP in it: an `sse` route's handler
 * returns an `EventFeed`; the transport (http/event-stream.ts) opens the stream and hands the feed
 * a sink to write to, and stops the feed when the client goes away.
 */

/** One event: its SSE `event:` name, `id:` and `data:` (JSON text, already serialised). */
export interface StreamEvent {
  type: string;
  id: string;
  data: string;
}

export interface EventSink {
  /**
   * Writes an event; a no-op once the stream is closed. Give every stream that is sent alike the same
   * event object: the transport encodes an object once and writes those bytes to each stream.
   */
  send(event: StreamEvent): void;
  /** Writes events together (one write on the socket for all of them). */
  sendAll(events: readonly StreamEvent[]): void;
  /** Ends the stream from the server's side (after a session's last event). */
  close(): void;
}

export interface EventFeed {
  /** Starts writing to the sink: what is due on connect first, then every event as it happens. */
  start(sink: EventSink): Promise<void>;
  /** The client went away (or the server is shutting down): stop writing, let go of the sink. */
  stop(): void;
}
