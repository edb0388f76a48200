import { isDeepStrictEqual } from 'node:util';
import {
  contract,
  type ErrorCode,
  ErrorEnvelope,
  errorCodes,
  operationId,
  pathParams,
  type RouteDefinition,
} from '@pollkit/contracts';
import { generateOpenApiDocument, type OpenAPIObject } from 'trpc-to-openapi';
import { z } from 'zod';
import { createSchema } from 'zod-openapi';
import { OAUTH_TOKEN_PATH } from '../http/oauth-token.js';
import { WINDOW_HEADER_VALUE } from '../http/rate-limit-headers.js';
import { TOKEN_REQUESTS_PER_MINUTE } from '../modules/oauth/oauth.service.js';
import { scopeDescriptions } from '../modules/oauth/scope-descriptions.js';
import { appRouter } from '../trpc/router.js';

export const API_VERSION = '1.0.0';

/** Headers the HTTP layer sets on responses under /api (see http/app.ts and http/rate-limit-headers.ts). */
const responseHeaders = {
  'X-RateLimit-Limit': {
    description:
      'Requests allowed per window for this credential (120 unless your plan says otherwise). On an ' +
      'operation with a limit of its own (`POST /media`: 30) it describes whichever limit binds.',
    required: true,
    schema: { type: 'integer', minimum: 1 },
  },
  'X-RateLimit-Window': {
    description: 'Length of the fixed rate-limit window.',
    required: true,
    schema: { type: 'string', const: WINDOW_HEADER_VALUE },
  },
  'X-RateLimit-Remaining': {
    description:
      'Requests left in the current window. Sent once the credential is known: absent on 401 and on ' +
      'requests refused before authentication (malformed or oversized bodies).',
    schema: { type: 'integer', minimum: 0 },
  },
  'X-RateLimit-Reset': {
    description: 'When the current window ends, in Unix seconds. Sent whenever `X-RateLimit-Remaining` is.',
    schema: { type: 'integer', minimum: 0 },
  },
  'X-Request-Id': {
    description: 'The `X-Request-Id` the client sent, or one the server assigned; quote it when reporting a problem.',
    required: true,
    schema: { type: 'string', minLength: 1 },
  },
} as const;

type HeaderName = keyof typeof responseHeaders;

/**
 * The optional request header every POST operation takes (docs/idempotency.md). Inlined in each
 * operation, so generators show it with its description. A replay's own response headers
 * (`Idempotent-Replayed`, `Original-Request`) are described here rather than on every response:
 * a documented response header reads as one every such response carries.
 */
const idempotencyKeyParameter = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description:
    'Makes the request safe to retry. The first request with a key does the work; for 24 hours a request ' +
    'with the same key, route, path parameters and body answers that same status and body again (with ' +
    "`Idempotent-Replayed: true` and `Original-Request: <the first request's X-Request-Id>`) without " +
    'doing it twice. The same key with a different request answers ' +
    '422 `idempotency_key_reused`; while the first is still running, 409 `idempotency_key_in_use`. Keys ' +
    'are scoped to the workspace. 1–255 printable ASCII characters (a UUID v4 is a good choice); ' +
    'anything else is 400 `bad_request`.',
  schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x20-\\x7E]+$' },
} as const;

function headerRefs(names: readonly HeaderName[]) {
  return Object.fromEntries(names.map((name) => [name, { $ref: `#/components/headers/${name}` }]));
}

const allHeaders = Object.keys(responseHeaders) as HeaderName[];
/** What a response under /api carries before (or without) the rate limiter counting it. */
const baseHeaders: HeaderName[] = ['X-RateLimit-Limit', 'X-RateLimit-Window', 'X-Request-Id'];

/**
 * Codes a route can answer besides its own `errors`: the guard's (401, 402, 429, and 403 for an
 * OAuth token without the route's scope) for authenticated routes, the body parser's on every
 * method Fastify parses a body for (all but GET, so DELETE too), and the ones any request can meet.
 */
