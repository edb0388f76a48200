/**
 * What other modules may use of sessions, the owner of sessions, their participants and their
 * history (server/src/db/table-owners.ts): service functions and views, never a repository's (the
 * rule `modules-use-no-foreign-repository` in .dependency-cruiser.cjs, and
 * server/test/unit/table-owners.test.ts).
 */

export {
  blankParticipants,
  findParticipant,
  findParticipantsByTokenHashes,
  findRespondentParticipants,
  moveParticipant,
  type NewParticipant,
  participantsPerSlide,
  seatParticipants,
} from './participants.service.js';
export { SessionCloser } from './session-closer.js';
export type { SessionSnapshot } from './session-control.js';
export {
  countSessionParticipants,
  findOpenSessionByCode,
  findSessionById,
  findSessionEndedSince,
  listEventsAfter,
  pageSessions,
  sessionIdsOfPoll,
} from './session-lookups.service.js';
export {
  isPastClosing,
  joinCodeOf,
  type ParticipantCounts,
  snapshotOf,
  toSession,
  withoutAnswerKey,
} from './session-view.js';
export { hasQuiz, nameShower, Standings, standingsOf } from './standings.js';
