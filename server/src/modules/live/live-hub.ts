import type { Poll, SessionSummary, Slide, SlideResult, SlideResults } from '@pollkit/contracts';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import { ApiError } from '../../core/api-error.js';
import type { EventFeed, EventSink, StreamEvent } from '../../core/event-stream.js';
import { isDependencyUnavailable } from '../../core/unavailable.js';
import type { Database, ParticipantRow, SessionEventRow, SessionRow } from '../../db/schema.js';
import type { InvalidationBus } from '../../infra/invalidation.js';
import { TtlCache } from '../../infra/ttl-cache.js';
import type { DomainEvent, DomainEvents } from '../events/domain-events.js';
import { getPoll, type PollsDeps } from '../polls/polls.service.js';
import { answerCountOf, resultsOf, slideResultOf } from '../results/results.service.js';
import type { SessionSnapshot } from '../sessions/session-control.js';
import { snapshotOf, toSession } from '../sessions/session-view.js';
import {
  findOpenSessionByPin,
  findSessionById,
  findSessionEndedSince,
  listEventsAfter,
} from '../sessions/sessions.repository.js';
import { answersOnce, currentSlide, liveState, Standings } from './live-views.js';
import * as participants from './participants.repository.js';

export interface LiveHubDeps extends PollsDeps {
  db: Kysely<Database>;
  /** Carries live-session messages between processes (Redis pub/sub, or in process). */
  bus: InvalidationBus;
  events: DomainEvents;
  log: Pick<Logger, 'error' | 'warn' | 'info'>;
  /** The join URL of a PIN (config `LIVE_JOIN_URL`). */
  joinUrl: (pin: string) => string;
  /** How often counts and results refresh at most (ms). */
  refreshIntervalMs?: number;
  /** Event streams held open at once (LIVE_STREAMS_PER_PARTICIPANT, …): past them, 429. */
  streamLimits: { perParticipant: number; anonymousPerAddress: number; perProcess: number };
}

/**
 * The bus topic of live-session messages: `e <sessionId> <seq>` (history), `d <sessionId>` (answers,
 * joins, upvotes), `p <pollId>` (a question of the poll was moderated) and
 * `x <sessionId> <participantId> <tokenHash>` (the host removed a participant).
 */
const TOPIC = 'live';
/** How long a cached session row is trusted by the answer path before it is read again. */
const SESSION_TTL_MS = 1000;
const DEFAULT_REFRESH_MS = 250;
/** How long after its end a PIN is still known as a session's (not a guess). */
const RECENTLY_ENDED_MS = 10 * 60_000;
/** Participant tokens kept in memory per process (the least recently used are dropped past this). */
const PARTICIPANT_CACHE_SIZE = 100_000;
/**
 * How long a participant token is trusted from memory. Every cache of who may do what has a bound:
 * whatever another process changes about a participant reaches this one within it, even when the
 * bus between them is down (and the cache is dropped outright when the bus comes back: catchUp).
 */
const PARTICIPANT_CACHE_TTL_MS = 10_000;
/** How often the maps of sessions no stream follows are swept, and how long an idle entry stays. */
const SWEEP_EVERY_MS = 60_000;
const IDLE_ENTRY_MS = 10 * 60_000;
/** While the database is away, a channel tries its pending work again this often. */
const CHANNEL_RETRY_MS = 1_000;
/** Replaced per participant by `leaderboard.you` (JSON escapes NUL, which no stored text contains). */
const YOU_MARK = '\u0000you';
const YOU_MARK_JSON = JSON.stringify(YOU_MARK);

interface Subscriber {
  kind: 'participant' | 'presenter';
  participantId: string | undefined;
  sink: EventSink;
  /** The last history event this stream has been sent (or that its snapshot covered). */
  lastSeq: number;
}

/** A history event turned into what each kind of stream is sent. */
interface Projection {
  seq: number;
  ended: boolean;
  presenter: StreamEvent[];
  participant: (subscriber: Subscriber) => StreamEvent[];
}

/**
 * The live side of sessions in one process: the session rows the answer path reads (cached for a
 * second at most, and dropped as soon as any process announces a change), participant tokens, and
 * a channel per session with connected streams. Every process hears every session's changes over
 * the bus (`REDIS_URL`): a control call in process B reaches the participants connected to process A
 * because A's channel reads the new history events from the database and sends them. Answers are
 * announced on the bus at most four times a second per session and process; each channel then reads
 * the current slide's aggregates once for all its streams — never once per answer per viewer.
 */
