import {
  contract,
  type ErrorCode,
  ErrorEnvelope,
  errorCodes,
  inputInQuery,
  operationId,
  type RouteDefinition,
} from '@pollkit/contracts';
import { generateOpenApiDocument, type OpenAPIObject } from 'trpc-to-openapi';
import { appRouter } from '../trpc/router.js';

export const API_VERSION = '1.0.0';

const rateLimitHeaders = {
  'X-RateLimit-Limit': {
    description: 'Requests allowed per window for this credential (120 unless your plan says otherwise).',
    schema: { type: 'integer' },
  },
  'X-RateLimit-Window': {
    description: 'Length of the fixed rate-limit window.',
    schema: { type: 'string', example: '60s' },
  },
  'X-RateLimit-Remaining': {
    description: 'Requests left in the current window. Absent when the request was not authenticated.',
    schema: { type: 'integer' },
  },
  'X-RateLimit-Reset': {
    description: 'When the current window ends, in Unix seconds. Absent when the request was not authenticated.',
    schema: { type: 'integer' },
  },
} as const;

const headerRefs = Object.fromEntries(
  Object.keys(rateLimitHeaders).map((name) => [name, { $ref: `#/components/headers/${name}` }]),
);

/** Codes any route of this kind can answer, on top of the route's own `errors`. */
function errorCodesOf(route: RouteDefinition): ErrorCode[] {
  const codes = new Set<ErrorCode>(route.errors);
  if (route.auth === 'workspace' || route.auth === 'host') {
    for (const code of ['missing_authorization', 'invalid_api_key', 'revoked_api_key', 'expired_api_key'] as const) {
      codes.add(code);
    }
    codes.add('upgrade_required');
    codes.add('rate_limited');
  }
  if (!inputInQuery(route.method)) {
    codes.add('invalid_json');
    codes.add('payload_too_large');
    codes.add('unsupported_media_type');
  }
  codes.add('validation_failed');
  codes.add('internal_error');
  return [...codes];
}

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
          headers: headerRefs,
          content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } },
        },
      ]),
  );
}

type Operation = { operationId?: string; responses?: Record<string, Record<string, unknown>> };

/**
 * The OpenAPI 3.1 document, generated from the contracts by trpc-to-openapi and then completed with
 * what the generator cannot know: the real success status (201), the error envelope and codes per
 * operation, and the rate-limit headers every response carries.
 */
export function buildOpenApiDocument(): OpenAPIObject {
  const document = generateOpenApiDocument(appRouter, {
    title: 'Pollkit API',
    version: API_VERSION,
    description:
      'Polls as decks of typed slides, votes and responses, results, live sessions. Authenticate with ' +
      '`Authorization: Bearer <API_KEY>`. Errors answer `{ error: { code, message, details? } }`.',
    baseUrl: '/api/v1',
    securitySchemes: {
      ApiKey: {
        type: 'http',
        scheme: 'bearer',
        description: 'A workspace API key (`pk_live_…`). Keys act with every scope of their workspace.',
      },
    },
    defs: { ErrorEnvelope } as never,
  });

  const routesByOperation = new Map<string, RouteDefinition>(
    Object.entries(contract).flatMap(([group, routes]) =>
      Object.entries(routes).map(([name, route]) => [operationId(group, name), route as RouteDefinition] as const),
    ),
  );

  for (const pathItem of Object.values(document.paths ?? {})) {
    for (const operation of Object.values(pathItem as Record<string, Operation>)) {
      const route = operation.operationId ? routesByOperation.get(operation.operationId) : undefined;
      if (!route || !operation.responses) continue;
      const { 200: success, ...rest } = operation.responses;
      operation.responses = {
        [String(route.successStatus)]: { ...success, headers: headerRefs },
        ...rest,
        ...errorResponses(route),
      };
      Object.assign(operation, {
        'x-pollkit-scope': route.scope ?? null,
        ...(route.plan ? { 'x-pollkit-plan': route.plan } : {}),
      });
    }
  }
  document.components = { ...document.components, headers: rateLimitHeaders as never };
  return document;
}
