import { isDeepStrictEqual } from 'node:util';
import {
  contract,
  type ErrorCode,
  ErrorEnvelope,
  errorCodes,
  operationId,
  pathParams,
  type RouteDefinition,
  requiredScopes,
  WebhookTestEvent,
  webhookEventSchemas,
} from '@pollkit/contracts';
import { generateOpenApiDocument, type OpenAPIObject } from 'trpc-to-openapi';
import { z } from 'zod';
import { createSchema } from 'zod-openapi';
import { declaredErrorCodes } from '../api/declared-errors.js';
import { API_VERSION } from '../core/api-version.js';
import { mediaFilesPath } from '../http/media-files.js';
import { OAUTH_TOKEN_PATH, oauthTokenPath, oauthTokenSchemas } from '../http/oauth-token.js';
import { openApiDocumentPath } from '../http/openapi-route.js';
import { allHeaderRefs, responseHeaders } from '../http/response-headers.js';
import { scopeDescriptions } from '../modules/oauth/scope-descriptions.js';
import { codeSamples } from './code-samples.js';
import { contractRouter, requiresParticipantToken } from './contract-router.js';
import { tagDescriptions } from './tag-descriptions.js';

type Schema = Record<string, unknown>;
type Operation = {
  operationId?: string;
  parameters?: { name: string; in?: string; description?: string }[];
  requestBody?: { content: Record<string, { schema: Schema }> };
  responses?: Record<string, Record<string, unknown>>;
  security?: unknown;
};

/**
 * The OpenAPI 3.1 document: generated from the contracts by trpc-to-openapi (openapi/contract-router.ts),
 * with the routes that are not contract operations declared beside their Fastify routes in http/, then
 * completed, operation by operation, with what the generator cannot know (each step below says what).
 */
export function buildOpenApiDocument(): OpenAPIObject {
  const document = generateOpenApiDocument(contractRouter(operationId), {
    title: 'Pollkit API',
    version: API_VERSION,
    description:
      'Polls as decks of typed slides (multiple choice, quiz, scale, ranking, open-ended, Q&A, content), votes ' +
      'and responses, Q&A moderation and upvotes, aggregated results and CSV export, live sessions (an audience ' +
      'joins by PIN or QR code, the presenter controls the deck, both follow it over Server-Sent Events), media ' +
      'ingestion, webhooks (the `webhooks` section describes every event) and API key management. Authenticate with ' +
      '`Authorization: Bearer <API_KEY>`, or (Enterprise) with an OAuth access token from ' +
      '`POST /api/oauth/token`, holding the scopes each operation names (`GET /workspace` takes any credential). Errors answer `{ error: { code, message, details? } }`. Every ' +
      'response carries `X-RateLimit-Limit` and `X-RateLimit-Window`; authenticated ones also ' +
      '`X-RateLimit-Remaining` and `X-RateLimit-Reset`.',
    baseUrl: '/api/v1',
    tags: [...contractTags(), 'oauth', 'meta'],
    securitySchemes,
    paths: { ...openApiDocumentPath, ...oauthTokenPath, ...mediaFilesPath, ...webhookEventCarriers() } as never,
  });
  moveWebhookEvents(document);
  describeTags(document);
  const components = document.components ?? {};
  const schemas = (components.schemas ?? {}) as Record<string, Schema>;
  components.schemas = schemas;
  registerEnvelopeSchemas(schemas);

  for (const { operation, route, group, name } of contractOperations(document)) {
    describeResponses(operation, route);
    restoreParameterDescriptions(operation, route);
    describeEventStreamResume(operation, route);
    nameRequestBody(operation, route, schemas);
    describeAccess(operation, route);
    Object.assign(operation, { 'x-codeSamples': codeSamples(group, name, route) });
  }

  for (const [name, schema] of Object.entries(oauthTokenSchemas)) addSchema(schemas, name, schema);
  components.headers = responseHeaders as never;
  document.components = components;
  return document;
}

/** Every event a webhook delivers: the subscribable types, and the test event. */
const webhookEvents = { ...webhookEventSchemas, 'webhook.test': WebhookTestEvent };
const WEBHOOK_CARRIER_PREFIX = '/__webhook-event__/';