export class LiveHub {
  readonly #sessions = new Map<string, { row: SessionRow; loadedAt: number }>();
  readonly #sessionIdByPin = new Map<string, string>();
  readonly #loading = new Map<string, Promise<SessionRow | undefined>>();
  readonly #participantsByToken = new TtlCache<ParticipantRow>(PARTICIPANT_CACHE_TTL_MS, PARTICIPANT_CACHE_SIZE);
  readonly #channels = new Map<string, SessionChannel>();
  readonly #announced = new Map<string, { at: number; timer: NodeJS.Timeout | undefined }>();
  /** Open streams per participant, and anonymous ones per client address: the caps count them. */
  readonly #streamsOf = new Map<string, number>();
  #streams = 0;
  readonly #sweeper: NodeJS.Timeout;
  readonly refreshIntervalMs: number;

  constructor(readonly deps: LiveHubDeps) {
    this.refreshIntervalMs = deps.refreshIntervalMs ?? DEFAULT_REFRESH_MS;
    deps.bus.subscribe(TOPIC, (message) => this.#onBusMessage(message));
    deps.events.subscribe((event) => this.#onDomainEvent(event));
    this.#sweeper = setInterval(() => this.sweep(), SWEEP_EVERY_MS);
    this.#sweeper.unref();
  }

  // ---- Session rows -------------------------------------------------------------------------

  /** The open (not ended) session a PIN names, at most a second old. */
  async sessionByPin(pin: string): Promise<SessionRow | undefined> {
    const id = this.#sessionIdByPin.get(pin);
    if (id !== undefined) {
      const known = await this.freshSession(id);
      if (known && known.pin === pin && known.status !== 'ended') return known;
    }
    const row = await findOpenSessionByPin(this.deps.db, pin);
    if (row) this.remember(row);
    return row;
  }

  /** Whether the session ended in the last ten minutes (event streams may still reconnect to it). */
  endedLately(session: SessionRow): boolean {
    return session.ended_at !== null && Date.now() - session.ended_at.getTime() < RECENTLY_ENDED_MS;
  }

  /** The session with this PIN that ended in the last ten minutes, if one did. */
  recentlyEndedSession(pin: string): Promise<SessionRow | undefined> {
    return findSessionEndedSince(this.deps.db, pin, new Date(Date.now() - RECENTLY_ENDED_MS));
  }

  /** The session row, at most a second old (`reload`: read now). */
  async freshSession(id: string, options: { reload?: boolean } = {}): Promise<SessionRow | undefined> {
    const cached = this.#sessions.get(id);
    if (cached && !options.reload && Date.now() - cached.loadedAt < SESSION_TTL_MS) return cached.row;
    // A burst of answers finding the row stale reads it once, not once each.
    let loading = this.#loading.get(id);
    if (!loading) {
      loading = findSessionById(this.deps.db, id).then(
        (row) => {
          this.#loading.delete(id);
          if (row) this.remember(row);
          else this.#forget(id);
          return row;
        },
        (error: unknown) => {
          this.#loading.delete(id);
          throw error;
        },
      );
      this.#loading.set(id, loading);
    }
    return loading;
  }

  /** Keeps a session row just read or written (an older one never replaces a newer one). */
  remember(row: SessionRow): void {
    const cached = this.#sessions.get(row.id);
    if (cached && cached.row.seq > row.seq) return;
    this.#sessions.set(row.id, { row, loadedAt: Date.now() });
    if (row.status === 'ended') {
      if (this.#sessionIdByPin.get(row.pin) === row.id) this.#sessionIdByPin.delete(row.pin);
    } else {
      this.#sessionIdByPin.set(row.pin, row.id);
    }
  }

  #forget(id: string): void {
    const cached = this.#sessions.get(id);
    this.#sessions.delete(id);
    if (cached && this.#sessionIdByPin.get(cached.row.pin) === id) this.#sessionIdByPin.delete(cached.row.pin);
  }

  // ---- Participants -------------------------------------------------------------------------

  async participantByTokenHash(tokenHash: string): Promise<ParticipantRow | undefined> {
    const cached = this.#participantsByToken.get(tokenHash);
    if (cached) return cached;
    const row = await participants.findParticipantByTokenHash(this.deps.db, tokenHash);
    if (row) this.rememberParticipant(row);
    return row;
  }

  rememberParticipant(row: ParticipantRow): void {
    this.#participantsByToken.set(row.token_hash, row);
  }

  /**
   * The host removed a participant (its row is marked already): every process forgets its token and
   * closes its streams — at once through the bus, and without Redis within the cache's lifetime
   * (PARTICIPANT_CACHE_TTL_MS) on the others; a token lookup that reaches the database finds no one.
   */
  async participantRemoved(row: ParticipantRow): Promise<void> {
    await this.deps.bus.publish(TOPIC, `x ${row.session_id} ${row.id} ${row.token_hash}`);
  }

  /**
   * The bus is back after an outage (infra/invalidation.ts): messages sent meanwhile were lost. Every
   * cached row is read again before it is trusted, and every channel sends what it missed — history
   * events and fresh counts — from the database, without waiting for a next message.
   */
  catchUp(): void {
    for (const cached of this.#sessions.values()) cached.loadedAt = 0;
    this.#participantsByToken.clear();
    for (const channel of this.#channels.values()) {
      channel.deliverHistory();
      channel.scheduleRefresh();
    }
  }

  // ---- Between processes ----------------------------------------------------------------------

  #onDomainEvent(event: DomainEvent): void {
    switch (event.type) {
      case 'session.changed':
        this.#publish(`e ${event.sessionId} ${event.seq}`);
        break;
      case 'participant.joined':
        this.#announceActivity(event.sessionId);
        break;
      case 'answer.created':
      case 'question.upvoted':
        if (event.sessionId !== null) this.#announceActivity(event.sessionId);
        break;
      case 'question.moderated':
        // Moderation is done on the poll: every session of it, on any process, refreshes.
        this.#publish(`p ${event.pollId}`);
        break;
      default:
        break;
    }
  }

  #publish(message: string): void {
    this.deps.bus.publish(TOPIC, message).catch((error: unknown) => {
      this.deps.log.error({ err: error }, 'could not publish a live-session message');
    });
  }

  /** Answers or joins happened: tell every process, at most once per refresh interval per session. */
  #announceActivity(sessionId: string): void {
    const now = Date.now();
    const state = this.#announced.get(sessionId);
    if (state?.timer) return;
    const wait = state ? state.at + this.refreshIntervalMs - now : 0;
    if (wait <= 0) {
      this.#announced.set(sessionId, { at: now, timer: undefined });
      this.#publish(`d ${sessionId}`);
      return;
    }
    const timer = setTimeout(() => {
      this.#announced.set(sessionId, { at: Date.now(), timer: undefined });
      this.#publish(`d ${sessionId}`);
    }, wait);
    timer.unref();
    this.#announced.set(sessionId, { at: state?.at ?? now, timer });
  }

  #onBusMessage(message: string): void {
    const [kind, sessionId, seq] = message.split(' ');
    if (sessionId === undefined) return;
    if (kind === 'e') {
      // The next read of this session goes to the database.
      const cached = this.#sessions.get(sessionId);
      if (cached && cached.row.seq < Number(seq)) cached.loadedAt = 0;
      this.#channels.get(sessionId)?.deliverHistory();
    } else if (kind === 'd') {
      this.#channels.get(sessionId)?.scheduleRefresh();
    } else if (kind === 'p') {
      // `sessionId` is a poll id here.
      for (const channel of this.#channels.values()) if (channel.pollId === sessionId) channel.scheduleRefresh();
    } else if (kind === 'x') {
      const [, , participantId, tokenHash] = message.split(' ');
      if (tokenHash !== undefined) this.#participantsByToken.delete(tokenHash);
      if (participantId !== undefined) this.#channels.get(sessionId)?.closeParticipant(participantId);
    }
  }

  /**
   * Forgets what no stream of this process follows any more: session rows and PINs not read for
   * ten minutes (ended sessions among them), and answer announcements long past. Without it the
   * maps grew with every session the process ever saw.
   */
  sweep(now = Date.now()): void {
    for (const [id, cached] of this.#sessions) {
      if (this.#channels.has(id) || now - cached.loadedAt < IDLE_ENTRY_MS) continue;
      this.#forget(id);
    }
    for (const [id, state] of this.#announced) {
      if (!state.timer && now - state.at > this.refreshIntervalMs) this.#announced.delete(id);
    }
  }

  /** Entries the hub holds now (tests, and the sweep's own test). */
  get sizes(): { sessions: number; pins: number; announced: number; channels: number } {
    return {
      sessions: this.#sessions.size,
      pins: this.#sessionIdByPin.size,
      announced: this.#announced.size,
      channels: this.#channels.size,
    };
  }

  // ---- Streams ----------------------------------------------------------------------------------

  /**
   * A participant's stream (`GET /live/{pin}/events`); `participant` when its token named one.
   * Undefined when the session has ended and the client has seen all of it (its `Last-Event-ID` is
   * the last event): there is nothing to send, ever.
   */
  participantFeed(
    session: SessionRow,
    participant: ParticipantRow | undefined,
    lastEventId: string | undefined,
    address: string,
  ): EventFeed | undefined {
    if (seenToTheEnd(session, lastEventId)) return undefined;
    const limits = this.deps.streamLimits;
    const holder = participant
      ? { key: `p:${participant.id}`, limit: limits.perParticipant, what: 'this participant' }
      : { key: `a:${address}`, limit: limits.anonymousPerAddress, what: 'this address without a participant token' };
    return this.#feed(session, { kind: 'participant', participantId: participant?.id }, lastEventId, holder);
  }

  /** The presenter's stream (`GET /sessions/{id}/events`); undefined as for participants. */
  presenterFeed(session: SessionRow, lastEventId?: string): EventFeed | undefined {
    if (seenToTheEnd(session, lastEventId)) return undefined;
    return this.#feed(session, { kind: 'presenter', participantId: undefined }, lastEventId, undefined);
  }

  /**
   * A stream, counted against the caps from the moment it is granted until it stops: the process's
   * (every stream holds a socket), and its holder's — a participant's few tabs, or an address's
   * anonymous viewers. Past one, 429 in the envelope, before the stream opens.
   */
  #feed(
    session: SessionRow,
    who: Pick<Subscriber, 'kind' | 'participantId'>,
    lastEventId: string | undefined,
    holder: { key: string; limit: number; what: string } | undefined,
  ): EventFeed {
    const perProcess = this.deps.streamLimits.perProcess;
    if (this.#streams >= perProcess) {
      throw streamsExceeded(`This server holds ${perProcess} event streams, its most; retry shortly`, perProcess);
    }
    const held = holder ? (this.#streamsOf.get(holder.key) ?? 0) : 0;
    if (holder && held >= holder.limit) {
      throw streamsExceeded(`At most ${holder.limit} event streams at once for ${holder.what}`, holder.limit);
    }
    this.#streams += 1;
    if (holder) this.#streamsOf.set(holder.key, held + 1);
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      this.#streams -= 1;
      if (!holder) return;
      const left = (this.#streamsOf.get(holder.key) ?? 1) - 1;
      if (left > 0) this.#streamsOf.set(holder.key, left);
      else this.#streamsOf.delete(holder.key);
    };
    let subscriber: Subscriber | undefined;
    let channel: SessionChannel | undefined;
    return {
      start: async (sink) => {
        subscriber = { ...who, sink, lastSeq: 0 };
        channel = this.#channelOf(session);
        await channel.attach(subscriber, lastEventId);
      },
      stop: () => {
        release();
        if (channel && subscriber) channel.detach(subscriber);
      },
    };
  }

  #channelOf(session: SessionRow): SessionChannel {
    let channel = this.#channels.get(session.id);
    if (!channel) {
      channel = new SessionChannel(this, session);
      this.#channels.set(session.id, channel);
    }
    return channel;
  }

  /** Called by a channel that has no stream left. */
  dropChannel(channel: SessionChannel): void {
    if (this.#channels.get(channel.sessionId) === channel) this.#channels.delete(channel.sessionId);
  }

  /** Streams connected to this process (all sessions). */
  get connectedStreams(): number {
    let count = 0;
    for (const channel of this.#channels.values()) count += channel.size;
    return count;
  }

  /** Sessions with at least one stream connected to this process. */
  get activeSessions(): number {
    return this.#channels.size;
  }

  /** Ends every stream (shutdown): clients reconnect, with `Last-Event-ID`, to another process. */
  closeAll(): void {
    clearInterval(this.#sweeper);
    for (const channel of this.#channels.values()) channel.closeAll();
    this.#channels.clear();
    for (const state of this.#announced.values()) if (state.timer) clearTimeout(state.timer);
  }
}

/**
 * The streams of one session in this process. Everything it sends goes through one queue, so each
 * stream gets the history in order, without gaps or repeats, whatever the timing of connects,
 * reconnects and changes: a stream is attached with the history event its first events cover
 * (`lastSeq`), and each history event is sent only to streams that have not seen it.
 */
class SessionChannel {
  readonly sessionId: string;
  readonly #workspaceId: string;
  readonly pollId: string;
  readonly #subscribers = new Set<Subscriber>();
  /** The last history event this channel has sent out. */
  #lastSeq: number;
  #queue: Promise<void> = Promise.resolve();
  #refreshTimer: NodeJS.Timeout | undefined;
  #lastRefresh = 0;
  #closed = false;
  /** Set while the database is away: the channel's work is tried again every CHANNEL_RETRY_MS. */
  #retryTimer: NodeJS.Timeout | undefined;
  #paused = false;
  /** Streams being attached (their first events are being sent): the channel stays while there are any. */
  #attaching = 0;
  #snapshotCache:
    | {
        seq: number;
        at: number;
        results: ((participantId: string | undefined) => string) | undefined;
        board: string | undefined;
      }
    | undefined;

  constructor(
    private readonly hub: LiveHub,
    session: SessionRow,
  ) {
    this.sessionId = session.id;
    this.#workspaceId = session.workspace_id;
    this.pollId = session.poll_id;
    this.#lastSeq = session.seq;
  }

  get size(): number {
    return this.#subscribers.size;
  }

  #enqueue(task: () => Promise<void>): Promise<void> {
    const run = this.#queue.then(task).then(
      () => this.#resumed(),
      (error: unknown) => this.#failed(error),
    );
    this.#queue = run;
    return run;
  }

  /**
   * The database could not be reached: the streams stay open (their heartbeats go on) and the
   * channel tries its work again every second — sending the history it has not sent, and fresh
   * counts — until the database answers; then the streams carry on where they were.
   */
  #failed(error: unknown): void {
    if (!isDependencyUnavailable(error)) {
      this.hub.deps.log.error({ err: error, sessionId: this.sessionId }, 'live-session stream task failed');
      return;
    }
    if (!this.#paused) {
      this.#paused = true;
      this.hub.deps.log.warn(
        { sessionId: this.sessionId, reason: error.reason },
        'live session paused: the database is unreachable; streams stay open and resume when it is back',
      );
    }
    if (this.#retryTimer || this.#closed) return;
    this.#retryTimer = setTimeout(() => {
      this.#retryTimer = undefined;
      this.deliverHistory();
      this.scheduleRefresh();
    }, CHANNEL_RETRY_MS);
    this.#retryTimer.unref();
  }

  #resumed(): void {
    if (!this.#paused || this.#retryTimer) return;
    this.#paused = false;
    this.hub.deps.log.info({ sessionId: this.sessionId }, 'live session resumed');
  }

  #poll(): Promise<Poll> {
    return getPoll(this.hub.deps, this.#workspaceId, this.pollId);
  }

  /**
   * Sends a new stream what is due on connect, then adds it to the channel. With a `Last-Event-ID`
   * the channel has sent, it gets the history after it; otherwise the state as it is now.
   */
  attach(subscriber: Subscriber, lastEventId: string | undefined): Promise<void> {
    this.#attaching += 1;
    // The participant's own answers are read before its turn in the queue, so that streams
    // connecting together (a room joining, or reconnecting after a restart) wait on the database
    // side by side rather than one after another.
    const answered =
      subscriber.participantId === undefined
        ? Promise.resolve(new Set<string>())
        : participants.answeredSlides(this.hub.deps.db, this.sessionId, subscriber.participantId);
    answered.catch(() => {});
    // A stream that cannot be attached (the database is away) fails its start: the transport
    // closes it and the client reconnects (the `retry:` hint), rather than holding a stream open
    // that nothing would ever be sent to. The channel's queue goes on either way.
    const attached = this.#queue.then(async () => {
      try {
        await this.#attach(subscriber, lastEventId, await answered);
      } finally {
        this.#attaching -= 1;
      }
    });
    this.#queue = attached.catch(() => {});
    return attached;
  }

