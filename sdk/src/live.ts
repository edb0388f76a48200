import {
  contract,
  type JoinChallenge,
  type JoinedSession,
  type ListSessionParticipantsInput,
  type ListSessionQuestionsInput,
  type ListSessionResponsesInput,
  type LiveAnswerInput,
  type LiveAnswerReceipt,
  type LiveState,
  type Participant,
  type ParticipantEvent,
  type ParticipantProgress,
  type PollResponse,
  type PresenterEvent,
  type Question,
  type QuestionList,
  type QuestionStatus,
  type ResponseList,
  type routeTable,
  type Session,
  type SessionAction,
  type SessionDeck,
  type SessionParticipantList,
  type SessionResults,
} from '@pollkit/contracts';
import { type CommonClientOptions, resolveTokenConfig } from './client.js';
import { PollkitError } from './core/errors.js';
import { type EventStream, type EventStreamOptions, openEventStream } from './core/event-stream.js';
import { solveJoinChallenge } from './core/join-challenge.js';
import type { CallableRoute, RequestOptions } from './core/request-options.js';
import { request } from './core/send.js';

/** Options of {@link presenterSession}: the session and its host token, plus any client option but a credential. */
export interface PresenterSessionOptions extends Omit<CommonClientOptions, 'now'> {
  /** The session's id (`ses_…`), as `client.sessions.create()` answered it. */
  sessionId: string;
  /** The session's `hostToken`, shown once by `client.sessions.create()`. Sent only as `X-Host-Token`. */
  hostToken: string;
}

/**
 * A presenter device's hold on one live session, authorised by the session's host token instead of
 * a workspace API key (which never belongs on a presenter's screen). Each method is the route of
 * `contract.sessions` of the same name.
 */
export interface PresenterSession {
  /** The session's id. */
  readonly sessionId: string;
  /** The session as it now is (`GET /sessions/{id}`). */
  get(options?: RequestOptions): Promise<Session>;
  /**
   * Moves the session on (`POST /sessions/{id}/control`): `start`, `next`, `prev`, `goto` (with
   * `slideIndex`), `showResults`, `hideResults`, `lock`, `unlock`, `end`. Answers the session as it
   * now is.
   */
  control(action: SessionAction, slideIndex?: number, options?: RequestOptions): Promise<Session>;
  /**
   * The presenter's event stream (`GET /sessions/{id}/events`): `session` on connect and after every
   * control action, throttled `counts`, `results`, and `ended`.
   */
  events(options?: EventStreamOptions): EventStream<PresenterEvent>;
  /** The QR code of the session's join URL, as the text of an SVG document (`GET /sessions/{id}/qr.svg`). */
  qrCode(options?: RequestOptions): Promise<string>;
  /** The poll's title and slides, quiz answers included (`GET /sessions/{id}/deck`). */
  deck(options?: RequestOptions): Promise<SessionDeck>;
  /**
   * One page of the Q&A questions asked in this session, newest first (`GET /sessions/{id}/questions`;
   * not those of the poll's other sessions or of the API);
   * `{ status: 'pending' }` is the moderation queue. Pass `cursor: page.nextCursor` for the next page.
   */
  questions(input?: Omit<ListSessionQuestionsInput, 'id'>, options?: RequestOptions): Promise<QuestionList>;
  /** Approves or dismisses a question (`PATCH /sessions/{id}/questions/{questionId}`). */
  moderate(questionId: string, status: QuestionStatus, options?: RequestOptions): Promise<Question>;
  /**
   * One page of the open-ended answers given in this session, newest first, as the room is shown them
   * (`GET /sessions/{id}/responses`); `{ status: 'pending' }` is the text filter's review queue.
   */
  responses(input?: Omit<ListSessionResponsesInput, 'id'>, options?: RequestOptions): Promise<ResponseList>;
  /**
   * Approves (counts and shows it) or dismisses an answer the text filter held for review
   * (`PATCH /sessions/{id}/responses/{responseId}`).
   */
  moderateResponse(
    responseId: string,
    status: 'approved' | 'dismissed',
    options?: RequestOptions,
  ): Promise<PollResponse>;
  /**
   * The session's results, participant count and leaderboard (`GET /sessions/{id}/results`); the host
   * token must carry `responses:read`.
   */
  results(options?: RequestOptions): Promise<SessionResults>;
  /**
   * One page of the session's participants by rank, with score, slides answered, completion and removal
   * (`GET /sessions/{id}/participants`); the host token must carry `responses:read`. Pass
   * `cursor: page.nextCursor` for the next page.
   */
  participants(
    input?: Omit<ListSessionParticipantsInput, 'id'>,
    options?: RequestOptions,
  ): Promise<SessionParticipantList>;
}

