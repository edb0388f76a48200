import type { Poll, SessionSummary, Slide, SlideResult, SlideResults } from '@pollkit/contracts';
import type { StreamEvent } from '../../core/event-stream.js';
import type { SessionEventRow, SessionRow } from '../../db/schema.js';
import { answerCountOf, resultWithoutKey } from '../results/results.service.js';
import {
  type ParticipantCounts,
  type SessionSnapshot,
  type Standings,
  snapshotOf,
  toSession,
} from '../sessions/index.js';
import { currentSlide, liveState, type PresenterView } from './live-views.js';
import { newcomerRow, walkState } from './walk-state.js';

/**
 * What the streams of a session are sent, made from what the session channel read
 * (session-channel.ts): plain functions of their inputs, no database and no clock. The channel reads
 * once per event or refresh what every stream needs; these turn it into each stream's events.
 */

/** Whom a stream is for: the presenter, or a participant (anonymous viewers have no id). */
export interface StreamAudience {
  kind: 'participant' | 'presenter';
  participantId: string | undefined;
  /** A presenter's: what its caller's scopes let it carry (live-views.ts); undefined: `full`. */
  view?: PresenterView | undefined;
}

/** Events to send: the presenter's, and each participant's (made per stream, from shared parts). */
export interface Fanout {
  presenter: StreamEvent[];
  /**
   * A participant's events. Streams sent alike get the same array of the same objects: the transport
   * encodes each object once for all of them (http/event-stream.ts).
   */
  participant: (audience: StreamAudience) => readonly StreamEvent[];
}

/** A history event turned into what each kind of stream is sent. */
export interface Projection extends Fanout {
  seq: number;
  /** The session ended with this event: the streams close after it. */
  ended: boolean;
}

/** A JSON payload the same for everybody but `leaderboard.you`: the presenter's, and a participant's. */
export interface PersonalisedJson {
  forPresenter: string;
  forParticipant: (participantId: string | undefined) => string;
  /** Every participant's, when they are all the same (no leaderboard): made once. */
  shared: string | undefined;
}

/** A history event, with what was read to project it: the poll, the session row, its participants. */
export interface HistoryEvent {
  seq: number;
  snapshot: SessionSnapshot;
  poll: Poll;
  /** The session row as last read: the event's snapshot says its state. */
  row: SessionRow;
  counts: ParticipantCounts;
  /** The session's join URL (config `LIVE_JOIN_URL`). */
  joinUrl: string;
}

/** Replaced per participant by `leaderboard.you` (JSON escapes NUL, which no stored text contains). */
const YOU_MARK = '\u0000you';
const YOU_MARK_JSON = JSON.stringify(YOU_MARK);

/** The events of a fan-out one stream is sent. */
export function eventsFor(audience: StreamAudience, fanout: Fanout): readonly StreamEvent[] {
  if (audience.kind !== 'presenter') return fanout.participant(audience);
  return audience.view === undefined || audience.view === 'full'
    ? fanout.presenter
    : narrowedFor(audience.view, fanout.presenter);
}

/** The narrower views of a presenter's events, made once for every stream of the view (WeakMap: gone with the events). */
const narrowedViews = new WeakMap<readonly StreamEvent[], Partial<Record<PresenterView, StreamEvent[]>>>();

/**
 * A presenter's events as `view` carries them (live-views.ts `presenterView`): `moves` keeps the
 * `session` events alone; `unkeyed` takes the answer key out of the quiz results they hold. Made once
 * per events and view, whatever the number of streams: a full view (the common case) costs nothing.
 */
export function narrowedFor(view: PresenterView, events: StreamEvent[]): StreamEvent[] {
  if (view === 'full') return events;
  let made = narrowedViews.get(events);
  if (!made) {
    made = {};
    narrowedViews.set(events, made);
  }
  made[view] ??= view === 'moves' ? events.filter((event) => event.type === 'session') : events.map(withoutAnswerKey);
  return made[view];
}

/** A presenter event without the quiz results' answer key: `counts`, `progress`, `results`, `ended`. */
function withoutAnswerKey(event: StreamEvent): StreamEvent {
  // A quiz result is written `"kind":"quiz"`; inside a JSON string those quotes would be escaped.
  if (!event.data.includes('"kind":"quiz"')) return event;
  const data = JSON.parse(event.data) as { results?: unknown; slides?: unknown };
  switch (event.type) {
    case 'counts':
    case 'results':
      if (data.results) data.results = resultWithoutKey(data.results as SlideResult);
      break;
    case 'progress':
      data.results = (data.results as SlideResult[]).map(resultWithoutKey);
      break;
    case 'ended':
      data.slides = (data.slides as SlideResult[]).map(resultWithoutKey);
      break;
    default:
      return event;
  }
  return { ...event, data: JSON.stringify(data) };
}

