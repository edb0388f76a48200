import {
  type CreatedWebhookEndpoint,
  type CreateWebhookEndpointInput,
  type ListWebhookAttemptsInput,
  type ListWebhookDeliveriesInput,
  type ListWebhookEndpointsInput,
  type Scope,
  type UpdateWebhookEndpointInput,
  type WebhookAttempt,
  type WebhookAttemptList,
  type WebhookDelivery,
  type WebhookDeliveryDetail,
  type WebhookDeliveryList,
  type WebhookEndpoint,
  type WebhookEndpointList,
  webhookEventTypes,
  webhookLimits,
  webhookPayloadScopes,
} from '@pollkit/contracts';
import type { Kysely } from 'kysely';
import type { z } from 'zod';
import { ApiError } from '../../core/api-error.js';
import { keysetPage } from '../../core/paging.js';
import type { SecretSealer } from '../../core/sealed-secrets.js';
import { newId } from '../../db/ids.js';
import type { Database, WebhookAttemptRow, WebhookDeliveryRow, WebhookEndpointRow } from '../../db/schema.js';
import { AddressRefusedError, publicAddresses } from '../../infra/safe-fetch.js';
import { type HeldScopes, holdsScope, missingScopes, scopesNotHeld } from '../credentials/credential-scopes.js';
import { lockWorkspace } from '../workspaces/workspaces.service.js';
import { oldestDueAgeSeconds } from './delivery.repository.js';
import { fanOutEventBatches, outboxEvent } from './outbox.repository.js';
import { newSigningSecret } from './webhook-signing.js';
import * as webhooks from './webhooks.repository.js';

/** What the endpoint use cases need. */
export interface WebhooksDeps {
  db: Kysely<Database>;
  config: { WEBHOOK_ALLOW_HTTP: boolean; WEBHOOK_ALLOW_LOOPBACK: boolean };
  /** Seals signing secrets before they are stored (core/sealed-secrets.ts). */
  secretSealer: SecretSealer;
  /** Tells this process's delivery worker that something is due now (a test, a redelivery). */
  webhookWorker: { nudge(): void } | undefined;
}

const notFound = () => ApiError.notFound('Webhook endpoint');

/** Who calls a use case: their workspace, and the scopes that decide what of a delivery they see. */
export interface WebhookCaller {
  workspaceId: string;
  scopes: HeldScopes;
}

function counter(value: string | number): number {
  return Number(value);
}

