/**
 * What other modules may use of sessions (the rule `modules-use-no-foreign-repository` in
 * .dependency-cruiser.cjs): the live side reads session rows and their history through these, never
 * through sessions.repository.ts itself.
 */

export { SessionCloser } from './session-closer.js';
export type { SessionSnapshot } from './session-control.js';
export {
  isPastClosing,
  joinCodeOf,
  type ParticipantCounts,
  snapshotOf,
  toSession,
  withoutAnswerKey,
} from './session-view.js';
export {
  countSessionParticipants,
  findOpenSessionByCode,
  findSessionById,
  findSessionEndedSince,
  isLinkId,
  listEventsAfter,
} from './sessions.repository.js';
export { hasQuiz, nameShower, Standings, standingsOf } from './standings.js';
