import { type Kysely, sql } from 'kysely';
import type { Database, IdempotencyKeyRow } from '../../db/schema.js';

export interface NewClaim {
  workspaceId: string;
  key: string;
  fingerprint: string;
  claimToken: string;
  requestId: string;
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
  outcome: { status: number; body: string; expiresAt: Date },
): Promise<boolean> {
  const result = await db
    .updateTable('idempotency_keys')
    .set({
      state: 'completed',
      response_status: outcome.status,
      response_body: outcome.body,
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
 * Rewrites the workspace's stored idempotent replies that name a respondent (erasure): the row stays,
 * so a retry with the same key still replays rather than acting twice, but the reply it replays no
 * longer carries the respondent. Answers the rows rewritten. Scans the workspace's replies (kept 24 h).
 */
export async function redactResponseBodies(
  db: Kysely<Database>,
  workspaceId: string,
  needles: string[],
  rewrite: (json: string) => string,
): Promise<number> {
  if (needles.length === 0) return 0;
  const rows = await db
    .selectFrom('idempotency_keys')
    .select(['key', 'response_body'])
    .where('workspace_id', '=', workspaceId)
    .where('response_body', 'is not', null)
    .where(
      sql<boolean>`(${sql.join(
        needles.map((needle) => sql`position(${needle} in response_body) > 0`),
        sql` or `,
      )})`,
    )
    .execute();
  let rewritten = 0;
  for (const row of rows) {
    if (row.response_body === null) continue;
    const body = rewrite(row.response_body);
    if (body === row.response_body) continue;
    await db
      .updateTable('idempotency_keys')
      .set({ response_body: body })
      .where('workspace_id', '=', workspaceId)
      .where('key', '=', row.key)
      .execute();
    rewritten++;
  }
  return rewritten;
}
