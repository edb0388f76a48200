import { isStorableText } from '@pollkit/contracts';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { ApiError } from '../core/api-error.js';
import { isDependencyUnavailable } from '../core/unavailable.js';
import {
  CLIENT_ID_MAX_LENGTH,
  issueToken,
  OAuthError,
  TOKEN_REQUESTS_PER_MINUTE,
  type TokenRequest,
} from '../modules/oauth/oauth.service.js';
import type { HttpDeps } from './http-deps.js';
import { logFailure } from './log-failure.js';
import { announceDefaultRateLimit } from './rate-limit-headers.js';

export const OAUTH_TOKEN_PATH = '/api/oauth/token';
const FORM_CONTENT_TYPE = 'application/x-www-form-urlencoded';
/** A token request is a handful of short parameters. */
const TOKEN_BODY_LIMIT_BYTES = 8 * 1024;
const BASIC_CHALLENGE = 'Basic realm="pollkit"';

/**
 * `POST /api/oauth/token`: the OAuth 2.0 client credentials grant (RFC 6749 §4.4), outside
 * /api/v1 and outside the contract. It speaks OAuth rather than the API's envelope: parameters
 * form-encoded (RFC 6749 §4.4.2) or as JSON, client authentication by HTTP Basic or in the body
 * (§2.3.1, one or the other), errors as `{ error, error_description }` (§5.2).
 *
 * Registered in its own encapsulated plugin, so the form parser and the OAuth error handler apply
 * to this route only; every other route stays JSON-only with the envelope.
 */
export function registerOAuthTokenRoute(
  app: FastifyInstance,
  deps: Pick<HttpDeps, 'db' | 'rateLimits' | 'config'>,
): void {
  app.register(async (scope) => {
    scope.addContentTypeParser(FORM_CONTENT_TYPE, { parseAs: 'string' }, (_request, body, done) => {
      done(null, new URLSearchParams(typeof body === 'string' ? body : body.toString('utf8')));
    });

    // Body-parser failures (bad JSON, another content type, too large) are malformed requests.
    scope.setErrorHandler((error, request, reply) => {
      if (error instanceof OAuthError) return sendOAuthError(reply, error, false);
      // Fastify's errors carry `statusCode`; the shared JSON parser's depth check throws an ApiError.
      const status = error instanceof ApiError ? error.status : (error as { statusCode?: number }).statusCode;
      if (status !== undefined && status >= 400 && status < 500) {
        const message =
          status === 415
            ? `Send the parameters as ${FORM_CONTENT_TYPE} or application/json`
            : 'The request body is malformed or too large';
        return sendOAuthError(reply, new OAuthError('invalid_request', message), false);
      }
      logFailure(request.log, error, 'token endpoint failed');
      // RFC 6749 has no code of its own for the token endpoint here; `temporarily_unavailable` is
      // its name for the same condition at the authorization endpoint (§4.1.2.1), and the 503 says
      // "retry" to any client.
      if (isDependencyUnavailable(error)) {
        return noStore(reply)
          .code(503)
          .send({ error: 'temporarily_unavailable', error_description: 'A dependency is unreachable; retry shortly' });
      }
      return noStore(reply).code(500).send({ error: 'server_error', error_description: 'Internal server error' });
    });

    // This route's own limit replaces the API-wide default the root onRequest hook announced.
    scope.addHook('onRequest', (_request, reply, done) => {
      announceDefaultRateLimit(reply, TOKEN_REQUESTS_PER_MINUTE);
      done();
    });

    scope.post(OAUTH_TOKEN_PATH, { bodyLimit: TOKEN_BODY_LIMIT_BYTES }, async (request, reply) => {
      // A client that tried HTTP Basic gets the challenge with a 401 (RFC 6749 §5.2).
      const basicAttempted = request.headers.authorization !== undefined;
      try {
        const tokenRequest = readTokenRequest(readParams(request.body), parseBasic(request.headers.authorization));
        const issued = await issueToken(
          {
            db: deps.db,
            rateLimits: deps.rateLimits,
            tokenTtlSeconds: deps.config.OAUTH_TOKEN_TTL_SECONDS,
            authFailuresPerMinute: deps.config.AUTH_FAILURES_PER_IP_PER_MINUTE,
          },
          { ...tokenRequest, address: request.ip },
          ({ count, resetAt }) => {
            reply.header('x-ratelimit-remaining', Math.max(0, TOKEN_REQUESTS_PER_MINUTE - count));
            reply.header('x-ratelimit-reset', Math.ceil(resetAt / 1000));
          },
        );
        return noStore(reply).code(200).send(issued);
      } catch (error) {
        if (error instanceof OAuthError) return sendOAuthError(reply, error, basicAttempted);
        throw error;
      }
    });
  });
}