function toEndpoint(row: WebhookEndpointRow, pending: number, now = new Date()): WebhookEndpoint {
  const previousLive = row.previous_secret_expires_at !== null && row.previous_secret_expires_at > now;
  return {
    id: row.id,
    url: row.url,
    description: row.description,
    events: row.events as WebhookEndpoint['events'],
    status: row.status,
    disabledReason: row.disabled_reason,
    disabledAt: row.disabled_at?.toISOString() ?? null,
    previousSecretExpiresAt: previousLive ? (row.previous_secret_expires_at?.toISOString() ?? null) : null,
    stats: {
      pendingDeliveries: pending,
      succeededDeliveries: counter(row.succeeded_deliveries),
      failedDeliveries: counter(row.failed_deliveries),
      attempts: counter(row.attempts),
      failedAttempts: counter(row.failed_attempts),
      consecutiveFailures: row.consecutive_failures,
      lastAttemptAt: row.last_attempt_at?.toISOString() ?? null,
      lastSuccessAt: row.last_success_at?.toISOString() ?? null,
    },
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

/**
 * The scope that guards an event's data (contracts' `webhookPayloadScopes`); null for the test event.
 * The table names every type (the contracts' `satisfies` makes a new type name its scope); a stored
 * type it does not know is treated as an answer's rather than shown to any `webhooks:read`.
 */
function payloadScopeOf(eventType: string): Scope | null {
  return Object.hasOwn(webhookPayloadScopes, eventType)
    ? webhookPayloadScopes[eventType as keyof typeof webhookPayloadScopes]
    : 'responses:read';
}

/**
 * Whether `held` may see what a delivery of `eventType` carries: its payload, and the receiver's
 * answers to it (a receiver may echo the body). `webhooks:read` alone shows that a delivery happened
 * and how it went, never votes, responses, questions, a poll's quiz answers or a session, which
 * `responses:read`, `polls:read` and `sessions:read` guard everywhere else.
 */
function mayReadPayload(held: HeldScopes, eventType: string): boolean {
  const scope = payloadScopeOf(eventType);
  return scope === null || holdsScope(held, scope);
}

/**
 * The scopes a credential needs to point an endpoint subscribed to `events` at a URL: those of the
 * data those events carry (`*` is every type), or `webhooks:write` would be a way to receive, at an
 * address of one's choosing, what the read scopes guard.
 */
function subscriptionScopes(events: readonly string[]): Scope[] {
  const types: readonly string[] = events.includes('*') ? webhookEventTypes : events;
  const needed = new Set<Scope>();
  for (const type of types) {
    const scope = payloadScopeOf(type);
    if (scope) needed.add(scope);
  }
  return [...needed];
}

const SUBSCRIBE_WHY =
  'an endpoint sends its events’ data to its URL, so it may send only events whose data the credential may read';

function assertMaySubscribe(held: HeldScopes, events: readonly string[], why = SUBSCRIBE_WHY): void {
  const missing = missingScopes(held, subscriptionScopes(events));
  if (missing.length > 0) throw scopesNotHeld(missing, why);
}

function toAttempt(
  row: WebhookAttemptRow,
  delivery: { event_id: string; event_type: string },
  held: HeldScopes,
): WebhookAttempt {
  return {
    deliveryId: row.delivery_id,
    eventId: delivery.event_id,
    eventType: delivery.event_type,
    attempt: row.attempt,
    outcome: row.outcome,
    responseStatus: row.response_status,
    latencyMs: row.latency_ms,
    responseExcerpt: mayReadPayload(held, delivery.event_type) ? row.response_excerpt : null,
    error: row.error,
    startedAt: row.started_at.toISOString(),
  };
}

function toDelivery(row: WebhookDeliveryRow, last: WebhookAttemptRow | undefined, held: HeldScopes): WebhookDelivery {
  return {
    id: row.id,
    endpointId: row.endpoint_id,
    eventId: row.event_id,
    eventType: row.event_type,
    status: row.status,
    attempts: row.attempts,
    nextAttemptAt: row.status === 'pending' ? (row.next_attempt_at?.toISOString() ?? null) : null,
    lastAttempt: last ? toAttempt(last, row, held) : null,
    payloadScope: payloadScopeOf(row.event_type),
    createdAt: row.created_at.toISOString(),
  };
}

/**
 * Whether events may be sent to `raw`: https (http only with WEBHOOK_ALLOW_HTTP), no credentials in
 * it, and a host whose every address is public (WEBHOOK_ALLOW_LOOPBACK lets tests use 127.0.0.1).
 * The delivery worker checks the addresses again on every connection: DNS can change.
 */
async function checkEndpointUrl(config: WebhooksDeps['config'], raw: string): Promise<string> {
  const refuse = (message: string) => new ApiError('webhook_url_not_allowed', message, { url: raw });
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw refuse('The URL is not valid');
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && config.WEBHOOK_ALLOW_HTTP)) {
    throw refuse(
      url.protocol === 'http:'
        ? 'Webhook URLs must be https (the server allows http only with WEBHOOK_ALLOW_HTTP=true, for local development)'
        : `Webhook URLs must be https, not ${url.protocol}`,
    );
  }
  if (url.username || url.password) throw refuse('Webhook URLs must not hold credentials');
  try {
    await publicAddresses(url.hostname, config.WEBHOOK_ALLOW_LOOPBACK);
  } catch (error) {
    if (error instanceof AddressRefusedError) throw refuse(error.messageNaming('WEBHOOK_ALLOW_LOOPBACK'));
    throw error;
  }
  return url.href;
}

async function endpointOrThrow(db: Kysely<Database>, workspaceId: string, id: string) {
  const row = await webhooks.findEndpoint(db, workspaceId, id);
  if (!row) throw notFound();
  return row;
}

