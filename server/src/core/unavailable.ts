import { ApiError } from './api-error.js';

/**
 * What a request cannot be served without. Only the database: Redis away degrades a process (rate
 * limits counted in it, live sessions within it: infra/redis.ts) but never refuses a request.
 */
export type Dependency = 'database';

const MESSAGES: Record<Dependency, string> = {
  database: 'The database is unreachable; retry with backoff',
};

/**
 * A dependency could not be reached, or did not answer within its bound: a 503
 * `service_unavailable`, never a 500. The database layer turns every connection-class failure of
 * PostgreSQL into this one error (db/postgres.ts), so everything above it — services, the group
 * commit, the webhook worker, the live hub — can tell "the database is away, nothing happened to
 * this item" from "this item is bad" without knowing `pg`'s error shapes.
 */
export class DependencyUnavailableError extends ApiError {
  override name = 'DependencyUnavailableError';

  constructor(
    readonly dependency: Dependency,
    cause: unknown,
  ) {
    super('service_unavailable', MESSAGES[dependency]);
    this.cause = cause;
  }

  /** The underlying failure in a line, for logs (the client never sees it). */
  get reason(): string {
    const cause = this.cause as { message?: unknown; code?: unknown } | undefined;
    const message = typeof cause?.message === 'string' && cause.message ? cause.message : String(cause);
    return typeof cause?.code === 'string' ? `${cause.code}: ${message}` : message;
  }
}

export function isDependencyUnavailable(error: unknown): error is DependencyUnavailableError {
  return error instanceof DependencyUnavailableError;
}
