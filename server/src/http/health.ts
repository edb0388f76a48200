import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { ApiError } from '../core/api-error.js';
import type { HttpDeps } from './http-deps.js';

/**
 * `/healthz`: the process answers. `/readyz`: its database (and Redis) answer too, so a load balancer
 * sends traffic. While shutting down the onRequest hook (http/app.ts) answers 503 before these run.
 */
export function registerHealthRoutes(app: FastifyInstance, deps: Pick<HttpDeps, 'db' | 'redis'>): void {
  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/readyz', async (request, reply) => {
    try {
      await sql`select 1`.execute(deps.db);
      if (deps.redis) await deps.redis.ping();
      return { status: 'ok' };
    } catch (error) {
      request.log.warn({ err: error }, 'readiness check failed');
      return reply.code(503).send(new ApiError('service_unavailable', 'A dependency is unreachable').toEnvelope());
    }
  });
}