/**
 * Each webhook event's schema rides through the generator as the response of a placeholder path,
 * so that it is converted with every other schema, in one pass, as output: its parts (Poll, Session…)
 * then share their components — and their names, such as `PollContentOutput` — with the operations
 * that answer them. moveWebhookEvents takes the placeholders out again.
 */
function webhookEventCarriers(): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(webhookEvents).map(([type, event]) => [
      `${WEBHOOK_CARRIER_PREFIX}${type}`,
      { get: { responses: { 200: { description: type, content: { 'application/json': { schema: event } } } } } },
    ]),
  );
}

/**
 * OpenAPI 3.1's `webhooks`: one entry per event type, the request Pollkit sends to an endpoint — its
 * body the event's schema from the contracts (webhook-events.ts), its headers those of Standard
 * Webhooks, and what each answer means (docs/webhooks.md).
 */
function moveWebhookEvents(document: OpenAPIObject): void {
  const header = (name: string, description: string) => ({
    name,
    in: 'header',
    required: true,
    schema: { type: 'string' },
    description,
  });
  const parameters = [
    header('webhook-id', 'The event id (`evt_…`): the same on every retry; drop an id already processed.'),
    header('webhook-timestamp', 'Unix seconds when this attempt was signed; refuse one more than 5 minutes off.'),
    header(
      'webhook-signature',
      'Space-separated `v1,<base64 HMAC-SHA256>` of `<webhook-id>.<webhook-timestamp>.<raw body>` keyed with the ' +
        'endpoint’s secret (the base64 after `whsec_`); two entries while a rotated secret is in its 24 hours.',
    ),
  ];
  const paths = document.paths as Record<string, { get: { responses: Record<string, Record<string, unknown>> } }>;
  const webhooks: Record<string, unknown> = {};
  for (const [type, event] of Object.entries(webhookEvents)) {
    const carrier = `${WEBHOOK_CARRIER_PREFIX}${type}`;
    const content = paths[carrier]?.get.responses['200']?.content as Record<string, { schema: unknown }>;
    delete paths[carrier];
    webhooks[type] = {
      post: {
        operationId: `webhook_${type.replace('.', '_')}`,
        summary: type,
        description: event.description,
        tags: ['webhooks'],
        parameters,
        security: [{ WebhookSignature: [] }],
        requestBody: {
          required: true,
          content: { 'application/json': { schema: content['application/json']?.schema } },
        },
        responses: {
          '2XX': { description: 'Received: the delivery succeeded. Answer fast, and process the event afterwards.' },
          '410': { description: 'Gone: the endpoint is disabled and receives nothing more.' },
          default: {
            description:
              'Any other answer, a redirect, or none within the deadline: the delivery is retried with backoff for ' +
              'about three days.',
          },
        },
      },
    };
  }
  Object.assign(document, { webhooks });
}

/**
 * The document as a server serves it: every server URL made absolute at `baseUrl` (PUBLIC_BASE_URL,
 * or the address the server is bound to), so a client generator or an API explorer that loads it
 * from a URL calls that server. docs/openapi.json keeps the relative `/api/v1`: it must not depend
 * on where it was generated.
 */
export function servedOpenApiDocument(
  baseUrl: string,
  document: OpenAPIObject = buildOpenApiDocument(),
): OpenAPIObject {
  const base = baseUrl.replace(/\/$/, '');
  // The origin itself for a path-level `/` (the media files): a server URL never ends in a slash.
  const absolute = (servers: { url: string }[] | undefined) =>
    servers?.map((server) =>
      server.url.startsWith('/') ? { ...server, url: `${base}${server.url}`.replace(/\/$/, '') } : server,
    );
  const paths = Object.fromEntries(
    Object.entries(document.paths ?? {}).map(([path, item]) => {
      const pathItem = item as { servers?: { url: string }[] };
      return [path, pathItem.servers ? { ...pathItem, servers: absolute(pathItem.servers) } : pathItem];
    }),
  );
  return { ...document, servers: absolute(document.servers), paths } as OpenAPIObject;
}

