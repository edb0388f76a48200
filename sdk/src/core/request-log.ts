// What the SDK tells the user's logger, and how credentials are kept out of it.
import type { RequestConfig, RequestLogRecord } from './request-options.js';

/** Headers that carry credentials: logged as `[redacted]`, never by value. */
const SECRET_HEADERS = new Set([
  'authorization',
  'proxy-authorization',
  'cookie',
  'x-host-token',
  'x-participant-token',
]);

export function redactedHeaders(headers: Headers): Record<string, string> {
  const record: Record<string, string> = {};
  for (const [name, value] of headers) {
    // The scheme (`Bearer`, `Basic`) says which credential went out; the rest is the secret.
    const scheme = name === 'authorization' ? /^[A-Za-z]+ /.exec(value)?.[0] : undefined;
    record[name] = SECRET_HEADERS.has(name) ? `${scheme ?? ''}[redacted]` : value;
  }
  return record;
}

/** Reports to the user's logger; a logger that throws must not fail or retry the call it reports on. */
export function log(
  config: RequestConfig,
  level: 'debug' | 'info' | 'warn',
  message: string,
  record: RequestLogRecord,
): void {
  try {
    config.logger?.[level]?.(message, record);
  } catch {
    // Logging is best effort.
  }
}