/**
 * Answers' events wait in batches until a worker fans them out (outbox.repository.ts); a read of an
 * endpoint's deliveries or counters fans its batches out first, so it shows every event recorded.
 */
function fanOut(db: Kysely<Database>, endpointIds: string[]): Promise<number> {
  return fanOutEventBatches(db, { endpointIds, skipLocked: false });
}

async function present(db: Kysely<Database>, row: WebhookEndpointRow): Promise<WebhookEndpoint> {
  await fanOut(db, [row.id]);
  const pending = await webhooks.countPending(db, [row.id]);
  return toEndpoint(row, pending.get(row.id) ?? 0);
}

export async function listEndpoints(
  deps: WebhooksDeps,
  workspaceId: string,
  input: z.output<typeof ListWebhookEndpointsInput>,
): Promise<WebhookEndpointList> {
  const page = await keysetPage(
    input,
    'whk',
    ({ beforeId, limit }) => webhooks.listEndpoints(deps.db, workspaceId, { limit, beforeId }),
    (row) => row,
  );
  const ids = page.data.map((row) => row.id);
  await fanOut(deps.db, ids);
  const pending = await webhooks.countPending(deps.db, ids);
  return { data: page.data.map((row) => toEndpoint(row, pending.get(row.id) ?? 0)), nextCursor: page.nextCursor };
}

/** Returns the signing secret this once; it is stored sealed. */
export async function createEndpoint(
  deps: WebhooksDeps,
  caller: WebhookCaller,
  input: z.output<typeof CreateWebhookEndpointInput>,
): Promise<CreatedWebhookEndpoint> {
  const { workspaceId } = caller;
  assertMaySubscribe(caller.scopes, input.events);
  const url = await checkEndpointUrl(deps.config, input.url);
  const secret = newSigningSecret();
  const row = await deps.db.transaction().execute(async (trx) => {
    // The workspace's row lock makes the count and the insert one step: two concurrent creates
    // cannot both see room for one more.
    await lockWorkspace(trx, workspaceId);
    const count = await webhooks.countEndpoints(trx, workspaceId);
    if (count >= webhookLimits.endpointsPerWorkspace) {
      throw new ApiError(
        'webhook_endpoint_limit',
        `A workspace has at most ${webhookLimits.endpointsPerWorkspace} webhook endpoints`,
        { limit: webhookLimits.endpointsPerWorkspace },
      );
    }
    return webhooks.insertEndpoint(trx, {
      id: newId('webhook'),
      workspace_id: workspaceId,
      url,
      description: input.description,
      events: JSON.stringify(normaliseFilter(input.events)),
      secret_sealed: deps.secretSealer.seal(secret),
    });
  });
  return { ...toEndpoint(row, 0), secret };
}

/** `["*", "vote.created"]` is `["*"]`; duplicates go. */
function normaliseFilter(events: readonly string[]): string[] {
  return events.includes('*') ? ['*'] : [...new Set(events)];
}

export async function getEndpoint(deps: WebhooksDeps, workspaceId: string, id: string): Promise<WebhookEndpoint> {
  return present(deps.db, await endpointOrThrow(deps.db, workspaceId, id));
}

/**
 * A new URL or event filter is checked as a new endpoint's are: the URL's addresses, and the scopes
 * of the events the endpoint will then send there. A new filter needs its events' scopes. A new URL
 * needs those of every event the endpoint has subscribed to, of the new filter, and of the
 * deliveries still waiting to go out (retries and queued events, which a filter narrowed earlier
 * left in place): all of them would go to the new URL. Redeliveries of past events are checked by
 * redeliver itself.
 */