/** What the live helpers call: `contract`'s routes (with schemas), or the schema-free `routeTable`'s. */
export type LiveRoutes = {
  sessions: { [K in keyof typeof routeTable.sessions]: CallableRoute };
  live: { [K in keyof typeof routeTable.live]: CallableRoute };
};

/**
 * Drives a live session from a presenter device that holds the session's host token, not an API key:
 *
 * ```ts
 * // On the server, with the API key:
 * const { id, hostToken } = await pollkit.sessions.create({ pollId });
 * // On the presenter's device, given id and hostToken:
 * const presenter = presenterSession({ baseUrl: 'https://polls.example.com', sessionId: id, hostToken });
 * await presenter.control('start');
 * for await (const event of presenter.events()) {
 *   if (event.type === 'counts') showCount(event.data.answerCount);
 * }
 * ```
 *
 * Every call sends `X-Host-Token`, never `Authorization`; retries, timeouts, errors and logging are
 * those of {@link createClient}'s calls.
 */
export function presenterSession(options: PresenterSessionOptions): PresenterSession {
  return presenterSessionOver(contract, options);
}

/** {@link presenterSession} calling `routes`: `@pollkit/sdk/live` passes the schema-free route table. */
export function presenterSessionOver(routeSet: LiveRoutes, options: PresenterSessionOptions): PresenterSession {
  const { sessionId, hostToken } = options;
  if (typeof sessionId !== 'string' || sessionId === '') throw new TypeError('sessionId is required');
  if (typeof hostToken !== 'string' || hostToken === '') {
    throw new TypeError('hostToken is required: the hostToken that client.sessions.create() answered');
  }
  const config = resolveTokenConfig(options, { 'x-host-token': hostToken });
  const routes = routeSet.sessions;
  const id = { id: sessionId };
  return Object.freeze({
    sessionId,
    get: (callOptions?: RequestOptions) => request(config, routes.get, id, callOptions) as Promise<Session>,
    control: (action: SessionAction, slideIndex?: number, callOptions?: RequestOptions) =>
      request(
        config,
        routes.control,
        slideIndex === undefined ? { ...id, action } : { ...id, action, slideIndex },
        callOptions,
      ) as Promise<Session>,
    events: (callOptions?: EventStreamOptions) =>
      openEventStream<PresenterEvent>(config, routes.events, id, callOptions),
    qrCode: (callOptions?: RequestOptions) => request(config, routes.qrCode, id, callOptions) as Promise<string>,
    deck: (callOptions?: RequestOptions) => request(config, routes.deck, id, callOptions) as Promise<SessionDeck>,
    questions: (input?: Omit<ListSessionQuestionsInput, 'id'>, callOptions?: RequestOptions) =>
      request(config, routes.questions, { ...input, ...id }, callOptions) as Promise<QuestionList>,
    moderate: (questionId: string, status: QuestionStatus, callOptions?: RequestOptions) =>
      request(config, routes.moderateQuestion, { ...id, questionId, status }, callOptions) as Promise<Question>,
    responses: (input?: Omit<ListSessionResponsesInput, 'id'>, callOptions?: RequestOptions) =>
      request(config, routes.responses, { ...input, ...id }, callOptions) as Promise<ResponseList>,
    moderateResponse: (responseId: string, status: 'approved' | 'dismissed', callOptions?: RequestOptions) =>
      request(config, routes.moderateResponse, { ...id, responseId, status }, callOptions) as Promise<PollResponse>,
    results: (callOptions?: RequestOptions) =>
      request(config, routes.results, id, callOptions) as Promise<SessionResults>,
    participants: (input?: Omit<ListSessionParticipantsInput, 'id'>, callOptions?: RequestOptions) =>
      request(config, routes.participants, { ...input, ...id }, callOptions) as Promise<SessionParticipantList>,
  });
}

