import { defineRoute } from '../route.js';
import {
  CreatedWebhookEndpoint,
  CreateWebhookEndpointInput,
  DeletedWebhookEndpoint,
  ListWebhookAttemptsInput,
  ListWebhookDeliveriesInput,
  ListWebhookEndpointsInput,
  UpdateWebhookEndpointInput,
  WebhookAttemptList,
  WebhookDelivery,
  WebhookDeliveryDetail,
  WebhookDeliveryInput,
  WebhookDeliveryList,
  WebhookEndpoint,
  WebhookEndpointIdInput,
  WebhookEndpointList,
} from '../schemas/webhooks.js';

export const listWebhookEndpoints = defineRoute({
  method: 'GET',
  path: '/webhooks',
  tags: ['webhooks'],
  summary: 'List webhook endpoints',
  description: "The workspace's webhook endpoints, newest first, cursor-paginated, with their delivery counters.",
  auth: 'workspace',
  scope: 'webhooks:read',
  successStatus: 200,
  input: ListWebhookEndpointsInput,
  output: WebhookEndpointList,
  errors: ['validation_failed'],
});

export const createWebhookEndpoint = defineRoute({
  method: 'POST',
  path: '/webhooks',
  tags: ['webhooks'],
  summary: 'Create a webhook endpoint',
  description:
    'Events of the listed types are POSTed to `url` from now on, signed per Standard Webhooks with the `secret` ' +
    'this answer holds — shown this once. The URL must be `https` and resolve to public addresses ' +
    `(\`webhook_url_not_allowed\` otherwise). At most 20 endpoints per workspace. See docs/webhooks.md.`,
  auth: 'workspace',
  scope: 'webhooks:write',
  successStatus: 201,
  input: CreateWebhookEndpointInput,
  output: CreatedWebhookEndpoint,
  errors: ['validation_failed', 'webhook_url_not_allowed', 'webhook_endpoint_limit'],
});

export const getWebhookEndpoint = defineRoute({
  method: 'GET',
  path: '/webhooks/{id}',
  tags: ['webhooks'],
  summary: 'Get a webhook endpoint',
  description: 'The endpoint with its delivery counters. The secret is never shown again.',
  auth: 'workspace',
  scope: 'webhooks:read',
  successStatus: 200,
  input: WebhookEndpointIdInput,
  output: WebhookEndpoint,
  errors: ['not_found', 'validation_failed'],
});

export const updateWebhookEndpoint = defineRoute({
  method: 'PATCH',
  path: '/webhooks/{id}',
  tags: ['webhooks'],
  summary: 'Update a webhook endpoint',
  description:
    'Changes the URL, the event types, the description, or enables / disables the endpoint. Enabling it resets ' +
    'its failure count. A new URL is checked like a new endpoint’s. New `events` need the scopes guarding their ' +
    'data; a new `url` needs those of the events the endpoint has subscribed to, of the new `events` and of its ' +
    'deliveries still waiting to go out, since all of them then go to that URL (403 `insufficient_scope` ' +
    'otherwise, with `details.missingScopes`).',
  auth: 'workspace',
  scope: 'webhooks:write',
  successStatus: 200,
  input: UpdateWebhookEndpointInput,
  output: WebhookEndpoint,
  errors: ['not_found', 'validation_failed', 'webhook_url_not_allowed', 'insufficient_scope'],
});

export const deleteWebhookEndpoint = defineRoute({
  method: 'DELETE',
  path: '/webhooks/{id}',
  tags: ['webhooks'],
  summary: 'Delete a webhook endpoint',
  description: 'Stops every delivery to it at once and deletes its delivery log.',
  auth: 'workspace',
  scope: 'webhooks:write',
  successStatus: 200,
  input: WebhookEndpointIdInput,
  output: DeletedWebhookEndpoint,
  errors: ['not_found', 'validation_failed'],
});