export async function updateEndpoint(
  deps: WebhooksDeps,
  caller: WebhookCaller,
  input: z.output<typeof UpdateWebhookEndpointInput>,
): Promise<WebhookEndpoint> {
  const { workspaceId } = caller;
  if (input.events !== undefined) assertMaySubscribe(caller.scopes, input.events);
  const url = input.url === undefined ? undefined : await checkEndpointUrl(deps.config, input.url);
  const row = await deps.db.transaction().execute(async (trx) => {
    const current = await webhooks.findEndpointForUpdate(trx, workspaceId, input.id);
    if (!current) throw notFound();
    if (url !== undefined && url !== current.url) {
      const queued = await webhooks.pendingEventTypes(trx, current.id);
      assertMaySubscribe(
        caller.scopes,
        [...current.events, ...(input.events ?? []), ...queued],
        'a new URL receives the events the endpoint has subscribed to, the new `events` and the deliveries ' +
          'still waiting to go out, so the credential must be able to read all of their data',
      );
    }
    const changes: Parameters<typeof webhooks.updateEndpoint>[2] = {};
    if (url !== undefined) changes.url = url;
    if (input.events !== undefined) changes.events = JSON.stringify(normaliseFilter(input.events));
    if (input.description !== undefined) changes.description = input.description;
    if (input.status === 'disabled' && current.status === 'enabled') {
      await webhooks.disableEndpoint(trx, current.id, 'Disabled through the API');
    }
    if (input.status === 'enabled' && current.status === 'disabled') {
      Object.assign(changes, { status: 'enabled', disabled_at: null, disabled_reason: null, consecutive_failures: 0 });
    }
    if (Object.keys(changes).length === 0)
      return (await webhooks.findEndpoint(trx, workspaceId, current.id)) ?? current;
    return webhooks.updateEndpoint(trx, current.id, changes);
  });
  return present(deps.db, row);
}

export async function deleteEndpoint(deps: WebhooksDeps, workspaceId: string, id: string) {
  if (!(await webhooks.deleteEndpoint(deps.db, workspaceId, id))) throw notFound();
  return { id, deleted: true as const };
}

/**
 * A new secret, shown this once; the replaced one keeps signing, alongside it, for 24 hours, so
 * receivers can switch without missing a delivery. A second rotation within those hours retires
 * the older secret at once (two signatures at most). The secret lets its holder sign events the
 * receiver then takes for Pollkit's, so it is given only to a credential holding the scopes of the
 * endpoint's events, as creating the endpoint needed.
 */
export async function rotateSecret(
  deps: WebhooksDeps,
  caller: WebhookCaller,
  id: string,
): Promise<CreatedWebhookEndpoint> {
  const secret = newSigningSecret();
  const row = await deps.db.transaction().execute(async (trx) => {
    const current = await webhooks.findEndpointForUpdate(trx, caller.workspaceId, id);
    if (!current) throw notFound();
    assertMaySubscribe(
      caller.scopes,
      current.events,
      'the signing secret lets its holder forge the endpoint’s events to its receiver, so the credential must ' +
        'be able to read those events’ data',
    );
    return webhooks.updateEndpoint(trx, current.id, {
      secret_sealed: deps.secretSealer.seal(secret),
      previous_secret_sealed: current.secret_sealed,
      previous_secret_expires_at: new Date(Date.now() + webhookLimits.previousSecretSeconds * 1000),
    });
  });
  return { ...(await present(deps.db, row)), secret };
}

function assertEnabled(row: WebhookEndpointRow): void {
  if (row.status !== 'enabled') {
    throw new ApiError('webhook_endpoint_disabled', 'The webhook endpoint is disabled; enable it first', {
      disabledReason: row.disabled_reason,
    });
  }
}

/** Queues a `webhook.test` event for this endpoint alone; the worker sends it like any other. */
export async function sendTestEvent(deps: WebhooksDeps, caller: WebhookCaller, id: string): Promise<WebhookDelivery> {
  const endpoint = await endpointOrThrow(deps.db, caller.workspaceId, id);
  assertEnabled(endpoint);
  const event = outboxEvent('webhook.test', {
    endpointId: endpoint.id,
    message: 'A test event from Pollkit: this endpoint receives deliveries. Verify its signature as any other.',
  });
  const row = await webhooks.insertDelivery(deps.db, {
    id: newId('webhookDelivery'),
    endpoint_id: endpoint.id,
    event_id: event.id,
    event_type: event.type,
    payload: event.payload,
  });
  deps.webhookWorker?.nudge();
  return toDelivery(row, undefined, caller.scopes);
}

