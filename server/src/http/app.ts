import { randomUUID } from 'node:crypto';
import type { Contract } from '@pollkit/contracts';
import Fastify, {
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  type FastifyServerOptions,
  LogController,
} from 'fastify';
import { pageSettingsLookup } from '../api/page-settings.js';
import { buildOperations } from '../api/pipeline.js';
import { ApiError } from '../core/api-error.js';
import type { ContractHandlers } from '../modules/handler.js';
import { accessLogUrl } from './access-log-url.js';
import { registerApiReferencePage } from './api-reference-page.js';
import { clientErrorHandler, refuseConnect } from './client-errors.js';
import { registerContractRoutes } from './contract-routes.js';
import { fromFastifyError, registerErrorHandlers } from './errors.js';
import { OpenStreams } from './event-stream.js';
import { registerHealthRoutes } from './health.js';
import type { HttpDeps } from './http-deps.js';
import { registerJsonBodyParser } from './json-body.js';
import { lazySchemaCompilers } from './lazy-schema-compilers.js';
import { registerMcpRoutes } from './mcp-route.js';
import { registerMediaFilesRoute } from './media-files.js';
import { type RequestMetrics, registerMetricsRoute, registerRequestMetrics } from './metrics-route.js';
import { registerOAuthTokenRoute } from './oauth-token.js';
import { registerOpenApiRoute } from './openapi-route.js';
import { announceDefaultRateLimit } from './rate-limit-headers.js';
import { lazyChildLogger } from './request-logger.js';
import { registerWebPages } from './web-pages.js';

export const API_BASE_PATH = '/api/v1';

/** What the composition root (server.ts) hands the transport besides the deps. */
export interface AppParts {
  /** The handler of every contract operation (modules/index.ts). */
  handlers: ContractHandlers;
  /** Builds the OpenAPI document served at `/api/v1/openapi.json` (openapi/document.ts). */
  openApiDocument: () => Promise<object>;
  /**
   * The operations to serve: `contract` (contracts/), unless a test adds a route to prove every
   * transport serves what the contract holds.
   */
  contract?: Contract;
}

/**
 * The Fastify app: the transport. It parses, writes headers and renders outcomes and errors; every
 * contract operation runs through the pipeline (api/pipeline.ts). Built as a list of named steps.
 */
export async function buildApp(deps: HttpDeps, parts: AppParts): Promise<FastifyInstance> {
  const app = createFastify(deps);
  app.server.on('connect', refuseConnect);
  registerJsonBodyParser(app);
  const admitted = new AdmittedRequests();
  // With METRICS_TOKEN, every route gets its counter: registered before any route is.
  const requestMetrics = registerRequestMetrics(app, deps.metrics);
  registerRequestHooks(app, deps, admitted, requestMetrics);
  registerDrain(app, admitted);
  registerErrorHandlers(app, requestMetrics);
  registerMetricsRoute(app, deps.metrics, deps.config.METRICS_TOKEN);
  registerHealthRoutes(app, deps);
  registerOpenApiRoute(app, API_BASE_PATH, parts.openApiDocument);
  const operations = buildOperations(parts.handlers, deps, parts.contract);
  // One heartbeat timer for every event stream of this app (http/event-stream.ts).
  const streams = new OpenStreams(deps.config.LIVE_HEARTBEAT_MS);
  app.addHook('onClose', async () => streams.close());
  registerContractRoutes(app, operations, API_BASE_PATH, { streams });
  registerMcpRoutes(app, deps, operations);
  registerOAuthTokenRoute(app, deps);
  registerMediaFilesRoute(app, deps);
  registerWebPages(app, { lookup: pageSettingsLookup(deps) });
  registerApiReferencePage(app, { openApiPath: `${API_BASE_PATH}/openapi.json` });
  return app;
}

/**
 * Every response carries its request id, and every API response the limit — 401s and 404s
 * included; the contract routes refine it (and add Remaining/Reset) once the credential is known.
 */
function announceDefaults(deps: HttpDeps, request: FastifyRequest, reply: FastifyReply): void {
  reply.header('x-request-id', request.id);
  if (request.url.startsWith('/api/')) announceDefaultRateLimit(reply, deps.config.RATE_LIMIT_PER_MINUTE);
}

