import type { Poll, Slide, SlideResult } from '@pollkit/contracts';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { EventSink, StreamEvent } from '../../core/event-stream.js';
import { isDependencyUnavailable } from '../../core/unavailable.js';
import type { Database, SessionEventRow, SessionRow } from '../../db/schema.js';
import { turnLoader } from '../../infra/turn-loader.js';
import { answeredSlidesOfEach, findVoterAnswer, slideRespondents } from '../answers/index.js';
import { type ModerationDeps, slideTextFilter } from '../moderation/index.js';
import { getPoll, type PollsDeps } from '../polls/polls.service.js';
import { pendingQuestionCount } from '../questions/questions.service.js';
import { resultsOf, slideResultOf } from '../results/results.service.js';
import {
  countSessionParticipants,
  findParticipant,
  findSessionById,
  hasQuiz,
  joinCodeOf,
  listEventsAfter,
  nameShower,
  type ParticipantCounts,
  participantsPerSlide,
  standingsOf,
} from '../sessions/index.js';
import {
  countsJson,
  endedSnapshot,
  eventsFor,
  type Fanout,
  type HistoryEvent,
  type LiveFigures,
  narrowedFor,
  type PersonalisedJson,
  type Projection,
  participantSnapshots,
  presenterSessionEvent,
  presenterSnapshot,
  progressJson,
  projectEnd,
  projectMarker,
  projectResultsShown,
  projectSlideMove,
  questionBoard,
  refreshFanout,
  type StreamAudience,
  sendsNothing,
  slideResultsJson,
  snapshotOfEvent,
  snapshotOfRow,
  summaryJson,
} from './live-projection.js';
import { answersOnce, currentSlide } from './live-views.js';
import { completionOf } from './self-paced.js';
import { newcomerRow, slideOf, walkState } from './walk-state.js';

/** While the database is away, a channel tries its pending work again this often. */
const CHANNEL_RETRY_MS = 1_000;

/** One connected stream of a session. */
export interface Subscriber extends StreamAudience {
  sink: EventSink;
  /** The last history event this stream has been sent (or that its snapshot covered). */
  lastSeq: number;
  /** Self-paced: the Q&A slide this participant stands on, whose board refreshes reach them. */
  qaSlideId?: string | undefined;
}

/** What a channel reads with: the database, the poll cache, the log and the join URL of a PIN. */
export interface ChannelDeps extends PollsDeps, ModerationDeps {
  db: Kysely<Database>;
  log: Pick<Logger, 'error' | 'warn' | 'info'>;
  /** The join URL of a PIN (config `LIVE_JOIN_URL`). */
  joinUrl: (pin: string) => string;
}

/** What a channel asks of the hub that holds it (live-hub.ts): its session rows, and to be let go. */
export interface ChannelHost {
  readonly deps: ChannelDeps;
  /** How often counts and results refresh at most (ms). */
  readonly refreshIntervalMs: number;
  freshSession(id: string): Promise<SessionRow | undefined>;
  remember(row: SessionRow): void;
  /** Called by a channel that has no stream left, or whose session is gone or ended. */
  dropChannel(channel: SessionChannel): void;
}

/** How long reconnecting streams share one read of the history they missed (#historyAfter). */
const HISTORY_SHARED_MS = 1000;

/**
 * The streams of one session in this process. Everything it sends goes through one queue, so each
 * stream gets the history in order, without gaps or repeats, whatever the timing of connects,
 * reconnects and changes: a stream is attached with the history event its first events cover
 * (`lastSeq`), and each history event is sent only to streams that have not seen it. The channel
 * reads what its streams need once; live-projection.ts turns it into each stream's events.
 */
