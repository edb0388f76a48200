import { z } from 'zod';
import { type Scope, scopes } from '../scopes.js';
import { ListCursor, ListLimit, pageOf, resourceId, Timestamp } from './common.js';
import { displayText, text, untrustedText } from './text.js';

export const WebhookEndpointId = resourceId('whk', 'Webhook endpoint id.');
export const WebhookEventId = resourceId('evt', 'Event id: the `webhook-id` header of every delivery of the event.');
export const WebhookDeliveryId = resourceId('dlv', 'Delivery id: one event on its way to one endpoint.');

/**
 * Every event type an endpoint can subscribe to. `webhook.test` is not among them: it goes only to
 * the endpoint it was sent to (`POST /webhooks/{id}/test`), whatever that endpoint subscribed to.
 */
export const webhookEventTypes = [
  'poll.created',
  'poll.updated',
  'poll.published',
  'poll.closed',
  'poll.deleted',
  'vote.created',
  'response.created',
  'question.created',
  'session.created',
  'session.started',
  'session.slide_changed',
  'session.ended',
  'session.participant_completed',
  'respondent.erased',
] as const;
export type WebhookEventType = (typeof webhookEventTypes)[number];

/**
 * The scope that guards the data each event carries, as the API's own reads guard it: a poll (quiz
 * answers included) is `polls:read`'s, votes, responses and questions are `responses:read`'s, a
 * session is `sessions:read`'s, but `session.participant_completed` (a participant's name and score)
 * and `session.ended` (the end of what the audience answered) are `responses:read`'s. A credential
 * needs it, besides `webhooks:read`, to see a delivery's `payload`, and besides `webhooks:write` to
 * point an endpoint subscribed to the event at a URL.
 */
export const webhookPayloadScopes = {
  'poll.created': 'polls:read',
  'poll.updated': 'polls:read',
  'poll.published': 'polls:read',
  'poll.closed': 'polls:read',
  'poll.deleted': 'polls:read',
  'vote.created': 'responses:read',
  'response.created': 'responses:read',
  'question.created': 'responses:read',
  'session.created': 'sessions:read',
  'session.started': 'sessions:read',
  'session.slide_changed': 'sessions:read',
  'session.ended': 'responses:read',
  'session.participant_completed': 'responses:read',
  'respondent.erased': 'responses:read',
  'webhook.test': null,
} as const satisfies Record<WebhookEventType | 'webhook.test', Scope | null>;

/** Endpoints per workspace, description length, URL length. */
export const webhookLimits = {
  endpointsPerWorkspace: 20,
  descriptionLength: 500,
  urlLength: 2048,
  /** How long the secret a rotation replaced keeps signing alongside the new one. */
  previousSecretSeconds: 86_400,
  /** The part of a receiver's answer the delivery log keeps. */
  responseExcerptBytes: 1024,
} as const;

export const WebhookEventFilter = z
  .array(z.enum([...webhookEventTypes, '*']))
  .min(1)
  .max(webhookEventTypes.length + 1)
  .describe(
    'The event types delivered to the endpoint; `["*"]` is every type, including types added later. ' +
      '`webhook.test` goes to an endpoint whatever it lists.',
  )
  .meta({ id: 'WebhookEventFilter' });

export const WebhookEndpointStatus = z
  .enum(['enabled', 'disabled'])
  .describe(
    '`disabled`: nothing is sent to it; `disabledReason` says why (the endpoint answered 410 Gone, it failed for ' +
      'the whole retry schedule, or it was disabled through the API). Enable it again with `PATCH`.',
  )
  .meta({ id: 'WebhookEndpointStatus' });

export const WebhookEndpointStats = z
  .object({
    pendingDeliveries: z.number().int().describe('Deliveries waiting for their first attempt or a retry.'),
    succeededDeliveries: z.number().int().describe('Deliveries the endpoint acknowledged with a 2xx.'),
    failedDeliveries: z
      .number()
      .int()
      .describe('Deliveries given up: every attempt of the retry schedule failed, or the endpoint was disabled.'),
    attempts: z.number().int().describe('HTTP requests sent to the endpoint, retries included.'),
    failedAttempts: z.number().int().describe('Attempts answered with anything but a 2xx, or not answered in time.'),
    consecutiveFailures: z.number().int().describe('Failed attempts since the last success.'),
    lastAttemptAt: Timestamp.nullable(),
    lastSuccessAt: Timestamp.nullable(),
  })
  .meta({ id: 'WebhookEndpointStats' });

