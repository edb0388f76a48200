import { type Poll, Slide, type SlideResult } from '@pollkit/contracts';
import { describe, expect, it } from 'vitest';
import type { SessionRow } from '../../src/db/schema.js';
import {
  countsJson,
  endedSnapshot,
  eventsFor,
  type HistoryEvent,
  participantSnapshots,
  personalised,
  presenterSnapshot,
  projectEnd,
  projectMarker,
  projectResultsShown,
  projectSlideMove,
  questionBoard,
  refreshFanout,
  sessionFields,
  slideResultsJson,
  snapshotOfEvent,
  summaryJson,
} from '../../src/modules/live/live-projection.js';
import { type SessionSnapshot, Standings } from '../../src/modules/sessions/index.js';

/**
 * What live streams are sent (modules/live/live-projection.ts), as plain functions: inputs in,
 * events out — no server, no database.
 */

const slides = [
  {
    id: 'lunch',
    kind: 'multiple_choice',
    text: 'Lunch?',
    type: 'single',
    options: [
      { id: 'pizza', label: 'Pizza' },
      { id: 'sushi', label: 'Sushi' },
    ],
  },
  {
    id: 'capital',
    kind: 'quiz',
    text: 'Capital of France?',
    options: [
      { id: 'paris', label: 'Paris' },
      { id: 'lyon', label: 'Lyon' },
    ],
    correctOptionIds: ['paris'],
    timeLimitSec: 20,
    points: 500,
  },
  { id: 'ask', kind: 'qa', text: 'Questions?' },
].map((slide) => Slide.parse(slide));

const poll: Poll = {
  id: 'poll_01HZZZZZZZZZZZZZZZZZZZZZZZ',
  title: 'Projection',
  status: 'published',
  content: { questions: slides },
  branching: null,
  language: 'en',
  themeId: null,
  textFilter: 'mask',
  maxRespondents: null,
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
  publishedAt: '2026-01-01T00:00:00.000Z',
  closedAt: null,
};

const row: SessionRow = {
  id: 'ses_1',
  workspace_id: 'ws_1',
  poll_id: poll.id,
  pin: '123456',
  pace: 'presenter',
  link_id: null,
  show_scores: null,
  closes_at: null,
  status: 'pending',
  current_slide_index: 0,
  results_visible: false,
  locked: false,
  host_token_hash: 'hash',
  host_token_scopes: null,
  seq: 1,
  slide_started_at: null,
  created_at: new Date('2026-01-01T10:00:00.000Z'),
  started_at: null,
  ended_at: null,
  max_participants: 100,
  participant_count: 3,
  joins_locked: false,
  language: null,
  theme_id: null,
  join_challenge: null,
};

function snapshot(changes: Partial<SessionSnapshot>): SessionSnapshot {
  return {
    action: 'next',
    status: 'active',
    slideIndex: 1,
    resultsVisible: false,
    locked: false,
    slideStartedAt: '2026-01-01T10:05:00.000Z',
    ...changes,
  };
}

function history(seq: number, changes: Partial<SessionSnapshot>): HistoryEvent {
  return {
    seq,
    snapshot: snapshot(changes),
    poll,
    row,
    counts: { joined: 3, completed: 0 },
    joinUrl: 'https://join.example/123456',
  };
}

const presenter = { kind: 'presenter', participantId: undefined } as const;
const alice = { kind: 'participant', participantId: 'par_alice' } as const;
const bob = { kind: 'participant', participantId: 'par_bob' } as const;
const anonymous = { kind: 'participant', participantId: undefined } as const;
const standings = new Standings([
  { id: 'par_alice', name: 'Alice', score: 500 },
  { id: 'par_bob', name: 'Bob', score: 200 },
]);

const data = (event: { data: string } | undefined) => JSON.parse(event?.data ?? 'null');
/** The quiz slide's results, as shown. */
const result: SlideResult = {
  slideId: 'capital',
  text: 'Capital of France?',
  kind: 'quiz',
  totalAnswers: 2,
  correctAnswers: 1,
  correctRate: 50,
  options: [],
};