/** The snapshot a history event recorded. */
export function snapshotOfEvent(event: Pick<SessionEventRow, 'data'>): SessionSnapshot {
  return JSON.parse(event.data) as SessionSnapshot;
}

/** The session row's fields as a snapshot states them. */
export function sessionFields(snapshot: SessionSnapshot): Partial<SessionRow> {
  return {
    status: snapshot.status,
    current_slide_index: snapshot.slideIndex,
    results_visible: snapshot.resultsVisible,
    locked: snapshot.locked,
    slide_started_at: snapshot.slideStartedAt === null ? null : new Date(snapshot.slideStartedAt),
  };
}

/**
 * `start`, `next`, `prev`, `goto`: the presenter gets the session and the new slide's counts
 * (`presenterCounts`, LiveCounts JSON, when read); each participant the slide, marked answered when it
 * has answered it (`hasAnswered`), and the Q&A board (`board`) on a Q&A slide.
 */
export function projectSlideMove(
  event: HistoryEvent,
  hasAnswered: (participantId: string) => boolean,
  board: string | undefined,
  presenterCounts?: string | undefined,
): Projection {
  const id = String(event.seq);
  const { poll, row, snapshot } = event;
  if (row.pace === 'audience') {
    // A self-paced session moves no shared slide: its one move is `start`, when every participant
    // stands on the first slide (nobody can move before it). Their own moves are sent to them alone.
    const session = { ...row, ...sessionFields(snapshot) };
    const start = [{ type: 'slide', id, data: JSON.stringify(walkState(session, poll, newcomerRow(session), false)) }];
    return { seq: event.seq, ended: false, presenter: [sessionEvent(event)], participant: () => start };
  }
  // Two variants of the slide, each one event object for every stream it goes to (the transport
  // encodes an object once): the Q&A board, the same for everybody, follows in the same write.
  const boardEvents: StreamEvent[] = board ? [{ type: 'questions', id, data: board }] : [];
  const unanswered = [
    { type: 'slide', id, data: JSON.stringify(liveState(row.id, poll, snapshot, false)) },
    ...boardEvents,
  ];
  const answered = [
    { type: 'slide', id, data: JSON.stringify(liveState(row.id, poll, snapshot, true)) },
    ...boardEvents,
  ];
  const presenter = [sessionEvent(event)];
  if (presenterCounts !== undefined) presenter.push({ type: 'counts', id, data: presenterCounts });
  return {
    seq: event.seq,
    ended: false,
    presenter,
    participant: (audience) =>
      audience.participantId !== undefined && hasAnswered(audience.participantId) ? answered : unanswered,
  };
}

/** `showResults`: the slide's results to everybody (`results`: undefined before the first slide). */
export function projectResultsShown(event: HistoryEvent, results: PersonalisedJson | undefined): Projection {
  const id = String(event.seq);
  const presenter = [sessionEvent(event)];
  if (!results) return { seq: event.seq, ended: false, presenter, participant: () => [] };
  presenter.push({ type: 'results', id, data: results.forPresenter });
  return { seq: event.seq, ended: false, presenter, participant: participantEvents('results', id, results) };
}

/**
 * A participant's event carrying `json`: one object for everybody when it is the same for everybody
 * (no leaderboard), else made per participant, with their own rank.
 */
function participantEvents(type: string, id: string, json: PersonalisedJson): Fanout['participant'] {
  if (json.shared !== undefined) {
    const events = [{ type, id, data: json.shared }];
    return () => events;
  }
  return (audience) => [{ type, id, data: json.forParticipant(audience.participantId) }];
}

/** `hideResults`, `lock`, `unlock`: participants learn which slide it applies to. */
export function projectMarker(event: HistoryEvent): Projection {
  const { action } = event.snapshot;
  const type = action === 'hideResults' ? 'results_hidden' : action === 'lock' ? 'locked' : 'unlocked';
  const slide = currentSlide(event.poll, event.snapshot);
  const events = [{ type, id: String(event.seq), data: JSON.stringify({ slideId: slide?.id ?? null }) }];
  return { seq: event.seq, ended: false, presenter: [sessionEvent(event)], participant: () => events };
}