export const WebhookEndpoint = z
  .object({
    id: WebhookEndpointId,
    url: z.string().describe('Where events are POSTed.'),
    description: z.string(),
    events: WebhookEventFilter,
    status: WebhookEndpointStatus,
    disabledReason: z.string().nullable(),
    disabledAt: Timestamp.nullable(),
    previousSecretExpiresAt: Timestamp.nullable().describe(
      'After a rotation: until when the replaced secret still signs every delivery alongside the new one.',
    ),
    stats: WebhookEndpointStats,
    createdAt: Timestamp,
    updatedAt: Timestamp,
  })
  .meta({ id: 'WebhookEndpoint' });

const Secret = z
  .string()
  .startsWith('whsec_')
  .describe(
    'The signing secret (`whsec_` + base64 of 32 random bytes), as Standard Webhooks libraries take it. Shown ' +
      'this once.',
  );

export const CreatedWebhookEndpoint = WebhookEndpoint.extend({ secret: Secret }).meta({
  id: 'CreatedWebhookEndpoint',
});

export const WebhookEndpointList = pageOf(WebhookEndpoint, 'WebhookEndpointList');

const Url = text()
  .max(webhookLimits.urlLength)
  .refine((value) => URL.canParse(value), 'Must be an absolute URL')
  .describe(
    'An `https` URL (`http` only where the server allows it, for local development). Its host must resolve to ' +
      'public addresses: private, loopback and link-local ones are refused, here and before every delivery.',
  );

const Description = displayText().trim().max(webhookLimits.descriptionLength);

export const CreateWebhookEndpointInput = z
  .strictObject({
    url: Url,
    events: WebhookEventFilter.default(['*']),
    description: Description.default('').describe('A note to recognise the endpoint by.'),
  })
  .meta({ id: 'CreateWebhookEndpointInput' });

export const UpdateWebhookEndpointInput = z
  .strictObject({
    id: WebhookEndpointId,
    url: Url.optional(),
    events: WebhookEventFilter.optional(),
    description: Description.optional(),
    status: WebhookEndpointStatus.optional().describe(
      '`enabled` resumes deliveries (and clears `disabledReason`); `disabled` stops them: its pending deliveries ' +
        'are given up, and can be sent again with redeliver.',
    ),
  })
  .meta({ id: 'UpdateWebhookEndpointInput' });

export const WebhookEndpointIdInput = z.strictObject({ id: WebhookEndpointId });

export const ListWebhookEndpointsInput = z.strictObject({ limit: ListLimit, cursor: ListCursor });

export const DeletedWebhookEndpoint = z
  .object({ id: WebhookEndpointId, deleted: z.literal(true) })
  .meta({ id: 'DeletedWebhookEndpoint' });

export const WebhookAttempt = z
  .object({
    deliveryId: WebhookDeliveryId,
    eventId: WebhookEventId,
    eventType: z.string(),
    attempt: z.number().int().min(1).describe('1 for the first attempt of the delivery, 2 for its first retry…'),
    outcome: z.enum(['succeeded', 'failed']),
    responseStatus: z.number().int().nullable().describe('The HTTP status; null when no answer came.'),
    latencyMs: z.number().int().describe('From sending the request to the end of the answer (or the failure).'),
    responseExcerpt: untrustedText(z.string().nullable()).describe(
      `The first ${webhookLimits.responseExcerptBytes} bytes of the answer's body, as text; null when no answer ` +
        "came, or when the credential lacks the scope that guards the event's data (a receiver may echo it: " +
        'see `payloadScope`).',
    ),
    error: z
      .string()
      .nullable()
      .describe('Why the attempt failed without an answer: a timeout, a refused address, a connection error.'),
    startedAt: Timestamp,
  })
  .meta({ id: 'WebhookAttempt' });