/** The document as docs/openapi.json holds it: `pnpm generate` writes this, the tests compare against it. */
export function openApiJson(): string {
  return `${JSON.stringify(buildOpenApiDocument(), null, 2)}\n`;
}

const securitySchemes = {
  ApiKey: {
    type: 'http',
    scheme: 'bearer',
    description:
      'A workspace API key (`pk_live_…`). A key holds the scopes it was created with, every scope unless it was ' +
      'given a list; an operation needs the same scopes as with an OAuth token (listed under OAuth2).',
  },
  OAuth2: {
    type: 'oauth2',
    description:
      'OAuth 2.0 client credentials (Enterprise workspaces with OAuth enabled). The access token (`oat_…`) ' +
      'is sent as `Authorization: Bearer <token>` and holds only its scopes; each operation names the ones ' +
      'it requires.',
    flows: { clientCredentials: { tokenUrl: OAUTH_TOKEN_PATH, scopes: scopeDescriptions } },
  },
  HostToken: {
    type: 'apiKey',
    in: 'header',
    name: 'X-Host-Token',
    description:
      'A live session’s host token (`pht_…`), shown once when the session is created: controls that one ' +
      'session and reads its presenter stream, for a presenter device that holds no API key. It carries the ' +
      'scopes of the credential that created it: without `polls:read` it reads no quiz answer key, without ' +
      '`responses:read` no results, questions or live counts.',
  },
  ParticipantToken: {
    type: 'apiKey',
    in: 'header',
    name: 'X-Participant-Token',
    description:
      'A participant’s token (`ptk_…`) from `POST /live/{pin}/join`: who answers and upvotes. Send it to the ' +
      'join again to resume the same participant.',
  },
  OAuthClientBasic: {
    type: 'http',
    scheme: 'basic',
    description: 'Client authentication at the token endpoint only: `base64(client_id:client_secret)`.',
  },
  // A webhook request is authenticated, by its signature rather than by a credential it carries, so
  // `security: []` would tell a receiver it may trust any request; this scheme tells it what to check.
  WebhookSignature: {
    type: 'apiKey',
    in: 'header',
    name: 'webhook-signature',
    description:
      'Webhook requests only (the `webhooks` section): Pollkit signs every delivery the Standard Webhooks way. ' +
      'Not a key to send: `webhook-signature` holds `v1,<base64 HMAC-SHA256>` of ' +
      '`<webhook-id>.<webhook-timestamp>.<raw body>`, keyed with the endpoint’s signing secret (`whsec_…`); the ' +
      'receiver recomputes it, compares in constant time and refuses a timestamp more than 5 minutes off ' +
      '(`verifyWebhook` in the SDK does all of it). See docs/webhooks.md.',
  },
} as const;

function contractTags(): string[] {
  return [...new Set(Object.values(contract).flatMap((group) => Object.values(group).flatMap((r) => r.tags)))];
}

/** Each tag with what it groups (tag-descriptions.ts), in the order the document lists them. */
function describeTags(document: OpenAPIObject): void {
  document.tags = (document.tags ?? []).map(({ name }) => {
    const description = tagDescriptions[name];
    if (!description) throw new Error(`server/src/openapi/tag-descriptions.ts: the tag ${name} has no description`);
    return { name, description };
  });
}

function addSchema(schemas: Record<string, Schema>, name: string, schema: Schema): void {
  if (schemas[name]) throw new Error(`components.schemas.${name} is already taken`);
  schemas[name] = schema;
}

type ContractRoute = { route: RouteDefinition; group: string; name: string };

/** Every generated operation that is a contract route, with that route and its place in `contract`. */
function* contractOperations(document: OpenAPIObject): Generator<{ operation: Operation } & ContractRoute> {
  const routesByOperation = new Map<string, ContractRoute>(
    Object.entries(contract).flatMap(([group, routes]) =>
      Object.entries(routes).map(
        ([name, route]) => [operationId(group, name), { route: route as RouteDefinition, group, name }] as const,
      ),
    ),
  );
  for (const pathItem of Object.values(document.paths ?? {})) {
    for (const operation of Object.values(pathItem as Record<string, Operation>)) {
      const found = operation.operationId ? routesByOperation.get(operation.operationId) : undefined;
      if (found && operation.responses) yield { operation, ...found };
    }
  }
}