/** `end`: the summary to everybody; the streams close after it. */
export function projectEnd(event: HistoryEvent, summary: PersonalisedJson): Projection {
  const id = String(event.seq);
  return {
    seq: event.seq,
    ended: true,
    presenter: [sessionEvent(event), { type: 'ended', id, data: summary.forPresenter }],
    participant: participantEvents('ended', id, summary),
  };
}

/** The presenter's `session` event: the row as of the event's snapshot. */
function sessionEvent(event: HistoryEvent): StreamEvent {
  const { poll, row, snapshot } = event;
  const session = toSession(
    { ...row, ...sessionFields(snapshot) },
    { slideCount: poll.content.questions.length, counts: event.counts, joinUrl: event.joinUrl },
  );
  return { type: 'session', id: String(event.seq), data: JSON.stringify(session) };
}

/** The results of a slide, with the leaderboard on quiz slides (`standings`). */
export function slideResultsJson(
  slide: Slide,
  result: SlideResult,
  standings: Standings | undefined,
): PersonalisedJson {
  const data = (you: unknown): SlideResults => ({
    slideId: slide.id,
    results: result,
    leaderboard: standings ? { top: standings.top, you: you as null } : null,
  });
  return { forPresenter: JSON.stringify(data(null)), ...personalised(JSON.stringify(data(YOU_MARK)), standings) };
}

/** The `ended` event's data: every slide's results, and the leaderboard when the deck has a quiz. */
export function summaryJson(
  sessionId: string,
  participantCount: number,
  slides: SessionSummary['slides'],
  standings: Standings | undefined,
): PersonalisedJson {
  const data = (you: unknown): SessionSummary => ({
    sessionId,
    participantCount,
    leaderboard: standings ? { top: standings.top, you: you as null } : null,
    slides,
  });
  return { forPresenter: JSON.stringify(data(null)), ...personalised(JSON.stringify(data(YOU_MARK)), standings) };
}

/**
 * JSON made once with `YOU_MARK` where `leaderboard.you` goes, then completed per participant: one
 * serialisation for everybody, and a string join per stream.
 */
export function personalised(
  json: string,
  standings: Standings | undefined,
): Pick<PersonalisedJson, 'forParticipant' | 'shared'> {
  const parts = json.split(YOU_MARK_JSON);
  if (parts.length !== 2 || !standings) {
    const shared = json.replace(YOU_MARK_JSON, 'null');
    return { forParticipant: () => shared, shared };
  }
  const [before, after] = parts as [string, string];
  return {
    forParticipant: (participantId) => `${before}${JSON.stringify(standings.of(participantId))}${after}`,
    shared: undefined,
  };
}

/** The `progress` event's data (SessionProgress): participants per slide, completions, every slide's results. */
export function progressJson(
  sessionId: string,
  poll: Poll,
  counts: ParticipantCounts,
  perSlide: ReadonlyMap<number, number>,
  results: readonly SlideResult[],
): string {
  return JSON.stringify({
    sessionId,
    participantCount: counts.joined,
    completedCount: counts.completed,
    slides: poll.content.questions.map((slide, index) => {
      const result = results[index];
      return {
        slideId: slide.id,
        participants: perSlide.get(index) ?? 0,
        answerCount: result ? answerCountOf(result) : 0,
      };
    }),
    results,
  });
}

/** The `counts` event's data (LiveCounts); `pendingQuestions` only on a slide with a moderation or review queue. */
export function countsJson(
  slide: Slide | undefined,
  participantCount: number,
  result: SlideResult | null,
  pendingQuestions: number | null = null,
): string {
  return JSON.stringify({
    slideId: slide?.id ?? null,
    answerCount: result ? answerCountOf(result) : 0,
    participantCount,
    results: result,
    pendingQuestions,
  });
}

/** The `questions` event's data: the approved questions of a Q&A slide. */
export function questionBoard(slideId: string, result: { questions: unknown[] }): string {
  return JSON.stringify({ slideId, questions: result.questions });
}

/** The presenter's `session` event for the row as it is now: what a `moves` view connecting is sent. */
export function presenterSessionEvent(
  row: SessionRow,
  facts: { poll: Poll; counts: ParticipantCounts; joinUrl: string },
): StreamEvent {
  const session = toSession(row, {
    slideCount: facts.poll.content.questions.length,
    counts: facts.counts,
    joinUrl: facts.joinUrl,
  });
  return { type: 'session', id: String(row.seq), data: JSON.stringify(session) };
}