function createFastify(deps: HttpDeps): FastifyInstance {
  return Fastify({
    loggerInstance: deps.log as FastifyBaseLogger,
    // One access-log line per request (onResponse below) instead of Fastify's two.
    logController: new LogController({ disableRequestLogging: true }),
    // Each request's logger is made when it first writes a line (most requests write none).
    childLoggerFactory: lazyChildLogger,
    bodyLimit: deps.config.BODY_LIMIT_BYTES,
    // A client that trickles its headers or body would otherwise hold its connection forever
    // (Fastify's default is 0, no limit). Node checks the bound only while a request is being
    // received, so a long response (an event stream) is not cut; an expired request reaches
    // clientErrorHandler as ERR_HTTP_REQUEST_TIMEOUT: a 408 in the envelope, connection closed.
    requestTimeout: deps.config.REQUEST_TIMEOUT_MS,
    http: requestTimeouts(deps.config.REQUEST_TIMEOUT_MS),
    requestIdHeader: 'x-request-id',
    // What Node's HTTP parser refuses before there is a request: answered in the envelope too.
    clientErrorHandler: clientErrorHandler(deps.config.RATE_LIMIT_PER_MINUTE, deps.log),
    // A URL Fastify cannot even decode is still answered in the envelope, with the usual headers.
    frameworkErrors: (error, request, reply) => {
      announceDefaults(deps, request, reply);
      const apiError = fromFastifyError(error);
      reply.code(apiError.status as never).send(apiError.toEnvelope() as never);
    },
    genReqId: () => randomUUID(),
    // The client's address (request.ip), which participant limits count by, behind a proxy.
    trustProxy: deps.config.TRUST_PROXY as FastifyServerOptions['trustProxy'],
    // Requests that arrive while draining get the 503 from the onRequest hook, in the envelope;
    // Fastify's own would be `{ "error": "Service Unavailable", … }`.
    return503OnClosing: false,
    schemaController: { compilersFactory: lazySchemaCompilers() },
  });
}

/**
 * Node's own request bounds, set when the server is made: the headers get no longer than the whole
 * request (Node's `headersTimeout` would otherwise stay at its 60 s), and expiry is checked every
 * second rather than every 30 s (Node's default `connectionsCheckingInterval`), so a request is cut
 * within a second of its limit. A check walks only the connections with a request in progress.
 */
function requestTimeouts(timeoutMs: number): {
  headersTimeout: number;
  requestTimeout: number;
  connectionsCheckingInterval: number;
} {
  return {
    requestTimeout: timeoutMs,
    headersTimeout: Math.min(60_000, timeoutMs),
    connectionsCheckingInterval: 1_000,
  };
}

/**
 * Hooks are callback-style, not async: they run on every request, and an async hook costs a
 * promise and a microtask each time (measured in server/bench).
 */
function registerRequestHooks(
  app: FastifyInstance,
  deps: HttpDeps,
  admitted: AdmittedRequests,
  requestMetrics: RequestMetrics | undefined,
): void {
  app.addHook('onRequest', (request, reply, done) => {
    requestMetrics?.arrived(request);
    announceDefaults(deps, request, reply);
    // `shuttingDown` is set as soon as close() begins (on SIGTERM): from then on new work is
    // refused — on new connections and on kept-alive ones alike — so that clients and load
    // balancers retry elsewhere; requests already past this hook run to completion (registerDrain).
    if (deps.state.shuttingDown) {
      const apiError = new ApiError('service_unavailable', 'The server is shutting down; retry shortly');
      reply.code(503).header('connection', 'close').send(apiError.toEnvelope());
      return;
    }
    admitted.add(reply.raw);
    done();
  });

  // A request that was in flight when shutdown began must not leave a keep-alive connection behind:
  // the server stops only once every connection has closed, and clients keep idle ones open for
  // longer than the shutdown timeout.
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (deps.state.shuttingDown) reply.header('connection', 'close');
    done(null, payload);
  });

  // The access log exists only at `info` and below: at `warn` the hook is not even registered.
  // Health checks (probed every few seconds by orchestrators) are logged at `debug` only.
  if (deps.log.isLevelEnabled('info')) {
    app.addHook('onResponse', (request, reply, done) => {
      const line = {
        method: request.method,
        // A respondent's id (docs/privacy.md) is logged as a hash.
        url: accessLogUrl(request.url),
        statusCode: reply.statusCode,
        ms: Math.round(reply.elapsedTime),
      };
      if (isHealthCheck(request.url)) request.log.debug(line, 'request');
      else request.log.info(line, 'request');
      done();
    });
  }
}

function isHealthCheck(url: string): boolean {
  return url === '/healthz' || url === '/readyz' || url.startsWith('/healthz?') || url.startsWith('/readyz?');
}

/** Requests admitted (past the shutdown check) whose response has not closed yet. */
class AdmittedRequests {
  #count = 0;
  #onSettled: (() => void) | undefined;
  /** One listener per server, no closure per request: a response emits `close` once, finished or aborted. */
  readonly #settle = () => {
    if (--this.#count === 0) this.#onSettled?.();
  };

  add(response: { on(event: 'close', listener: () => void): unknown }): void {
    this.#count++;
    response.on('close', this.#settle);
  }

  /** Calls `done` once none is left (at once if none is). */
  whenSettled(done: () => void): void {
    if (this.#count === 0) done();
    else this.#onSettled = done;
  }
}

/**
 * Graceful shutdown, in this order. close() sets `shuttingDown`; from then on every request gets
 * the 503 envelope with `Connection: close` — including one sent on a keep-alive connection that
 * was idle, which is why idle connections are not closed yet: closing them now would race the
 * client's next request into a reset. The listener stays open too, so a new connection gets the
 * same 503 rather than a refusal. Once every admitted request has finished (its response carrying
 * `Connection: close`), Fastify closes the listener and Node closes the idle connections; the last
 * 503s finish their sockets and the server is closed.
 */
function registerDrain(app: FastifyInstance, admitted: AdmittedRequests): void {
  app.addHook('preClose', (done) => admitted.whenSettled(() => done()));
}
