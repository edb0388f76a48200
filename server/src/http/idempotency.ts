import { createHash, randomUUID } from 'node:crypto';
import type { RouteDefinition } from '@pollkit/contracts';
import type { Kysely } from 'kysely';
import { ApiError } from '../core/api-error.js';
import type { Database } from '../db/schema.js';
import {
  claimIdempotencyKey,
  completeIdempotencyKey,
  deleteExpiredIdempotencyKeys,
  findIdempotencyKey,
  releaseIdempotencyKey,
} from '../modules/idempotency/idempotency.repository.js';

/**
 * `Idempotency-Key` on POST routes, as Stripe does it (docs/idempotency.md): the first request with a
 * key does the work and its outcome is kept for 24 hours; a retry with the same key and the same
 * request gets that outcome again without the work running twice.
 */

export const IDEMPOTENCY_KEY_HEADER = 'idempotency-key';
/** How long a completed outcome is replayed, from the first request. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/**
 * How long an in-progress claim holds the key. Requests finish in well under a second; the lease only
 * matters when a process dies mid-request, and frees the key for a retry after this long.
 */
export const IDEMPOTENCY_LEASE_MS = 60 * 1000;
/** Expired rows deleted per claim: cleanup stays a bounded, indexed statement. */
const EXPIRED_ROWS_PER_CLAIM = 100;
const MAX_KEY_LENGTH = 255;
const KEY_PATTERN = /^[\x20-\x7e]+$/;

/** Whether this route takes `Idempotency-Key`: every POST that answers JSON. */
export function takesIdempotencyKey(route: RouteDefinition): boolean {
  return route.method === 'POST' && route.format !== 'csv';
}

/** The key from its header value: 1–255 printable ASCII characters, else 400 `bad_request`. */
export function parseIdempotencyKey(header: string | string[]): string {
  const value = Array.isArray(header) ? header.join(', ') : header;
  if (value.length === 0 || value.length > MAX_KEY_LENGTH || !KEY_PATTERN.test(value)) {
    throw new ApiError(
      'bad_request',
      `The Idempotency-Key header must be 1 to ${MAX_KEY_LENGTH} printable ASCII characters (a UUID is a good choice)`,
    );
  }
  return value;
}

/** JSON with object keys sorted at every level: equal values, equal text. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value)
      .sort()
      .filter((key) => (value as Record<string, unknown>)[key] !== undefined)
      .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * SHA-256 of what makes two requests "the same": method, route template, path parameters and the
 * body, canonically (key order and whitespace do not matter). A missing body counts as `{}`, as it
 * does for the input.
 */
export function requestFingerprint(route: RouteDefinition, params: unknown, body: unknown): string {
  return createHash('sha256')
    .update(canonicalJson([route.method, route.path, params ?? {}, body ?? {}]))
    .digest('hex');
}

/** The stored outcome of the request that first used the key. */
export interface StoredResponse {
  status: number;
  body: string;
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
  request: { workspaceId: string; key: string; fingerprint: string; requestId: string },
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
  response: { status: number; body: string },
): Promise<boolean> {
  return completeIdempotencyKey(db, claim, {
    ...response,
    expiresAt: new Date(claim.claimedAt.getTime() + IDEMPOTENCY_TTL_MS),
  });
}

/** Frees the key after a failure on our side (5xx, exception), so that a retry runs the work again. */
export function releaseIdempotentRequest(db: Kysely<Database>, claim: IdempotencyClaim): Promise<void> {
  return releaseIdempotencyKey(db, claim);
}
