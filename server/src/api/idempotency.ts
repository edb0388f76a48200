import { createHash } from 'node:crypto';
import { errorCodes, type RouteDefinition } from '@pollkit/contracts';
import type { Kysely } from 'kysely';
import { ApiError, toApiError } from '../core/api-error.js';
import type { Database } from '../db/schema.js';
import {
  completeIdempotentRequest,
  releaseIdempotentRequest,
  startIdempotentRequest,
} from '../modules/idempotency/idempotency.service.js';
import type { ApiCall, Step } from './call.js';

const MAX_KEY_LENGTH = 255;
const KEY_PATTERN = /^[\x20-\x7e]+$/;

/** Whether this route takes `Idempotency-Key`: every POST that answers JSON. */
export function takesIdempotencyKey(route: RouteDefinition): boolean {
  return route.method === 'POST' && (route.format ?? 'json') === 'json';
}

/**
 * A POST carrying `Idempotency-Key` (docs/idempotency.md). It runs after the gate, so the key
 * belongs to the caller's workspace and a request refused at the gate (401/429/402/403) leaves no
 * trace. The key is claimed, or answered from what it holds; only a claimed request runs the steps
 * after this one. 2xx and 4xx outcomes are kept for replay; a 5xx, a 429 or an exception releases
 * the key so that a retry runs again. Without the header the step only passes the call on.
 */
export function idempotencyStep(deps: { db: Kysely<Database> }): Step {
  return async (call, next) => {
    const { request, route } = call;
    if (request.idempotencyKey === undefined) return next(call);
    const owner = keyOwner(call);
    // A join has no participant yet: there is nobody to keep the key for.
    if (owner === undefined) return next(call);
    const key = parseIdempotencyKey(request.idempotencyKey);
    const start = await startIdempotentRequest(deps.db, {
      workspaceId: owner.workspaceId,
      key: `${owner.namespace}${key}`,
      fingerprint: requestFingerprint(route, request.params, request.body),
      requestId: request.id,
    });
    if (start.kind === 'replay') {
      const { status, body, originalRequestId } = start.response;
      return { kind: 'serialized', status, text: body, replayOf: originalRequestId };
    }

    const { claim } = start;
    let stored: { status: number; body: string };
    let failure: unknown;
    try {
      const outcome = await next(call);
      if (outcome.kind !== 'json') return outcome;
      stored = { status: outcome.status, body: outcome.text ?? JSON.stringify(outcome.body) ?? '' };
    } catch (error) {
      const apiError = toApiError(error);
      // An answer that says to retry — a 5xx, or a limit the operation itself counts (drafting skip
      // logic, per workspace) — is no outcome to replay: the retry must run again once it may.
      if (errorCodes[apiError.code].retry !== 'no') {
        await releaseIdempotentRequest(deps.db, claim, (releaseError: unknown) =>
          request.log.error({ err: releaseError }, 'could not release an idempotency key'),
        );
        throw error;
      }
      // A client error is an outcome too: the same request with the same key gets it again.
      stored = { status: apiError.status, body: JSON.stringify(apiError.toEnvelope()) };
      failure = apiError;
    }
    // The work is done: whatever happens to the bookkeeping, the client gets its answer.
    try {
      const kept = await completeIdempotentRequest(deps.db, claim, stored);
      if (!kept) request.log.warn({ path: route.path }, 'idempotency claim was taken over before completion');
    } catch (error) {
      request.log.error({ err: error }, 'could not store an idempotent response');
    }
    if (failure) throw failure;
    return { kind: 'serialized', status: stored.status, text: stored.body };
  };
}

/**
 * Whose key it is: the workspace's (a workspace credential, or a host token, which acts for the
 * session's workspace), or one participant's, kept apart from every other participant's.
 */
function keyOwner(call: ApiCall): { workspaceId: string; namespace: string } | undefined {
  if (call.credential) return { workspaceId: call.credential.workspaceId, namespace: '' };
  if (call.host) return { workspaceId: call.host.workspaceId, namespace: '' };
  const participant = call.live?.participant;
  if (participant && call.live) return { workspaceId: call.live.session.workspace_id, namespace: `${participant.id}/` };
  return undefined;
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
