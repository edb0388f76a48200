/**
 * A Server-Sent Events reader for tests, over fetch: it connects (with any headers, `Last-Event-ID`
 * among them), parses the stream as the SSE spec says (`event:`, `id:`, `data:` fields, comment
 * lines, a blank line ends an event) and keeps every event it has received, in order, with the raw
 * text of the whole stream. Tests read it with `next(type?)` and `waitFor(predicate)`: both move a
 * cursor, so each event is handed out once, and both time out generously (never a timing assertion:
 * the timeout only turns a hang into a failure that lists what did arrive).
 */

/**
 * One event as received: `type` is the `event:` field, `id` this event's own `id:` field, `data` parsed JSON.
 * `data` is `any` unless the test names its type: a stream carries events of several types, which the
 * tests tell apart as they read them (`next('results')`), field by field.
 */
export interface SseEvent<T = any> {
  type: string;
  /** The `id:` field of this event; undefined when the event carried none. */
  id: string | undefined;
  data: T;
  /** The `data:` field as sent. */
  rawData: string;
}

export interface SseStream {
  /** The response status: 200 for a stream; otherwise `error` holds the parsed body. */
  status: number;
  headers: Headers;
  /** The JSON body of a refused connection (status other than 200), read field by field (`any`). */
  error: any;
  /** Every event received so far, in order. */
  readonly events: readonly SseEvent[];
  /** Everything the server has written so far, as text. */
  raw(): string;
  /** The last `id:` the stream carried (what a client sends back as `Last-Event-ID`). */
  readonly lastEventId: string | undefined;
  /** True once the server closed the stream (or `close()` was called). */
  readonly ended: boolean;
  /** Resolves once the stream has ended. */
  closed: Promise<void>;
  /**
   * The next event after the cursor (of `type`, when given: events of other types are passed over).
   * Rejects when the stream ends first, or after `timeoutMs`.
   */
  next<T = any>(type?: string, timeoutMs?: number): Promise<SseEvent<T>>;
  /** The first event after the cursor that matches; the cursor moves past it. */
  waitFor<T = any>(predicate: (event: SseEvent) => boolean, timeoutMs?: number): Promise<SseEvent<T>>;
  /** The events after the cursor, without waiting; the cursor moves to the end. */
  drain(): SseEvent[];
  /** Disconnects (aborts the request). */
  close(): void;
}

/** Generous: a busy two-core machine running other tests. Never asserted on. */
export const SSE_TIMEOUT_MS = 15_000;

export async function openSse(url: string, headers: Record<string, string> = {}): Promise<SseStream> {
  const abort = new AbortController();
  const response = await fetch(url, {
    headers: { accept: 'text/event-stream', ...headers },
    signal: abort.signal,
  });
  const events: SseEvent[] = [];
  let raw = '';
  let lastEventId: string | undefined;
  let ended = false;
  let cursor = 0;
  const listeners = new Set<() => void>();
  const notify = () => {
    for (const listener of [...listeners]) listener();
  };

  let error: any;
  let closed: Promise<void>;
  if (response.status !== 200 || !response.body) {
    const text = await response.text();
    try {
      error = text ? JSON.parse(text) : undefined;
    } catch {
      error = text;
    }
    raw = text;
    ended = true;
    closed = Promise.resolve();
  } else {
    const body = response.body;
    closed = (async () => {
      const decoder = new TextDecoder();
      let buffer = '';
      // The fields of the event being read.
      let type = '';
      let id: string | undefined;
      let data: string[] = [];
      const dispatch = () => {
        if (data.length > 0) {
          const rawData = data.join('\n');
          let parsed: unknown;
          try {
            parsed = JSON.parse(rawData);
          } catch {
            parsed = rawData;
          }
          events.push({ type: type || 'message', id, data: parsed, rawData });
        }
        type = '';
        id = undefined;
        data = [];
      };
      const line = (text: string) => {
        if (text === '') return dispatch();
        if (text.startsWith(':')) return;
        const colon = text.indexOf(':');
        const field = colon === -1 ? text : text.slice(0, colon);
        let value = colon === -1 ? '' : text.slice(colon + 1);
        if (value.startsWith(' ')) value = value.slice(1);
        if (field === 'event') type = value;
        else if (field === 'data') data.push(value);
        else if (field === 'id') {
          id = value;
          lastEventId = value;
        }
      };
      try {
        for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
          const text = decoder.decode(chunk, { stream: true });
          raw += text;
          buffer += text;
          const lines = buffer.split(/\r\n|\r|\n/);
          buffer = lines.pop() ?? '';
          const before = events.length;
          for (const each of lines) line(each);
          if (events.length !== before) notify();
        }
      } catch {
        // Aborted by close(), or the connection dropped: the stream has ended either way.
      } finally {
        ended = true;
        notify();
      }
    })();
  }

  const describe = () =>
    `received so far (cursor ${cursor}${ended ? ', stream ended' : ''}):\n` +
    events.map((e, i) => `  ${i}: ${e.type} id=${e.id} ${e.rawData.slice(0, 200)}`).join('\n');

  const waitFor = <T>(predicate: (event: SseEvent) => boolean, timeoutMs = SSE_TIMEOUT_MS, what = 'a matching event') =>
    new Promise<SseEvent<T>>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const check = () => {
        while (cursor < events.length) {
          const event = events[cursor++] as SseEvent;
          if (predicate(event)) {
            finish();
            resolve(event as SseEvent<T>);
            return;
          }
        }
        if (ended) {
          finish();
          reject(new Error(`the stream ended before ${what}; ${describe()}`));
        }
      };
      const finish = () => {
        listeners.delete(check);
        if (timer) clearTimeout(timer);
      };
      timer = setTimeout(() => {
        finish();
        reject(new Error(`no ${what} within ${timeoutMs} ms; ${describe()}`));
      }, timeoutMs);
      listeners.add(check);
      check();
    });

  return {
    status: response.status,
    headers: response.headers,
    error,
    events,
    raw: () => raw,
    get lastEventId() {
      return lastEventId;
    },
    get ended() {
      return ended;
    },
    closed,
    next: (type, timeoutMs) =>
      waitFor((event) => type === undefined || event.type === type, timeoutMs, type ? `'${type}' event` : 'event'),
    waitFor: (predicate, timeoutMs) => waitFor(predicate, timeoutMs),
    drain() {
      const rest = events.slice(cursor);
      cursor = events.length;
      return rest;
    },
    close() {
      abort.abort();
    },
  };
}
