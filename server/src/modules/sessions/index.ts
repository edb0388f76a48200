/**
 * What other modules may use of sessions (the rule `modules-use-no-foreign-repository` in
 * .dependency-cruiser.cjs): the live side reads session rows and their history through these, never
 * through sessions.repository.ts itself.
 */
export type { SessionSnapshot } from './session-control.js';
export { snapshotOf, toSession } from './session-view.js';
export {
  countSessionParticipants,
  findOpenSessionByPin,
  findSessionById,
  findSessionEndedSince,
  listEventsAfter,
} from './sessions.repository.js';
