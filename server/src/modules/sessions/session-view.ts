import type { Session } from '@pollkit/contracts';
import type { SessionRow } from '../../db/schema.js';

/** The session as the API answers it. */
export function toSession(
  row: SessionRow,
  facts: { slideCount: number; participantCount: number; joinUrl: string },
): Session {
  return {
    id: row.id,
    pollId: row.poll_id,
    pin: row.pin,
    status: row.status,
    currentSlideIndex: row.current_slide_index,
    slideCount: facts.slideCount,
    resultsVisible: row.results_visible,
    locked: row.locked,
    slideStartedAt: row.slide_started_at?.toISOString() ?? null,
    joinUrl: facts.joinUrl,
    participantCount: facts.participantCount,
    maxParticipants: row.max_participants,
    joinsLocked: row.joins_locked,
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