export async function listDeliveries(
  deps: WebhooksDeps,
  caller: WebhookCaller,
  input: z.output<typeof ListWebhookDeliveriesInput>,
): Promise<WebhookDeliveryList> {
  const endpoint = await endpointOrThrow(deps.db, caller.workspaceId, input.id);
  await fanOut(deps.db, [endpoint.id]);
  const page = await keysetPage(
    input,
    'dlv',
    ({ beforeId, limit }) => webhooks.listDeliveries(deps.db, endpoint.id, { limit, beforeId, status: input.status }),
    (row) => row,
  );
  const last = await webhooks.lastAttempts(
    deps.db,
    page.data.map((row) => row.id),
  );
  return {
    data: page.data.map((row) => toDelivery(row, last.get(row.id), caller.scopes)),
    nextCursor: page.nextCursor,
  };
}

async function deliveryOrThrow(deps: WebhooksDeps, workspaceId: string, endpointId: string, deliveryId: string) {
  const endpoint = await endpointOrThrow(deps.db, workspaceId, endpointId);
  await fanOut(deps.db, [endpoint.id]);
  const delivery = await webhooks.findDelivery(deps.db, endpoint.id, deliveryId);
  if (!delivery) throw ApiError.notFound('Delivery');
  return { endpoint, delivery };
}

/** The delivery with its payload, which only a credential holding the event's `payloadScope` sees. */
export async function getDelivery(
  deps: WebhooksDeps,
  caller: WebhookCaller,
  input: { id: string; deliveryId: string },
): Promise<WebhookDeliveryDetail> {
  const { delivery } = await deliveryOrThrow(deps, caller.workspaceId, input.id, input.deliveryId);
  const attempts = await webhooks.attemptsOf(deps.db, delivery.id);
  return {
    ...toDelivery(delivery, attempts.at(-1), caller.scopes),
    payload: mayReadPayload(caller.scopes, delivery.event_type) ? delivery.payload : null,
    attemptLog: attempts.map((attempt) => toAttempt(attempt, delivery, caller.scopes)),
  };
}

/**
 * Sends a delivery again. Its payload goes to the endpoint's URL as it is now, which may not be the
 * one it first went to: like reading the payload, this needs the delivery's `payloadScope`.
 */
export async function redeliver(
  deps: WebhooksDeps,
  caller: WebhookCaller,
  input: { id: string; deliveryId: string },
): Promise<WebhookDelivery> {
  const { endpoint, delivery } = await deliveryOrThrow(deps, caller.workspaceId, input.id, input.deliveryId);
  const scope = payloadScopeOf(delivery.event_type);
  if (scope !== null && !holdsScope(caller.scopes, scope)) {
    throw scopesNotHeld(
      [scope],
      'redelivering sends the delivery’s data to the endpoint’s URL, so the credential must be able to read it',
    );
  }
  assertEnabled(endpoint);
  const requeued = await webhooks.requeueDelivery(deps.db, delivery.id);
  deps.webhookWorker?.nudge();
  const last = await webhooks.lastAttempts(deps.db, [delivery.id]);
  return toDelivery(requeued, last.get(delivery.id), caller.scopes);
}

export async function listAttempts(
  deps: WebhooksDeps,
  caller: WebhookCaller,
  input: z.output<typeof ListWebhookAttemptsInput>,
): Promise<WebhookAttemptList> {
  const endpoint = await endpointOrThrow(deps.db, caller.workspaceId, input.id);
  return keysetPage(
    input,
    'wha',
    ({ beforeId, limit }) => webhooks.listAttempts(deps.db, endpoint.id, { limit, beforeId }),
    (row) => toAttempt(row, row, caller.scopes),
  );
}

/**
 * How long the oldest webhook delivery waiting to go out has been due, in seconds (0 when none
 * waits): the backlog an operator alerts on (/metrics, `pollkit_webhook_oldest_due_seconds`).
 */
export function webhookBacklogAgeSeconds(db: Kysely<Database>): Promise<number> {
  return oldestDueAgeSeconds(db);
}