export const rotateWebhookSecret = defineRoute({
  method: 'POST',
  path: '/webhooks/{id}/rotate-secret',
  tags: ['webhooks'],
  summary: 'Rotate the signing secret',
  description:
    'Answers a new `secret` (shown this once). For the next 24 hours every delivery carries two signatures in ' +
    '`webhook-signature`, one with each secret, so receivers can switch secrets without missing an event. ' +
    'Rotating again within those hours retires the older secret at once. The secret lets its holder sign events ' +
    'the receiver accepts as Pollkit’s, so the credential needs the scopes guarding the data of the endpoint’s ' +
    'events (all three for `*`; 403 `insufficient_scope` otherwise, with `details.missingScopes`).',
  auth: 'workspace',
  effect: 'destroys',
  scope: 'webhooks:write',
  successStatus: 200,
  input: WebhookEndpointIdInput,
  output: CreatedWebhookEndpoint,
  errors: ['not_found', 'validation_failed', 'insufficient_scope'],
});

export const sendTestWebhook = defineRoute({
  method: 'POST',
  path: '/webhooks/{id}/test',
  tags: ['webhooks'],
  summary: 'Send a test event',
  description:
    'Queues a `webhook.test` event for this endpoint alone, delivered, signed, retried and logged like any ' +
    'other. The answer is its delivery: follow it with `GET /webhooks/{id}/deliveries/{deliveryId}`.',
  auth: 'workspace',
  reachesOut: true,
  scope: 'webhooks:write',
  successStatus: 202,
  input: WebhookEndpointIdInput,
  output: WebhookDelivery,
  errors: ['not_found', 'validation_failed', 'webhook_endpoint_disabled'],
});

export const listWebhookDeliveries = defineRoute({
  method: 'GET',
  path: '/webhooks/{id}/deliveries',
  tags: ['webhooks'],
  summary: 'List deliveries',
  description: "The endpoint's deliveries (one per event), newest first, each with its last attempt.",
  auth: 'workspace',
  scope: 'webhooks:read',
  successStatus: 200,
  input: ListWebhookDeliveriesInput,
  output: WebhookDeliveryList,
  errors: ['not_found', 'validation_failed'],
});

export const getWebhookDelivery = defineRoute({
  method: 'GET',
  path: '/webhooks/{id}/deliveries/{deliveryId}',
  tags: ['webhooks'],
  summary: 'Get a delivery',
  description: 'One delivery with the exact body it sends and every attempt made.',
  auth: 'workspace',
  scope: 'webhooks:read',
  successStatus: 200,
  input: WebhookDeliveryInput,
  output: WebhookDeliveryDetail,
  errors: ['not_found', 'validation_failed'],
});

export const redeliverWebhook = defineRoute({
  method: 'POST',
  path: '/webhooks/{id}/deliveries/{deliveryId}/redeliver',
  tags: ['webhooks'],
  summary: 'Redeliver an event',
  description:
    'Sends the delivery again as soon as possible — the same event, `webhook-id` and body, a new attempt — ' +
    'whether it succeeded, failed or is waiting for a retry. Its retry schedule starts over. It sends the ' +
    'event’s data to the endpoint’s URL, so the credential needs the delivery’s `payloadScope` too (none for ' +
    '`webhook.test`; 403 `insufficient_scope` otherwise).',
  auth: 'workspace',
  reachesOut: true,
  scope: 'webhooks:write',
  successStatus: 202,
  input: WebhookDeliveryInput,
  output: WebhookDelivery,
  errors: ['not_found', 'validation_failed', 'webhook_endpoint_disabled', 'insufficient_scope'],
});

export const listWebhookAttempts = defineRoute({
  method: 'GET',
  path: '/webhooks/{id}/attempts',
  tags: ['webhooks'],
  summary: 'The delivery log',
  description:
    'Every attempt to deliver to the endpoint, newest first: the event, the attempt number, the outcome, the HTTP ' +
    'status, the latency and the first kilobyte of the answer.',
  auth: 'workspace',
  scope: 'webhooks:read',
  successStatus: 200,
  input: ListWebhookAttemptsInput,
  output: WebhookAttemptList,
  errors: ['not_found', 'validation_failed'],
});
