import type { LeaderboardEntry, LiveState, ParticipantSlide, Poll, Slide } from '@pollkit/contracts';
import type { z } from 'zod';
import { type HeldScopes, holdsScope } from '../credentials/credential-scopes.js';
import { type SessionSnapshot, withoutAnswerKey } from '../sessions/index.js';

type Entry = z.output<typeof LeaderboardEntry>;

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

/**
 * Ranks of every participant, highest score first; equal scores share a rank ("1, 2, 2, 4"). Ties
 * are listed by join order (ids sort by creation time).
 */
export class Standings {
  readonly top: Entry[];
  readonly #byId = new Map<string, Entry>();

  constructor(scores: ReadonlyArray<{ id: string; name: string | null; score: number }>, topSize = 10) {
    const sorted = [...scores].sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1));
    let rank = 0;
    let previous: number | undefined;
    sorted.forEach((participant, index) => {
      if (participant.score !== previous) rank = index + 1;
      previous = participant.score;
      this.#byId.set(participant.id, {
        rank,
        participantId: participant.id,
        name: participant.name,
        score: participant.score,
      });
    });
    this.top = sorted.slice(0, topSize).map((participant) => this.#byId.get(participant.id) as Entry);
  }

  of(participantId: string | undefined): Entry | null {
    return participantId === undefined ? null : (this.#byId.get(participantId) ?? null);
  }
}
