/**
 * `@pollkit/sdk/embed`: shows Pollkit's audience page or presenter screen inside an element of your
 * own page, in an iframe, and hands you what happens in it. It calls no API and holds no key: the
 * page in the frame does the work, as it does on its own. Your page's origin must be listed in the
 * workspace's `embedOrigins` (`PATCH /workspace`), or the browser refuses to show the frame
 * (docs/embedding.md).
 *
 * The page posts flat messages `{ type, sessionId, … }` to your origin only — never to `*` — with
 * ids but never an answer's content or a token; this helper passes on those that come from the
 * frame it made and from the origin of the URL it loaded, and nothing else.
 */

/** Every message the embedded page sends. `sessionId` is null only before the page knows its session. */
export type PollkitEmbedEvent =
  | { type: 'pollkit:ready'; sessionId: string | null; page: 'join' | 'present' }
  | { type: 'pollkit:resize'; sessionId: string | null; height: number }
  | { type: 'pollkit:joined'; sessionId: string; participantId: string }
  | { type: 'pollkit:slide'; sessionId: string; slideId: string; slideIndex: number }
  | { type: 'pollkit:answered'; sessionId: string; slideId: string }
  | { type: 'pollkit:completed'; sessionId: string }
  | { type: 'pollkit:ended'; sessionId: string };

export type PollkitEmbedEventType = PollkitEmbedEvent['type'];

export interface MountOptions {
  /**
   * The page to show: a session's `joinUrl` (the audience page; `?lang=` may pick a language) or
   * the presenter screen, `{server}/present/{sessionId}#hostToken=…`.
   */
  url: string;
  /** The frame's accessible name (its `title`), read by screen readers. Default: "Pollkit". */
  title?: string;
  /**
   * Follow the audience page's height, so the frame never scrolls inside your page (default true).
   * The presenter screen reports no height: its frame is 16:9 of the element's width.
   */
  autoResize?: boolean;
  /** Called with every event of the page. */
  onEvent?: (event: PollkitEmbedEvent) => void;
}

export interface EmbeddedPollkit {
  /** The iframe this helper made. */
  readonly frame: HTMLIFrameElement;
  /** Listens to one type of event; returns the function that stops listening. */
  on<T extends PollkitEmbedEventType>(
    type: T,
    listener: (event: Extract<PollkitEmbedEvent, { type: T }>) => void,
  ): () => void;
  /** Removes the frame and stops listening. */
  destroy(): void;
}

const EVENT_TYPES: ReadonlySet<string> = new Set<PollkitEmbedEventType>([
  'pollkit:ready',
  'pollkit:resize',
  'pollkit:joined',
  'pollkit:slide',
  'pollkit:answered',
  'pollkit:completed',
  'pollkit:ended',
]);
/** A frame taller than this is a page gone wrong, not a poll. */
const MAX_HEIGHT = 20_000;

/** Mounts the page in `element` (appended as its last child). */
export function mountPollkit(element: HTMLElement, options: MountOptions): EmbeddedPollkit {
  const target = new URL(options.url);
  // The page posts only to an origin it is told about and its workspace allows: this one.
  target.searchParams.set('embedOrigin', window.location.origin);
  const frame = document.createElement('iframe');
  frame.src = target.href;
  frame.title = options.title ?? 'Pollkit';
  frame.style.width = '100%';
  frame.style.border = '0';
  frame.style.display = 'block';
  // The audience page measures itself for `pollkit:resize`; until then, room for a form. The
  // presenter screen is a stage that fills its frame: 16:9 of the element's width.
  if (target.pathname.startsWith('/present/')) frame.style.aspectRatio = '16 / 9';
  else frame.style.height = '480px';
  const autoResize = options.autoResize ?? true;
  const listeners = new Map<string, Set<(event: PollkitEmbedEvent) => void>>();

  const onMessage = (message: MessageEvent) => {
    if (message.source !== frame.contentWindow || message.origin !== target.origin) return;
    const event = asEvent(message.data);
    if (!event) return;
    if (event.type === 'pollkit:resize' && autoResize) frame.style.height = `${event.height}px`;
    options.onEvent?.(event);
    for (const listener of listeners.get(event.type) ?? []) listener(event);
  };
  window.addEventListener('message', onMessage);
  element.appendChild(frame);

  return {
    frame,
    on(type, listener) {
      let set = listeners.get(type);
      if (!set) {
        set = new Set();
        listeners.set(type, set);
      }
      const entry = listener as (event: PollkitEmbedEvent) => void;
      set.add(entry);
      return () => set.delete(entry);
    },
    destroy() {
      window.removeEventListener('message', onMessage);
      listeners.clear();
      frame.remove();
    },
  };
}

/** The message as an event, if it is one (a shape check: it crossed from another origin). */
function asEvent(data: unknown): PollkitEmbedEvent | undefined {
  if (typeof data !== 'object' || data === null) return undefined;
  const { type, sessionId, height } = data as { type?: unknown; sessionId?: unknown; height?: unknown };
  if (typeof type !== 'string' || !EVENT_TYPES.has(type)) return undefined;
  if (sessionId !== null && typeof sessionId !== 'string') return undefined;
  if (type === 'pollkit:resize') {
    if (typeof height !== 'number' || !Number.isInteger(height) || height < 0 || height > MAX_HEIGHT) return undefined;
  }
  return data as PollkitEmbedEvent;
}
