import { createHash } from 'node:crypto';
import { contract, errorCodes, type RouteDefinition } from '@pollkit/contracts';
import type { Kysely } from 'kysely';
import { ApiError, toApiError } from '../core/api-error.js';
import type { SecretSealer } from '../core/sealed-secrets.js';
import { hashSecret } from '../core/secrets.js';
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
 * The routes whose reply carries a secret: a key's `secret`, a webhook signing secret, a host token.
 * Their stored reply is sealed (core/sealed-secrets.ts) and opened only to replay it to the
 * credential that sent the request. server/test/api/idempotency-secrets.test.ts fails when a POST route's
 * output names a secret or a token and is missing here.
 */
export const SECRET_BEARING_ROUTES: ReadonlySet<RouteDefinition> = new Set<RouteDefinition>([
  contract.keys.create,
  contract.keys.rotate,
  contract.webhooks.create,
  contract.webhooks.rotateSecret,
  contract.sessions.create,
  contract.sessions.rotateHostToken,
]);

/**
 * A POST carrying `Idempotency-Key` (docs/idempotency.md). It runs after the gate, so the key
 * belongs to the caller — its credential, its host token or its participant token — and a request
 * refused at the gate (401/429/402/403) leaves no trace. The key is claimed, or answered from what it
 * holds; only a claimed request runs the steps after this one. 2xx and 4xx outcomes are kept for
 * replay; a 5xx, a 429 or an exception releases the key so that a retry runs again. Without the
 * header the step only passes the call on.
 *
 * Keys are namespaced per caller: the same key from another credential is another request, which
 * runs on its own (and is refused, or not, by its own gate and handler) — a replay never hands one
 * credential what another's request made. A reply carrying a secret is stored sealed.
 */
export function idempotencyStep(deps: { db: Kysely<Database>; secretSealer: SecretSealer }): Step {
  return async (call, next) => {
    const { request, route } = call;
    if (request.idempotencyKey === undefined) return next(call);
    const owner = keyOwner(call);
    // A join has no participant yet: there is nobody to keep the key for.
    if (owner === undefined) return next(call);
    const key = parseIdempotencyKey(request.idempotencyKey);
    const sealed = SECRET_BEARING_ROUTES.has(route);
    const start = await startIdempotentRequest(deps.db, {
      workspaceId: owner.workspaceId,
      key: `${owner.namespace}/${key}`,
      fingerprint: requestFingerprint(route, request.params, request.body),
      requestId: request.id,
      voterId: owner.voterId ?? voterIdOf(request.body),
    });
    if (start.kind === 'replay') {
      const { status, body, sealed: wasSealed, originalRequestId } = start.response;
      return {
        kind: 'serialized',
        status,
        text: wasSealed ? deps.secretSealer.open(body) : body,
        replayOf: originalRequestId,
      };
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
      // Only a success carries the secret; an error envelope of these routes is kept as it is.
      const seal = sealed && stored.status < 300;
      const kept = await completeIdempotentRequest(deps.db, claim, {
        status: stored.status,
        body: seal ? deps.secretSealer.seal(stored.body) : stored.body,
        sealed: seal,
      });
      if (!kept) request.log.warn({ path: route.path }, 'idempotency claim was taken over before completion');
    } catch (error) {
      request.log.error({ err: error }, 'could not store an idempotent response');
    }
    if (failure) throw failure;
    return { kind: 'serialized', status: stored.status, text: stored.body };
  };
}

/**
 * Whose key it is, as the namespace its keys live in:
 * - an API key: `api_key:<key id>` (a rotated key is a new credential, with keys of its own);
 * - an OAuth token: `oauth:<client id>:<its scopes>` — every token of one client with the same
 *   scopes shares the keys (a retry with a fresh token still replays), but a narrower token of the
 *   same client cannot replay what a wider one made;
 * - a host token: `host:<session id>:<its hash's first 16 hex digits>`, that token alone;
 * - a participant: `participant:<participant id>`, which is also the respondent it is about.
 */
function keyOwner(call: ApiCall): { workspaceId: string; namespace: string; voterId?: string } | undefined {
  const credential = call.credential;
  if (credential) {
    const namespace =
      credential.kind === 'api_key'
        ? `api_key:${credential.id}`
        : `oauth:${credential.id}:${credential.scopes === 'all' ? '*' : [...credential.scopes].sort().join(' ')}`;
    return { workspaceId: credential.workspaceId, namespace };
  }
  if (call.host) {
    // One host token, by a prefix of its hash: a session's next token (perhaps made by a narrower
    // credential, with narrower scopes) replays nothing the previous one was answered.
    const token = typeof call.request.hostToken === 'string' ? call.request.hostToken : '';
    return {
      workspaceId: call.host.workspaceId,
      namespace: `host:${call.host.sessionId}:${hashSecret(token).slice(0, 16)}`,
    };
  }
  const participant = call.live?.participant;
  if (participant && call.live) {
    return {
      workspaceId: call.live.session.workspace_id,
      namespace: `participant:${participant.id}`,
      voterId: participant.id,
    };
  }
  return undefined;
}

/** The respondent an API request is about: its body's `voterId` (votes, responses, upvotes). */
function voterIdOf(body: unknown): string | undefined {
  if (body === null || typeof body !== 'object') return undefined;
  const voterId = (body as { voterId?: unknown }).voterId;
  return typeof voterId === 'string' && voterId.length > 0 ? voterId : undefined;
}

/** The key from its header value: 1–255 printable ASCII characters, else 400 `bad_request`. */
function parseIdempotencyKey(header: string | string[]): string {
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
function canonicalJson(value: unknown): string {
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
function requestFingerprint(route: RouteDefinition, params: unknown, body: unknown): string {
  return createHash('sha256')
    .update(canonicalJson([route.method, route.path, params ?? {}, body ?? {}]))
    .digest('hex');
}
