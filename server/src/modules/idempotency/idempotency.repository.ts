import type { Kysely } from 'kysely';
import type { Database, IdempotencyKeyRow } from '../../db/schema.js';

export interface NewClaim {
  workspaceId: string;
  key: string;
  fingerprint: string;
  claimToken: string;
  requestId: string;
  /** The respondent the request is about (erasure's lookup), or null. */
  voterId: string | null;
  claimedAt: Date;
  /** The end of the in-progress lease. */
  leaseUntil: Date;
}

/**
 * Claims `(workspace, key)` in one statement: inserts an in-progress row, or takes over a row whose
 * time is up (an expired response, or the lease of a request that never finished) — an expired key
 * is treated as absent. Returns whether this request now holds the claim; two racing requests cannot
 * both win, the database serialises them on the primary key.
 */
export async function claimIdempotencyKey(db: Kysely<Database>, claim: NewClaim): Promise<boolean> {
  const row = await db
    .insertInto('idempotency_keys')
    .values({
      workspace_id: claim.workspaceId,
      key: claim.key,
      fingerprint: claim.fingerprint,
      state: 'in_progress',
      claim_token: claim.claimToken,
      request_id: claim.requestId,
      response_status: null,
      response_body: null,
      response_sealed: false,
      voter_id: claim.voterId,
      created_at: claim.claimedAt,
      expires_at: claim.leaseUntil,
    })
    .onConflict((conflict) =>
      conflict
        .columns(['workspace_id', 'key'])
        .doUpdateSet((eb) => ({
          fingerprint: eb.ref('excluded.fingerprint'),
          state: 'in_progress',
          claim_token: eb.ref('excluded.claim_token'),
          request_id: eb.ref('excluded.request_id'),
          response_status: null,
          response_body: null,
          response_sealed: false,
          voter_id: eb.ref('excluded.voter_id'),
          created_at: eb.ref('excluded.created_at'),
          expires_at: eb.ref('excluded.expires_at'),
        }))
        .where('idempotency_keys.expires_at', '<=', claim.claimedAt),
    )
    .returning('claim_token')
    .executeTakeFirst();
  return row?.claim_token === claim.claimToken;
}

export function findIdempotencyKey(
  db: Kysely<Database>,
  workspaceId: string,
  key: string,
): Promise<IdempotencyKeyRow | undefined> {
  return db
    .selectFrom('idempotency_keys')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('key', '=', key)
    .executeTakeFirst();
}

/** Stores the outcome under the claim this request holds; false when it no longer holds it. */
export async function completeIdempotencyKey(
  db: Kysely<Database>,
  claim: { workspaceId: string; key: string; claimToken: string },
  outcome: { status: number; body: string; sealed: boolean; expiresAt: Date },
): Promise<boolean> {
  const result = await db
    .updateTable('idempotency_keys')
    .set({
      state: 'completed',
      response_status: outcome.status,
      response_body: outcome.body,
      response_sealed: outcome.sealed,
      expires_at: outcome.expiresAt,
    })
    .where('workspace_id', '=', claim.workspaceId)
    .where('key', '=', claim.key)
    .where('claim_token', '=', claim.claimToken)
    .where('state', '=', 'in_progress')
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Gives the claim up (the work failed on our side), so that a retry runs again. */
export async function releaseIdempotencyKey(
  db: Kysely<Database>,
  claim: { workspaceId: string; key: string; claimToken: string },
): Promise<void> {
  await db
    .deleteFrom('idempotency_keys')
    .where('workspace_id', '=', claim.workspaceId)
    .where('key', '=', claim.key)
    .where('claim_token', '=', claim.claimToken)
    .where('state', '=', 'in_progress')
    .execute();
}

/** Deletes at most `limit` expired rows of one workspace (indexed on workspace_id, expires_at). */
export async function deleteExpiredIdempotencyKeys(
  db: Kysely<Database>,
  workspaceId: string,
  now: Date,
  limit: number,
): Promise<void> {
  await db
    .deleteFrom('idempotency_keys')
    .where('workspace_id', '=', workspaceId)
    .where('key', 'in', (eb) =>
      eb
        .selectFrom('idempotency_keys')
        .select('key')
        .where('workspace_id', '=', workspaceId)
        .where('expires_at', '<=', now)
        .limit(limit),
    )
    .where('expires_at', '<=', now)
    .execute();
}

/**
 * Rewrites the replies of the requests this respondent made, or that were made about them (a
 * participant's own requests, an API request whose body named them as `voterId`): the row stays, so a
 * retry with the same key still replays rather than acting twice, but the reply it replays no longer
 * carries the respondent. Nobody else's reply is read (idempotency_keys_voter_idx); a sealed reply
 * (a key's, a webhook's or a session's: about no respondent) is left alone. The row's `voter_id` is
 * cleared with it. Answers the rows rewritten.
 */
export async function redactRepliesAbout(
  db: Kysely<Database>,
  workspaceId: string,
  voterIds: string[],
  rewrite: (json: string) => string,
): Promise<number> {
  if (voterIds.length === 0) return 0;
  const rows = await db
    .selectFrom('idempotency_keys')
    .select(['key', 'response_body', 'response_sealed'])
    .where('workspace_id', '=', workspaceId)
    .where('voter_id', 'in', voterIds)
    // A request still running is recorded after the erasure (as its answer is): erasing again finds it.
    .where('state', '=', 'completed')
    .execute();
  let rewritten = 0;
  for (const row of rows) {
    const body = row.response_body === null || row.response_sealed ? row.response_body : rewrite(row.response_body);
    await db
      .updateTable('idempotency_keys')
      .set({ response_body: body, voter_id: null })
      .where('workspace_id', '=', workspaceId)
      .where('key', '=', row.key)
      .execute();
    if (body !== row.response_body) rewritten++;
  }
  return rewritten;
}

/**
 * Seals every sealed reply again with `reseal` (the webhook secrets' key moving to
 * WEBHOOK_SECRETS_KEY: modules/webhooks/secrets-key.ts), in the caller's transaction. `reseal`
 * answers undefined for a reply already sealed under the new key, and throws for one it cannot open.
 * Answers the replies re-sealed.
 */
export async function resealReplies(
  trx: Kysely<Database>,
  reseal: (sealed: string, where: string) => string | undefined,
): Promise<number> {
  const rows = await trx
    .selectFrom('idempotency_keys')
    .select(['workspace_id', 'key', 'response_body'])
    .where('response_sealed', '=', true)
    .where('response_body', 'is not', null)
    .orderBy('workspace_id')
    .orderBy('key')
    .forUpdate()
    .execute();
  let resealed = 0;
  for (const row of rows) {
    const body = reseal(row.response_body as string, `an idempotent reply of ${row.workspace_id}`);
    if (body === undefined) continue;
    await trx
      .updateTable('idempotency_keys')
      .set({ response_body: body })
      .where('workspace_id', '=', row.workspace_id)
      .where('key', '=', row.key)
      .execute();
    resealed++;
  }
  return resealed;
}
