import type { Logger } from 'pino';
import type { PipelineDeps } from '../api/pipeline.js';
import type { Config } from '../config.js';
import type { Metrics } from '../infra/metrics.js';
import type { RedisConnection } from '../infra/redis.js';

/**
 * What the transport needs: the pipeline's deps, and its own (the logger, the shutdown flag, Redis
 * for readiness, its limits). The composition root's HttpDeps (deps.ts) satisfies it.
 */
export interface HttpDeps extends PipelineDeps {
  config: PipelineDeps['config'] &
    Pick<
      Config,
      | 'BODY_LIMIT_BYTES'
      | 'REQUEST_TIMEOUT_MS'
      | 'OAUTH_TOKEN_TTL_SECONDS'
      | 'RATE_LIMIT_PER_MINUTE'
      | 'LIVE_HEARTBEAT_MS'
      | 'TRUST_PROXY'
      | 'METRICS_TOKEN'
      | 'PUBLIC_BASE_URL'
      | 'HOST'
    >;
  /** Readiness reports Redis away as "degraded" (http/health.ts). */
  redis: RedisConnection | undefined;
  /** Set with METRICS_TOKEN: requests are timed and `/metrics` is served (http/metrics-route.ts). */
  metrics: Metrics | undefined;
  media: PipelineDeps['media'] & { setPort(port: number): void };
  log: Logger;
  /** Set when shutdown begins: new requests are refused with 503 and readiness fails. */
  state: { shuttingDown: boolean };
}
