import type { Slide } from '@pollkit/contracts';
import type { Kysely } from 'kysely';
import type { AnswerRow, Database } from '../../db/schema.js';
import { type RemovedAnswers, removeAnswers } from './answer-removal.repository.js';
import { removeUpvotes } from './respondent-answers.repository.js';
import { releaseSeats } from './respondent-seats.repository.js';

/**
 * Erasing a respondent's answers (modules/respondents, exported by index.ts), each step in the
 * erasure's transaction (`trx`), whose caller holds the answers' polls FOR UPDATE.
 */

type Db = Kysely<Database>;

/** Removes the answers with exactly what each added to every aggregate; counts them by sort. */
export function eraseAnswers(
  trx: Db,
  rows: AnswerRow[],
  slideOf: (row: AnswerRow) => Slide | undefined,
): Promise<RemovedAnswers> {
  return removeAnswers(trx, rows, slideOf);
}

/** The respondent's seats in these polls (their holders name them), each giving its place back. */
export function eraseSeats(trx: Db, pollIds: readonly string[], holders: readonly string[]): Promise<void> {
  return releaseSeats(trx, pollIds, holders);
}

/** The voters' upvotes on the workspace's questions, each taken out of its question's count; how many. */
export function eraseUpvotes(trx: Db, workspaceId: string, voterIds: string[]): Promise<number> {
  return removeUpvotes(trx, workspaceId, voterIds);
}