function errorCodesOf(route: RouteDefinition): ErrorCode[] {
  const codes = new Set<ErrorCode>(route.errors);
  if (route.auth === 'workspace' || route.auth === 'host') {
    for (const code of [
      'missing_authorization',
      'invalid_api_key',
      'revoked_api_key',
      'expired_api_key',
      'invalid_oauth_token',
    ] as const) {
      codes.add(code);
    }
    codes.add('upgrade_required');
    if (route.scope) codes.add('insufficient_scope');
    codes.add('rate_limited');
  }
  if (route.method === 'POST') {
    codes.add('idempotency_key_reused');
    codes.add('idempotency_key_in_use');
  }
  if (route.method !== 'GET') {
    codes.add('invalid_json');
    codes.add('payload_too_large');
    codes.add('unsupported_media_type');
  }
  codes.add('bad_request');
  codes.add('validation_failed');
  codes.add('internal_error');
  return [...codes];
}

/**
 * One response per status, each the envelope narrowed to the codes that status can carry for this
 * route, so a client (and the contract tests) can tell which `error.code` values to expect.
 */
function errorResponses(route: RouteDefinition) {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of errorCodesOf(route)) {
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
          headers: headerRefs(allHeaders),
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

/** `GET /openapi.json` is a plain Fastify route (http/app.ts), so tRPC cannot describe it. */
const documentPath = {
  '/openapi.json': {
    get: {
      operationId: 'openapiDocument',
      summary: 'Get this OpenAPI document',
      description: 'The OpenAPI 3.1 description of this API, generated from the contracts the server runs.',
      tags: ['meta'],
      security: [],
      responses: {
        '200': {
          description: 'The OpenAPI document.',
          headers: {
            ...headerRefs(baseHeaders),
            'Cache-Control': { description: 'The document is cacheable.', schema: { type: 'string' } },
          },
          content: {
            'application/json': {
              schema: {
                type: 'object',
                required: ['openapi', 'info', 'paths'],
                properties: { openapi: { type: 'string', pattern: '^3\\.1\\.\\d+$' } },
              },
            },
          },
        },
      },
    },
  },
};

/** `GET /media/files/{name}` is a plain Fastify route (http/media-files.ts) at the server root. */
const mediaFilesPath = {
  '/media/files/{name}': {
    servers: [{ url: '/', description: 'Re-hosted media files are served outside /api/v1.' }],
    get: {
      operationId: 'mediaFile',
      summary: 'Get a re-hosted media file',
      description:
        'The WebP an image was re-encoded to by `POST /media`: the `storedUrl` it answered. Public (no ' +
        'credential) and immutable: the name is the SHA-256 of the source bytes, so caches may keep it for a year.',
      tags: ['media'],
      security: [],
      parameters: [
        {
          name: 'name',
          in: 'path',
          required: true,
          description: '`<64 hex digits>.webp`; any other name is 404.',
          schema: { type: 'string', pattern: '^[0-9a-f]{64}\\.webp$' },
        },
        {
          name: 'If-None-Match',
          in: 'header',
          required: false,
          description: 'An ETag from an earlier response: 304 when it still matches.',
          schema: { type: 'string' },
        },
      ],
      responses: {
        '200': {
          description: 'The image.',
          headers: {
            'Cache-Control': {
              required: true,
              schema: { type: 'string', const: 'public, max-age=31536000, immutable' },
            },
            ETag: { required: true, schema: { type: 'string' } },
            'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' },
          },
          content: { 'image/webp': { schema: { type: 'string', format: 'binary' } } },
        },
        '304': { description: 'Not modified: the `If-None-Match` ETag matches.' },
        '404': {
          description: '`not_found`: no file of that name (or not a valid name).',
          headers: { 'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' } },
          content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } },
        },
      },
    },
  },
};

/** The token endpoint is outside /api/v1: its path item names its own server. */
const OAUTH_SERVER_URL = '/api';
const tokenPathKey = OAUTH_TOKEN_PATH.slice(OAUTH_SERVER_URL.length);