/**
 * No route outputs the error envelope (errors are not a procedure's output), so the generator never
 * meets it. Converting it here, as output, names it and ValidationErrorDetails exactly once; the
 * generator's `defs` option would also emit an orphan input copy and rename the used one to `…Output`.
 */
function registerEnvelopeSchemas(schemas: Record<string, Schema>): void {
  const { components: envelopeSchemas } = createSchema(ErrorEnvelope, { io: 'output' });
  for (const [name, schema] of Object.entries(envelopeSchemas)) {
    if (schemas[name] && !isDeepStrictEqual(schemas[name], schema)) {
      throw new Error(`components.schemas.${name}: the generator and the envelope disagree`);
    }
    schemas[name] = schema as Schema;
  }
}

/**
 * The generator always says 200 with a JSON body: the server answers `successStatus` (and
 * `alternateSuccess`), a file route streams a file, every response carries the rate-limit and request-id headers, and each error
 * status carries the envelope with the codes this route can answer.
 */
function describeResponses(operation: Operation, route: RouteDefinition): void {
  const { 200: success, ...rest } = operation.responses ?? {};
  operation.responses = {
    [String(route.successStatus)]: successResponse(route, success),
    ...(route.alternateSuccess
      ? {
          [String(route.alternateSuccess.status)]: {
            ...successResponse(route, success),
            description: route.alternateSuccess.description,
          },
        }
      : {}),
    ...(route.format === 'sse'
      ? {
          204: {
            description:
              'The session has ended and `Last-Event-ID` names its last event: nothing more will come. SSE clients ' +
              '(EventSource included) stop reconnecting on a 204.',
            headers: allHeaderRefs,
          },
        }
      : {}),
    ...rest,
    ...errorResponses(route),
  };
}

function successResponse(route: RouteDefinition, generated: Record<string, unknown> | undefined) {
  switch (route.format) {
    case 'file':
      return fileOpenApiResponse(route);
    case 'svg':
      return {
        description: 'The SVG document.',
        headers: allHeaderRefs,
        content: { 'image/svg+xml': { schema: { type: 'string' } } },
      };
    case 'sse': {
      // The generator described the event union as a JSON body; it is the stream's events instead.
      const json = (generated?.content as Record<string, { schema: Schema }> | undefined)?.['application/json'];
      return {
        description:
          'A Server-Sent Events stream (`text/event-stream`). Each event is one member of this schema: its `type` ' +
          'is the SSE `event:` field, its `data` the `data:` field as JSON, its `id` the `id:` field. Heartbeats ' +
          'are comment lines. See docs/live-sessions.md.',
        headers: allHeaderRefs,
        content: { 'text/event-stream': { schema: json?.schema ?? { type: 'string' } } },
      };
    }
    default:
      return { ...generated, headers: allHeaderRefs };
  }
}

/** Event streams resume after the `Last-Event-ID` a reconnecting client sends. */
function describeEventStreamResume(operation: Operation, route: RouteDefinition): void {
  if (route.format !== 'sse') return;
  operation.parameters = [
    ...(operation.parameters ?? []),
    {
      name: 'Last-Event-ID',
      in: 'header',
      description:
        'The `id` of the last event received: a reconnecting stream is sent every event of the session’s ' +
        'history after it, in order, before anything new (EventSource sends it by itself).',
      required: false,
      schema: { type: 'string', pattern: '^[0-9]+$' },
    } as never,
  ];
}

/** The generator re-wraps optional query fields, which drops the description they carry. */
function restoreParameterDescriptions(operation: Operation, route: RouteDefinition): void {
  for (const parameter of operation.parameters ?? []) {
    parameter.description ??= fieldDescription(route, parameter.name);
  }
}

/**
 * The body schema is rebuilt (path parameters omitted), which drops its `.meta({ id })`; when the
 * body is the whole input, give it its contract name back as a component.
 */
