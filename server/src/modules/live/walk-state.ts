import type { LiveState, Poll, Slide } from '@pollkit/contracts';
import type { ParticipantRow, SessionRow } from '../../db/schema.js';
import { answersOnce, participantSlide } from './live-views.js';

/**
 * A self-paced participant's place as they see it (self-paced.ts walks them): plain functions of the
 * session row and the participant's row, no database and no clock, so the streams' projection
 * (live-projection.ts) uses them as the answer path does.
 */

/**
 * When the participant reached their slide: stored with each move; before the first move, when they
 * joined, or when the session started if they joined before it.
 */
export function reachedAt(session: SessionRow, row: ParticipantRow): Date {
  if (row.slide_reached_at) return row.slide_reached_at;
  const started = session.started_at?.getTime() ?? row.created_at.getTime();
  return new Date(Math.max(started, row.created_at.getTime()));
}

/** The slide the participant stands on: undefined before the start, once completed, or after the end. */
export function slideOf(session: SessionRow, poll: Poll, row: ParticipantRow): Slide | undefined {
  if (session.status !== 'active' || row.completed_at !== null) return undefined;
  return poll.content.questions[row.slide_index];
}

/**
 * What the participant sees. The progress counts the slides passed and the rest of the deck from
 * here: skip logic only jumps forward, so "3 of 7" can only become "3 of 5", never "3 of 9".
 */
export function walkState(session: SessionRow, poll: Poll, row: ParticipantRow, answered: boolean): LiveState {
  const slideCount = poll.content.questions.length;
  const slide = slideOf(session, poll, row);
  const completed = row.completed_at !== null;
  return {
    sessionId: session.id,
    pace: 'audience',
    status: session.status,
    slideIndex: row.slide_index,
    slideCount,
    slide: slide ? participantSlide(slide) : null,
    locked: false,
    resultsVisible: false,
    slideStartedAt: slide ? reachedAt(session, row).toISOString() : null,
    answered: answered && answersOnce(slide),
    progress: completed
      ? { step: row.steps, of: row.steps }
      : { step: row.steps + 1, of: row.steps + Math.max(1, slideCount - row.slide_index) },
    completed,
  };
}

/**
 * A newcomer's place (anonymous viewers of a self-paced session are shown the walk's start): the
 * first slide, nothing passed.
 */
export function newcomerRow(session: SessionRow): ParticipantRow {
  return {
    id: '',
    session_id: session.id,
    token_hash: '',
    name: null,
    respondent_id: null,
    created_at: session.started_at ?? session.created_at,
    removed_at: null,
    slide_index: 0,
    slide_reached_at: null,
    steps: 0,
    skips: 0,
    completed_at: null,
  };
}

/** Whether the participant may see scores and correct answers yet (`showScores`). */
export function scoresShown(session: SessionRow, row: ParticipantRow): boolean {
  if (session.status === 'ended') return true;
  return session.show_scores === 'on_completion' && row.completed_at !== null;
}