describe('a slide move', () => {
  it('sends the presenter the session as the event states it, and each participant the slide without its answer', () => {
    const projection = projectSlideMove(
      history(7, { action: 'next', slideIndex: 1 }),
      (id) => id === 'par_alice',
      undefined,
    );
    expect(projection).toMatchObject({ seq: 7, ended: false });

    const [session] = eventsFor(presenter, projection);
    expect(session).toMatchObject({ type: 'session', id: '7' });
    // The row is still pending at slide 0: the snapshot of the event wins.
    expect(data(session)).toMatchObject({
      id: 'ses_1',
      status: 'active',
      currentSlideIndex: 1,
      slideCount: 3,
      participantCount: 3,
      joinUrl: 'https://join.example/123456',
      slideStartedAt: '2026-01-01T10:05:00.000Z',
    });

    const forAlice = eventsFor(alice, projection);
    expect(forAlice.map((event) => event.type)).toEqual(['slide']);
    expect(data(forAlice[0])).toMatchObject({ sessionId: 'ses_1', slideIndex: 1, answered: true });
    expect(data(forAlice[0]).slide).not.toHaveProperty('correctOptionIds');
    expect(data(eventsFor(bob, projection)[0]).answered).toBe(false);
    expect(data(eventsFor(anonymous, projection)[0]).answered).toBe(false);
  });

  it('brings the Q&A board with a Q&A slide', () => {
    const board = questionBoard('ask', { questions: [{ id: 'q1', text: 'Why?' }] });
    const projection = projectSlideMove(history(8, { action: 'goto', slideIndex: 2 }), () => false, board);
    const events = eventsFor(alice, projection);
    expect(events.map((event) => [event.type, event.id])).toEqual([
      ['slide', '8'],
      ['questions', '8'],
    ]);
    expect(data(events[1])).toEqual({ slideId: 'ask', questions: [{ id: 'q1', text: 'Why?' }] });
  });

  it('brings the presenter the new slide’s counts when read, and participants nothing more', () => {
    const counts = countsJson(slides[1], 3, null);
    const projection = projectSlideMove(history(9, { action: 'goto', slideIndex: 1 }), () => false, undefined, counts);
    expect(eventsFor(presenter, projection).map((event) => [event.type, event.id])).toEqual([
      ['session', '9'],
      ['counts', '9'],
    ]);
    expect(data(eventsFor(presenter, projection)[1])).toMatchObject({ slideId: slides[1]?.id, participantCount: 3 });
    expect(eventsFor(alice, projection).map((event) => event.type)).toEqual(['slide']);
    // A presenter that may not read answers gets the move alone.
    expect(eventsFor({ ...presenter, view: 'moves' }, projection).map((event) => event.type)).toEqual(['session']);
  });
});

describe('results shown', () => {
  it("splices each participant's own rank into the leaderboard; the presenter's `you` is null", () => {
    const results = slideResultsJson(slides[1] as Slide, result, standings);
    const projection = projectResultsShown(history(9, { action: 'showResults', resultsVisible: true }), results);
    const forPresenter = eventsFor(presenter, projection);
    expect(forPresenter.map((event) => event.type)).toEqual(['session', 'results']);
    expect(data(forPresenter[1])).toMatchObject({ slideId: 'capital', leaderboard: { you: null } });
    expect(data(forPresenter[1]).leaderboard.top.map((entry: { rank: number }) => entry.rank)).toEqual([1, 2]);
    expect(data(eventsFor(bob, projection)[0]).leaderboard.you).toEqual({
      rank: 2,
      participantId: 'par_bob',
      name: 'Bob',
      score: 200,
    });
    expect(data(eventsFor(anonymous, projection)[0]).leaderboard.you).toBeNull();
  });

  it('has no leaderboard without standings, and sends participants nothing before the first slide', () => {
    const plain = slideResultsJson(slides[1] as Slide, result, undefined);
    expect(data({ data: plain.forParticipant('par_alice') })).toMatchObject({ results: result, leaderboard: null });
    const before = projectResultsShown(history(2, { action: 'showResults', status: 'pending' }), undefined);
    expect(eventsFor(presenter, before).map((event) => event.type)).toEqual(['session']);
    expect(eventsFor(alice, before)).toEqual([]);
  });
});