export class SessionChannel {
  readonly sessionId: string;
  readonly #workspaceId: string;
  readonly pollId: string;
  readonly #subscribers = new Set<Subscriber>();
  /** The presenter streams among them: a refresh that sends participants nothing walks only these. */
  readonly #presenters = new Set<Subscriber>();
  /** The last history event this channel has sent out. */
  #lastSeq: number;
  #queue: Promise<void> = Promise.resolve();
  #refreshTimer: NodeJS.Timeout | undefined;
  #lastRefresh = 0;
  #closed = false;
  /** Set while the database is away: the channel's work is tried again every CHANNEL_RETRY_MS. */
  #retryTimer: NodeJS.Timeout | undefined;
  /**
   * What streams replaying together share (#historyAfter, #replayCounts): the history after each
   * `Last-Event-ID`, and the participant counts, read at most HISTORY_SHARED_MS ago while the session
   * was at `headSeq`.
   */
  #history: {
    headSeq: number;
    readAt: number;
    after: Map<number, Promise<SessionEventRow[]>>;
    counts?: Promise<ParticipantCounts>;
    /** History events projected for replay, by seq: every stream replaying one is sent the same events. */
    projected: Map<number, Promise<Projection>>;
  } = { headSeq: -1, readAt: 0, after: new Map(), projected: new Map() };
  /**
   * A connecting participant's own answers, read for every stream that connects in one event-loop
   * turn in one query (a room joining, or 10,000 streams reconnecting after a restart), as the
   * hub's token lookups are (live-hub.ts). Not cached: each connect reads them afresh.
   */
  readonly #answeredSlides = turnLoader<string, Set<string>>(async (participantIds) => {
    const answered = await answeredSlidesOfEach(this.host.deps.db, this.sessionId, participantIds);
    return participantIds.map((id) => answered.get(id) ?? new Set<string>());
  });

  #paused = false;
  /** Streams being attached (their first events are being sent): the channel stays while there are any. */
  #attaching = 0;
  /** What participant streams connecting in this state of the session are sent (#connectSnapshots). */
  #snapshotCache: { seq: number; at: number; pick: ReturnType<typeof participantSnapshots> } | undefined;

  constructor(
    private readonly host: ChannelHost,
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
      this.host.deps.log.error({ err: error, sessionId: this.sessionId }, 'live-session stream task failed');
      return;
    }
    if (!this.#paused) {
      this.#paused = true;
      this.host.deps.log.warn(
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
    this.host.deps.log.info({ sessionId: this.sessionId }, 'live session resumed');
  }

  #poll(): Promise<Poll> {
    return getPoll(this.host.deps, this.#workspaceId, this.pollId);
  }

  /**
   * Sends a new stream what is due on connect, then adds it to the channel. With a `Last-Event-ID`
   * the channel has sent, it gets the history after it; otherwise the state as it is now.
   */
  attach(subscriber: Subscriber, lastEventId: string | undefined): Promise<void> {
    this.#attaching += 1;
    // The participant's own answers are read before its turn in the queue, so that streams
    // connecting together (a room joining) wait on the database side by side rather than one after
    // another. A stream resuming from a `Last-Event-ID` is sent the history, projected once for
    // every stream replaying it: it needs them only if its id turns out not to be one this channel sent.
    const readAnswered = () =>
      subscriber.participantId === undefined
        ? Promise.resolve(new Set<string>())
        : this.#answeredSlides.load(subscriber.participantId);
    const early = lastEventId === undefined ? readAnswered() : undefined;
    early?.catch(() => {});
    // A stream that cannot be attached (the database is away) fails its start: the transport
    // closes it and the client reconnects (the `retry:` hint), rather than holding a stream open
    // that nothing would ever be sent to. The channel's queue goes on either way.
    const attached = this.#queue.then(async () => {
      try {
        await this.#attach(subscriber, lastEventId, () => early ?? readAnswered());
      } finally {
        this.#attaching -= 1;
      }
    });
    this.#queue = attached.catch(() => {});
    return attached;
  }

  async #attach(
    subscriber: Subscriber,
    lastEventId: string | undefined,
    answered: () => Promise<Set<string>>,
  ): Promise<void> {
    // At most a second old, and never older than what this channel has sent (each delivery keeps
    // the row it read): a stream whose snapshot is older than the history still gets what follows.
    const row = await this.host.freshSession(this.sessionId);
    if (!row) {
      subscriber.sink.close();
      return;
    }
    const poll = await this.#poll();
    const resumeAfter = lastEventId === undefined ? Number.NaN : Number(lastEventId);
    const walker = row.pace === 'audience' && row.status !== 'ended' ? subscriber.participantId : undefined;
    if (walker !== undefined) {
      // A self-paced participant's history is their own walk, not the session's events: every
      // (re)connect starts with their place as stored, so a dropped connection loses nothing.
      subscriber.lastSeq = row.seq;
      const place = await this.#placeEvents(row, poll, walker, String(row.seq));
      subscriber.qaSlideId = place.qaSlideId;
      subscriber.sink.sendAll(place.events);
    } else if (Number.isSafeInteger(resumeAfter) && resumeAfter >= 0 && resumeAfter <= row.seq) {
      const missed = await this.#historyAfter(resumeAfter, row.seq);
      subscriber.lastSeq = resumeAfter;
      // A self-paced session that ended: its `start` would show a participant the first slide again.
      const walked = row.pace === 'audience' && subscriber.kind === 'participant';
      for (const event of missed) {
        if (!(walked && event.type === 'start')) send(subscriber, await this.#replayed(event, poll, row));
        subscriber.lastSeq = event.seq;
      }
      // A presenter back from a break gets the current slide's counts soon, not at the next answer.
      if (subscriber.kind === 'presenter' && missed.length > 0) this.scheduleRefresh();
    } else {
      // A stream's first events cover the history up to the row it was built from.
      subscriber.lastSeq = row.seq;
      subscriber.sink.sendAll(await this.#snapshotEvents(row, poll, subscriber, await answered()));
    }
    if (row.status === 'ended' || this.#closed) {
      subscriber.sink.close();
      return;
    }
    this.#subscribers.add(subscriber);
    if (subscriber.kind === 'presenter') this.#presenters.add(subscriber);
    // The row read here may be newer than what this channel has sent: catch the others up.
    if (row.seq > this.#lastSeq) await this.#deliverNewEvents();
  }

  /**
   * The history after `seq`, shared by the streams that reconnect from the same event: after a
   * restart behind a load balancer, thousands come back at once with the same `Last-Event-ID`, and
   * one query each, in the channel's queue, took 34 s for 10,000 (server/bench/RESULTS.md, issue
   * 29). Kept while the session is at `headSeq` and for a second at most, as the session row is.
   */
  #historyAfter(seq: number, headSeq: number): Promise<SessionEventRow[]> {
    this.#sharedHistory(headSeq);
    let events = this.#history.after.get(seq);
    if (!events) {
      events = listEventsAfter(this.host.deps.db, this.sessionId, seq);
      const shared = this.#history;
      shared.after.set(seq, events);
      // A failed read is not kept: the next stream tries again.
      events.catch(() => shared.after.delete(seq));
    }
    return events;
  }

  /**
   * The participant counts a replayed event shows, read once for the streams replaying together
   * (#historyAfter's bounds): counting 10,000 participants for each of 10,000 reconnecting streams
   * was most of a reconnect storm's time.
   */
  #replayCounts(headSeq: number): Promise<ParticipantCounts> {
    this.#sharedHistory(headSeq);
    const shared = this.#history;
    if (!shared.counts) {
      shared.counts = countSessionParticipants(this.host.deps.db, this.sessionId);
      shared.counts.catch(() => {
        shared.counts = undefined;
      });
    }
    return shared.counts;
  }

  /**
   * A history event as streams replaying it are sent it, projected once for all of them (within
   * #historyAfter's bounds): who answered the slide it moves to is read once, as for a live move,
   * and the events sent are the same objects for every stream alike — a reconnect storm of 18,000
   * shares the bytes of each event, as a broadcast does.
   */
  #replayed(event: SessionEventRow, poll: Poll, row: SessionRow): Promise<Projection> {
    this.#sharedHistory(row.seq);
    const shared = this.#history;
    let projection = shared.projected.get(event.seq);
    if (!projection) {
      projection = this.#project(event, poll, row, this.#replayCounts(row.seq));
      shared.projected.set(event.seq, projection);
      projection.catch(() => shared.projected.delete(event.seq));
    }
    return projection;
  }

  /** The shared reads of #historyAfter and #replayCounts, started afresh when stale. */
  #sharedHistory(headSeq: number): void {
    const now = Date.now();
    if (this.#history.headSeq !== headSeq || now - this.#history.readAt > HISTORY_SHARED_MS) {
      this.#history = { headSeq, readAt: now, after: new Map(), projected: new Map() };
    }
  }

  detach(subscriber: Subscriber): void {
    this.#subscribers.delete(subscriber);
    this.#presenters.delete(subscriber);
    if (this.#subscribers.size === 0 && this.#attaching === 0) {
      if (this.#refreshTimer) clearTimeout(this.#refreshTimer);
      if (this.#retryTimer) clearTimeout(this.#retryTimer);
      this.#refreshTimer = undefined;
      this.#retryTimer = undefined;
      this.#closed = true;
      this.host.dropChannel(this);
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
    this.#presenters.clear();
  }

  /** Some process announced a change: send the history events this channel has not sent yet. */
  deliverHistory(): void {
    void this.#enqueue(() => this.#deliverNewEvents());
  }

  async #deliverNewEvents(): Promise<void> {
    const { db } = this.host.deps;
    const events = await listEventsAfter(db, this.sessionId, this.#lastSeq);
    if (events.length === 0) return;
    const row = await findSessionById(db, this.sessionId);
    if (!row) {
      this.closeAll();
      this.host.dropChannel(this);
      return;
    }
    this.host.remember(row);
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
        this.host.dropChannel(this);
        return;
      }
    }
  }

  /**
   * Reads what a history event needs and projects it, once for every stream it goes to: who answered
   * the slide a `slide` event moves to (going back to one, they have) is read once for all of them.
   */
  async #project(
    event: SessionEventRow,
    poll: Poll,
    row: SessionRow,
    /** A replay's: the counts shared by the streams replaying together (a replay carries no presenter counts). */
    replayCounts?: Promise<ParticipantCounts>,
  ): Promise<Projection> {
    const { db, joinUrl } = this.host.deps;
    const snapshot = snapshotOfEvent(event);
    const slide = currentSlide(poll, snapshot);
    const counts = await (replayCounts ?? countSessionParticipants(db, this.sessionId));
    const history: HistoryEvent = { seq: event.seq, snapshot, poll, row, counts, joinUrl: joinUrl(joinCodeOf(row)) };
    switch (snapshot.action) {
      case 'start':
      case 'next':
      case 'prev':
      case 'goto': {
        const respondents =
          slide && answersOnce(slide) ? await slideRespondents(db, this.sessionId, slide.id) : undefined;
        const hasAnswered = (participantId: string) => respondents?.has(participantId) ?? false;
        // A Q&A slide comes with its board: the questions already approved.
        const board = slide?.kind === 'qa' ? await this.#questionBoard(poll, slide) : undefined;
        // The presenter's counts of the new slide come with the move: a slide gone back to has its
        // answers already, and the next join or answer may be a while (issue 36: "0 answers" shown
        // beside an audience's "1 answer"). Read once per move, for live delivery to a presenter.
        const presenterCounts =
          replayCounts === undefined && row.pace !== 'audience' && slide && this.#hasPresenter()
            ? (await this.#liveFigures(row, poll, slide, counts)).data
            : undefined;
        return projectSlideMove(history, hasAnswered, board, presenterCounts);
      }
      case 'showResults':
        return projectResultsShown(history, slide ? await this.#slideResults(poll, slide) : undefined);
      case 'hideResults':
      case 'lock':
      case 'unlock':
        return projectMarker(history);
      case 'end':
        return projectEnd(history, await this.#summary(poll, counts.joined));
    }
  }

  #hasPresenter(): boolean {
    return this.#presenters.size > 0;
  }

  /** The results of a slide, with the leaderboard on quiz slides (each participant's own rank spliced in). */
  async #slideResults(poll: Poll, slide: Slide): Promise<PersonalisedJson> {
    const result = await slideResultOf(this.host.deps, this.#workspaceId, poll, slide, this.sessionId);
    const standings =
      slide.kind === 'quiz'
        ? await standingsOf(
            this.host.deps.db,
            this.sessionId,
            await nameShower(this.host.deps, this.#workspaceId, poll),
          )
        : undefined;
    return slideResultsJson(slide, result, standings);
  }

  async #summary(poll: Poll, participantCount: number): Promise<PersonalisedJson> {
    const results = await resultsOf(this.host.deps, this.#workspaceId, poll, this.sessionId);
    const standings = hasQuiz(poll)
      ? await standingsOf(this.host.deps.db, this.sessionId, await nameShower(this.host.deps, this.#workspaceId, poll))
      : undefined;
    return summaryJson(this.sessionId, participantCount, results.slides, standings);
  }

  /** What a stream that connects without `Last-Event-ID` is sent: the state as it is now. */
  async #snapshotEvents(
    row: SessionRow,
    poll: Poll,
    subscriber: Subscriber,
    answered: Set<string>,
  ): Promise<readonly StreamEvent[]> {
    const { db, joinUrl } = this.host.deps;
    const slide = currentSlide(poll, snapshotOfRow(row));
    const view = subscriber.kind === 'presenter' ? (subscriber.view ?? 'full') : 'full';
    if (view === 'moves') {
      // A presenter whose caller may not read the audience's answers: the session alone, ended or not.
      const counts = await countSessionParticipants(db, this.sessionId);
      return [presenterSessionEvent(row, { poll, counts, joinUrl: joinUrl(joinCodeOf(row)) })];
    }
    if (row.status === 'ended') {
      const summary = await this.#summary(poll, (await countSessionParticipants(db, this.sessionId)).joined);
      return narrowedFor(view, endedSnapshot(row, subscriber, summary));
    }
    if (subscriber.kind === 'presenter') {
      const counts = await countSessionParticipants(db, this.sessionId);
      const live = await this.#liveFigures(row, poll, slide, counts);
      const results = slide && row.results_visible ? (await this.#slideResults(poll, slide)).forPresenter : undefined;
      const events = presenterSnapshot(row, { poll, counts, joinUrl: joinUrl(joinCodeOf(row)), live, results });
      return narrowedFor(view, events);
    }
    if (row.pace === 'audience') {
      // An anonymous viewer of a self-paced session is shown where a walk starts.
      return [
        { type: 'slide', id: String(row.seq), data: JSON.stringify(walkState(row, poll, newcomerRow(row), false)) },
      ];
    }
    const hasAnswered = slide !== undefined && answered.has(slide.id);
    return (await this.#connectSnapshots(row, poll, slide))(subscriber, hasAnswered);
  }

  /**
   * What participant streams connecting now are sent (live-projection.ts participantSnapshots):
   * made once per state of the session and refresh interval, not once per stream — a room of
   * 18,000 connecting, or reconnecting after a restart, shares two arrays of events.
   */
  async #connectSnapshots(row: SessionRow, poll: Poll, slide: Slide | undefined) {
    const cached = this.#snapshotCache;
    if (cached && cached.seq === row.seq && Date.now() - cached.at < this.host.refreshIntervalMs) return cached.pick;
    const at = Date.now();
    const shared =
      slide && (row.results_visible || slide.kind === 'qa')
        ? {
            results: row.results_visible ? await this.#slideResults(poll, slide) : undefined,
            board: slide.kind === 'qa' ? await this.#questionBoard(poll, slide) : undefined,
          }
        : undefined;
    const pick = participantSnapshots(row, poll, shared);
    this.#snapshotCache = { seq: row.seq, at, pick };
    return pick;
  }

  async #questionBoard(poll: Poll, slide: Slide): Promise<string> {
    const result = await slideResultOf(this.host.deps, this.#workspaceId, poll, slide, this.sessionId);
    return questionBoard(slide.id, result.kind === 'qa' ? result : { questions: [] });
  }

  /** The presenter's live figures: the current slide's counts, or a self-paced session's progress. */
  async #liveFigures(
    row: SessionRow,
    poll: Poll,
    slide: Slide | undefined,
    counts: ParticipantCounts,
    result?: SlideResult | null,
  ): Promise<LiveFigures> {
    if (row.pace === 'audience') {
      const [perSlide, results] = await Promise.all([
        participantsPerSlide(this.host.deps.db, this.sessionId),
        resultsOf(this.host.deps, this.#workspaceId, poll, this.sessionId),
      ]);
      return { type: 'progress', data: progressJson(this.sessionId, poll, counts, perSlide, results.slides) };
    }
    const current =
      result !== undefined
        ? result
        : slide
          ? await slideResultOf(this.host.deps, this.#workspaceId, poll, slide, this.sessionId)
          : null;
    const pending =
      // A moderated Q&A slide holds every question; under the text filter's `review`, flagged ones.
      slide?.kind === 'qa' && (slide.moderated || slideTextFilter(poll, slide) === 'review')
        ? await pendingQuestionCount(this.host.deps, this.sessionId, slide.id)
        : slide?.kind === 'open_ended' && slideTextFilter(poll, slide) === 'review'
          ? await pendingQuestionCount(this.host.deps, this.sessionId, slide.id, 'open_ended')
          : null;
    return { type: 'counts', data: countsJson(slide, counts.joined, current, pending) };
  }

  /**
   * A self-paced participant's place as their streams are sent it: their slide (with its Q&A board),
   * or their completed walk.
   */
  async #placeEvents(
    row: SessionRow,
    poll: Poll,
    participantId: string,
    id: string,
  ): Promise<{ events: StreamEvent[]; qaSlideId: string | undefined }> {
    const { db } = this.host.deps;
    const participant = await findParticipant(db, participantId);
    if (!participant) return { events: [], qaSlideId: undefined };
    if (participant.completed_at) {
      const completion = await completionOf({ db }, row, poll, participant);
      return { events: [{ type: 'completed', id, data: JSON.stringify(completion) }], qaSlideId: undefined };
    }
    const slide = slideOf(row, poll, participant);
    const answered =
      slide && answersOnce(slide)
        ? (await findVoterAnswer(db, row.poll_id, slide.id, participantId, this.sessionId)) !== undefined
        : false;
    const events: StreamEvent[] = [
      { type: 'slide', id, data: JSON.stringify(walkState(row, poll, participant, answered)) },
    ];
    if (slide?.kind !== 'qa') return { events, qaSlideId: undefined };
    events.push({ type: 'questions', id, data: await this.#questionBoard(poll, slide) });
    return { events, qaSlideId: slide.id };
  }

  /** A self-paced participant moved on (on some process): their streams here are sent their new place. */
  sendPlace(participantId: string): void {
    const streams = () => [...this.#subscribers].filter((subscriber) => subscriber.participantId === participantId);
    if (streams().length === 0 || this.#closed) return;
    void this.#enqueue(async () => {
      const row = await this.host.freshSession(this.sessionId);
      if (row?.status !== 'active') return;
      const place = await this.#placeEvents(row, await this.#poll(), participantId, String(this.#lastSeq));
      for (const subscriber of streams()) {
        subscriber.qaSlideId = place.qaSlideId;
        subscriber.sink.sendAll(place.events);
      }
    });
  }

  /** Answers or joins happened somewhere: refresh counts (and visible results), at most every interval. */
  scheduleRefresh(): void {
    if (this.#refreshTimer || this.#closed) return;
    const wait = Math.max(0, this.#lastRefresh + this.host.refreshIntervalMs - Date.now());
    this.#refreshTimer = setTimeout(() => {
      this.#refreshTimer = undefined;
      this.#lastRefresh = Date.now();
      void this.#enqueue(() => this.#refresh());
    }, wait);
    this.#refreshTimer.unref();
  }

  async #refresh(): Promise<void> {
    if (this.#subscribers.size === 0) return;
    const row = await this.host.freshSession(this.sessionId);
    if (!row || row.status === 'ended') return;
    const poll = await this.#poll();
    const counts = await countSessionParticipants(this.host.deps.db, this.sessionId);
    if (row.pace === 'audience') {
      // Participants of a self-paced session see no shared results before the end, only the board of
      // the Q&A slide each stands on (made once per slide); the presenter sees the progress.
      const id = String(this.#lastSeq);
      const live = await this.#liveFigures(row, poll, undefined, counts);
      const boards = new Map<string, string>();
      for (const slideId of new Set([...this.#subscribers].map((subscriber) => subscriber.qaSlideId))) {
        const slide = poll.content.questions.find((candidate) => candidate.id === slideId);
        if (slide) boards.set(slide.id, await this.#questionBoard(poll, slide));
      }
      for (const subscriber of this.#subscribers) {
        const board = subscriber.qaSlideId === undefined ? undefined : boards.get(subscriber.qaSlideId);
        send(subscriber, refreshFanout(id, live, undefined, board));
      }
      return;
    }
    const slide = currentSlide(poll, snapshotOfRow(row));
    const result = slide ? await slideResultOf(this.host.deps, this.#workspaceId, poll, slide, this.sessionId) : null;
    const results = slide && row.results_visible ? await this.#slideResults(poll, slide) : undefined;
    const board = slide?.kind === 'qa' && result?.kind === 'qa' ? questionBoard(slide.id, result) : undefined;
    const fanout = refreshFanout(
      String(this.#lastSeq),
      await this.#liveFigures(row, poll, slide, counts, result),
      results,
      board,
    );
    // Participants are sent nothing unless results are shown or a board is up: then only the
    // presenters are walked, not a room of 10,000 streams four times a second.
    const streams = fanout.participant === sendsNothing ? this.#presenters : this.#subscribers;
    for (const subscriber of streams) send(subscriber, fanout);
  }
}

function send(subscriber: Subscriber, fanout: Fanout): void {
  subscriber.sink.sendAll(eventsFor(subscriber, fanout));
}
