import {
  AuthenticationError,
  type EventStream,
  type LiveCounts,
  NotFoundError,
  type PresenterEvent,
  type PresenterSession,
  presenterSession,
  type QuestionStatus,
  type Session,
  type SessionAction,
  type SessionDeck,
  type SessionSummary,
  type SlideResults,
} from '@pollkit/sdk/live';
import { errorMessage, t } from '../shared/i18n.js';
import { pageFetch, ServerClock, streamLastHeardAt } from '../shared/net.js';
import { readStored, removeStored, writeStored } from '../shared/storage.js';
import { onWake, ViewStore } from '../shared/store.js';

/**
 * The presenter screen's state and actions, outside the view: reads the host token from the URL's
 * fragment (which browsers never send to a server) into session storage, loads the deck and the QR
 * code, follows the presenter stream with the SDK's fetch-based reader (EventSource cannot send
 * `X-Host-Token`), and sends control actions and moderation.
 */
export interface PresenterView {
  phase: 'loading' | 'ready' | 'failed';
  error?: string;
  session?: Session;
  deck?: SessionDeck;
  /** The QR code of the join URL, as a data URL of the SVG the API answered. */
  qrCode?: string;
  counts?: LiveCounts;
  /** A self-paced session's figures: participants per slide, completions, every slide's results. */
  progress?: SessionProgress;
  /** The current slide's results as the audience sees them, while shown. */
  results?: SlideResults;
  summary?: SessionSummary;
  connected: boolean;
  /**
   * The queue of the current slide: a moderated Q&A slide's questions waiting for approval, or the
   * answers the text filter holds for review on an open-ended slide (`textFilter: review`). Texts
   * are as the room would be shown them (flagged words masked).
   */
  pending: readonly QueuedText[];
  busy: boolean;
  actionError?: string;
}

/** A question or an answer waiting for the presenter's decision. */
interface QueuedText {
  id: string;
  text: string;
}

/** The `progress` event's data (`SessionProgress`). */
type SessionProgress = Extract<PresenterEvent, { type: 'progress' }>['data'];

const tokenKey = (sessionId: string) => `pollkit.host.${sessionId}`;
const STREAM_OPTIONS = { maxReconnects: 1_000, reconnectMaxDelayMs: 5_000 } as const;
const STALE_STREAM_MS = 35_000;

/** The host token from `#hostToken=…`, moved into session storage so that a reload keeps it and the address bar does not show it. */
export function takeHostToken(sessionId: string): string | undefined {
  const fromFragment = new URLSearchParams(location.hash.slice(1)).get('hostToken') ?? undefined;
  if (fromFragment) {
    writeStored('session', tokenKey(sessionId), fromFragment);
    history.replaceState(null, '', location.pathname + location.search);
    return fromFragment;
  }
  return readStored<string>('session', tokenKey(sessionId));
}

export class PresenterController extends ViewStore<PresenterView> {
  readonly clock = new ServerClock();
  readonly #presenter: PresenterSession | undefined;
  readonly #sessionId: string;
  #stream: EventStream<PresenterEvent> | undefined;
  /** The counts the moderation queue was last read at (questions asked, questions pending): a change re-reads it. */
  #queueReadAt = '';
  #queueReads = 0;

