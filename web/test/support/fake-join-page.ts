import MessageFormatModule from '@messageformat/core';
import type { JoinChallenge, LiveState, ParticipantSlide } from '@pollkit/sdk/live';
import { vi } from 'vitest';
import english from '../../src/i18n/messages/en.json' with { type: 'json' };
import { loadMessages } from '../../src/shared/i18n.js';

/**
 * What the audience page's controller (web/src/join/controller.ts) reaches outside itself, stood in
 * for without a browser or a network: the page (`location`, `history`, `document`, the window's
 * events, local and session storage) and the server behind `fetch`, which the controller's
 * `pageFetch` (shared/net.ts) calls and the SDK's `joinSession` goes through for every request and
 * for the event stream. Each test's server answers one PIN; a request for any other PIN (a page of
 * an earlier test still reconnecting) gets the 404 of a session that is gone.
 */

const ORIGIN = 'https://polls.example.test';

/** Local or session storage, as a `Map`. */
class FakeStorage {
  readonly #items = new Map<string, string>();
  get length(): number {
    return this.#items.size;
  }
  key(index: number): string | null {
    return [...this.#items.keys()][index] ?? null;
  }
  getItem(key: string): string | null {
    return this.#items.get(key) ?? null;
  }
  setItem(key: string, value: string): void {
    this.#items.set(key, String(value));
  }
  removeItem(key: string): void {
    this.#items.delete(key);
  }
}

/** The browser's storage: it outlives a page (a reload opens a new page on the same storage). */
export interface Browser {
  local: FakeStorage;
  session: FakeStorage;
  stored(area: 'local' | 'session', key: string): unknown;
}

export function newBrowser(): Browser {
  const local = new FakeStorage();
  const session = new FakeStorage();
  return {
    local,
    session,
    stored: (area, key) => {
      const text = (area === 'local' ? local : session).getItem(key);
      return text === null ? undefined : JSON.parse(text);
    },
  };
}

interface FakePage {
  location: { origin: string; pathname: string; search: string };
  replaceState: ReturnType<typeof vi.fn>;
  /** The network is back (the window's `online` event). */
  online(): void;
}

/**
 * Opens a page at `path` in `browser`: the globals the controller reads, this page's. `joinChallenge`
 * is what the server writes into the page's data block for a session with the join challenge.
 */
export function openPage(
  browser: Browser,
  { path = '/join', search = '', joinChallenge }: { path?: string; search?: string; joinChallenge?: 'pow' } = {},
): FakePage {
  const events = new EventTarget();
  const document = Object.assign(new EventTarget(), {
    visibilityState: 'visible',
    getElementById: (id: string) =>
      id === 'pollkit-page' && joinChallenge ? { textContent: JSON.stringify({ joinChallenge }) } : null,
  });
  const location = { origin: ORIGIN, pathname: path, search };
  const replaceState = vi.fn((_state: unknown, _title: string, url: string) => {
    const next = new URL(url, ORIGIN);
    location.pathname = next.pathname;
    location.search = next.search;
  });
  vi.stubGlobal('document', document);
  vi.stubGlobal('location', location);
  vi.stubGlobal('history', { replaceState });
  vi.stubGlobal('window', { localStorage: browser.local, sessionStorage: browser.session });
  vi.stubGlobal('addEventListener', events.addEventListener.bind(events));
  return { location, replaceState, online: () => events.dispatchEvent(new Event('online')) };
}

// The package's types declare `export default`, its code assigns `module.exports`: Node's default import is the class.
const MessageFormat = MessageFormatModule as unknown as typeof MessageFormatModule.default;

/** The English catalog, compiled as the build compiles it, as the page's messages. */
export async function loadEnglish(): Promise<void> {
  const mf = new MessageFormat('en');
  const compiled = Object.fromEntries(Object.entries(english).map(([key, message]) => [key, mf.compile(message)]));
  const root = { lang: '', dir: '' };
  const doc = { documentElement: root, getElementById: () => null } as unknown as Document;
  await loadMessages(doc, async () => ({ default: compiled }));
}

// ---------------------------------------------------------------------------------------------
// The server

type Json = Record<string, any>;

/** A request the server received: its route (`join`, `events`, `answers`…), headers and JSON body. */
interface Received {
  route: string;
  method: string;
  headers: Headers;
  body: Json | undefined;
}

type Handler = (request: Received, init: RequestInit | undefined) => Response | Promise<Response>;

export function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
}

/** The API's error envelope. */
export function refusal(status: number, code: string, details?: Json): Response {
  return json(status, { error: { code, message: `refused: ${code}`, ...(details ? { details } : {}) } });
}

/** One open event stream: the server writes events to it, or ends it as a dropped connection would. */
interface StreamConnection {
  lastEventId: string | null;
  send(type: string, data: unknown): void;
  end(): void;
  readonly closed: boolean;
}

const servers = new Map<string, FakeServer>();
let nextPin = 100_000;

/** `fetch` as the page's: every request goes to the fake server of its PIN. */
export const fakeFetch: typeof fetch = async (input, init) => {
  const url = new URL(String(input));
  const match = /^\/api\/v1\/live\/([^/]+)\/(.+)$/.exec(url.pathname);
  const server = match ? servers.get(decodeURIComponent(match[1]!)) : undefined;
  if (!match || !server) return refusal(404, 'not_found');
  return server.receive(match[2]!, init);
};

/** A session on a server, one participant at a time: its state, its event ids, and what it was sent. */
export class FakeServer {
  readonly pin = String(nextPin++);
  readonly received: Received[] = [];
  readonly streams: StreamConnection[] = [];
  state: LiveState;
  participant = { id: 'prt_ada', name: 'Ada' as string | null, score: 0, joinedAt: '2026-01-01T00:00:00.000Z' };
  token = 'ptk_ada';
  #eventId = 0;
  readonly #once = new Map<string, Handler[]>();

