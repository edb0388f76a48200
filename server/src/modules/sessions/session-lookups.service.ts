import type { Kysely } from 'kysely';
import type { Database, SessionEventRow, SessionRow } from '../../db/schema.js';
import type { ParticipantCounts } from './session-view.js';
import * as sessions from './sessions.repository.js';

/**
 * The session rows and history other modules read (exported by index.ts): the live side resolves
 * join codes and replays events; a poll's reset and the pages' read model use the sessions of a
 * poll and of a page as subqueries.
 */

type Db = Kysely<Database>;

export function findSessionById(db: Db, id: string): Promise<SessionRow | undefined> {
  return sessions.findSessionById(db, id);
}

/** The session a join code (a PIN or a link id) names now. */
export function findOpenSessionByCode(db: Db, code: string): Promise<SessionRow | undefined> {
  return sessions.findOpenSessionByCode(db, code);
}

/** The session with this join code that ended last, if it ended after `since`. */
export function findSessionEndedSince(db: Db, code: string, since: Date): Promise<SessionRow | undefined> {
  return sessions.findSessionEndedSince(db, code, since);
}

/** The session's history after event `afterSeq`, oldest first. */
export function listEventsAfter(db: Db, sessionId: string, afterSeq: number): Promise<SessionEventRow[]> {
  return sessions.listEventsAfter(db, sessionId, afterSeq);
}

/** Participants of the session: who joined, who completed. */
export function countSessionParticipants(db: Db, sessionId: string): Promise<ParticipantCounts> {
  return sessions.countSessionParticipants(db, sessionId);
}

/** The ids of the poll's sessions, as a subquery of the caller's statement (a poll's answers reset). */
export function sessionIdsOfPoll(db: Db, pollId: string) {
  return sessions.sessionIdsOfPoll(db, pollId);
}

/** What a page reads of its session, as a subquery the pages' read model joins. */
export function pageSessions(db: Db) {
  return sessions.pageSessions(db);
}
