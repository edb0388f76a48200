import { readFileSync } from 'node:fs';

/**
 * The process's limit on open files (`ulimit -n`, systemd's `LimitNOFILE`): every live event stream
 * holds a socket, so it bounds the streams one process can hold. Read from /proc on Linux; undefined
 * elsewhere (the stream cap is then the configured one alone).
 */
export function openFilesLimit(
  read: () => string = () => readFileSync('/proc/self/limits', 'utf8'),
): number | undefined {
  try {
    const soft = /^Max open files\s+(\d+|unlimited)/m.exec(read())?.[1];
    if (soft === undefined || soft === 'unlimited') return undefined;
    return Number(soft);
  } catch {
    return undefined;
  }
}

/**
 * Descriptors kept back from event streams: the database's files and connections, the listening
 * socket, Redis, log files, and — most of all — the sockets of ordinary requests, and the new
 * sockets of a reconnect storm arriving while the old ones are still being closed. Past the limit
 * `accept` fails and the kernel's queue is reset: a stream refused with 429 `rate_limited` and its
 * `Retry-After` is the better answer.
 */
export const DESCRIPTOR_RESERVE = 1000;

/**
 * The event streams this process may hold: the configured cap (LIVE_MAX_STREAMS_PER_PROCESS), lowered
 * to fit the descriptor limit less the reserve (never below a tenth of the limit).
 */
export function streamBudget(configured: number, limit: number | undefined): number {
  if (limit === undefined) return configured;
  return Math.min(configured, Math.max(Math.floor(limit / 10), limit - DESCRIPTOR_RESERVE));
}