export const WebhookDelivery = z
  .object({
    id: WebhookDeliveryId,
    endpointId: WebhookEndpointId,
    eventId: WebhookEventId,
    eventType: z.string(),
    status: z
      .enum(['pending', 'succeeded', 'failed'])
      .describe('`pending`: waiting for an attempt; `failed`: given up (redeliver sends it again).'),
    attempts: z.number().int().describe('Attempts made so far.'),
    nextAttemptAt: Timestamp.nullable().describe('When the next attempt is due, while `pending`.'),
    lastAttempt: WebhookAttempt.nullable(),
    payloadScope: z
      .enum(scopes)
      .nullable()
      .describe(
        'The scope that guards the data the event carries (`polls:read` for poll events, `responses:read` for votes, ' +
          'responses and questions, `session.ended` and `session.participant_completed`, `sessions:read` for the ' +
          'other session events; null for `webhook.test`). A credential ' +
          "without it sees no `payload` and no attempt's `responseExcerpt` of this delivery.",
      ),
    createdAt: Timestamp,
  })
  .meta({ id: 'WebhookDelivery' });

export const WebhookDeliveryDetail = WebhookDelivery.extend({
  payload: untrustedText(z.string().nullable()).describe(
    'The body every attempt sends, exactly as signed; null when the credential lacks `payloadScope` (it holds ' +
      'votes, responses or questions, a poll with its quiz answers, or a session).',
  ),
  attemptLog: z.array(WebhookAttempt).describe('Every attempt, oldest first.'),
}).meta({ id: 'WebhookDeliveryDetail' });

export const WebhookDeliveryList = pageOf(WebhookDelivery, 'WebhookDeliveryList');
export const WebhookAttemptList = pageOf(WebhookAttempt, 'WebhookAttemptList');

export const ListWebhookDeliveriesInput = z.strictObject({
  id: WebhookEndpointId,
  limit: ListLimit,
  cursor: ListCursor,
  status: z.enum(['pending', 'succeeded', 'failed']).optional().describe('Only deliveries in this state.'),
});

export const ListWebhookAttemptsInput = z.strictObject({
  id: WebhookEndpointId,
  limit: ListLimit,
  cursor: ListCursor,
});

export const WebhookDeliveryInput = z.strictObject({
  id: WebhookEndpointId,
  deliveryId: WebhookDeliveryId,
});

// Types of the same names: a request body or query as a client writes it (`z.input`: defaulted
// fields optional) for `*Input` schemas, the value as the API answers it (`z.output`) for the rest.
export type CreateWebhookEndpointInput = z.input<typeof CreateWebhookEndpointInput>;
export type CreatedWebhookEndpoint = z.output<typeof CreatedWebhookEndpoint>;
export type DeletedWebhookEndpoint = z.output<typeof DeletedWebhookEndpoint>;
export type ListWebhookAttemptsInput = z.input<typeof ListWebhookAttemptsInput>;
export type ListWebhookDeliveriesInput = z.input<typeof ListWebhookDeliveriesInput>;
export type ListWebhookEndpointsInput = z.input<typeof ListWebhookEndpointsInput>;
export type UpdateWebhookEndpointInput = z.input<typeof UpdateWebhookEndpointInput>;
export type WebhookAttempt = z.output<typeof WebhookAttempt>;
export type WebhookAttemptList = z.output<typeof WebhookAttemptList>;
export type WebhookDelivery = z.output<typeof WebhookDelivery>;
export type WebhookDeliveryDetail = z.output<typeof WebhookDeliveryDetail>;
export type WebhookDeliveryInput = z.input<typeof WebhookDeliveryInput>;
export type WebhookDeliveryList = z.output<typeof WebhookDeliveryList>;
export type WebhookEndpoint = z.output<typeof WebhookEndpoint>;
export type WebhookEndpointFilter = z.output<typeof WebhookEventFilter>;
export type WebhookEndpointIdInput = z.input<typeof WebhookEndpointIdInput>;
export type WebhookEndpointList = z.output<typeof WebhookEndpointList>;
export type WebhookEndpointStats = z.output<typeof WebhookEndpointStats>;
export type WebhookEndpointStatus = z.output<typeof WebhookEndpointStatus>;
