import type { ParticipantSlide, Session, Slide } from '@pollkit/contracts';
import type { SessionRow } from '../../db/schema.js';

/** Participants of a session: who joined (removed ones included), and who completed a self-paced walk. */
export interface ParticipantCounts {
  joined: number;
  completed: number;
}

/**
 * What a session's join URL carries: a self-paced session's link id (it joins without the PIN, and
 * such a session may have no PIN), otherwise its PIN. Every session has one or the other.
 */
export function joinCodeOf(row: Pick<SessionRow, 'pin' | 'link_id'>): string {
  return row.link_id ?? row.pin ?? '';
}

/**
 * Whether the session's closing time has come (`now`: the deps clock). Past it the session is over
 * for answers, joins and changes, even in the moments before the closer ends it (session-closer.ts).
 */
export function isPastClosing(row: Pick<SessionRow, 'closes_at'>, now: number): boolean {
  return row.closes_at !== null && row.closes_at.getTime() <= now;
}

/** The session as the API answers it. */
export function toSession(
  row: SessionRow,
  facts: { slideCount: number; counts: ParticipantCounts; joinUrl: string },
): Session {
  const selfPaced = row.pace === 'audience';
  return {
    id: row.id,
    pollId: row.poll_id,
    pin: row.pin,
    pace: row.pace,
    status: row.status,
    currentSlideIndex: row.current_slide_index,
    slideCount: facts.slideCount,
    resultsVisible: row.results_visible,
    locked: row.locked,
    slideStartedAt: row.slide_started_at?.toISOString() ?? null,
    joinUrl: facts.joinUrl,
    participantCount: facts.counts.joined,
    completedCount: selfPaced ? facts.counts.completed : 0,
    showScores: selfPaced ? (row.show_scores ?? 'at_end') : null,
    closesAt: row.closes_at?.toISOString() ?? null,
    maxParticipants: row.max_participants,
    joinsLocked: row.joins_locked,
    language: row.language,
    themeId: row.theme_id,
    joinChallenge: row.join_challenge,
    createdAt: row.created_at.toISOString(),
    startedAt: row.started_at?.toISOString() ?? null,
    endedAt: row.ended_at?.toISOString() ?? null,
  };
}

/** The snapshot of a session's current state (as a history event would record it). */
export function snapshotOf(row: SessionRow) {
  return {
    status: row.status,
    slideIndex: row.current_slide_index,
    resultsVisible: row.results_visible,
    locked: row.locked,
    slideStartedAt: row.slide_started_at?.toISOString() ?? null,
  };
}

/**
 * A slide without what would give its answer away: a quiz's `correctOptionIds`. What a participant
 * is shown (live/live-views.ts), and a deck read without `polls:read` (sessions.service.ts).
 */
export function withoutAnswerKey(slide: Slide): ParticipantSlide {
  if (slide.kind !== 'quiz') return slide;
  const { correctOptionIds: _hidden, ...rest } = slide;
  return rest;
}