function oauthErrorResponse(description: string, codes: readonly string[], extraHeaders: Record<string, unknown> = {}) {
  return {
    description,
    headers: { ...tokenHeaders, ...extraHeaders },
    content: {
      'application/json': {
        schema: {
          allOf: [
            { $ref: '#/components/schemas/OAuthError' },
            { type: 'object', properties: { error: { enum: codes } } },
          ],
        },
      },
    },
  };
}

/** What every token-endpoint response carries: never cached, and the endpoint's own limit. */
const tokenHeaders = {
  'Cache-Control': {
    description: 'Never cache a token response.',
    required: true,
    schema: { type: 'string', const: 'no-store' },
  },
  Pragma: { description: 'For HTTP/1.0 caches.', required: true, schema: { type: 'string', const: 'no-cache' } },
  'X-RateLimit-Limit': {
    description: `Token requests allowed per window and \`client_id\` (${TOKEN_REQUESTS_PER_MINUTE}).`,
    required: true,
    schema: { type: 'integer', const: TOKEN_REQUESTS_PER_MINUTE },
  },
  'X-RateLimit-Window': { $ref: '#/components/headers/X-RateLimit-Window' },
  'X-RateLimit-Remaining': {
    description: 'Token requests left this window for the `client_id` (sent once a `client_id` was given).',
    schema: { type: 'integer', minimum: 0 },
  },
  'X-RateLimit-Reset': { $ref: '#/components/headers/X-RateLimit-Reset' },
  'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' },
};

/** `POST /api/oauth/token` is a plain Fastify route (http/oauth-token.ts), outside the contract. */
const tokenPath = {
  [tokenPathKey]: {
    servers: [{ url: OAUTH_SERVER_URL, description: 'The OAuth token endpoint lives outside /api/v1.' }],
    post: {
      operationId: 'oauthToken',
      summary: 'Get an OAuth access token (client credentials)',
      description:
        'The OAuth 2.0 client credentials grant (RFC 6749 §4.4) for Enterprise workspaces with OAuth enabled. ' +
        'Authenticate the client with HTTP Basic (`base64(client_id:client_secret)`) or with `client_id` and ' +
        '`client_secret` parameters, not both. `scope` (space-separated) narrows the token to part of the ' +
        "client's allowed scopes; without it the token gets all of them. Send the token as " +
        '`Authorization: Bearer <access_token>` on /api/v1. Errors are RFC 6749 §5.2 bodies, not the API ' +
        `envelope. At most ${TOKEN_REQUESTS_PER_MINUTE} requests a minute per \`client_id\`.`,
      tags: ['oauth'],
      // Basic, or no header at all when the credentials travel in the body.
      security: [{ OAuthClientBasic: [] }, {}],
      requestBody: {
        required: true,
        content: {
          'application/x-www-form-urlencoded': { schema: { $ref: '#/components/schemas/OAuthTokenRequest' } },
          'application/json': { schema: { $ref: '#/components/schemas/OAuthTokenRequest' } },
        },
      },
      responses: {
        '200': {
          description: 'An access token.',
          headers: tokenHeaders,
          content: { 'application/json': { schema: { $ref: '#/components/schemas/OAuthTokenResponse' } } },
        },
        '400': oauthErrorResponse(
          '`invalid_request`: missing, repeated or malformed parameters, or the client authenticated twice. ' +
            '`unsupported_grant_type`: a grant other than `client_credentials`. `invalid_scope`: a scope the ' +
            "client is not allowed. `access_denied`: the client is revoked, or its workspace's OAuth is off.",
          ['invalid_request', 'unsupported_grant_type', 'invalid_scope', 'access_denied'],
        ),
        '401': oauthErrorResponse(
          '`invalid_client`: unknown `client_id`, wrong `client_secret`, or no client authentication.',
          ['invalid_client'],
          {
            'WWW-Authenticate': {
              description: 'Sent when the client tried an `Authorization` header.',
              schema: { type: 'string', const: 'Basic realm="pollkit"' },
            },
          },
        ),
        '429': oauthErrorResponse(
          `\`access_denied\`: more than ${TOKEN_REQUESTS_PER_MINUTE} token requests this minute for this \`client_id\`.`,
          ['access_denied'],
        ),
        '500': oauthErrorResponse('`server_error`: unexpected server error.', ['server_error']),
      },
    },
  },
};

