import type { FastifyBaseLogger } from 'fastify';
import { isDependencyUnavailable } from '../core/unavailable.js';

/**
 * Logs why a request failed with a 5xx. A dependency that is away is a `debug` line with the
 * reason and no stack: during an outage every request says the same, the outage itself is logged
 * once at `warn` (deps.ts, infra/redis.ts) and each 503 is in the access log. Anything else is a
 * bug: `error`, with the whole cause.
 */
export function logFailure(
  log: Pick<FastifyBaseLogger, 'debug' | 'error'>,
  error: unknown,
  message: string,
  fields: object = {},
): void {
  if (isDependencyUnavailable(error))
    log.debug({ ...fields, dependency: error.dependency, reason: error.reason }, message);
  else log.error({ ...fields, err: error }, message);
}
