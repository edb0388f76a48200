import { type Kysely, sql } from 'kysely';
import type { Database } from '../../db/schema.js';

/**
 * A poll's `maxRespondents` (migration 0016): each respondent holds one seat, taken at their first
 * answer. In one transaction, the seat row first (its primary key decides who is new: a racing second
 * answer of the same respondent waits on it and finds it taken), then the count's increment, guarded
 * by the cap and re-checked by PostgreSQL on the row's latest version under its lock: two new
 * respondents racing for the last seat cannot both get it. A refused seat rolls its row back.
 *
 * Answers whether the holder has (or now took) a seat.
 */
export async function takeSeat(db: Kysely<Database>, pollId: string, cap: number, holder: string): Promise<boolean> {
  // Most answers come from respondents already seated: one index probe, no write.
  const seated = await db
    .selectFrom('respondent_seats')
    .select('holder')
    .where('poll_id', '=', pollId)
    .where('holder', '=', holder)
    .executeTakeFirst();
  if (seated) return true;
  return db
    .transaction()
    .execute(async (trx) => {
      const inserted = await trx
        .insertInto('respondent_seats')
        .values({ poll_id: pollId, holder })
        .onConflict((oc) => oc.doNothing())
        .returning('holder')
        .executeTakeFirst();
      if (!inserted) return true;
      const counted = await sql<{ taken: number }>`
      insert into poll_seat_counts (poll_id, taken) values (${pollId}, 1)
      on conflict (poll_id) do update set taken = poll_seat_counts.taken + 1
      where poll_seat_counts.taken < ${cap}
      returning taken`.execute(trx);
      if (counted.rows.length === 0) {
        // Rolls the seat row back with the transaction.
        throw new SeatRefused();
      }
      return true;
    })
    .catch((error: unknown) => {
      if (error instanceof SeatRefused) return false;
      throw error;
    });
}

class SeatRefused extends Error {}

/** Every seat of a poll goes with its answers (`DELETE /polls/{id}/answers`), in the caller's transaction. */
export async function clearSeats(trx: Kysely<Database>, pollId: string): Promise<void> {
  await trx.deleteFrom('respondent_seats').where('poll_id', '=', pollId).execute();
  await trx.deleteFrom('poll_seat_counts').where('poll_id', '=', pollId).execute();
}

/**
 * An erased respondent's seats in `pollIds` (the holder is their id: personal data), each giving its
 * place back. The caller holds those polls' rows locked.
 */
export async function releaseSeats(
  trx: Kysely<Database>,
  pollIds: readonly string[],
  holders: readonly string[],
): Promise<void> {
  if (holders.length === 0 || pollIds.length === 0) return;
  const released = await trx
    .deleteFrom('respondent_seats')
    .where('poll_id', 'in', pollIds)
    .where('holder', 'in', holders)
    .returning('poll_id')
    .execute();
  for (const { poll_id } of released) {
    await trx
      .updateTable('poll_seat_counts')
      .set((eb) => ({ taken: eb('taken', '-', 1) }))
      .where('poll_id', '=', poll_id)
      .execute();
  }
}