/**
 * What a presenter stream connecting without `Last-Event-ID` to an open session is sent: the session,
 * then its live figures (`live`: `counts`, or a self-paced session's `progress`).
 */
export function presenterSnapshot(
  row: SessionRow,
  facts: { poll: Poll; counts: ParticipantCounts; joinUrl: string; live: LiveFigures; results: string | undefined },
): StreamEvent[] {
  const id = String(row.seq);
  const events: StreamEvent[] = [
    presenterSessionEvent(row, facts),
    { type: facts.live.type, id, data: facts.live.data },
  ];
  if (facts.results !== undefined) events.push({ type: 'results', id, data: facts.results });
  return events;
}

/** What every participant stream connecting now shares besides its slide: the results shown, the Q&A board. */
export interface ConnectShared {
  results: PersonalisedJson | undefined;
  board: string | undefined;
}

/**
 * What a participant stream connecting without `Last-Event-ID` to an open session is sent: its
 * slide, and what every stream connecting now shares (`shared`). Made once for a state of the session:
 * the returned function picks, per stream, one of two arrays of events (answered or not) that every
 * stream alike is sent — only a leaderboard's results are made per participant.
 */
export function participantSnapshots(
  row: SessionRow,
  poll: Poll,
  shared: ConnectShared | undefined,
): (audience: StreamAudience, hasAnswered: boolean) => readonly StreamEvent[] {
  const id = String(row.seq);
  const snapshot = snapshotOfRow(row);
  const board: StreamEvent[] = shared?.board ? [{ type: 'questions', id, data: shared.board }] : [];
  const results = shared?.results;
  const sharedResults: StreamEvent[] =
    results?.shared !== undefined ? [{ type: 'results', id, data: results.shared }] : [];
  const variant = (answered: boolean) => ({
    type: 'slide',
    id,
    data: JSON.stringify(liveState(row.id, poll, snapshot, answered)),
  });
  const slides = { answered: variant(true), unanswered: variant(false) };
  const alike = {
    answered: [slides.answered, ...sharedResults, ...board],
    unanswered: [slides.unanswered, ...sharedResults, ...board],
  };
  if (results === undefined || results.shared !== undefined) {
    return (_audience, hasAnswered) => (hasAnswered ? alike.answered : alike.unanswered);
  }
  return (audience, hasAnswered) => [
    hasAnswered ? slides.answered : slides.unanswered,
    { type: 'results', id, data: results.forParticipant(audience.participantId) },
    ...board,
  ];
}

/** What a stream connecting to an ended session is sent: the summary. */
export function endedSnapshot(row: SessionRow, audience: StreamAudience, summary: PersonalisedJson): StreamEvent[] {
  const data = audience.kind === 'presenter' ? summary.forPresenter : summary.forParticipant(audience.participantId);
  return [{ type: 'ended', id: String(row.seq), data }];
}

/** The presenter's live figures: `counts` for the current slide, or a self-paced session's `progress`. */
export interface LiveFigures {
  type: 'counts' | 'progress';
  data: string;
}

/**
 * A refresh after answers or joins (`id`: the last history event sent): the live figures to the
 * presenter; the results shown and the Q&A board to participants.
 */
export function refreshFanout(
  id: string,
  live: LiveFigures,
  results: PersonalisedJson | undefined,
  board: string | undefined,
): Fanout {
  const presenter: StreamEvent[] = [{ type: live.type, id, data: live.data }];
  if (results === undefined && board === undefined) return { presenter, participant: sendsNothing };
  const boardEvents: StreamEvent[] = board ? [{ type: 'questions', id, data: board }] : [];
  if (results === undefined || results.shared !== undefined) {
    const events: StreamEvent[] = [
      ...(results ? [{ type: 'results', id, data: results.shared as string }] : []),
      ...boardEvents,
    ];
    return { presenter, participant: () => events };
  }
  return {
    presenter,
    participant: (audience) => [
      { type: 'results', id, data: results.forParticipant(audience.participantId) },
      ...boardEvents,
    ],
  };
}

/** The participant side of a fan-out that sends participants nothing (the channel then walks presenters only). */
export const sendsNothing: Fanout['participant'] = () => [];

/** The session row's state as a `start` snapshot: what a stream connecting now is shown. */
export function snapshotOfRow(row: SessionRow): SessionSnapshot {
  return { action: 'start', ...snapshotOf(row) };
}