describe('what streams share (the transport encodes one event object once for every stream it reaches)', () => {
  it('gives every participant who answered one object, everyone who did not another, and never mixes them', () => {
    const board = questionBoard('ask', { questions: [] });
    const projection = projectSlideMove(
      history(12, { action: 'goto', slideIndex: 1 }),
      (id) => id === 'par_alice',
      board,
    );
    const carol = { kind: 'participant', participantId: 'par_carol' } as const;
    expect(eventsFor(bob, projection)).toBe(eventsFor(carol, projection));
    expect(eventsFor(bob, projection)).toBe(eventsFor(anonymous, projection));
    expect(eventsFor(alice, projection)).not.toBe(eventsFor(bob, projection));
    expect(data(eventsFor(alice, projection)[0]).answered).toBe(true);
    expect(data(eventsFor(carol, projection)[0]).answered).toBe(false);
    // The board is the same object in both variants.
    expect(eventsFor(alice, projection)[1]).toBe(eventsFor(bob, projection)[1]);
  });

  it('shares results, markers and the summary when there is no leaderboard', () => {
    const results = slideResultsJson(slides[1] as Slide, result, undefined);
    const shown = projectResultsShown(history(13, { action: 'showResults', resultsVisible: true }), results);
    expect(eventsFor(alice, shown)).toBe(eventsFor(bob, shown));
    const marker = projectMarker(history(14, { action: 'lock' }));
    expect(eventsFor(alice, marker)).toBe(eventsFor(bob, marker));
    const end = projectEnd(history(15, { action: 'end', status: 'ended' }), summaryJson('ses_1', 3, [], undefined));
    expect(eventsFor(alice, end)).toBe(eventsFor(bob, end));
    const refresh = refreshFanout('15', { type: 'counts', data: '{}' }, results, '{"board":1}');
    expect(eventsFor(alice, refresh)).toBe(eventsFor(bob, refresh));
  });

  it("makes a leaderboard's events per participant: nobody is sent another's rank", () => {
    const results = slideResultsJson(slides[1] as Slide, result, standings);
    const shown = projectResultsShown(history(16, { action: 'showResults', resultsVisible: true }), results);
    const forAlice = eventsFor(alice, shown)[0];
    const forBob = eventsFor(bob, shown)[0];
    expect(forAlice).not.toBe(forBob);
    expect(data(forAlice).leaderboard.you.participantId).toBe('par_alice');
    expect(data(forBob).leaderboard.you.participantId).toBe('par_bob');
    expect(data(eventsFor(anonymous, shown)[0]).leaderboard.you).toBeNull();
    const refresh = refreshFanout('16', { type: 'counts', data: '{}' }, results, undefined);
    expect(data(eventsFor(bob, refresh)[0]).leaderboard.you.participantId).toBe('par_bob');
    const end = projectEnd(history(17, { action: 'end', status: 'ended' }), summaryJson('ses_1', 3, [], standings));
    expect(data(eventsFor(alice, end)[0]).leaderboard.you.participantId).toBe('par_alice');
    expect(data(eventsFor(bob, end)[0]).leaderboard.you.participantId).toBe('par_bob');
  });
});

describe('streams connecting together share their snapshot', () => {
  const shown = { ...row, status: 'active' as const, current_slide_index: 1, results_visible: true };

  it('gives every stream alike the same events, answered apart from not answered', () => {
    const pick = participantSnapshots(shown, poll, {
      results: slideResultsJson(slides[1] as Slide, result, undefined),
      board: undefined,
    });
    expect(pick(alice, false)).toBe(pick(bob, false));
    expect(pick(alice, true)).not.toBe(pick(alice, false));
    expect(data(pick(alice, true)[0]).answered).toBe(true);
    expect(data(pick(bob, false)[0]).answered).toBe(false);
    expect(pick(alice, true)[1]).toBe(pick(bob, false)[1]);
  });

  it('makes a leaderboard per participant, so a stream carries only its own rank', () => {
    const pick = participantSnapshots(shown, poll, {
      results: slideResultsJson(slides[1] as Slide, result, standings),
      board: undefined,
    });
    expect(data(pick(alice, false)[1]).leaderboard.you.participantId).toBe('par_alice');
    expect(data(pick(bob, false)[1]).leaderboard.you.participantId).toBe('par_bob');
    expect(pick(alice, false)[0]).toBe(pick(bob, false)[0]);
  });
});

describe('markers and the end', () => {
  it('names the slide a lock, an unlock or hidden results apply to', () => {
    const types = (['lock', 'unlock', 'hideResults'] as const).map((action) => {
      const [event] = eventsFor(alice, projectMarker(history(10, { action, slideIndex: 0 })));
      return [event?.type, data(event)];
    });
    expect(types).toEqual([
      ['locked', { slideId: 'lunch' }],
      ['unlocked', { slideId: 'lunch' }],
      ['results_hidden', { slideId: 'lunch' }],
    ]);
    const pending = projectMarker(history(1, { action: 'lock', status: 'pending' }));
    expect(data(eventsFor(bob, pending)[0])).toEqual({ slideId: null });
  });

  it('ends with the summary, personalised per participant', () => {
    const summary = summaryJson('ses_1', 3, [], standings);
    const projection = projectEnd(history(11, { action: 'end', status: 'ended' }), summary);
    expect(projection.ended).toBe(true);
    expect(eventsFor(presenter, projection).map((event) => event.type)).toEqual(['session', 'ended']);
    expect(data(eventsFor(presenter, projection)[1])).toMatchObject({ sessionId: 'ses_1', participantCount: 3 });
    expect(data(eventsFor(alice, projection)[0]).leaderboard.you.rank).toBe(1);
    expect(endedSnapshot({ ...row, seq: 11 }, bob, summary)).toEqual([
      { type: 'ended', id: '11', data: summary.forParticipant('par_bob') },
    ]);
  });
});