/** Options of {@link joinSession}: the PIN, plus any client option but a credential. */
export interface JoinSessionOptions extends Omit<CommonClientOptions, 'now'> {
  /** The session's six-digit PIN, or a self-paced session's link id (`lnk_…`, the end of its `joinUrl`). */
  pin: string;
  /** Shown on the leaderboard; ignored when `participantToken` resumes a participant. */
  name?: string | undefined;
  /**
   * The `participantToken` of an earlier join (kept in local storage, say): resumes that participant,
   * with its name, answers and score, instead of joining as a new one.
   */
  participantToken?: string | undefined;
  /**
   * Your own id for this person (a join link's `?rid=`), to find and erase their records later
   * (`client.respondents.get/erase`). Unverified: anyone with the link can send any value. Ignored when
   * `participantToken` resumes a participant.
   */
  respondentId?: string | undefined;
  /**
   * Solves the join challenge of a session that asks for one (`joinChallenge: "pow"`), answering what
   * the join sends as `challenge`. Default: {@link solveJoinChallenge}, with Web Crypto on the calling
   * thread. A browser page may pass one that solves in a Web Worker (and shows that it is working).
   */
  solveChallenge?: ((challenge: JoinChallenge, signal?: AbortSignal) => Promise<string>) | undefined;
  /**
   * The session's `joinChallenge`, when the caller knows it (a page the server rendered for the
   * session): `"pow"` gets and solves a challenge (`GET /live/{pin}/challenge`) before the first join,
   * sparing a refused one. Unknown or out of date, nothing is lost: a join refused with 422
   * `challenge_failed` is solved and sent again all the same.
   */
  joinChallenge?: 'pow' | null | undefined;
  /**
   * A solution solved beforehand (`GET /live/{pin}/challenge`, then {@link solveJoinChallenge}: a page
   * that solves while its visitor types a name), sent with the first join. Refused (it expired, say),
   * the join is solved and sent again as without it.
   */
  challenge?: string | undefined;
  /** Aborts the join. */
  signal?: AbortSignal | undefined;
}

/** An answer to the current slide: {@link LiveAnswerInput} without the PIN, which the participant knows. */
export type LiveAnswer = Omit<LiveAnswerInput, 'pin'>;

/**
 * A participant of a live session, as {@link joinSession} resolves it. Every call sends the
 * participant's `X-Participant-Token`.
 */
export interface LiveParticipant {
  /** The session's PIN (or link id) the participant joined with. */
  readonly pin: string;
  /** Who joined: id, name, score so far. */
  readonly participant: Participant;
  /** Keep it (local storage, a cookie) and pass it to {@link joinSession} again to resume this participant. */
  readonly participantToken: string;
  /** Whether `participantToken` resumed a participant who had joined before. */
  readonly resumed: boolean;
  /** What was on screen when the participant joined; the `slide` events of {@link events} tell what follows. */
  readonly state: LiveState;
  /**
   * The participant's event stream (`GET /live/{pin}/events`): `slide` on connect and on every
   * change, `results`, `results_hidden`, `locked`, `unlocked`, `questions`, and `ended`. A stream that
   * was disconnected when `ended` was sent gets what it missed, `ended` last, when it reconnects
   * within ten minutes of the end; later, the PIN names nothing and it throws a `NotFoundError`.
   */
  events(options?: EventStreamOptions): EventStream<ParticipantEvent>;
  /**
   * Answers the current slide (`POST /live/{pin}/answers`) with the answer field of its kind. The call
   * carries an `Idempotency-Key` (a random UUID unless `options.idempotencyKey` gives one) that every
   * retry repeats, so an answer whose response was lost is not counted twice.
   */
  answer(input: LiveAnswer, options?: RequestOptions): Promise<LiveAnswerReceipt>;
  /**
   * Self-paced sessions: moves past the participant's current slide `slideId` (`POST /live/{pin}/advance`),
   * a content slide or one they skip, to where the poll's skip logic sends them, or to the end.
   */
  advance(slideId: string, options?: RequestOptions): Promise<ParticipantProgress>;
  /** Upvotes a question of the current Q&A slide (`POST /live/{pin}/questions/{questionId}/upvotes`). */
  upvote(questionId: string, options?: RequestOptions): Promise<Question>;
}

