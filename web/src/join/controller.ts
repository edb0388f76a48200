import {
  ConflictError,
  ConnectionError,
  type EventStream,
  type JoinChallenge,
  joinSession,
  type LiveAnswer,
  type LiveAnswerReceipt,
  type LiveParticipant,
  type LiveState,
  NotFoundError,
  newIdempotencyKey,
  type ParticipantEvent,
  type ParticipantSlide,
  PollkitError,
  RateLimitError,
  type SessionSummary,
  type SlideResults,
  TimeoutError,
} from '@pollkit/sdk/live';
import { errorMessage, t } from '../shared/i18n.js';
import { pageFetch, ServerClock, streamLastHeardAt } from '../shared/net.js';
import type { BoardQuestion } from '../shared/results.js';
import { readStored, removeStored, writeStored } from '../shared/storage.js';
import { onWake, ViewStore } from '../shared/store.js';
import { pageJoinChallenge, solveInWorker } from './challenge.js';

/**
 * The audience page's state and everything it does, outside the view: join (or rejoin with the
 * token kept in local storage), follow the participant stream, send answers so that none is lost or
 * counted twice. The view (app.tsx) renders `view` and calls the methods.
 *
 * A self-paced session (`state.pace === 'audience'`) is the same page walking the participant's own
 * path: each answer (or `advance`: Next, Skip) answers where the skip logic sends them, the stream
 * repeats it, and the walk ends on a completion, then the session's summary.
 */

/** A self-paced participant's place after a step (the receipt's or `advance`'s answer). */
export type WalkProgress = NonNullable<LiveAnswerReceipt['progress']>;
/** A self-paced participant's finished walk: counts, and score, rank and quiz answers once shown. */
export type Completion = NonNullable<WalkProgress['completion']>;

/** What a self-paced participant remembers of a quiz slide, to say which answers were right at the end. */
export interface SeenQuiz {
  text: string;
  options: { id: string; label: string }[];
}

type AnswerStatus =
  | { kind: 'idle' }
  | { kind: 'sending' }
  /** Not sent yet (offline, or the server did not answer): retried with the same Idempotency-Key. */
  | { kind: 'queued' }
  | { kind: 'received' }
  | { kind: 'refused'; message: string };

export interface View {
  phase: 'form' | 'joining' | 'live';
  /** This participant's id once joined (the embedding parent hears it: shared/embed.ts). */
  participantId?: string;
  /** The code the page was opened with: a six-digit PIN, or a self-paced session's link id (`lnk_…`). */
  pin: string;
  /** Why the form is shown again (a wrong PIN…). */
  formError?: string;
  /** The session asks for a join challenge and this device is solving it (a moment, before the join). */
  checking?: boolean;
  name: string | null;
  score: number;
  state?: LiveState;
  /** The current slide's results, while the presenter shows them. */
  results?: SlideResults;
  /** The current Q&A slide's approved questions. */
  board?: readonly BoardQuestion[];
  summary?: SessionSummary;
  /** Whether the event stream is connected (false while it reconnects). */
  connected: boolean;
  /** The stream gave up (the session is gone): the page says so instead of spinning. */
  lost?: string;
  answer: AnswerStatus;
  /** This participant's answers, by slide id (to mark "your answer" in the results). */
  mine: Record<string, LiveAnswer>;
  /** Questions this participant upvoted. */
  upvoted: readonly string[];
  /** How many questions this participant asked on the current Q&A slide, and a note about the last. */
  asked: number;
  /** Self-paced: a Next or Skip on its way (queued while offline, like an answer). */
  advance: AnswerStatus;
  /** Self-paced: the finished walk, once the participant completed it. */
  completion?: Completion;
  /** Self-paced: the quiz slides this participant met, by id. */
  quizzes: Record<string, SeenQuiz>;
}

interface Saved {
  token: string;
}

interface PendingAnswer {
  answer: LiveAnswer;
  key: string;
}

const tokenKey = (pin: string) => `pollkit.participant.${pin}`;
const pendingKey = (pin: string) => `pollkit.pending.${pin}`;
const mineKey = (pin: string) => `pollkit.answers.${pin}`;
const upvotedKey = (pin: string) => `pollkit.upvoted.${pin}`;
const quizzesKey = (pin: string) => `pollkit.quizzes.${pin}`;

