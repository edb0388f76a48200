import { type Kysely, sql } from 'kysely';

/**
 * `GET /polls/{id}/votes` and `/responses` filter by `sessionId` (issue 28): a page of one session's
 * answers, newest first, read from this index rather than by walking the poll's answers of every
 * session. Partial: answers sent through the API (no session) are not in it.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`CREATE INDEX answers_poll_session_idx ON answers (poll_id, session_id, kind, id) WHERE session_id IS NOT NULL`.execute(
    db,
  );
}
