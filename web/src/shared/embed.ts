import type { PresenterView } from '../present/controller.js';
import type { ViewStore } from './store.js';

/**
 * The page inside another site's frame (docs/embedding.md): it tells its parent what happens, so
 * an event platform or an LMS can follow the session. Only a parent whose origin the workspace
 * allows (`embedOrigins`, written into the page by the server, which also lets only those origins
 * frame it) is ever posted to, by its exact origin, never `*`; the messages carry ids, never an
 * answer's content or a token.
 *
 * The parent's origin comes from `location.ancestorOrigins` where the browser has it (Chromium,
 * Safari: it cannot be forged), else from the `?embedOrigin=` the embedding helper adds
 * (`@pollkit/sdk/embed`), else from the referrer the frame was loaded with.
 */

type EmbedMessage =
  | { type: 'pollkit:ready'; sessionId: string | null; page: 'join' | 'present' }
  | { type: 'pollkit:resize'; sessionId: string | null; height: number }
  | { type: 'pollkit:joined'; sessionId: string; participantId: string }
  | { type: 'pollkit:slide'; sessionId: string; slideId: string; slideIndex: number }
  | { type: 'pollkit:answered'; sessionId: string; slideId: string }
  | { type: 'pollkit:completed'; sessionId: string }
  | { type: 'pollkit:ended'; sessionId: string };

/** Read before anything rewrites the address (the join drops its query). */
const askedOrigin = new URLSearchParams(location.search).get('embedOrigin');

function allowedOrigins(doc: Document): readonly string[] {
  try {
    const data = JSON.parse(doc.getElementById('pollkit-page')?.textContent ?? '') as { embedOrigins?: unknown };
    return Array.isArray(data.embedOrigins) ? data.embedOrigins.filter((o): o is string => typeof o === 'string') : [];
  } catch {
    return [];
  }
}

function originOf(url: string | null | undefined): string | undefined {
  if (!url) return undefined;
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
}

/** The parent's origin when the page is framed by one it may talk to; undefined otherwise. */
function parentOrigin(doc: Document = document): string | undefined {
  if (window.parent === window) return undefined;
  const ancestors = (location as Location & { ancestorOrigins?: DOMStringList }).ancestorOrigins;
  const candidate =
    ancestors && ancestors.length > 0 ? ancestors[0] : (originOf(askedOrigin) ?? originOf(doc.referrer));
  if (!candidate || candidate === 'null') return undefined;
  const allowed = candidate === location.origin || allowedOrigins(doc).includes(candidate);
  return allowed ? candidate : undefined;
}

/** Posts to the parent, if it is allowed to hear. */
function poster(): ((message: EmbedMessage) => void) | undefined {
  const origin = parentOrigin();
  if (!origin) return undefined;
  return (message) => window.parent.postMessage(message, origin);
}

/**
 * `pollkit:resize` whenever the page's content changes height, so the parent can size the frame to
 * it. The content (`#app`), not the document: the body is at least as tall as the viewport, which
 * inside a frame is the frame itself, so the document would never report less than its frame.
 */
function reportHeight(post: (message: EmbedMessage) => void, sessionId: () => string | null): void {
  const content = document.getElementById('app');
  if (!content) return;
  let last = -1;
  const measure = () => {
    const height = Math.ceil(content.getBoundingClientRect().bottom + window.scrollY);
    if (height === last) return;
    last = height;
    post({ type: 'pollkit:resize', sessionId: sessionId(), height });
  };
  new ResizeObserver(measure).observe(content);
  measure();
}

/** What the audience page's view says, as far as the parent is concerned. */
interface JoinViewFacts {
  phase: 'form' | 'joining' | 'live';
  participantId?: string;
  state?: { sessionId: string; slideIndex: number; slide: { id: string } | null };
  answer: { kind: string };
  completion?: unknown;
  summary?: unknown;
}

/**
 * Follows the audience page's view and tells the parent of each step. What was last announced is
 * kept per kind: the view learns the participant and the session in separate updates.
 */
export function bridgeJoinPage(store: ViewStore<JoinViewFacts>): void {
  const post = poster();
  if (!post) return;
  const sessionId = () => store.view.state?.sessionId ?? null;
  let joined: string | undefined;
  let slideShown: string | undefined;
  let answer = store.view.answer.kind;
  let completed = false;
  let ended = false;
  post({ type: 'pollkit:ready', sessionId: sessionId(), page: 'join' });
  reportHeight(post, sessionId);
  store.subscribe(() => {
    const view = store.view;
    const id = view.state?.sessionId;
    const slide = view.state?.slide?.id;
    const answerBefore = answer;
    answer = view.answer.kind;
    if (!id) return;
    if (view.participantId && view.participantId !== joined) {
      joined = view.participantId;
      post({ type: 'pollkit:joined', sessionId: id, participantId: view.participantId });
    }
    // A slide on screen (none before the session starts, or after a self-paced walk's end).
    if (view.state && slide && `${slide}@${view.state.slideIndex}` !== slideShown) {
      slideShown = `${slide}@${view.state.slideIndex}`;
      post({ type: 'pollkit:slide', sessionId: id, slideId: slide, slideIndex: view.state.slideIndex });
    }
    // Sent from this page and received: not the answered state a rejoin restores.
    if (answer === 'received' && (answerBefore === 'sending' || answerBefore === 'queued') && slide) {
      post({ type: 'pollkit:answered', sessionId: id, slideId: slide });
    }
    if (view.completion && !completed) {
      completed = true;
      post({ type: 'pollkit:completed', sessionId: id });
    }
    if (view.summary && !ended) {
      ended = true;
      post({ type: 'pollkit:ended', sessionId: id });
    }
  });
}

/** Follows the presenter screen's view and tells the parent of each step. */
export function bridgePresenterPage(store: ViewStore<PresenterView>): void {
  const post = poster();
  if (!post) return;
  const sessionId = () => store.view.session?.id ?? null;
  let slideShown: string | undefined;
  let ended = false;
  // No `pollkit:resize`: the presenter screen fills the frame it is given (a stage, not a document).
  post({ type: 'pollkit:ready', sessionId: sessionId(), page: 'present' });
  store.subscribe(() => {
    const { session, deck, summary } = store.view;
    if (!session) return;
    const slideId = deck?.slides[session.currentSlideIndex]?.id;
    if (session.status === 'active' && slideId && `${slideId}@${session.currentSlideIndex}` !== slideShown) {
      slideShown = `${slideId}@${session.currentSlideIndex}`;
      post({ type: 'pollkit:slide', sessionId: session.id, slideId, slideIndex: session.currentSlideIndex });
    }
    if (summary && !ended) {
      ended = true;
      post({ type: 'pollkit:ended', sessionId: session.id });
    }
  });
}
