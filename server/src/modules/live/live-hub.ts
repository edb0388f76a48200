import { type Clock, systemClock } from '../../core/clock.js';
import type { EventFeed } from '../../core/event-stream.js';
import type { ParticipantRow, SessionRow } from '../../db/schema.js';
import type { InvalidationBus } from '../../infra/invalidation.js';
import { TtlCache } from '../../infra/ttl-cache.js';
import { turnLoader } from '../../infra/turn-loader.js';
import type { HeldScopes } from '../credentials/credential-scopes.js';
import type { DomainEvent, DomainEvents } from '../events/domain-events.js';
import {
  findParticipantsByTokenHashes,
  findSessionEndedSince,
  type NewParticipant,
  seatParticipants,
} from '../sessions/index.js';
import { LiveBus, type LiveMessage } from './live-bus.js';
import { presenterView } from './live-views.js';
import { SessionCache } from './session-cache.js';
import { type ChannelDeps, SessionChannel, type Subscriber } from './session-channel.js';
import { type StreamHolder, StreamLimits } from './stream-limits.js';

export interface LiveHubDeps extends ChannelDeps {
  /** Carries live-session messages between processes (Redis pub/sub, or in process). */
  bus: InvalidationBus;
  events: DomainEvents;
  /** How often counts and results refresh at most (ms). */
  refreshIntervalMs?: number;
  /**
   * Event streams held open at once (LIVE_STREAMS_PER_PARTICIPANT, …): past them, 429. `perProcess`
   * already fits the descriptor limit (`descriptorLimit`, infra/descriptors.ts), named in the warning
   * logged when the streams approach it.
   */
  streamLimits: {
    perParticipant: number;
    anonymousPerAddress: number;
    perProcess: number;
    descriptorLimit?: number | undefined;
  };
  /** The clock a session's end is stamped by (sessions.service.ts); the system clock by default. */
  clock?: Clock;
}

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
/** Token lookups sent as one query at most (a bound on its parameters). */
const PARTICIPANT_LOOKUP_BATCH = 500;
/** Joins seated by one statement at most (a bound on its arrays). */
const SEAT_CLAIM_BATCH = 500;
/** How often what no stream follows is swept from memory. */
const SWEEP_EVERY_MS = 60_000;

/**
 * The live side of sessions in one process, tying together: the session rows the answer path reads
 * (session-cache.ts), participant tokens, the bus to the other processes (live-bus.ts), the stream
 * caps (stream-limits.ts) and a channel per session with connected streams (session-channel.ts).
 * Every process hears every session's changes over the bus (`REDIS_URL`): a control call in process
 * B reaches the participants connected to process A because A's channel reads the new history
 * events from the database and sends them. Answers are announced on the bus at most four times a
 * second per session and process; each channel then reads the current slide's aggregates once for
 * all its streams — never once per answer per viewer.
 */
