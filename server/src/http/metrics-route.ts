import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest, onSendHookHandler } from 'fastify';
import { ApiError } from '../core/api-error.js';
import type { Metrics, RecordRequest } from '../infra/metrics.js';

const METRICS_PATH = '/metrics';

/** When the request arrived (performance.now()), kept on the request by the onRequest hook. */
const kArrived = Symbol('pollkit.metrics.arrived');
type Timed = { [kArrived]?: number };

/** What the transport's own hooks call (http/app.ts, http/errors.ts) to time and count requests. */
export interface RequestMetrics {
  /** From the onRequest hook every request goes through: when it arrived. */
  arrived(request: FastifyRequest): void;
  /** From the not-found handler (404, 405), which no route's hook reaches. */
  unmatched(request: FastifyRequest, status: number): void;
}

/**
 * Counts and times every response by its route's template (`/api/v1/polls/{id}`), never its URL,
 * so the series stay as few as the routes whatever ids clients send; a request no route matched
 * counts as `unmatched`. The time is from the request's arrival to its response being handed to
 * Node (`onSend`). Undefined, and nothing registered, without METRICS_TOKEN.
 *
 * What it costs a request is kept to about a microsecond (server/bench/RESULTS.md, "Issue 23"):
 * each route gets an `onSend` hook of its own with its template and method bound once, when the
 * route is registered (`onRoute`); the arrival time is set by the onRequest hook the app already
 * has. The obvious ways cost several times more: `request.routeOptions` builds a new object on
 * every read, and an `onResponse` hook makes Fastify add `finish` and `error` listeners to every
 * response.
 */
export function registerRequestMetrics(app: FastifyInstance, metrics: Metrics | undefined): RequestMetrics | undefined {
  if (!metrics) return undefined;
  const secondsSince = (request: FastifyRequest) => {
    const arrived = (request as Timed)[kArrived];
    return arrived === undefined ? 0 : (performance.now() - arrived) / 1000;
  };
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) {
      const record = metrics.requestRecorder(route.url.replace(/:(\w+)/g, '{$1}'), method);
      const hook: onSendHookHandler = (request, reply, payload, done) => {
        record(reply.statusCode, secondsSince(request));
        done(null, payload);
      };
      route.onSend = route.onSend === undefined ? [hook] : [...[route.onSend].flat(), hook];
    }
  });
  const unmatched = new Map<string, RecordRequest>();
  return {
    arrived(request) {
      (request as Timed)[kArrived] = performance.now();
    },
    unmatched(request, status) {
      let record = unmatched.get(request.method);
      if (record === undefined) {
        // Node's parser takes only the methods it knows, so this map stays small.
        record = metrics.requestRecorder('unmatched', request.method);
        unmatched.set(request.method, record);
      }
      record(status, secondsSince(request));
    },
  };
}

/**
 * `GET /metrics` for Prometheus, on the API's own port but outside `/api/v1`, readable only with
 * `Authorization: Bearer <METRICS_TOKEN>` (docs/self-hosting.md, "Metrics"). Without the token set
 * it is not registered: the path is a 404 like any unknown one.
 */
export function registerMetricsRoute(app: FastifyInstance, metrics: Metrics | undefined, token: string | undefined) {
  if (!metrics || !token) return;
  const expected = digest(token);
  app.get(METRICS_PATH, async (request, reply) => {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '');
    // Compared as digests of equal length, in constant time: the answer tells nothing of how much matched.
    if (!match?.[1] || !timingSafeEqual(digest(match[1]), expected)) {
      const error = new ApiError(
        'invalid_metrics_token',
        'Send the server’s METRICS_TOKEN as `Authorization: Bearer …`',
      );
      return reply.code(401).header('www-authenticate', 'Bearer').send(error.toEnvelope());
    }
    const text = await metrics.render();
    return reply.header('cache-control', 'no-store').type(metrics.contentType).send(text);
  });
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}