/** What `/join/{code}` takes: the PIN, or the link id at the end of a self-paced session's join URL. */
const JOIN_CODE = /^(?:[0-9]{6}|lnk_[A-Za-z0-9_-]{43})$/;

export function isLinkCode(code: string): boolean {
  return code.startsWith('lnk_');
}
/** Keep reconnecting while the session lasts: a phone in a pocket can be away for minutes. */
const STREAM_OPTIONS = { maxReconnects: 1_000, reconnectMaxDelayMs: 5_000 } as const;
/** After this long without a byte (heartbeats come every 15 s), a stream is reopened when the page wakes up. */
const STALE_STREAM_MS = 35_000;
const RETRY_QUEUED_MS = 3_000;

export class JoinController extends ViewStore<View> {
  readonly clock = new ServerClock();
  /**
   * The customer's own id for this person, from the join link's `?rid=` (like a hidden field), sent
   * with the join so the workspace can find and erase their records by it. Unverified (docs/privacy.md).
   * Read once: the address loses its query after the join.
   */
  readonly #respondentId = respondentIdFromUrl();
  readonly #fetch = pageFetch(this.clock, { onConnected: (connected) => this.set({ connected }) });
  /** The code in the page's address (`/join/{code}`): the session the server rendered the page for. */
  readonly #pageCode: string;
  /**
   * The page's session asks newcomers for the join challenge: its solution, begun as the page loads,
   * in a Web Worker, while the visitor types a name (undefined when it could not be had: the join
   * then solves one itself).
   */
  #presolved: Promise<string | undefined> | undefined;
  #me: LiveParticipant | undefined;
  #stream: EventStream<ParticipantEvent> | undefined;
  #pending: PendingAnswer | undefined;
  #sending = false;
  #retryTimer: ReturnType<typeof setTimeout> | undefined;
  /** Self-paced: the slide a Next or Skip is for, until the server took it. */
  #pendingAdvance: string | undefined;
  #advancing = false;
  #advanceTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(pinFromUrl: string) {
    const pin = JOIN_CODE.test(pinFromUrl) ? pinFromUrl : '';
    super({
      phase: 'form',
      pin,
      formError:
        pinFromUrl === '' || pin !== ''
          ? undefined
          : isLinkCode(pinFromUrl)
            ? t('join.error.badLink')
            : t('join.error.notAPin', { pin: pinFromUrl }),
      name: null,
      score: 0,
      connected: false,
      answer: { kind: 'idle' },
      mine: {},
      upvoted: [],
      asked: 0,
      advance: { kind: 'idle' },
      quizzes: {},
    });
    this.#pageCode = pin;
    // A refresh, or a phone that reloaded the tab: the same participant again, without the form.
    if (pin && readStored<Saved>('local', tokenKey(pin))) void this.join(pin, undefined);
    else if (pin && pageJoinChallenge() === 'pow') this.#presolved = this.#presolve(pin);
    onWake(() => this.#wake());
  }

  async join(pin: string, name: string | undefined): Promise<void> {
    if (!JOIN_CODE.test(pin)) {
      this.set({ formError: t('join.error.pinFormat') });
      return;
    }
    this.set({ phase: 'joining', pin, formError: undefined });
    const saved = readStored<Saved>('local', tokenKey(pin));
    let me: LiveParticipant;
    try {
      me = await this.#joinAs(pin, name, saved?.token);
    } catch (error) {
      // A PIN that names nothing any more (the session ended): its token is of no further use.
      if (error instanceof NotFoundError) removeStored('local', tokenKey(pin));
      this.set({ phase: 'form', formError: joinErrorMessage(error, pin) });
      return;
    }
    // The address a reload rejoins at, in the language chosen (`?lang=`) if any.
    if (history.replaceState && location.pathname !== `/join/${pin}`) {
      history.replaceState(null, '', `/join/${pin}${languageQuery()}`);
    }
    writeStored('local', tokenKey(pin), { token: me.participantToken } satisfies Saved);
    this.#me = me;
    this.#pending = readStored<PendingAnswer>('session', pendingKey(pin));
    this.set({
      phase: 'live',
      participantId: me.participant.id,
      name: me.participant.name,
      score: me.participant.score,
      mine: readStored<Record<string, LiveAnswer>>('local', mineKey(pin)) ?? {},
      upvoted: readStored<string[]>('local', upvotedKey(pin)) ?? [],
      quizzes: readStored<Record<string, SeenQuiz>>('local', quizzesKey(pin)) ?? {},
    });
    this.#onSlide(me.state);
    void this.#follow(undefined);
  }

