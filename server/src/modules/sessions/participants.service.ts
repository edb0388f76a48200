import type { Kysely } from 'kysely';
import type { Database, ParticipantRow } from '../../db/schema.js';
import * as participants from './participants.repository.js';

/**
 * A session's participants as other modules use them (exported by index.ts): the live side seats
 * them, finds them by token and walks them through a self-paced deck; erasure (modules/respondents)
 * finds a respondent's and blanks them in its transaction.
 */

type Db = Kysely<Database>;

export type { NewParticipant } from './participants.repository.js';

/**
 * Seats newcomers where their sessions have room, all in one statement; answers the rows inserted
 * (a newcomer missing from them found no seat).
 */
export function seatParticipants(db: Db, newcomers: readonly participants.NewParticipant[]): Promise<ParticipantRow[]> {
  return participants.insertParticipants(db, newcomers);
}

/** The participants these tokens name (by their hashes), unless the host removed them. */
export function findParticipantsByTokenHashes(db: Db, tokenHashes: readonly string[]): Promise<ParticipantRow[]> {
  return participants.findParticipantsByTokenHashes(db, tokenHashes);
}

/** The participant's row as stored now. */
export function findParticipant(db: Db, id: string): Promise<ParticipantRow | undefined> {
  return participants.findParticipant(db, id);
}

/** Moves a self-paced participant from slide `from` to `to` (undefined: past the end), once; undefined when it had moved. */
export function moveParticipant(
  db: Db,
  move: { id: string; from: number; to: number | undefined; skipped: boolean; at: Date },
): Promise<ParticipantRow | undefined> {
  return participants.moveParticipant(db, move);
}

/** A self-paced session's participants per slide (those walking it). */
export function participantsPerSlide(db: Db, sessionId: string): Promise<Map<number, number>> {
  return participants.participantsPerSlide(db, sessionId);
}

/** The workspace's participants a respondent's key names (its participant id, or its respondentId). */
export function findRespondentParticipants(
  db: Db,
  workspaceId: string,
  key: string,
  options: { afterId?: string; limit?: number; forUpdate?: boolean } = {},
): Promise<participants.RespondentParticipantRow[]> {
  return participants.findRespondentParticipants(db, workspaceId, key, options);
}

/** Erasure, in its transaction: the participants blanked and marked removed; the rows it changed. */
export function blankParticipants(trx: Db, ids: string[]): Promise<ParticipantRow[]> {
  return participants.blankParticipants(trx, ids);
}
