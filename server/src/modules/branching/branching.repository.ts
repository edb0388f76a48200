import type { Kysely } from 'kysely';
import type { AnswerValue, Database } from '../../db/schema.js';

/**
 * A respondent's answer to one slide (the first, for a Q&A slide that has several), by the
 * (poll_id, slide_id, voter_id) uniqueness the answer writer keeps; undefined when there is none.
 */
export async function findVoterAnswer(
  db: Kysely<Database>,
  pollId: string,
  slideId: string,
  voterId: string,
): Promise<AnswerValue | undefined> {
  const row = await db
    .selectFrom('answers')
    .select('value')
    .where('poll_id', '=', pollId)
    .where('slide_id', '=', slideId)
    .where('voter_id', '=', voterId)
    .orderBy('id')
    .limit(1)
    .executeTakeFirst();
  return row?.value;
}
