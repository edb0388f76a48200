import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { ApiError } from '../core/api-error.js';
import type { Metrics } from '../infra/metrics.js';

export const METRICS_PATH = '/metrics';

/**
 * `GET /metrics` for Prometheus, on the API's own port but outside `/api/v1`, readable only with
 * `Authorization: Bearer <METRICS_TOKEN>` (docs/self-hosting.md, "Metrics"). Without the token set
 * nothing here is registered: the path is a 404 like any unknown one, and requests are not timed.
 *
 * Every response is counted by its route's template (`/api/v1/polls/{id}`), never its URL, so the
 * series stay as few as the routes whatever ids clients send; a request no route matched counts as
 * `unmatched`. The hook is callback-style and reads Fastify's own timing (`reply.elapsedTime`).
 */
export function registerMetricsRoute(app: FastifyInstance, metrics: Metrics | undefined, token: string | undefined) {
  if (!metrics || !token) return;
  const templates = new Map<string, string>();
  const templateOf = (url: string | undefined): string => {
    if (url === undefined) return 'unmatched';
    let template = templates.get(url);
    if (template === undefined) {
      template = url.replace(/:(\w+)/g, '{$1}');
      templates.set(url, template);
    }
    return template;
  };
  app.addHook('onResponse', (request, reply, done) => {
    metrics.observeRequest(
      templateOf(request.routeOptions.url),
      request.method,
      reply.statusCode,
      reply.elapsedTime / 1000,
    );
    done();
  });

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
