import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { ApiError } from '../../core/api-error.js';
import { isDependencyUnavailable } from '../../core/unavailable.js';
import type { Database } from '../../db/schema.js';
import {
  claimIdempotencyKey,
  completeIdempotencyKey,
  deleteExpiredIdempotencyKeys,
  findIdempotencyKey,
  redactRepliesAbout as redactStoredReplies,
  releaseIdempotencyKey,
  resealReplies as resealStoredReplies,
} from './idempotency.repository.js';

/**
 * `Idempotency-Key` on POST routes, as Stripe does it (docs/idempotency.md): the first request with a
 * key does the work and its outcome is kept for 24 hours; a retry with the same key and the same
 * request gets that outcome again without the work running twice. These are the key's use cases;
 * the pipeline step that applies them to a request is api/idempotency.ts.
 */

/** How long a completed outcome is replayed, from the first request. */
const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/**
 * How long an in-progress claim holds the key. Requests finish in well under a second; the lease only
 * matters when a process dies mid-request, and frees the key for a retry after this long.
 */
const IDEMPOTENCY_LEASE_MS = 60 * 1000;
/** Expired rows deleted per claim: cleanup stays a bounded, indexed statement. */
const EXPIRED_ROWS_PER_CLAIM = 100;

/** The stored outcome of the request that first used the key. */
interface StoredResponse {
  status: number;
  /** The body as stored: sealed when `sealed` (a reply carrying a secret), else the JSON as sent. */
  body: string;
  sealed: boolean;
  /** X-Request-Id of the request that did the work. */
  originalRequestId: string;
}

/** A key this request holds: it does the work, then `complete`s or `release`s the claim. */
export interface IdempotencyClaim {
  workspaceId: string;
  key: string;
  claimToken: string;
  claimedAt: Date;
}

export type IdempotencyStart =
  | { kind: 'claimed'; claim: IdempotencyClaim }
  | { kind: 'replay'; response: StoredResponse };

/**
 * Claims the key for this request, or answers what the key already holds: the stored response
 * (same request, completed), 422 `idempotency_key_reused` (a different request), 409
 * `idempotency_key_in_use` (the same key still being processed by another request).
 */
export async function startIdempotentRequest(
  db: Kysely<Database>,
  request: {
    workspaceId: string;
    /** The key in its caller's namespace (api/idempotency.ts). */
    key: string;
    fingerprint: string;
    requestId: string;
    /** The respondent the request is about, if any: erasure rewrites its reply (modules/respondents). */
    voterId: string | undefined;
  },
): Promise<IdempotencyStart> {
  const now = new Date();
  await deleteExpiredIdempotencyKeys(db, request.workspaceId, now, EXPIRED_ROWS_PER_CLAIM);
  // A row can vanish between the claim and the read (its holder failed and released it): claim again.
  for (let attempt = 0; attempt < 3; attempt++) {
    const claimedAt = new Date();
    const claim: IdempotencyClaim = {
      workspaceId: request.workspaceId,
      key: request.key,
      claimToken: randomUUID(),
      claimedAt,
    };
    const claimed = await claimIdempotencyKey(db, {
      ...claim,
      fingerprint: request.fingerprint,
      requestId: request.requestId,
      voterId: request.voterId ?? null,
      leaseUntil: new Date(claimedAt.getTime() + IDEMPOTENCY_LEASE_MS),
    });
    if (claimed) return { kind: 'claimed', claim };

    const existing = await findIdempotencyKey(db, request.workspaceId, request.key);
    if (!existing) continue;
    if (existing.fingerprint !== request.fingerprint) {
      throw new ApiError(
        'idempotency_key_reused',
        'This Idempotency-Key was already used with a different request; send a new key for a new request',
      );
    }
    if (existing.state === 'in_progress' || existing.response_status === null || existing.response_body === null) {
      throw new ApiError(
        'idempotency_key_in_use',
        'A request with this Idempotency-Key is still being processed; retry shortly',
      );
    }
    return {
      kind: 'replay',
      response: {
        status: existing.response_status,
        body: existing.response_body,
        sealed: existing.response_sealed,
        originalRequestId: existing.request_id,
      },
    };
  }
  // Three claims lost to rows that each disappeared at once: a storm of failing duplicates.
  throw new ApiError(
    'idempotency_key_in_use',
    'A request with this Idempotency-Key is still being processed; retry shortly',
  );
}

/**
 * Keeps the outcome for replay. False when this request no longer held the key (its lease ran out and
 * a retry took it over); the response is sent anyway.
 */
export function completeIdempotentRequest(
  db: Kysely<Database>,
  claim: IdempotencyClaim,
  response: { status: number; body: string; sealed: boolean },
): Promise<boolean> {
  return completeIdempotencyKey(db, claim, {
    ...response,
    expiresAt: new Date(claim.claimedAt.getTime() + IDEMPOTENCY_TTL_MS),
  });
}

/**
 * When a release that could not reach the database is tried again: soon once (a connection the
 * database dropped is replaced at once, and a client retrying gets its key back), then every second.
 */
const FIRST_RELEASE_RETRY_MS = 100;
const RELEASE_RETRY_MS = 1_000;

/**
 * Frees the key after a failure on our side (5xx, exception), so that a retry runs the work again.
 * When the failure was the database being away, the release cannot reach it either: it is tried
 * again (soon, then every second) until it can, or until the claim's lease has lapsed (the key is free then
 * anyway), so a client retrying its answer once the database is back is not told for a minute that
 * its key is still in use. Resolves once the first try is over; `onGiveUp` hears of any other failure.
 */
export async function releaseIdempotentRequest(
  db: Kysely<Database>,
  claim: IdempotencyClaim,
  onGiveUp: (error: unknown) => void,
): Promise<void> {
  const leaseEnds = claim.claimedAt.getTime() + IDEMPOTENCY_LEASE_MS;
  const release = (retryInMs: number): Promise<void> =>
    releaseIdempotencyKey(db, claim).catch((error: unknown) => {
      if (!isDependencyUnavailable(error)) return onGiveUp(error);
      if (Date.now() + retryInMs < leaseEnds) setTimeout(() => release(RELEASE_RETRY_MS), retryInMs).unref();
    });
  await release(FIRST_RELEASE_RETRY_MS);
}

/**
 * Erasure (modules/respondents), in its transaction: the workspace's stored replies of requests by or
 * about these voters rewritten by `rewrite`; how many were.
 */
export function redactRepliesAbout(
  trx: Kysely<Database>,
  workspaceId: string,
  voterIds: string[],
  rewrite: (json: string) => string,
): Promise<number> {
  return redactStoredReplies(trx, workspaceId, voterIds, rewrite);
}

/**
 * A new sealing key (modules/webhooks/secrets-key.ts), in its transaction: every sealed reply
 * resealed by `reseal` (undefined: it cannot be opened); how many were.
 */
export function resealReplies(
  trx: Kysely<Database>,
  reseal: (sealed: string, where: string) => string | undefined,
): Promise<number> {
  return resealStoredReplies(trx, reseal);
}
