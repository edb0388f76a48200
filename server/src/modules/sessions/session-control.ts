import { type SessionAction, sharedSlideActions } from '@pollkit/contracts';
import { ApiError, invalidField, invalidInput } from '../../core/api-error.js';
import type { SessionRow } from '../../db/schema.js';
import type { SessionChanges } from './sessions.repository.js';

/**
 * A session's state as of one event of its history: what the event says happened. Streams build
 * what they send from it, so a replayed event says what it said the first time.
 */
export interface SessionSnapshot {
  action: SessionAction;
  status: SessionRow['status'];
  slideIndex: number;
  resultsVisible: boolean;
  locked: boolean;
  /** ISO time the current slide went live (null before start). */
  slideStartedAt: string | null;
}

/**
 * The state machine of docs/live-sessions.md ("2. Session states and control actions"): `pending` -start-> `active` -end-> `ended` (`end` also from
 * `pending`). A self-paced session takes only `start` and `end`: nothing else is shared. Moving to a slide shows it unlocked with its results hidden and restarts its clock.
 * An action the state does not allow is 409 `invalid_session_state`; a move outside the deck is 422.
 */
export function decideControl(
  session: SessionRow,
  slideCount: number,
  action: SessionAction,
  slideIndex: number | undefined,
  now: Date,
): { changes: SessionChanges; snapshot: SessionSnapshot } {
  const wrongState = () =>
    new ApiError(
      'invalid_session_state',
      session.status === 'ended'
        ? 'The session has ended; it takes no more actions'
        : `\`${action}\` does not apply to ${session.status === 'active' ? 'an active' : 'a pending'} session`,
      { status: session.status, action },
    );
  if (session.status === 'ended') throw wrongState();
  if (session.status === 'pending' && action !== 'start' && action !== 'end') throw wrongState();
  if (session.status === 'active' && action === 'start') throw wrongState();
  if (session.pace === 'audience' && (sharedSlideActions as readonly string[]).includes(action)) {
    throw new ApiError(
      'invalid_session_state',
      `\`${action}\` does not apply to a self-paced session: each participant moves through the deck on their own`,
      { status: session.status, action, pace: session.pace },
    );
  }

  const moveTo = (index: number): SessionChanges => ({
    current_slide_index: index,
    results_visible: false,
    locked: false,
    slide_started_at: now,
  });
  const last = slideCount - 1;
  let changes: SessionChanges;
  switch (action) {
    case 'start':
      if (slideCount === 0) throw invalidInput('The poll has no slides to present');
      changes = { ...moveTo(0), status: 'active', started_at: now };
      break;
    case 'next':
      if (session.current_slide_index >= last) {
        throw invalidField('action', `Already on the last slide (index ${last}); \`next\` goes no further`);
      }
      changes = moveTo(session.current_slide_index + 1);
      break;
    case 'prev':
      if (session.current_slide_index <= 0) {
        throw invalidField('action', 'Already on the first slide (index 0); `prev` goes no further back');
      }
      changes = moveTo(session.current_slide_index - 1);
      break;
    case 'goto':
      if (slideIndex === undefined || slideIndex > last) {
        throw invalidField('slideIndex', `Must be between 0 and ${last}, the deck's last slide`);
      }
      changes = moveTo(slideIndex);
      break;
    case 'showResults':
      changes = { results_visible: true };
      break;
    case 'hideResults':
      changes = { results_visible: false };
      break;
    case 'lock':
      changes = { locked: true };
      break;
    case 'unlock':
      changes = { locked: false };
      break;
    case 'end':
      changes = { status: 'ended', ended_at: now };
      break;
  }
  const next: SessionRow = { ...session, ...changes };
  return {
    changes,
    snapshot: {
      action,
      status: next.status,
      slideIndex: next.current_slide_index,
      resultsVisible: next.results_visible,
      locked: next.locked,
      slideStartedAt: next.slide_started_at ? next.slide_started_at.toISOString() : null,
    },
  };
}