  constructor(slide: ParticipantSlide | null = null, pace: 'presenter' | 'audience' = 'presenter') {
    this.state = liveState(slide, { pace });
    servers.set(this.pin, this);
  }

  /** The next request of `route` gets this answer instead of the session's own (once each, in order). */
  next(route: string, ...handlers: Handler[]): this {
    this.#once.set(route, [...(this.#once.get(route) ?? []), ...handlers]);
    return this;
  }

  /** The requests of one route. */
  of(route: string): Received[] {
    return this.received.filter((request) => request.route === route);
  }

  /** The session moves to `slide`: the state changes, and open streams hear it. */
  show(slide: ParticipantSlide | null, patch: Partial<LiveState> = {}): void {
    this.state = { ...this.state, slide, answered: false, resultsVisible: false, locked: false, ...patch };
    this.broadcast('slide', this.state);
  }

  broadcast(type: string, data: unknown): void {
    for (const stream of this.streams) if (!stream.closed) stream.send(type, data);
  }

  /** The server goes away: its open streams end, its PIN names nothing any more. */
  close(): void {
    servers.delete(this.pin);
    for (const stream of this.streams) stream.end();
  }

  async receive(path: string, init: RequestInit | undefined): Promise<Response> {
    const route = path.startsWith('questions/') ? 'upvotes' : path;
    const headers = new Headers(init?.headers);
    const body = typeof init?.body === 'string' ? JSON.parse(init.body) : undefined;
    const request = { route, method: init?.method ?? 'GET', headers, body };
    this.received.push(request);
    const handler = this.#once.get(route)?.shift() ?? ((r: Received, i: RequestInit | undefined) => this.answer(r, i));
    return handler(request, init);
  }

  /** The session's own answer to a request. */
  answer(request: Received, init?: RequestInit): Response {
    const resumed = request.headers.get('x-participant-token') === this.token;
    switch (request.route) {
      case 'join':
        return json(200, { participant: this.participant, participantToken: this.token, resumed, state: this.state });
      case 'events':
        return this.openStream(request, init);
      case 'answers':
        return json(201, {
          id: `vote_${this.received.length}`,
          sessionId: this.state.sessionId,
          slideId: request.body?.slideId,
          participantId: this.participant.id,
          createdAt: '2026-01-01T00:00:01.000Z',
          progress: null,
        });
      case 'upvotes':
        return json(201, { id: 'rsp_q1', text: 'Why?', upvotes: 1, createdAt: '2026-01-01T00:00:01.000Z' });
      default:
        return refusal(404, 'not_found');
    }
  }

  /** An event stream that says `slide` on connect, as the server does, and asks for reconnections in 5 ms. */
  openStream(request: Received, init?: RequestInit): Response {
    const encoder = new TextEncoder();
    let controller!: ReadableStreamDefaultController<Uint8Array>;
    let closed = false;
    const connection: StreamConnection = {
      lastEventId: request.headers.get('last-event-id'),
      send: (type, data) => {
        if (closed) return;
        this.#eventId += 1;
        controller.enqueue(encoder.encode(`id: ${this.#eventId}\nevent: ${type}\ndata: ${JSON.stringify(data)}\n\n`));
      },
      end: () => {
        if (closed) return;
        closed = true;
        controller.close();
      },
      get closed() {
        return closed;
      },
    };
    const body = new ReadableStream<Uint8Array>({
      start(start) {
        controller = start;
        controller.enqueue(encoder.encode('retry: 5\n\n'));
      },
      cancel() {
        closed = true;
      },
    });
    // As a real fetch: the caller's abort errors the body.
    init?.signal?.addEventListener('abort', () => {
      if (closed) return;
      closed = true;
      controller.error(init.signal?.reason);
    });
    this.streams.push(connection);
    connection.send('slide', this.state);
    return new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream' } });
  }
}

export function liveState(slide: ParticipantSlide | null, patch: Partial<LiveState> = {}): LiveState {
  return {
    sessionId: 'ses_test',
    pace: 'presenter',
    status: 'active',
    slideIndex: 0,
    slideCount: 3,
    slide,
    locked: false,
    resultsVisible: false,
    slideStartedAt: '2026-01-01T00:00:00.000Z',
    answered: false,
    progress: null,
    completed: false,
    ...patch,
  };
}

export const LUNCH = {
  id: 'lunch',
  kind: 'multiple_choice',
  text: 'Where shall we eat?',
  type: 'single',
  options: [
    { id: 'pizza', label: 'Pizza' },
    { id: 'sushi', label: 'Sushi' },
  ],
} as ParticipantSlide;

export const WORDS = { id: 'words', kind: 'open_ended', text: 'One word?', maxLength: 40 } as ParticipantSlide;

export const ASK = {
  id: 'ask',
  kind: 'qa',
  text: 'Questions?',
  moderated: false,
  allowUpvotes: true,
} as ParticipantSlide;

/** A join challenge whose secret number is `number` (small: solved in a moment). */
export async function joinChallenge(number = 7): Promise<JoinChallenge> {
  const salt = 'a3f1c2d4?expires=1795000000&session=ses_test&';
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(`${salt}${number}`));
  const challenge = [...new Uint8Array(digest)].map((byte) => byte.toString(16).padStart(2, '0')).join('');
  return {
    algorithm: 'SHA-256',
    challenge,
    maxnumber: 100,
    salt,
    signature: 'sig',
    expiresAt: '2026-01-01T00:05:00.000Z',
  };
}