  /** A token the server no longer knows (another session had this PIN) is dropped, and the join retried without it. */
  async #joinAs(pin: string, name: string | undefined, token: string | undefined): Promise<LiveParticipant> {
    const options = {
      baseUrl: location.origin,
      pin,
      fetch: this.#fetch,
      maxRetries: 3,
      solveChallenge: (challenge: JoinChallenge, signal?: AbortSignal) => this.#solveChallenge(challenge, signal),
      // The session's join challenge as the server rendered the page (a PIN typed at /join: unknown).
      joinChallenge: pin === this.#pageCode ? pageJoinChallenge() : null,
      ...(this.#respondentId === undefined ? {} : { respondentId: this.#respondentId }),
    };
    const challenge = token === undefined ? await this.#takePresolved(pin) : undefined;
    try {
      return await joinSession({ ...options, name, participantToken: token, challenge });
    } catch (error) {
      if (token === undefined || !(error instanceof PollkitError) || error.code !== 'invalid_participant_token') {
        throw error;
      }
      removeStored('local', tokenKey(pin));
      return joinSession({ ...options, name });
    }
  }

  /** Gets the page's session's join challenge and solves it in a Web Worker, before the visitor asks to join. */
  async #presolve(pin: string): Promise<string | undefined> {
    try {
      const response = await this.#fetch(`${location.origin}/api/v1/live/${encodeURIComponent(pin)}/challenge`);
      if (!response.ok) return undefined;
      return await solveInWorker((await response.json()) as JoinChallenge);
    } catch {
      return undefined;
    }
  }

  /** The solution begun as the page loaded, once (awaited, the form saying so, if it is not ready yet). */
  async #takePresolved(pin: string): Promise<string | undefined> {
    const presolved = this.#presolved;
    this.#presolved = undefined;
    if (!presolved || pin !== this.#pageCode) return undefined;
    this.set({ checking: true });
    try {
      return await presolved;
    } finally {
      this.set({ checking: false });
    }
  }

  /**
   * A session with the join challenge: the SDK hands its challenge here, solved in a Web Worker
   * (challenge.ts) while the form says the device is being checked.
   */
  async #solveChallenge(challenge: JoinChallenge, signal?: AbortSignal): Promise<string> {
    this.set({ checking: true });
    try {
      return await solveInWorker(challenge, signal);
    } finally {
      this.set({ checking: false });
    }
  }

  /** Reads the participant stream until the session ends; `lastEventId` resumes where a closed one stopped. */
  async #follow(lastEventId: string | undefined): Promise<void> {
    const me = this.#me;
    if (!me) return;
    const stream = me.events({ ...STREAM_OPTIONS, lastEventId });
    this.#stream = stream;
    try {
      for await (const event of stream) this.#onEvent(event);
      // Finished: after `ended`, or a 204 (the session ended and this stream had seen it all).
      if (this.#stream === stream) this.set({ connected: false });
    } catch (error) {
      if (this.#stream !== stream) return;
      this.set({
        connected: false,
        lost:
          error instanceof NotFoundError
            ? t('join.lost.ended')
            : error instanceof PollkitError && error.code === 'invalid_participant_token'
              ? t('error.invalid_participant_token')
              : t('join.lost.connection'),
      });
    }
  }

  /** Back from a locked screen or a lost network: reopen a stream that may have died unnoticed, and send what waits. */
  #wake(): void {
    const stream = this.#stream;
    if (this.view.phase === 'live' && !this.view.summary && stream) {
      const stale = !this.view.connected || Date.now() - streamLastHeardAt() > STALE_STREAM_MS || this.view.lost;
      if (stale) {
        this.#stream = undefined;
        stream.close();
        this.set({ lost: undefined });
        void this.#follow(stream.lastEventId);
      }
    }
    void this.#sendPending();
    void this.#sendAdvance();
  }

  #onEvent(event: ParticipantEvent): void {
    const state = this.view.state;
    switch (event.type) {
      case 'slide':
        this.#onSlide(event.data);
        break;
      case 'completed':
        this.#onCompleted(event.data);
        break;
      case 'results':
        if (state?.slide?.id !== event.data.slideId) break;
        this.set({
          results: event.data,
          state: { ...state, resultsVisible: true },
          score: event.data.leaderboard?.you?.score ?? this.view.score,
        });
        break;
      case 'results_hidden':
        if (state) this.set({ results: undefined, state: { ...state, resultsVisible: false } });
        break;
      case 'locked':
      case 'unlocked':
        if (state) this.set({ state: { ...state, locked: event.type === 'locked' } });
        break;
      case 'questions':
        if (state?.slide?.id === event.data.slideId) this.set({ board: event.data.questions });
        break;
      case 'ended':
        this.set({
          summary: event.data,
          score: event.data.leaderboard?.you?.score ?? this.view.score,
          connected: false,
        });
        removeStored('session', pendingKey(this.view.pin));
        this.#dropAdvance();
        break;
    }
  }

  #onSlide(state: LiveState): void {
    const previous = this.view.state;
    const selfPaced = state.pace === 'audience';
    // Self-paced, the receipt of a step and the stream both say where the participant now is, in
    // either order: a place behind the one already shown is the older news. Steps only grow.
    if (selfPaced && previous?.progress && state.progress && state.progress.step < previous.progress.step) return;
    if (selfPaced && previous?.completed && !state.completed) return;
    const sameSlide = previous?.slide?.id !== undefined && previous.slide.id === state.slide?.id;
    const pending = this.#pending;
    if (pending && pending.answer.slideId !== state.slide?.id) {
      // Self-paced, only an answer (or a Next, which waits for it) moves the participant on: past
      // the slide of an answer not yet confirmed, the server took it (the stream quicker than the
      // receipt, or a response lost, then a reload).
      if (selfPaced) this.#answered(pending.answer);
      // An answer for a slide that is gone can no longer be taken: drop it.
      else this.#dropPending();
    }
    if (this.#pendingAdvance !== undefined && this.#pendingAdvance !== state.slide?.id) this.#dropAdvance();
    if (selfPaced && state.slide?.kind === 'quiz') this.#rememberQuiz(state.slide);
    let answer: AnswerStatus = sameSlide ? this.view.answer : { kind: 'idle' };
    if (state.answered && state.slide?.kind !== 'qa') {
      // The server has it (a response lost on the way, then a reload): nothing left to send.
      if (this.#pending && !this.#sending) this.#answered(this.#pending.answer);
      answer = { kind: 'received' };
    } else if (this.#pending) {
      answer = this.#sending ? { kind: 'sending' } : { kind: 'queued' };
    }
    this.set({
      state,
      answer,
      results: sameSlide && state.resultsVisible ? this.view.results : undefined,
      board: sameSlide ? this.view.board : undefined,
      asked: sameSlide ? this.view.asked : 0,
      advance: sameSlide ? this.view.advance : this.#pendingAdvance ? { kind: 'queued' } : { kind: 'idle' },
    });
    // A reload while an answer was on its way: it goes again, with the same key.
    if (this.#pending && !state.answered) void this.#sendPending();
  }

  /** Sends an answer to the current slide. Its Idempotency-Key is kept with it until the server answers. */
  submit(answer: LiveAnswer): void {
    // Self-paced, a send still retrying may be for a slide already left (the stream moved on before
    // the receipt came): it does not hold up the next slide's answer, which goes once it is done.
    const selfPaced = this.view.state?.pace === 'audience';
    if (this.#pending || (this.#sending && !selfPaced)) return;
    this.#pending = { answer, key: newIdempotencyKey() };
    writeStored('session', pendingKey(this.view.pin), this.#pending);
    if (this.#sending) this.set({ answer: { kind: 'sending' } });
    void this.#sendPending();
  }

  async #sendPending(): Promise<void> {
    const me = this.#me;
    const pending = this.#pending;
    if (!me || !pending || this.#sending) return;
    clearTimeout(this.#retryTimer);
    this.#sending = true;
    this.set({ answer: { kind: 'sending' } });
    try {
      const receipt = await me.answer(pending.answer, { idempotencyKey: pending.key, maxRetries: 2 });
      this.#answered(pending.answer);
      // Self-paced: straight on to where the answer sent the participant.
      if (receipt.progress) this.#onProgress(receipt.progress);
    } catch (error) {
      const selfPaced = this.view.state?.pace === 'audience';
      if (selfPaced && this.#pending !== pending) {
        // The stream moved the participant past this answer's slide while it was on its way: the
        // server took it (#onSlide), whatever this attempt heard back.
      } else if (selfPaced && isOutOfStep(error)) {
        // The participant is not where this page thought (an answer counted whose response was lost,
        // another tab walking on): not an error to show, but a place to read again.
        if (error instanceof ConflictError && error.code === 'already_responded') this.#answered(pending.answer);
        else this.#dropPending();
        this.set({ answer: { kind: 'idle' } });
        void this.#resync();
      } else if (isTransient(error)) {
        // Offline, or the server is unreachable: the same answer, with the same key, goes again
        // shortly, when the network comes back, or when the page wakes up.
        this.set({ answer: { kind: 'queued' } });
        this.#retryTimer = setTimeout(() => void this.#sendPending(), RETRY_QUEUED_MS);
      } else if (error instanceof ConflictError && error.code === 'already_responded') {
        this.#answered(pending.answer);
      } else {
        this.#dropPending();
        this.set({ answer: { kind: 'refused', message: errorMessage(error) } });
      }
    } finally {
      this.#sending = false;
      if (this.#pending && this.#pending !== pending) void this.#sendPending();
    }
  }

  #answered(answer: LiveAnswer): void {
    if (this.#pending?.answer.slideId === answer.slideId) this.#dropPending();
    const mine = { ...this.view.mine, [answer.slideId]: answer };
    writeStored('local', mineKey(this.view.pin), mine);
    const state = this.view.state;
    // Self-paced, the participant may already stand on the next slide (the stream was quicker than
    // the receipt): "received" belongs to the answer's own slide only.
    if (state?.pace === 'audience' && state.slide?.id !== answer.slideId) {
      this.set({ mine });
      return;
    }
    const isQuestion = state?.slide?.kind === 'qa';
    this.set({ answer: { kind: 'received' }, mine, asked: this.view.asked + (isQuestion ? 1 : 0) });
  }

  #dropPending(): void {
    this.#pending = undefined;
    clearTimeout(this.#retryTimer);
    removeStored('session', pendingKey(this.view.pin));
  }

  /** Self-paced: where a step sent the participant (their next slide, or the end of their walk). */
  #onProgress(progress: WalkProgress): void {
    if (progress.completion) this.#onCompleted(progress.completion);
    this.#onSlide(progress.state);
  }

  #onCompleted(completion: Completion): void {
    const state = this.view.state;
    this.#dropPending();
    this.#dropAdvance();
    this.set({
      completion,
      score: completion.score ?? this.view.score,
      answer: { kind: 'idle' },
      advance: { kind: 'idle' },
      ...(state ? { state: { ...state, slide: null, completed: true } } : {}),
    });
  }

  #rememberQuiz(slide: Extract<ParticipantSlide, { kind: 'quiz' }>): void {
    if (this.view.quizzes[slide.id]) return;
    const options = slide.options.map((option) => ({ id: option.id, label: option.label }));
    const quizzes = { ...this.view.quizzes, [slide.id]: { text: slide.text, options } };
    writeStored('local', quizzesKey(this.view.pin), quizzes);
    this.set({ quizzes });
  }

  /**
   * Self-paced: Next past a content or Q&A slide, or Skip an answerable one. Like an answer, it waits
   * while offline and goes when the network is back; the server takes it for this slide only, so a
   * repeat after a lost response cannot move the participant twice.
   */
  advance(): void {
    const slideId = this.view.state?.slide?.id;
    if (!slideId || this.#pendingAdvance !== undefined || this.#pending) return;
    this.#pendingAdvance = slideId;
    void this.#sendAdvance();
  }

  async #sendAdvance(): Promise<void> {
    const me = this.#me;
    const slideId = this.#pendingAdvance;
    if (!me || slideId === undefined || this.#advancing) return;
    clearTimeout(this.#advanceTimer);
    this.#advancing = true;
    this.set({ advance: { kind: 'sending' } });
    try {
      const progress = await me.advance(slideId, { maxRetries: 2 });
      this.#dropAdvance();
      this.set({ advance: { kind: 'idle' } });
      this.#onProgress(progress);
    } catch (error) {
      if (isOutOfStep(error)) {
        this.#dropAdvance();
        this.set({ advance: { kind: 'idle' } });
        void this.#resync();
      } else if (isTransient(error)) {
        this.set({ advance: { kind: 'queued' } });
        this.#advanceTimer = setTimeout(() => void this.#sendAdvance(), RETRY_QUEUED_MS);
      } else {
        this.#dropAdvance();
        this.set({ advance: { kind: 'refused', message: errorMessage(error) } });
      }
    } finally {
      this.#advancing = false;
    }
  }

  #dropAdvance(): void {
    this.#pendingAdvance = undefined;
    clearTimeout(this.#advanceTimer);
  }

  /**
   * Self-paced: reads the participant's place again (a join with their token answers it). A
   * completed walk's counts come only on the stream, which sends them on connect: it is reopened.
   */
  async #resync(): Promise<void> {
    const token = this.#me?.participantToken;
    if (!token) return;
    let state: LiveState;
    try {
      // With the token only: a token refused here must not turn into a new participant (#joinAs).
      const options = { baseUrl: location.origin, pin: this.view.pin, fetch: this.#fetch, maxRetries: 3 };
      state = (await joinSession({ ...options, participantToken: token })).state;
    } catch {
      // Offline or the like: the stream sends the place when it reconnects (or says what went wrong).
      return;
    }
    this.#onSlide(state);
    if (state.completed && !this.view.completion) {
      const stream = this.#stream;
      this.#stream = undefined;
      stream?.close();
      void this.#follow(undefined);
    }
  }

  /** A question asked, the form ready for another. */
  askAnother(): void {
    this.set({ answer: { kind: 'idle' } });
  }

  async upvote(questionId: string): Promise<void> {
    const me = this.#me;
    if (!me || this.view.upvoted.includes(questionId)) return;
    const mark = () => {
      const upvoted = [...this.view.upvoted, questionId];
      writeStored('local', upvotedKey(this.view.pin), upvoted);
      this.set({ upvoted });
    };
    try {
      await me.upvote(questionId, { maxRetries: 2 });
      mark();
    } catch (error) {
      if (error instanceof ConflictError && error.code === 'already_upvoted') mark();
      else this.set({ answer: { kind: 'refused', message: errorMessage(error) } });
    }
  }
}

/** Self-paced: the step was for a slide the participant is no longer on (or answered already). */
function isOutOfStep(error: unknown): boolean {
  return error instanceof ConflictError && (error.code === 'slide_not_active' || error.code === 'already_responded');
}

function isTransient(error: unknown): boolean {
  return (
    error instanceof ConnectionError ||
    error instanceof TimeoutError ||
    error instanceof RateLimitError ||
    (error instanceof PollkitError && (error.status ?? 0) >= 500)
  );
}

function joinErrorMessage(error: unknown, pin: string): string {
  if (error instanceof NotFoundError) {
    return isLinkCode(pin) ? t('join.error.noSessionAtLink') : t('join.error.noSessionWithPin', { pin });
  }
  if (error instanceof RateLimitError) return t('error.rate_limited');
  if (error instanceof PollkitError && error.code === 'session_not_active') return t('join.error.sessionEnded');
  if (error instanceof ConnectionError) return t('error.connection_error');
  return errorMessage(error);
}

/** `?lang=…` when the address has one (the participant chose a language), else nothing. */
function languageQuery(): string {
  const lang = new URLSearchParams(location.search).get('lang');
  return lang ? `?${new URLSearchParams({ lang })}` : '';
}

/** The join link's `?rid=`, if it has one the server would take (1–200 characters); else none. */
function respondentIdFromUrl(): string | undefined {
  const rid = new URLSearchParams(location.search).get('rid');
  return rid !== null && rid.length > 0 && rid.length <= 200 ? rid : undefined;
}
