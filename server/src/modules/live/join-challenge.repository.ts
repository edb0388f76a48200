import { type Kysely, sql } from 'kysely';
import { preparedStatement } from '../../db/prepared.js';
import type { Database } from '../../db/schema.js';

/** Expired challenges each spend clears: more than it adds, so the table holds about their lifetime of joins. */
const PURGED_PER_SPEND = 16;

/**
 * Records a join challenge as used until it expires, in one statement that also clears a few
 * expired ones. True when it was not used before: the primary key decides, so two joins racing with
 * one solution cannot both get in, on one process or several.
 */
export async function spendChallenge(
  db: Kysely<Database>,
  challenge: string,
  expiresAt: Date,
  now: Date,
): Promise<boolean> {
  // A prepared statement (db/prepared.ts), as the join's own insert is: run once per join.
  const { rows } = await sql<{ challenge: string }>`${sql.raw(SPEND_CHALLENGE)}
    with purged as (
      delete from spent_join_challenges
      where challenge in (
        select challenge from spent_join_challenges where expires_at <= ${now}::timestamptz
        limit ${sql.lit(PURGED_PER_SPEND)}
      )
    )
    insert into spent_join_challenges (challenge, expires_at)
    values (${challenge}::text, ${expiresAt}::timestamptz)
    on conflict (challenge) do nothing
    returning challenge`.execute(db);
  return rows.length === 1;
}

const SPEND_CHALLENGE = preparedStatement('spend_join_challenge');
