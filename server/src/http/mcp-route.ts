import { scopes } from '@pollkit/contracts';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { identifyCaller, type Operation } from '../api/pipeline.js';
import { countRequest } from '../api/rate-limit.js';
import { publicBaseUrl } from '../config.js';
import { ApiError, toApiError } from '../core/api-error.js';
import type { AgentEndpoint } from '../mcp/agent-endpoint.js';
import { isAgentOperation } from '../mcp/agent-tools.js';
import type { HttpDeps } from './http-deps.js';
import { logFailure } from './log-failure.js';
import { OAUTH_TOKEN_PATH } from './oauth-token.js';
import { writeRateLimitHeaders } from './rate-limit-headers.js';

export const MCP_PATH = '/mcp';
const PROTECTED_RESOURCE_PATH = '/.well-known/oauth-protected-resource';
const AUTHORIZATION_SERVER_PATH = '/.well-known/oauth-authorization-server';

/**
 * `/mcp`: the API for AI agents, over MCP's Streamable HTTP transport (mcp/agent-endpoint.ts), and the
 * OAuth discovery documents MCP's authorization specification asks for.
 *
 * Every request is identified here first, exactly as the API identifies one: the bearer credential
 * (an API key or an OAuth access token; 401 in the envelope otherwise, with the `WWW-Authenticate`
 * challenge naming the resource metadata, RFC 9728 §5.1), failures counted per address, the free
 * plan refused (402). Only then does the MCP server see the body. Stateless: POST only; GET (a
 * server-to-client stream) and DELETE (ending a session) have nothing to serve, so they answer 405.
 */
export function registerMcpRoutes(app: FastifyInstance, deps: HttpDeps, operations: readonly Operation[]): void {
  const baseUrl = () => {
    const address = app.server.address();
    return publicBaseUrl(deps.config, typeof address === 'object' && address ? address.port : 0);
  };
  // The MCP SDK takes ~0.2 s to load: on the first /mcp request, not at every start (as the
  // OpenAPI generator, server.ts).
  let endpoint: Promise<AgentEndpoint> | undefined;
  const agentEndpoint = () => {
    endpoint ??= import('../mcp/agent-endpoint.js').then(
      ({ AgentEndpoint }) =>
        new AgentEndpoint(operations, {
          bodyLimitBytes: deps.config.BODY_LIMIT_BYTES,
          onFailure: (caller, error, tool) => logFailure(caller.request.log, error, 'tool call failed', { tool }),
        }),
    );
    return endpoint;
  };
  // A tool's arguments are its route's body: the largest route limit bounds the request, and each
  // call is then held to its own route's (AgentEndpoint).
  const bodyLimit = Math.max(
    deps.config.BODY_LIMIT_BYTES,
    ...operations.filter((op) => isAgentOperation(op.route)).map((op) => op.route.bodyLimitBytes ?? 0),
  );

  app.post(MCP_PATH, { bodyLimit }, async (request, reply) => {
    const facts = { id: request.id, log: request.log, authorization: request.headers.authorization, ip: request.ip };
    // What identifying and counting the caller decided: the rate limit goes out as headers.
    const caller: Parameters<typeof identifyCaller>[1] = { request: facts, rateLimit: undefined };
    let credential: Awaited<ReturnType<typeof identifyCaller>>;
    try {
      credential = await identifyCaller(deps, caller);
      // A tool call is counted by its operation's pipeline (its result's `_meta` says how); any
      // other request (initialize, tools/list, ping) once here, on the same counter. Notifications
      // cost nothing to answer.
      if (countsAsRequest(request.body)) {
        const counted = { credential, rateLimit: caller.rateLimit };
        try {
          await countRequest(deps, counted);
        } finally {
          caller.rateLimit = counted.rateLimit;
        }
      }
    } catch (error) {
      return sendFailure(request, reply, error, caller.rateLimit, baseUrl());
    }
    if (caller.rateLimit) writeRateLimitHeaders(reply, caller.rateLimit);
    const response = await (await agentEndpoint()).handle(webRequestOf(request, baseUrl()), request.body, {
      credential,
      request: facts,
    });
    reply.code(response.status);
    response.headers.forEach((value, name) => {
      reply.header(name, value);
    });
    return reply.send(await response.text());
  });

  app.route({
    method: ['GET', 'DELETE'],
    url: MCP_PATH,
    handler: (_request, reply) => {
      const error = new ApiError('method_not_allowed', 'The MCP endpoint is stateless: send each message as a POST');
      return reply.code(405).header('allow', 'POST').send(error.toEnvelope());
    },
  });

  // RFC 9728: what protects `/mcp`, at the well-known path and at that path with the resource's own.
  const protectedResource = () => ({
    resource: `${baseUrl()}${MCP_PATH}`,
    authorization_servers: [baseUrl()],
    scopes_supported: [...scopes],
    bearer_methods_supported: ['header'],
    resource_name: 'Pollkit',
  });
  app.get(PROTECTED_RESOURCE_PATH, async () => protectedResource());
  app.get(`${PROTECTED_RESOURCE_PATH}${MCP_PATH}`, async () => protectedResource());

  // RFC 8414: the token endpoint and the one grant it serves. There is no authorization endpoint,
  // which the RFC allows when no grant uses one.
  app.get(AUTHORIZATION_SERVER_PATH, async () => ({
    issuer: baseUrl(),
    token_endpoint: `${baseUrl()}${OAUTH_TOKEN_PATH}`,
    grant_types_supported: ['client_credentials'],
    token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
    response_types_supported: [],
    scopes_supported: [...scopes],
  }));
}

/** Whether a body holds a JSON-RPC request other than `tools/call` (a batch: any of its messages). */
function countsAsRequest(body: unknown): boolean {
  const messages = Array.isArray(body) ? body : [body];
  return messages.some((message) => {
    if (message === null || typeof message !== 'object') return false;
    const { method, id } = message as { method?: unknown; id?: unknown };
    return typeof method === 'string' && id !== undefined && method !== 'tools/call';
  });
}

/**
 * A failure to identify the caller (or to count its request), in the API's envelope. A 401 carries the challenge that sends an
 * MCP client to the resource metadata (and says `invalid_token` when a credential was sent).
 */
function sendFailure(
  request: FastifyRequest,
  reply: FastifyReply,
  error: unknown,
  rateLimit: Parameters<typeof writeRateLimitHeaders>[1] | undefined,
  baseUrl: string,
): FastifyReply {
  const apiError = toApiError(error);
  if (apiError.status >= 500) logFailure(request.log, error, 'MCP request failed');
  if (rateLimit) writeRateLimitHeaders(reply, rateLimit);
  if (apiError.status === 401) {
    const metadata = `resource_metadata="${baseUrl}${PROTECTED_RESOURCE_PATH}${MCP_PATH}"`;
    const sent = apiError.code !== 'missing_authorization';
    reply.header('www-authenticate', `Bearer ${metadata}${sent ? ', error="invalid_token"' : ''}`);
  }
  return reply.code(apiError.status).send(apiError.toEnvelope());
}

/** The request as the SDK's web-standard transport reads it: its headers (the body is passed parsed). */
function webRequestOf(request: FastifyRequest, baseUrl: string): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) headers.append(name, one);
  }
  return new Request(`${baseUrl}${MCP_PATH}`, { method: 'POST', headers });
}
