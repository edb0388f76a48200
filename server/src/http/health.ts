import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { ApiError } from '../core/api-error.js';
import type { HttpDeps } from './http-deps.js';
import { logFailure } from './log-failure.js';

/**
 * `/healthz`: the process answers. `/readyz`: it can serve — its database answers — so a load
 * balancer sends it traffic; 503 otherwise. Redis away does not stop a process from serving (rate
 * limits are counted in the process meanwhile, live sessions carry on within it), so it leaves
 * `/readyz` at 200 with `{"status":"degraded","degraded":["redis"]}`: taking every process out of
 * the load balancer during a Redis outage would serve nobody. While shutting down, the onRequest
 * hook (http/app.ts) answers 503 before these run.
 */
export function registerHealthRoutes(app: FastifyInstance, deps: Pick<HttpDeps, 'db' | 'redis'>): void {
  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/readyz', async (request, reply) => {
    try {
      await sql`select 1`.execute(deps.db);
    } catch (error) {
      logFailure(request.log, error, 'readiness check failed');
      return reply.code(503).send(new ApiError('service_unavailable', 'The database is unreachable').toEnvelope());
    }
    if (deps.redis && !(await redisAnswers(deps.redis))) return { status: 'degraded', degraded: ['redis'] };
    return { status: 'ok' };
  });
}

/** Ready and answering a PING (within the connection's command timeout: infra/redis.ts). */
async function redisAnswers(redis: NonNullable<HttpDeps['redis']>): Promise<boolean> {
  if (!redis.ready) return false;
  try {
    await redis.client.ping();
    return true;
  } catch {
    return false;
  }
}