export class LiveHub {
  readonly #sessions: SessionCache;
  readonly #participantsByToken = new TtlCache<ParticipantRow>(PARTICIPANT_CACHE_TTL_MS, PARTICIPANT_CACHE_SIZE);
  /**
   * Token lookups that miss the cache in one event-loop turn go to the database as one query: when a
   * room of thousands answers at once, their tokens (read at join, expired since) would otherwise be
   * one query each — 10,000 of them for 10,000 answers, most of the embedded database's time
   * (server/bench/RESULTS.md, issue 29). The TtlCache above bounds how long a row is trusted.
   */
  readonly #participantLoader = turnLoader<string, ParticipantRow | undefined>(async (tokenHashes) => {
    const rows = await findParticipantsByTokenHashes(this.deps.db, tokenHashes);
    const byHash = new Map(rows.map((row) => [row.token_hash, row]));
    return tokenHashes.map((hash) => byHash.get(hash));
  }, PARTICIPANT_LOOKUP_BATCH);

  /**
   * Joins that arrive together (in one event-loop turn, or while the batch before is being seated)
   * claim their seats in one statement (the sessions module's `seatParticipants`): a room of
   * thousands joining paid one statement each, queued on the embedded database's one connection
   * (RESULTS.md, issue 42).
   */
  readonly #seats = turnLoader<NewParticipant, ParticipantRow | undefined>(async (newcomers) => {
    const rows = await seatParticipants(this.deps.db, newcomers);
    const byId = new Map(rows.map((row) => [row.id, row]));
    return newcomers.map((newcomer) => byId.get(newcomer.id));
  }, SEAT_CLAIM_BATCH);

  readonly #channels = new Map<string, SessionChannel>();
  readonly #bus: LiveBus;
  readonly #streams: StreamLimits;
  readonly #sweeper: NodeJS.Timeout;
  readonly refreshIntervalMs: number;

  constructor(readonly deps: LiveHubDeps) {
    this.refreshIntervalMs = deps.refreshIntervalMs ?? DEFAULT_REFRESH_MS;
    this.#sessions = new SessionCache(deps.db);
    this.#streams = new StreamLimits(deps.streamLimits.perProcess, (streams, cap) =>
      deps.log.warn(
        { streams, streamCap: cap, descriptorLimit: deps.streamLimits.descriptorLimit ?? null },
        'live event streams approach what this process may hold: past the cap new streams get 429; add processes (REDIS_URL) or raise LIVE_MAX_STREAMS_PER_PROCESS with the open-files limit (docs/self-hosting.md)',
      ),
    );
    this.#bus = new LiveBus(deps.bus, deps.log, this.refreshIntervalMs, (message) => this.#onBusMessage(message));
    deps.events.subscribe((event) => this.#onDomainEvent(event));
    this.#sweeper = setInterval(() => this.sweep(), SWEEP_EVERY_MS);
    this.#sweeper.unref();
  }

  // ---- Session rows -------------------------------------------------------------------------

  #now(): number {
    return (this.deps.clock ?? systemClock).now();
  }

  /** The open (not ended) session a join code (PIN or link id) names, at most a second old. */
  sessionByCode(code: string): Promise<SessionRow | undefined> {
    return this.#sessions.byCode(code);
  }

  /** Whether the session ended in the last ten minutes (event streams may still reconnect to it). */
  endedLately(session: SessionRow): boolean {
    return session.ended_at !== null && this.#now() - session.ended_at.getTime() < RECENTLY_ENDED_MS;
  }

  /** The session with this join code that ended in the last ten minutes, if one did. */
  recentlyEndedSession(code: string): Promise<SessionRow | undefined> {
    return findSessionEndedSince(this.deps.db, code, new Date(this.#now() - RECENTLY_ENDED_MS));
  }

  /** The session row, at most a second old (`reload`: read now). */
  freshSession(id: string, options: { reload?: boolean } = {}): Promise<SessionRow | undefined> {
    return this.#sessions.fresh(id, options);
  }

  /** Keeps a session row just read or written (an older one never replaces a newer one). */
  remember(row: SessionRow): void {
    this.#sessions.remember(row);
  }

  // ---- Participants -------------------------------------------------------------------------

  async participantByTokenHash(tokenHash: string): Promise<ParticipantRow | undefined> {
    const cached = this.#participantsByToken.get(tokenHash);
    if (cached) return cached;
    const row = await this.#participantLoader.load(tokenHash);
    if (row) this.rememberParticipant(row);
    return row;
  }

  /** Whether this process holds the participant a token hash names in memory: a lookup that reads no database. */
  knowsParticipantToken(tokenHash: string): boolean {
    return this.#participantsByToken.get(tokenHash) !== undefined;
  }

  /**
   * Seats a newcomer if its session has a seat left (cap, locked joins and the session's end checked
   * in the same statement as the insert); undefined when it has none.
   */
  async seatParticipant(newcomer: NewParticipant): Promise<ParticipantRow | undefined> {
    const row = await this.#seats.load(newcomer);
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
  participantRemoved(row: ParticipantRow): Promise<void> {
    return this.#bus.participantRemoved(row.session_id, row.id, row.token_hash);
  }

  /**
   * The bus is back after an outage (infra/invalidation.ts): messages sent meanwhile were lost. Every
   * cached row is read again before it is trusted, and every channel sends what it missed — history
   * events and fresh counts — from the database, without waiting for a next message.
   */
  catchUp(): void {
    this.#sessions.allStale();
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
        this.#bus.historyWritten(event.sessionId, event.seq);
        break;
      case 'participant.joined':
        this.#bus.activity(event.sessionId);
        break;
      case 'participant.moved':
        this.#bus.participantMoved(event.sessionId, event.participantId);
        this.#bus.activity(event.sessionId);
        break;
      case 'answer.created':
      case 'question.upvoted':
        if (event.sessionId !== null) this.#bus.activity(event.sessionId);
        break;
      case 'question.moderated':
      case 'session.answers_removed':
        // Only the room the question was asked in shows it (one asked through the API: none).
        if (event.sessionId !== null) this.#bus.activity(event.sessionId);
        break;
      default:
        break;
    }
  }

  #onBusMessage(message: LiveMessage): void {
    switch (message.kind) {
      case 'history':
        // The next read of this session goes to the database.
        this.#sessions.changed(message.sessionId, message.seq);
        this.#channels.get(message.sessionId)?.deliverHistory();
        break;
      case 'activity':
        this.#channels.get(message.sessionId)?.scheduleRefresh();
        break;
      case 'moved':
        this.#channels.get(message.sessionId)?.sendPlace(message.participantId);
        break;
      case 'removed':
        if (message.tokenHash !== undefined) this.#participantsByToken.delete(message.tokenHash);
        if (message.participantId !== undefined) {
          this.#channels.get(message.sessionId)?.closeParticipant(message.participantId);
        }
        break;
    }
  }

  /**
   * Forgets what no stream of this process needs any more: session rows and PINs not read for ten
   * minutes (ended sessions among them), and answer announcements long past. Without it the maps
   * grew with every session the process ever saw.
   */
  sweep(now = Date.now()): void {
    this.#sessions.sweep(now);
    this.#bus.sweep(now);
  }

  /** Entries the hub holds now (tests, and the sweep's own test). */
  get sizes(): { sessions: number; pins: number; announced: number; channels: number } {
    return { ...this.#sessions.sizes, announced: this.#bus.size, channels: this.#channels.size };
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

  /**
   * The presenter's stream (`GET /sessions/{id}/events`), carrying what the caller's `scopes` let it
   * (live-views.ts `presenterView`); undefined as for participants.
   */
  presenterFeed(session: SessionRow, scopes: HeldScopes, lastEventId?: string): EventFeed | undefined {
    if (seenToTheEnd(session, lastEventId)) return undefined;
    const who = { kind: 'presenter', participantId: undefined, view: presenterView(scopes) } as const;
    return this.#feed(session, who, lastEventId, undefined);
  }

  /**
   * A stream, counted against the caps (stream-limits.ts) from the moment it is granted until it
   * stops: the process's, and its holder's — a participant's few tabs, or an address's anonymous
   * viewers.
   */
  #feed(
    session: SessionRow,
    who: Pick<Subscriber, 'kind' | 'participantId' | 'view'>,
    lastEventId: string | undefined,
    holder: StreamHolder | undefined,
  ): EventFeed {
    const release = this.#streams.take(holder);
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

  /** The stream cap (descriptors less a reserve, LIVE_MAX_STREAMS_PER_PROCESS) and the refusals at it since start. */
  get streamCap(): { cap: number; refusedAtCap: number } {
    return { cap: this.#streams.cap, refusedAtCap: this.#streams.refusedAtCap };
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
    this.#bus.close();
  }
}

/** An ended session whose last event the client has (by `Last-Event-ID`). */
function seenToTheEnd(session: SessionRow, lastEventId: string | undefined): boolean {
  return session.status === 'ended' && lastEventId !== undefined && Number(lastEventId) >= session.seq;
}