/** The grant's parameters and the client's credentials, or the OAuth error the request deserves. */
function readTokenRequest(params: TokenParams, basic: ReturnType<typeof parseBasic>): TokenRequest {
  const inBody = params.client_id !== undefined || params.client_secret !== undefined;
  if (basic && inBody) {
    throw new OAuthError(
      'invalid_request',
      'Authenticate the client with HTTP Basic or with client_id and client_secret in the body, not both',
    );
  }
  if (params.grant_type === undefined) throw new OAuthError('invalid_request', 'The grant_type parameter is missing');
  if (params.grant_type !== 'client_credentials') {
    throw new OAuthError('unsupported_grant_type', 'Only the client_credentials grant type is supported');
  }
  if (params.scope !== undefined && !/^[\x21\x23-\x5b\x5d-\x7e]+( [\x21\x23-\x5b\x5d-\x7e]+)*$/.test(params.scope)) {
    throw new OAuthError('invalid_request', 'The scope parameter is a list of scope names separated by single spaces');
  }
  if (basic) {
    if (basic === 'malformed') {
      throw new OAuthError(
        'invalid_client',
        'Send the client as `Authorization: Basic base64(client_id:client_secret)`',
      );
    }
    return { ...basic, scope: params.scope };
  }
  if (!inBody) {
    throw new OAuthError(
      'invalid_client',
      'Authenticate the client with HTTP Basic or with client_id and client_secret parameters',
    );
  }
  if (!params.client_id || !params.client_secret) {
    throw new OAuthError('invalid_request', 'Send both client_id and client_secret');
  }
  return { clientId: params.client_id, clientSecret: params.client_secret, scope: params.scope };
}

type TokenParams = Partial<Record<'grant_type' | 'scope' | 'client_id' | 'client_secret', string>>;
const PARAMETER_NAMES = ['grant_type', 'scope', 'client_id', 'client_secret'] as const;

/**
 * Form or JSON parameters, each at most once and a string (RFC 6749 §3.2); others are ignored (§3.2).
 * A value PostgreSQL cannot store (a NUL, an unpaired surrogate) is malformed: it would otherwise
 * fail in the client lookup as a server error.
 */
function readParams(body: unknown): TokenParams {
  const params = readRawParams(body);
  for (const name of PARAMETER_NAMES) {
    const value = params[name];
    if (value !== undefined && !isStorableText(value)) {
      throw new OAuthError('invalid_request', `The ${name} parameter contains a NUL character or invalid Unicode`);
    }
  }
  return params;
}

function readRawParams(body: unknown): TokenParams {
  const params: TokenParams = {};
  if (body === undefined || body === null) return params;
  if (body instanceof URLSearchParams) {
    for (const name of PARAMETER_NAMES) {
      const values = body.getAll(name);
      if (values.length > 1) throw new OAuthError('invalid_request', `The ${name} parameter is repeated`);
      if (values[0] !== undefined) params[name] = values[0];
    }
    return params;
  }
  if (typeof body !== 'object' || Array.isArray(body)) {
    throw new OAuthError('invalid_request', 'The JSON body must be an object of parameters');
  }
  for (const name of PARAMETER_NAMES) {
    const value = (body as Record<string, unknown>)[name];
    if (value === undefined) continue;
    if (typeof value !== 'string') throw new OAuthError('invalid_request', `The ${name} parameter must be a string`);
    params[name] = value;
  }
  return params;
}

/**
 * `Authorization: Basic base64(client_id:client_secret)`, each part form-urlencoded first
 * (RFC 6749 §2.3.1). Undefined without an Authorization header; another scheme counts as a
 * malformed attempt at client authentication.
 */
function parseBasic(header: string | undefined): { clientId: string; clientSecret: string } | 'malformed' | undefined {
  if (header === undefined) return undefined;
  const match = /^Basic\s+([A-Za-z0-9+/]+={0,2})\s*$/i.exec(header);
  if (!match?.[1]) return 'malformed';
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon <= 0) return 'malformed';
  try {
    const clientId = decodeURIComponent(decoded.slice(0, colon).replaceAll('+', ' '));
    const clientSecret = decodeURIComponent(decoded.slice(colon + 1).replaceAll('+', ' '));
    if (!clientSecret || !isStorableText(clientId) || !isStorableText(clientSecret)) return 'malformed';
    return { clientId, clientSecret };
  } catch {
    return 'malformed';
  }
}

/** Token responses must not be cached anywhere (RFC 6749 §5.1); errors neither. */
function noStore(reply: FastifyReply): FastifyReply {
  return reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
}

function sendOAuthError(reply: FastifyReply, error: OAuthError, basicAttempted: boolean) {
  if (error.status === 401 && basicAttempted) reply.header('www-authenticate', BASIC_CHALLENGE);
  return noStore(reply)
    .code(error.status)
    .type('application/json')
    .send({ error: error.error, error_description: error.description });
}

// ---- How the OpenAPI document describes this route (outside the contract, so the generator cannot).

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
export const oauthTokenPath = {
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
          '`invalid_request`: missing, repeated or malformed parameters (a `client_id` longer than ' +
            `${CLIENT_ID_MAX_LENGTH} characters among them), or the client authenticated twice. ` +
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
          `\`access_denied\`: more than ${TOKEN_REQUESTS_PER_MINUTE} token requests this minute for this \`client_id\`, ` +
            'or a failed client authentication past the budget of failed authentications from this address ' +
            '(`AUTH_FAILURES_PER_IP_PER_MINUTE`, shared with `/api/v1`).',
          ['access_denied'],
        ),
        '500': oauthErrorResponse('`server_error`: unexpected server error.', ['server_error']),
        '503': oauthErrorResponse(
          '`temporarily_unavailable`: the database cannot be reached just now; retry with backoff.',
          ['temporarily_unavailable'],
        ),
      },
    },
  },
};

/** The token endpoint's request, response and error bodies, as `components.schemas`. */
export const oauthTokenSchemas = {
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