/**
 * Joins a live session with its PIN: no API key, so it runs in a browser as well as in Node.
 *
 * ```ts
 * const me = await joinSession({ baseUrl: 'https://polls.example.com', pin: '123456', name: 'Ada' });
 * localStorage.setItem('pollkit-token', me.participantToken);
 * for await (const event of me.events()) {
 *   if (event.type === 'slide' && event.data.slide?.kind === 'multiple_choice') {
 *     await me.answer({ slideId: event.data.slide.id, optionIds: [event.data.slide.options[0].id] });
 *   }
 * }
 * ```
 *
 * Pass the `participantToken` of an earlier join to resume that participant. Retries, timeouts,
 * errors and logging are those of {@link createClient}'s calls.
 */
export function joinSession(options: JoinSessionOptions): Promise<LiveParticipant> {
  return joinSessionOver(contract, options);
}

/** {@link joinSession} calling `routes`: `@pollkit/sdk/live` passes the schema-free route table. */
export async function joinSessionOver(routeSet: LiveRoutes, options: JoinSessionOptions): Promise<LiveParticipant> {
  const { pin, name, participantToken, respondentId, signal } = options;
  const routes = routeSet.live;
  const joinConfig = resolveTokenConfig(options, { 'x-participant-token': participantToken });
  const body = {
    pin,
    ...(name === undefined ? {} : { name }),
    ...(respondentId === undefined ? {} : { respondentId }),
  };
  const join = (challenge?: string) =>
    request(joinConfig, routes.join, challenge === undefined ? body : { ...body, challenge }, {
      signal,
    }) as Promise<JoinedSession>;
  const solve = options.solveChallenge ?? solveJoinChallenge;
  const getChallenge = async () => (await request(joinConfig, routes.challenge, { pin }, { signal })) as JoinChallenge;
  // A newcomer to a session known to ask for the challenge solves one first; a token resumes without.
  const first =
    options.challenge ??
    (options.joinChallenge === 'pow' && participantToken === undefined
      ? await solve(await getChallenge(), signal)
      : undefined);
  const joined = await join(first).catch(async (refused: unknown) => {
    // A session with the join challenge answers a join without a solution 422 `challenge_failed`,
    // `details.required`, with a challenge to solve in `details.challenge`: solved, the join goes
    // again. Once more if that one fails too (it expired while a slow device solved it).
    let error = refused;
    for (let attempt = 1; attempt <= 2; attempt++) {
      if (!challengeRequired(error)) throw error;
      const solution = await solve(challengeOf(error) ?? (await getChallenge()), signal);
      try {
        return await join(solution);
      } catch (again) {
        error = again;
      }
    }
    throw error;
  });
  const config = resolveTokenConfig(options, { 'x-participant-token': joined.participantToken });
  return Object.freeze({
    pin,
    participant: joined.participant,
    participantToken: joined.participantToken,
    resumed: joined.resumed,
    state: joined.state,
    events: (callOptions?: EventStreamOptions) =>
      openEventStream<ParticipantEvent>(config, routes.events, { pin }, callOptions),
    answer: (input: LiveAnswer, callOptions?: RequestOptions) =>
      request(config, routes.answer, { ...input, pin }, callOptions) as Promise<LiveAnswerReceipt>,
    advance: (slideId: string, callOptions?: RequestOptions) =>
      request(config, routes.advance, { pin, slideId }, callOptions) as Promise<ParticipantProgress>,
    upvote: (questionId: string, callOptions?: RequestOptions) =>
      request(config, routes.upvote, { pin, questionId }, callOptions) as Promise<Question>,
  });
}

/** A join refused because the session asks new participants to solve its join challenge first. */
function challengeRequired(error: unknown): error is PollkitError {
  return error instanceof PollkitError && error.code === 'challenge_failed' && error.details?.required === true;
}

/** The challenge a `challenge_failed` answer carries in `details.challenge`, when it carries one. */
function challengeOf(error: PollkitError): JoinChallenge | undefined {
  const challenge = error.details?.challenge as Partial<JoinChallenge> | undefined;
  const usable =
    typeof challenge === 'object' &&
    challenge !== null &&
    typeof challenge.algorithm === 'string' &&
    typeof challenge.challenge === 'string' &&
    typeof challenge.salt === 'string' &&
    typeof challenge.signature === 'string' &&
    typeof challenge.maxnumber === 'number';
  return usable ? (challenge as JoinChallenge) : undefined;
}