const oauthSchemas = {
  OAuthTokenRequest: {
    type: 'object',
    required: ['grant_type'],
    properties: {
      grant_type: { type: 'string', const: 'client_credentials' },
      scope: {
        type: 'string',
        description: 'Space-separated scopes, within those the client is allowed. Default: all of them.',
        examples: ['polls:read responses:read'],
      },
      client_id: { type: 'string', description: 'The client id (`oac_…`), unless sent by HTTP Basic.' },
      client_secret: { type: 'string', description: 'The client secret (`ocs_…`), unless sent by HTTP Basic.' },
    },
  },
  OAuthTokenResponse: {
    type: 'object',
    required: ['access_token', 'token_type', 'expires_in', 'scope'],
    additionalProperties: false,
    properties: {
      access_token: {
        type: 'string',
        pattern: '^oat_',
        description: 'Send as `Authorization: Bearer <access_token>`.',
      },
      token_type: { type: 'string', const: 'Bearer' },
      expires_in: { type: 'integer', minimum: 1, description: 'Seconds until the token expires.' },
      scope: { type: 'string', description: 'The scopes granted, space-separated.' },
    },
  },
  OAuthError: {
    type: 'object',
    description: 'RFC 6749 §5.2 error response.',
    required: ['error', 'error_description'],
    additionalProperties: false,
    properties: {
      error: { type: 'string' },
      error_description: { type: 'string' },
    },
  },
};

/**
 * A `format: 'csv'` route answers a streamed CSV file (http/contract-routes.ts), not the JSON the
 * generator assumes from its `output` schema.
 */
function csvResponse(route: RouteDefinition) {
  return {
    description: route.output.description ?? 'The CSV document.',
    headers: {
      ...headerRefs(allHeaders),
      'Content-Disposition': {
        description: 'Downloads the document as a file: `attachment; filename="…"`.',
        required: true,
        schema: { type: 'string', pattern: '^attachment; filename="[^"]+"$' },
      },
    },
    content: { 'text/csv': { schema: { type: 'string', description: 'UTF-8, RFC 4180 (CRLF line ends).' } } },
  };
}

type Schema = Record<string, unknown>;
type Operation = {
  operationId?: string;
  parameters?: { name: string; description?: string }[];
  requestBody?: { content: Record<string, { schema: Schema }> };
  responses?: Record<string, Record<string, unknown>>;
};

/**
 * The OpenAPI 3.1 document, generated from the contracts by trpc-to-openapi and then completed with
 * what the generator cannot know: the real success status (201), the error envelope and codes per
 * operation, the headers every response carries, and the names and descriptions it drops.
 */