describe('streams connecting without Last-Event-ID', () => {
  const active = { ...row, status: 'active' as const, current_slide_index: 2, seq: 5 };

  it('gives the presenter the session, the counts and the results shown', () => {
    const live = { type: 'counts' as const, data: countsJson(slides[2], 3, null) };
    const events = presenterSnapshot(active, {
      poll,
      counts: { joined: 3, completed: 0 },
      joinUrl: 'https://join.example/123456',
      live,
      results: '{"r":1}',
    });
    expect(events.map((event) => [event.type, event.id])).toEqual([
      ['session', '5'],
      ['counts', '5'],
      ['results', '5'],
    ]);
    expect(data(events[1])).toEqual({
      slideId: 'ask',
      answerCount: 0,
      participantCount: 3,
      results: null,
      pendingQuestions: null,
    });
  });

  it('gives a participant its slide and what every stream shares', () => {
    const shared = {
      results: { forPresenter: '{"you":null}', ...personalised('{"you":null}', undefined) },
      board: '{"questions":[]}',
    };
    const events = participantSnapshots(active, poll, shared)(alice, false);
    expect(events.map((event) => event.type)).toEqual(['slide', 'results', 'questions']);
    expect(data(events[0])).toMatchObject({ slideIndex: 2, answered: false, status: 'active' });
    expect(participantSnapshots(active, poll, undefined)(alice, false).map((event) => event.type)).toEqual(['slide']);
  });
});

describe('refreshes and payload pieces', () => {
  it('sends counts to the presenter, results and the board to participants', () => {
    const results = slideResultsJson(
      slides[0] as Slide,
      { slideId: 'lunch', text: 'Lunch?', kind: 'multiple_choice', totalAnswers: 4, options: [] },
      undefined,
    );
    const fanout = refreshFanout('6', { type: 'counts', data: '{"counts":1}' }, results, '{"board":1}');
    expect(eventsFor(presenter, fanout)).toEqual([{ type: 'counts', id: '6', data: '{"counts":1}' }]);
    expect(eventsFor(alice, fanout).map((event) => event.type)).toEqual(['results', 'questions']);
    expect(eventsFor(alice, refreshFanout('6', { type: 'counts', data: '{}' }, undefined, undefined))).toEqual([]);
  });

  it('counts answers by kind: questions on a Q&A slide, none before the first slide', () => {
    const qa: SlideResult = { slideId: 'ask', text: 'Questions?', kind: 'qa', totalQuestions: 4, questions: [] };
    expect(JSON.parse(countsJson(slides[2], 7, qa))).toMatchObject({
      slideId: 'ask',
      answerCount: 4,
      participantCount: 7,
    });
    expect(JSON.parse(countsJson(slides[2], 7, qa, 2))).toMatchObject({ answerCount: 4, pendingQuestions: 2 });
    expect(JSON.parse(countsJson(undefined, 7, null))).toEqual({
      slideId: null,
      answerCount: 0,
      participantCount: 7,
      results: null,
      pendingQuestions: null,
    });
  });

  it('fills `leaderboard.you` per participant from one serialisation', () => {
    const json = JSON.stringify({ leaderboard: { you: '\u0000you' } });
    const { forParticipant, shared } = personalised(json, standings);
    expect(JSON.parse(forParticipant('par_bob')).leaderboard.you.rank).toBe(2);
    expect(JSON.parse(forParticipant('par_unknown')).leaderboard.you).toBeNull();
    // With a leaderboard nothing is the same for everybody; without one, everybody's is one string.
    expect(shared).toBeUndefined();
    const unranked = personalised(json, undefined);
    expect(JSON.parse(unranked.forParticipant('par_bob')).leaderboard.you).toBeNull();
    expect(unranked.shared).toBe(unranked.forParticipant('par_alice'));
  });

  it("reads a history event's snapshot, and states it as session-row fields", () => {
    const recorded = snapshot({ action: 'lock', locked: true });
    expect(snapshotOfEvent({ data: JSON.stringify(recorded) })).toEqual(recorded);
    expect(sessionFields(recorded)).toEqual({
      status: 'active',
      current_slide_index: 1,
      results_visible: false,
      locked: true,
      slide_started_at: new Date('2026-01-01T10:05:00.000Z'),
    });
    expect(sessionFields(snapshot({ slideStartedAt: null })).slide_started_at).toBeNull();
  });
});