  async #attach(subscriber: Subscriber, lastEventId: string | undefined, answered: Set<string>): Promise<void> {
    // At most a second old, and never older than what this channel has sent (each delivery keeps
    // the row it read): a stream whose snapshot is older than the history still gets what follows.
    const row = await this.hub.freshSession(this.sessionId);
    if (!row) {
      subscriber.sink.close();
      return;
    }
    const poll = await this.#poll();
    const resumeAfter = lastEventId === undefined ? Number.NaN : Number(lastEventId);
    if (Number.isSafeInteger(resumeAfter) && resumeAfter >= 0 && resumeAfter <= row.seq) {
      const missed = await listEventsAfter(this.hub.deps.db, this.sessionId, resumeAfter);
      subscriber.lastSeq = resumeAfter;
      for (const event of missed) {
        send(subscriber, await this.#project(event, poll, row, answered));
        subscriber.lastSeq = event.seq;
      }
    } else {
      // A stream's first events cover the history up to the row it was built from.
      subscriber.lastSeq = row.seq;
      for (const event of await this.#snapshotEvents(row, poll, subscriber, answered)) subscriber.sink.send(event);
    }
    if (row.status === 'ended' || this.#closed) {
      subscriber.sink.close();
      return;
    }
    this.#subscribers.add(subscriber);
    // The row read here may be newer than what this channel has sent: catch the others up.
    if (row.seq > this.#lastSeq) await this.#deliverNewEvents();
  }

  detach(subscriber: Subscriber): void {
    this.#subscribers.delete(subscriber);
    if (this.#subscribers.size === 0 && this.#attaching === 0) {
      if (this.#refreshTimer) clearTimeout(this.#refreshTimer);
      if (this.#retryTimer) clearTimeout(this.#retryTimer);
      this.#refreshTimer = undefined;
      this.#retryTimer = undefined;
      this.#closed = true;
      this.hub.dropChannel(this);
    }
  }

  /** A removed participant's streams end (its token names nobody now: a reconnection is refused). */
  closeParticipant(participantId: string): void {
    for (const subscriber of [...this.#subscribers]) {
      if (subscriber.participantId === participantId) subscriber.sink.close();
    }
  }

  closeAll(): void {
    this.#closed = true;
    if (this.#refreshTimer) clearTimeout(this.#refreshTimer);
    if (this.#retryTimer) clearTimeout(this.#retryTimer);
    for (const subscriber of this.#subscribers) subscriber.sink.close();
    this.#subscribers.clear();
  }

  /** Some process announced a change: send the history events this channel has not sent yet. */
  deliverHistory(): void {
    void this.#enqueue(() => this.#deliverNewEvents());
  }

  async #deliverNewEvents(): Promise<void> {
    const { db } = this.hub.deps;
    const events = await listEventsAfter(db, this.sessionId, this.#lastSeq);
    if (events.length === 0) return;
    const row = await findSessionById(db, this.sessionId);
    if (!row) {
      this.closeAll();
      this.hub.dropChannel(this);
      return;
    }
    this.hub.remember(row);
    const poll = await this.#poll();
    for (const event of events) {
      const projection = await this.#project(event, poll, row);
      for (const subscriber of this.#subscribers) {
        if (subscriber.lastSeq < event.seq) {
          send(subscriber, projection);
          subscriber.lastSeq = event.seq;
        }
      }
      this.#lastSeq = event.seq;
      if (projection.ended) {
        this.closeAll();
        this.hub.dropChannel(this);
        return;
      }
    }
  }

  /**
   * What a history event becomes on each kind of stream. `answered`: the slides of the one
   * participant a replay is for; without it, who answered the slide a `slide` event moves to (going
   * back to one, they have) is read once for every stream.
   */
  async #project(event: SessionEventRow, poll: Poll, row: SessionRow, answered?: Set<string>): Promise<Projection> {
    const snapshot = JSON.parse(event.data) as SessionSnapshot;
    const id = String(event.seq);
    const slide = currentSlide(poll, snapshot);
    const participantCount = await participants.countSessionParticipants(this.hub.deps.db, this.sessionId);
    const session = toSession(
      { ...row, ...sessionFields(snapshot) },
      { slideCount: poll.content.questions.length, participantCount, joinUrl: this.hub.deps.joinUrl(row.pin) },
    );
    const presenter: StreamEvent[] = [{ type: 'session', id, data: JSON.stringify(session) }];
    const ref = JSON.stringify({ slideId: slide?.id ?? null });

    switch (snapshot.action) {
      case 'start':
      case 'next':
      case 'prev':
      case 'goto': {
        const unanswered = JSON.stringify(liveState(this.sessionId, poll, snapshot, false));
        const answeredState = JSON.stringify(liveState(this.sessionId, poll, snapshot, true));
        const respondents =
          slide && answersOnce(slide) && !answered
            ? await participants.slideRespondents(this.hub.deps.db, this.sessionId, slide.id)
            : undefined;
        const hasAnswered = (participantId: string) =>
          slide !== undefined && (answered ? answered.has(slide.id) : (respondents?.has(participantId) ?? false));
        // A Q&A slide comes with its board: the questions already approved.
        const board = slide?.kind === 'qa' ? await this.#questionBoard(poll, slide) : undefined;
        return {
          seq: event.seq,
          ended: false,
          presenter,
          participant: (subscriber) => [
            {
              type: 'slide',
              id,
              data: subscriber.participantId && hasAnswered(subscriber.participantId) ? answeredState : unanswered,
            },
            ...(board ? [{ type: 'questions', id, data: board }] : []),
          ],
        };
      }
      case 'showResults': {
        if (!slide) return { seq: event.seq, ended: false, presenter, participant: () => [] };
        const results = await this.#slideResults(poll, slide);
        presenter.push({ type: 'results', id, data: results.forPresenter });
        return {
          seq: event.seq,
          ended: false,
          presenter,
          participant: (subscriber) => [
            { type: 'results', id, data: results.forParticipant(subscriber.participantId) },
          ],
        };
      }
      case 'hideResults':
      case 'lock':
      case 'unlock': {
        const type =
          snapshot.action === 'hideResults' ? 'results_hidden' : snapshot.action === 'lock' ? 'locked' : 'unlocked';
        return { seq: event.seq, ended: false, presenter, participant: () => [{ type, id, data: ref }] };
      }
      case 'end': {
        const summary = await this.#summary(poll, participantCount);
        presenter.push({ type: 'ended', id, data: summary.forPresenter });
        return {
          seq: event.seq,
          ended: true,
          presenter,
          participant: (subscriber) => [{ type: 'ended', id, data: summary.forParticipant(subscriber.participantId) }],
        };
      }
    }
  }

  /** The results of a slide, with the leaderboard on quiz slides (each participant's own rank spliced in). */
  async #slideResults(poll: Poll, slide: Slide) {
    const result = await slideResultOf(this.hub.deps, poll, slide);
    const standings =
      slide.kind === 'quiz'
        ? new Standings(await participants.listScores(this.hub.deps.db, this.sessionId))
        : undefined;
    const data = (you: unknown): SlideResults => ({
      slideId: slide.id,
      results: result,
      leaderboard: standings ? { top: standings.top, you: you as null } : null,
    });
    return {
      forPresenter: JSON.stringify(data(null)),
      forParticipant: personalised(JSON.stringify(data(YOU_MARK)), standings),
    };
  }

  async #summary(poll: Poll, participantCount: number) {
    const results = await resultsOf(this.hub.deps, poll);
    const hasQuiz = poll.content.questions.some((slide) => slide.kind === 'quiz');
    const standings = hasQuiz
      ? new Standings(await participants.listScores(this.hub.deps.db, this.sessionId))
      : undefined;
    const data = (you: unknown): SessionSummary => ({
      sessionId: this.sessionId,
      participantCount,
      leaderboard: standings ? { top: standings.top, you: you as null } : null,
      slides: results.slides,
    });
    return {
      forPresenter: JSON.stringify(data(null)),
      forParticipant: personalised(JSON.stringify(data(YOU_MARK)), standings),
    };
  }

  /** What a stream that connects without `Last-Event-ID` is sent: the state as it is now. */
  async #snapshotEvents(
    row: SessionRow,
    poll: Poll,
    subscriber: Subscriber,
    answered: Set<string>,
  ): Promise<StreamEvent[]> {
    const { db } = this.hub.deps;
    const id = String(row.seq);
    const snapshot = { action: 'start' as const, ...snapshotOf(row) };
    const slide = currentSlide(poll, snapshot);
    if (row.status === 'ended') {
      const summary = await this.#summary(poll, await participants.countSessionParticipants(db, this.sessionId));
      return subscriber.kind === 'presenter'
        ? [{ type: 'ended', id, data: summary.forPresenter }]
        : [{ type: 'ended', id, data: summary.forParticipant(subscriber.participantId) }];
    }
    const events: StreamEvent[] = [];
    if (subscriber.kind === 'presenter') {
      const participantCount = await participants.countSessionParticipants(db, this.sessionId);
      const session = toSession(row, {
        slideCount: poll.content.questions.length,
        participantCount,
        joinUrl: this.hub.deps.joinUrl(row.pin),
      });
      events.push({ type: 'session', id, data: JSON.stringify(session) });
      events.push({ type: 'counts', id, data: await this.#countsData(poll, slide, participantCount) });
      if (slide && row.results_visible) {
        events.push({ type: 'results', id, data: (await this.#slideResults(poll, slide)).forPresenter });
      }
      return events;
    }
    const hasAnswered = slide !== undefined && answered.has(slide.id);
    events.push({ type: 'slide', id, data: JSON.stringify(liveState(this.sessionId, poll, snapshot, hasAnswered)) });
    if (slide && (row.results_visible || slide.kind === 'qa')) {
      const shared = await this.#sharedSnapshot(row, poll, slide);
      if (shared.results) events.push({ type: 'results', id, data: shared.results(subscriber.participantId) });
      if (shared.board) events.push({ type: 'questions', id, data: shared.board });
    }
    return events;
  }

  /**
   * What every participant stream connecting now is sent besides its slide — the results shown, the
   * Q&A board — made once per refresh interval rather than once per stream.
   */
  async #sharedSnapshot(row: SessionRow, poll: Poll, slide: Slide) {
    const cached = this.#snapshotCache;
    if (cached && cached.seq === row.seq && Date.now() - cached.at < this.hub.refreshIntervalMs) return cached;
    const made = {
      seq: row.seq,
      at: Date.now(),
      results: row.results_visible ? (await this.#slideResults(poll, slide)).forParticipant : undefined,
      board: slide.kind === 'qa' ? await this.#questionBoard(poll, slide) : undefined,
    };
    this.#snapshotCache = made;
    return made;
  }

  async #questionBoard(poll: Poll, slide: Slide): Promise<string> {
    const result = await slideResultOf(this.hub.deps, poll, slide);
    return questionBoard(slide.id, result.kind === 'qa' ? result : { questions: [] });
  }

  async #countsData(poll: Poll, slide: Slide | undefined, participantCount: number): Promise<string> {
    return countsJson(slide, participantCount, slide ? await slideResultOf(this.hub.deps, poll, slide) : null);
  }

  /** Answers or joins happened somewhere: refresh counts (and visible results), at most every interval. */
  scheduleRefresh(): void {
    if (this.#refreshTimer || this.#closed) return;
    const wait = Math.max(0, this.#lastRefresh + this.hub.refreshIntervalMs - Date.now());
    this.#refreshTimer = setTimeout(() => {
      this.#refreshTimer = undefined;
      this.#lastRefresh = Date.now();
      void this.#enqueue(() => this.#refresh());
    }, wait);
    this.#refreshTimer.unref();
  }

  async #refresh(): Promise<void> {
    if (this.#subscribers.size === 0) return;
    const row = await this.hub.freshSession(this.sessionId);
    if (!row || row.status === 'ended') return;
    const poll = await this.#poll();
    const snapshot = { action: 'start' as const, ...snapshotOf(row) };
    const slide = currentSlide(poll, snapshot);
    const participantCount = await participants.countSessionParticipants(this.hub.deps.db, this.sessionId);
    const id = String(this.#lastSeq);
    const result = slide ? await slideResultOf(this.hub.deps, poll, slide) : null;
    const counts: StreamEvent = { type: 'counts', id, data: countsJson(slide, participantCount, result) };
    const results = slide && row.results_visible ? await this.#slideResults(poll, slide) : undefined;
    const board = slide?.kind === 'qa' && result?.kind === 'qa' ? questionBoard(slide.id, result) : undefined;
    const forParticipants = results !== undefined || board !== undefined;
    for (const subscriber of this.#subscribers) {
      if (subscriber.kind === 'presenter') {
        subscriber.sink.send(counts);
        continue;
      }
      if (!forParticipants) continue;
      if (results)
        subscriber.sink.send({ type: 'results', id, data: results.forParticipant(subscriber.participantId) });
      if (board) subscriber.sink.send({ type: 'questions', id, data: board });
    }
  }
}

function streamsExceeded(message: string, limit: number): ApiError {
  return new ApiError('rate_limited', message, { limit });
}

/** An ended session whose last event the client has (by `Last-Event-ID`). */
function seenToTheEnd(session: SessionRow, lastEventId: string | undefined): boolean {
  return session.status === 'ended' && lastEventId !== undefined && Number(lastEventId) >= session.seq;
}

function send(subscriber: Subscriber, projection: Projection): void {
  const events = subscriber.kind === 'presenter' ? projection.presenter : projection.participant(subscriber);
  for (const event of events) subscriber.sink.send(event);
}

/** The session row's fields as a snapshot states them. */
function sessionFields(snapshot: SessionSnapshot): Partial<SessionRow> {
  return {
    status: snapshot.status,
    current_slide_index: snapshot.slideIndex,
    results_visible: snapshot.resultsVisible,
    locked: snapshot.locked,
    slide_started_at: snapshot.slideStartedAt === null ? null : new Date(snapshot.slideStartedAt),
  };
}

/**
 * JSON made once with `YOU_MARK` where `leaderboard.you` goes, then completed per participant: one
 * serialisation for everybody, and a string join per stream.
 */
function personalised(json: string, standings: Standings | undefined): (participantId: string | undefined) => string {
  const parts = json.split(YOU_MARK_JSON);
  if (parts.length !== 2 || !standings) return () => json.replace(YOU_MARK_JSON, 'null');
  const [before, after] = parts as [string, string];
  return (participantId) => `${before}${JSON.stringify(standings.of(participantId))}${after}`;
}

/** The `counts` event's data (LiveCounts). */
function countsJson(slide: Slide | undefined, participantCount: number, result: SlideResult | null): string {
  return JSON.stringify({
    slideId: slide?.id ?? null,
    answerCount: result ? answerCountOf(result) : 0,
    participantCount,
    results: result,
  });
}

function questionBoard(slideId: string, result: { questions: unknown[] }): string {
  return JSON.stringify({ slideId, questions: result.questions });
}