function nameRequestBody(operation: Operation, route: RouteDefinition, schemas: Record<string, Schema>): void {
  const bodyId = route.input.meta()?.id;
  const body = operation.requestBody?.content['application/json'];
  if (bodyId && body && pathParams(route.path).length === 0) {
    addSchema(schemas, bodyId, body.schema);
    body.schema = { $ref: `#/components/schemas/${bodyId}` };
  }
}

/**
 * Who may call it: an API key, or an OAuth token holding every scope the route requires — any token
 * when the route names none (the generator lists every scheme, unscoped); the scopes and plan also
 * as `x-pollkit-*` extensions for tools.
 */
function describeAccess(operation: Operation, route: RouteDefinition): void {
  const workspace = [{ ApiKey: [] }, { OAuth2: requiredScopes(route) }];
  switch (route.auth) {
    case 'workspace':
      operation.security = workspace;
      break;
    case 'host':
      operation.security = [...workspace, { HostToken: [] }];
      break;
    case 'participant':
      // No API key: the PIN in the path is the way in; the participant token names who is calling.
      operation.security = requiresParticipantToken(route)
        ? [{ ParticipantToken: [] }]
        : [{}, { ParticipantToken: [] }];
      break;
    case 'none':
      operation.security = [];
      break;
  }
  Object.assign(operation, {
    ...(route.scope ? { 'x-pollkit-scope': route.scope } : {}),
    ...(route.additionalScopes ? { 'x-pollkit-additional-scopes': [...route.additionalScopes] } : {}),
    ...(route.plan ? { 'x-pollkit-plan': route.plan } : {}),
  });
}

/**
 * One response per status, each the envelope narrowed to the codes that status can carry for this
 * route, so a client (and the contract tests) can tell which `error.code` values to expect.
 */
function errorResponses(route: RouteDefinition) {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of declaredErrorCodes(route)) {
    const status = errorCodes[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  return Object.fromEntries(
    [...byStatus.entries()]
      .sort(([a], [b]) => a - b)
      .map(([status, codes]) => [
        String(status),
        {
          description: codes.map((code) => `\`${code}\`: ${errorCodes[code].description}`).join(' '),
          headers: allHeaderRefs,
          content: {
            'application/json': {
              schema: {
                allOf: [
                  { $ref: '#/components/schemas/ErrorEnvelope' },
                  { type: 'object', properties: { error: { type: 'object', properties: { code: { enum: codes } } } } },
                ],
              },
            },
          },
        },
      ]),
  );
}

/** The contract's description of an input field, looking through `.optional()` / `.default()` wrappers. */
function fieldDescription(route: RouteDefinition, name: string): string | undefined {
  if (!(route.input instanceof z.ZodObject)) return undefined;
  let schema: z.ZodType | undefined = route.input.shape[name];
  while (schema) {
    if (schema.description) return schema.description;
    schema = (schema._zod.def as { innerType?: z.ZodType }).innerType;
  }
  return undefined;
}

/**
 * A `format: 'file'` route answers a streamed file (http/contract-routes.ts), one of its `files`,
 * not the JSON the generator assumes from its `output` schema.
 */
function fileOpenApiResponse(route: RouteDefinition) {
  const files = Object.values(route.files ?? {});
  const ownHeaders = Object.fromEntries(
    files.flatMap((file) =>
      Object.entries(file.headers ?? {}).map(([name, description]) => [
        name,
        { description, required: false, schema: { type: 'string' } },
      ]),
    ),
  );
  return {
    description: route.output.description ?? 'The file.',
    headers: {
      ...allHeaderRefs,
      'Content-Disposition': {
        description: 'Downloads the document as a file: `attachment; filename="…"`.',
        required: true,
        schema: { type: 'string', pattern: '^attachment; filename="[^"]+"$' },
      },
      ...ownHeaders,
    },
    content: Object.fromEntries(
      files.map((file) => [
        file.contentType.split(';')[0] as string,
        {
          schema: file.binary
            ? { type: 'string', format: 'binary' }
            : {
                type: 'string',
                ...(file.contentType.startsWith('text/csv')
                  ? { description: 'UTF-8, RFC 4180 (CRLF line ends).' }
                  : {}),
              },
        },
      ]),
    ),
  };
}
