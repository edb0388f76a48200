import type { LiveState, ParticipantSlide, Poll, Slide } from '@pollkit/contracts';
import { type HeldScopes, holdsScope } from '../credentials/credential-scopes.js';
import { type SessionSnapshot, withoutAnswerKey } from '../sessions/index.js';

/** Removes from a slide what would give its answer away: a quiz's `correctOptionIds`. */
export const participantSlide: (slide: Slide) => ParticipantSlide = withoutAnswerKey;

/**
 * What a presenter stream carries, by the scopes of its caller (a workspace credential's, or those
 * its host token carries):
 * - `full`: everything (`responses:read` and `polls:read`, as every stream before scopes mattered);
 * - `unkeyed`: counts, progress, results and the summary, quiz results without their answer key
 *   (`responses:read` without `polls:read`);
 * - `moves`: the `session` events alone — status, slide, results shown, locks (no `responses:read`:
 *   counts, results and Q&A are the audience's answers).
 */
export type PresenterView = 'full' | 'unkeyed' | 'moves';

export function presenterView(scopes: HeldScopes): PresenterView {
  if (!holdsScope(scopes, 'responses:read')) return 'moves';
  return holdsScope(scopes, 'polls:read') ? 'full' : 'unkeyed';
}

/** Whether "already answered" applies: Q&A takes many questions, content takes none. */
export function answersOnce(slide: Slide | undefined): boolean {
  return slide !== undefined && slide.kind !== 'qa' && slide.kind !== 'content';
}

export function currentSlide(poll: Poll, snapshot: Pick<SessionSnapshot, 'status' | 'slideIndex'>): Slide | undefined {
  if (snapshot.status === 'pending') return undefined;
  return poll.content.questions[snapshot.slideIndex];
}

/** What a participant sees, as of a snapshot of the session. */
export function liveState(sessionId: string, poll: Poll, snapshot: SessionSnapshot, answered: boolean): LiveState {
  const slide = currentSlide(poll, snapshot);
  return {
    sessionId,
    status: snapshot.status,
    slideIndex: snapshot.slideIndex,
    slideCount: poll.content.questions.length,
    slide: slide ? participantSlide(slide) : null,
    locked: snapshot.locked,
    resultsVisible: snapshot.resultsVisible,
    slideStartedAt: snapshot.slideStartedAt,
    answered: answered && answersOnce(slide),
    pace: 'presenter',
    progress: null,
    completed: false,
  };
}

/** Points for a quiz answer (docs/live-sessions.md, "6. Quiz play"): all or nothing, less up to half for slow answers. */
export function quizPoints(slide: Extract<Slide, { kind: 'quiz' }>, optionIds: readonly string[], elapsedMs: number) {
  const chosen = new Set(optionIds);
  const correct = chosen.size === slide.correctOptionIds.length && slide.correctOptionIds.every((id) => chosen.has(id));
  if (!correct) return 0;
  if (!slide.speedBonus) return slide.points;
  const fraction = Math.min(1, Math.max(0, elapsedMs / (slide.timeLimitSec * 1000)));
  return Math.round(slide.points * (1 - fraction / 2));
}