  constructor(sessionId: string, hostToken: string | undefined) {
    super(
      hostToken
        ? { phase: 'loading', connected: false, pending: [], busy: false }
        : {
            phase: 'failed',
            connected: false,
            pending: [],
            busy: false,
            error: t('present.error.noHostToken'),
          },
    );
    this.#sessionId = sessionId;
    if (!hostToken) return;
    const fetch = pageFetch(this.clock, { onConnected: (connected) => this.set({ connected }) });
    this.#presenter = presenterSession({ baseUrl: location.origin, sessionId, hostToken, fetch, maxRetries: 3 });
    void this.#load();
    onWake(() => this.#wake());
  }

  async #load(): Promise<void> {
    const presenter = this.#presenter!;
    try {
      const session = await presenter.get();
      if (session.status === 'ended') {
        // An ended session's host token reads the session and its stream only (no deck, no QR code:
        // docs/live-sessions.md): the summary arrives on the stream.
        const deck = {
          sessionId: session.id,
          pollId: session.pollId,
          title: t('present.ended.title'),
          slides: [],
          answersVisible: true,
        };
        this.set({ phase: 'ready', session, deck });
        void this.#follow(undefined);
        return;
      }
      const [deck, svg] = await Promise.all([presenter.deck(), presenter.qrCode()]);
      this.set({
        phase: 'ready',
        session,
        deck,
        qrCode: `data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}`,
      });
      void this.#follow(undefined);
    } catch (error) {
      if (error instanceof AuthenticationError) removeStored('session', tokenKey(this.#sessionId));
      this.set({ phase: 'failed', error: loadErrorMessage(error) });
    }
  }

  async #follow(lastEventId: string | undefined): Promise<void> {
    const presenter = this.#presenter!;
    const stream = presenter.events({ ...STREAM_OPTIONS, lastEventId });
    this.#stream = stream;
    try {
      for await (const event of stream) this.#onEvent(event);
      if (this.#stream !== stream) return;
      this.set({ connected: false });
      // A 204: the session had ended before this stream opened (a reload after the end).
      if (!this.view.summary) this.set({ session: await presenter.get() });
    } catch (error) {
      if (this.#stream === stream) this.set({ connected: false, actionError: loadErrorMessage(error) });
    }
  }

  #wake(): void {
    const stream = this.#stream;
    if (this.view.phase !== 'ready' || this.view.summary || !stream) return;
    if (this.view.connected && Date.now() - streamLastHeardAt() < STALE_STREAM_MS) return;
    this.#stream = undefined;
    stream.close();
    void this.#follow(stream.lastEventId);
  }

  #onEvent(event: PresenterEvent): void {
    switch (event.type) {
      case 'session': {
        const slideChanged = event.data.currentSlideIndex !== this.view.session?.currentSlideIndex;
        this.set({
          session: event.data,
          results: event.data.resultsVisible && !slideChanged ? this.view.results : undefined,
          ...(slideChanged ? { pending: [], counts: undefined } : {}),
        });
        if (slideChanged) this.#queueReadAt = '';
        break;
      }
      case 'counts': {
        this.set({ counts: event.data });
        // A new question, or a decision made anywhere (this screen, another tab, the API), moves the
        // counts: every presenter screen re-reads its queue.
        const readAt = `${event.data.answerCount}:${event.data.pendingQuestions}`;
        if (readAt !== this.#queueReadAt) void this.#refreshQueue(readAt, event.data.pendingQuestions);
        break;
      }
      case 'progress':
        this.set({ progress: event.data });
        break;
      case 'results':
        this.set({ results: event.data });
        break;
      case 'ended':
        this.set({ summary: event.data, connected: false });
        break;
    }
  }

  currentSlide() {
    const { deck, session } = this.view;
    return session?.status === 'active' ? deck?.slides[session.currentSlideIndex] : undefined;
  }

  /**
   * The queue of the current slide, read again whenever its counts move: a moderated Q&A slide's
   * questions, or an open-ended slide's held answers (the server counts them in `pendingQuestions`
   * only when the slide's text filter is `review`).
   */
  async #refreshQueue(readAt: string, pendingCount: number | null): Promise<void> {
    const slide = this.currentSlide();
    // A moderated Q&A slide, or one whose text filter holds flagged questions (counted then).
    const questions = slide?.kind === 'qa' && (slide.moderated || pendingCount !== null);
    const answers = slide?.kind === 'open_ended' && pendingCount !== null;
    if (!slide || (!questions && !answers)) return;
    this.#queueReadAt = readAt;
    // Reads may overlap when decisions come fast: only the latest one's answer is shown.
    const read = ++this.#queueReads;
    try {
      const query = { slideId: slide.id, status: 'pending' as const, limit: 50 };
      const page = questions ? await this.#presenter!.questions(query) : await this.#presenter!.responses(query);
      const pending = page.data.map((item) => ({ id: item.id, text: item.text ?? '' }));
      if (read === this.#queueReads && this.currentSlide()?.id === slide.id) this.set({ pending });
    } catch (error) {
      this.set({ actionError: loadErrorMessage(error) });
    }
  }

  async control(action: SessionAction, slideIndex?: number): Promise<void> {
    if (this.view.busy || !this.#presenter) return;
    this.set({ busy: true, actionError: undefined });
    try {
      const session = await this.#presenter.control(action, slideIndex);
      // The stream sends the same; taking it from the response too keeps the buttons right at once.
      if (this.view.session?.currentSlideIndex !== session.currentSlideIndex) {
        this.set({ counts: undefined, results: undefined, pending: [] });
        this.#queueReadAt = '';
      }
      this.set({ session, results: session.resultsVisible ? this.view.results : undefined });
    } catch (error) {
      this.set({ actionError: errorMessage(error) });
    } finally {
      this.set({ busy: false });
    }
  }

  /** Approves or dismisses a queued question (Q&A) or held answer (open-ended). */
  async moderate(id: string, status: Exclude<QuestionStatus, 'pending'>): Promise<void> {
    try {
      if (this.currentSlide()?.kind === 'open_ended') await this.#presenter!.moderateResponse(id, status);
      else await this.#presenter!.moderate(id, status);
      this.set({ pending: this.view.pending.filter((item) => item.id !== id) });
    } catch (error) {
      this.set({ actionError: errorMessage(error) });
    }
  }
}

function loadErrorMessage(error: unknown): string {
  if (error instanceof AuthenticationError) return t('present.error.wrongToken');
  if (error instanceof NotFoundError) return t('present.error.notFound');
  return errorMessage(error);
}