export function buildOpenApiDocument(): OpenAPIObject {
  const tags = [...new Set(Object.values(contract).flatMap((group) => Object.values(group).flatMap((r) => r.tags)))];
  const document = generateOpenApiDocument(appRouter, {
    title: 'Pollkit API',
    version: API_VERSION,
    description:
      'Polls as decks of typed slides, votes and responses, results, live sessions. Authenticate with ' +
      '`Authorization: Bearer <API_KEY>`, or (Enterprise) with an OAuth access token from ' +
      '`POST /api/oauth/token` holding the scope each operation names. Errors answer `{ error: { code, message, details? } }`. Every ' +
      'response carries `X-RateLimit-Limit` and `X-RateLimit-Window`; authenticated ones also ' +
      '`X-RateLimit-Remaining` and `X-RateLimit-Reset`.',
    baseUrl: '/api/v1',
    tags: [...tags, 'oauth', 'meta'],
    securitySchemes: {
      ApiKey: {
        type: 'http',
        scheme: 'bearer',
        description: 'A workspace API key (`pk_live_…`). Keys act with every scope of their workspace.',
      },
      OAuth2: {
        type: 'oauth2',
        description:
          'OAuth 2.0 client credentials (Enterprise workspaces with OAuth enabled). The access token (`oat_…`) ' +
          'is sent as `Authorization: Bearer <token>` and holds only its scopes; each operation names the one ' +
          'it requires.',
        flows: { clientCredentials: { tokenUrl: OAUTH_TOKEN_PATH, scopes: scopeDescriptions } },
      },
      OAuthClientBasic: {
        type: 'http',
        scheme: 'basic',
        description: 'Client authentication at the token endpoint only: `base64(client_id:client_secret)`.',
      },
    },
    paths: { ...documentPath, ...tokenPath, ...mediaFilesPath } as never,
  });
  const components = document.components ?? {};
  const schemas = (components.schemas ?? {}) as Record<string, Schema>;
  components.schemas = schemas;

  // No route outputs the envelope (errors bypass tRPC's output), so the generator never meets it.
  // Converting it here, as output, names it and ValidationErrorDetails exactly once; the generator's
  // `defs` option would also emit an orphan input copy and rename the used one to `…Output`.
  const { components: envelopeSchemas } = createSchema(ErrorEnvelope, { io: 'output' });
  for (const [name, schema] of Object.entries(envelopeSchemas)) {
    if (schemas[name] && !isDeepStrictEqual(schemas[name], schema)) {
      throw new Error(`components.schemas.${name}: the generator and the envelope disagree`);
    }
    schemas[name] = schema as Schema;
  }

  const routesByOperation = new Map<string, RouteDefinition>(
    Object.entries(contract).flatMap(([group, routes]) =>
      Object.entries(routes).map(([name, route]) => [operationId(group, name), route as RouteDefinition] as const),
    ),
  );

  for (const pathItem of Object.values(document.paths ?? {})) {
    for (const operation of Object.values(pathItem as Record<string, Operation>)) {
      const route = operation.operationId ? routesByOperation.get(operation.operationId) : undefined;
      if (!route || !operation.responses) continue;

      // trpc-to-openapi always says 200; the server answers `successStatus` (see responseMeta in http/app.ts).
      const { 200: success, ...rest } = operation.responses;
      operation.responses = {
        [String(route.successStatus)]:
          route.format === 'csv' ? csvResponse(route) : { ...success, headers: headerRefs(allHeaders) },
        ...rest,
        ...errorResponses(route),
      };

      // The generator re-wraps optional query fields, which drops the description they carry.
      for (const parameter of operation.parameters ?? []) {
        parameter.description ??= fieldDescription(route, parameter.name);
      }

      if (route.method === 'POST') {
        operation.parameters = [...(operation.parameters ?? []), { ...idempotencyKeyParameter }];
      }

      // The body schema is rebuilt (path parameters omitted), which drops its `.meta({ id })`; when the
      // body is the whole input, give it its contract name back as a component.
      const bodyId = route.input.meta()?.id;
      const body = operation.requestBody?.content['application/json'];
      if (bodyId && body && pathParams(route.path).length === 0) {
        if (schemas[bodyId]) throw new Error(`components.schemas.${bodyId} is already taken`);
        schemas[bodyId] = body.schema;
        body.schema = { $ref: `#/components/schemas/${bodyId}` };
      }

      // An API key, or an OAuth token holding the route's scope (the generator lists every scheme, unscoped).
      (operation as { security?: unknown }).security = [
        { ApiKey: [] },
        ...(route.scope ? [{ OAuth2: [route.scope] }] : []),
      ];

      Object.assign(operation, {
        ...(route.scope ? { 'x-pollkit-scope': route.scope } : {}),
        ...(route.plan ? { 'x-pollkit-plan': route.plan } : {}),
      });
    }
  }
  for (const [name, schema] of Object.entries(oauthSchemas)) {
    if (schemas[name]) throw new Error(`components.schemas.${name} is already taken`);
    schemas[name] = schema;
  }
  components.headers = responseHeaders as never;
  document.components = components;
  return document;
}

/** The document as docs/openapi.json holds it: `write.ts` writes this, the tests compare against it. */
export function openApiJson(): string {
  return `${JSON.stringify(buildOpenApiDocument(), null, 2)}\n`;
}
