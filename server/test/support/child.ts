import { type ChildProcess, spawn } from 'node:child_process';
import http from 'node:http';
import net from 'node:net';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ConfigInput } from '../../src/config.js';

/** The real entry point (`src/main.ts`) run as a child process, as `pnpm dev` runs it. */

export const SERVER_DIR = resolve(fileURLToPath(import.meta.url), '../../..');

/** Generous upper bounds for a child to start or stop on a busy machine; never asserted on. */
export const CHILD_TEST_TIMEOUT_MS = 90_000;

/** Every variable the server reads, so a child never inherits one from the test runner's shell. */
const CONFIG_VARIABLES: Record<keyof ConfigInput, true> = {
  PORT: true,
  HOST: true,
  PUBLIC_BASE_URL: true,
  DATABASE_URL: true,
  DATA_DIR: true,
  DATABASE_POOL_SIZE: true,
  DATABASE_CONNECT_TIMEOUT_MS: true,
  DATABASE_STATEMENT_TIMEOUT_MS: true,
  REDIS_URL: true,
  SESSION_CLOSE_CHECK_MS: true,
  LOG_LEVEL: true,
  LOG_FORMAT: true,
  BODY_LIMIT_BYTES: true,
  REQUEST_TIMEOUT_MS: true,
  RATE_LIMIT_PER_MINUTE: true,
  OAUTH_TOKEN_TTL_SECONDS: true,
  SHUTDOWN_TIMEOUT_MS: true,
  OPENAI_API_KEY: true,
  OPENAI_BASE_URL: true,
  OPENAI_MODEL: true,
  OPENAI_TIMEOUT_MS: true,
  BRANCH_RATE_LIMIT_PER_MINUTE: true,
  LIVE_JOIN_URL: true,
  TRUST_PROXY: true,
  LIVE_RATE_LIMIT_PER_IP_PER_MINUTE: true,
  LIVE_RATE_LIMIT_PER_PARTICIPANT_PER_MINUTE: true,
  LIVE_PIN_MISSES_PER_IP_PER_MINUTE: true,
  AUTH_FAILURES_PER_IP_PER_MINUTE: true,
  LIVE_HEARTBEAT_MS: true,
  LIVE_JOINS_PER_IP_PER_MINUTE: true,
  LIVE_MAX_PARTICIPANTS_DEFAULT: true,
  LIVE_MAX_PARTICIPANTS_CEILING: true,
  LIVE_QA_QUESTIONS_PER_PARTICIPANT_PER_MINUTE: true,
  LIVE_QA_QUESTIONS_PER_IP_PER_MINUTE: true,
  LIVE_STREAMS_PER_PARTICIPANT: true,
  LIVE_ANONYMOUS_STREAMS_PER_IP: true,
  LIVE_MAX_STREAMS_PER_PROCESS: true,
  LIVE_HOST_TOKEN_TTL_AFTER_END_MS: true,
  WEBHOOK_ALLOW_HTTP: true,
  WEBHOOK_ALLOW_LOOPBACK: true,
  WEBHOOK_RETRY_SCHEDULE_MS: true,
  WEBHOOK_TIMEOUT_MS: true,
  WEBHOOK_CONCURRENCY: true,
  WEBHOOK_ENDPOINT_CONCURRENCY: true,
  WEBHOOK_POLL_INTERVAL_MS: true,
  WEBHOOK_RETENTION_DAYS: true,
  WEBHOOK_DELIVERY: true,
  WEBHOOK_SECRETS_KEY: true,
  MEDIA_FETCH_TIMEOUT_MS: true,
  MEDIA_MAX_BYTES: true,
  MEDIA_MAX_PIXELS: true,
  MEDIA_ALLOW_LOOPBACK: true,
  METRICS_TOKEN: true,
  RESPONSE_VALIDATION: true,
  BOOTSTRAP: true,
};

export interface Child {
  process: ChildProcess;
  /** Everything written to stdout and stderr so far. */
  output(): string;
  stderr(): string;
  /** Resolves with the first match of `pattern` in the output; rejects if the process ends first. */
  waitFor(pattern: RegExp): Promise<RegExpMatchArray>;
  /** Resolves once the process has exited and its output streams are drained. */
  closed: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** SIGKILL to the whole process group (tsx and the server it runs); nothing if already gone. */
  kill(): void;
  /** Resolves once the process has exited, whether or not its output has been read. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * Starts `src/main.ts` from source, in server/: one Node process with tsx as its loader. Not tsx's
 * CLI, which runs the server as a second process and relays SIGTERM to it, then SIGKILLs it when
 * it has not acknowledged within 30 ms: on a busy machine that cut graceful shutdowns short
 * (exit 143). `pnpm start` runs the built server on plain Node, with no relay either.
 * With `built`, the bundle `pnpm start` runs (dist/main.js, the same entry), which the caller has
 * brought up to date (scripts/ensure-built.mjs): it starts without compiling the sources again.
 */
export function startChild(env: Record<string, string>, { built = false }: { built?: boolean } = {}): Child {
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !(name in CONFIG_VARIABLES) && name !== 'INIT_CWD'),
  );
  const entry = built ? ['dist/main.js'] : ['--import', 'tsx', '--conditions=@pollkit/source', 'src/main.ts'];
  const child = spawn(process.execPath, entry, {
    cwd: SERVER_DIR,
    // The failed-authentication budget is per address, and with Redis shared by every test server on
    // 127.0.0.1 (support/server.ts says why it is lifted there too).
    env: { ...inherited, HOST: '127.0.0.1', LOG_LEVEL: 'info', AUTH_FAILURES_PER_IP_PER_MINUTE: '1000000', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    // A process group of its own, so that kill() reaches anything the server started too.
    detached: true,
  });
  let output = '';
  let stderr = '';
  let exited = false;
  const listeners = new Set<() => void>();
  const onData = (chunk: Buffer) => {
    output += chunk.toString('utf8');
    for (const listener of listeners) listener();
  };
  child.stdout?.on('data', onData);
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
    onData(chunk);
  });
  const closed = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolveClosed) => {
    child.on('close', (code, signal) => {
      exited = true;
      for (const listener of listeners) listener();
      resolveClosed({ code, signal });
    });
  });
  const exitedPromise = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolveExit) => {
    child.on('exit', (code, signal) => resolveExit({ code, signal }));
  });
  return {
    process: child,
    exited: exitedPromise,
    kill() {
      try {
        if (child.pid) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    },
    output: () => output,
    stderr: () => stderr,
    closed,
    waitFor(pattern) {
      return new Promise((resolveMatch, reject) => {
        const check = () => {
          const match = pattern.exec(output);
          if (match) {
            listeners.delete(check);
            resolveMatch(match);
          } else if (exited) {
            listeners.delete(check);
            reject(new Error(`process exited before printing ${pattern}:\n${output}`));
          }
        };
        listeners.add(check);
        check();
      });
    },
  };
}

/**
 * `src/main.ts` as a child on a database other processes share (and Redis, when TEST_REDIS_URL is
 * set): PORT=0, no bootstrap, responses checked against the contract, the general rate limit out of
 * the way, plus `env`. Resolves once it listens, with its API's base URL.
 */
export async function startApiChild(
  databaseUrl: string,
  env: Record<string, string> = {},
): Promise<{ api: string; child: Child }> {
  const child = startChild({
    PORT: '0',
    DATABASE_URL: databaseUrl,
    REDIS_URL: process.env.TEST_REDIS_URL ?? '',
    BOOTSTRAP: 'false',
    RESPONSE_VALIDATION: 'true',
    LOG_LEVEL: 'warn',
    RATE_LIMIT_PER_MINUTE: '1000000',
    ...env,
  });
  const [, url] = await child.waitFor(/Pollkit listening on (http:\/\/\S+)/);
  return { api: `${url}/api/v1`, child };
}

/** A port nothing listens on right now (PORT=0 would leave the printed URL to be parsed back). */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolveListen) => server.listen(0, '127.0.0.1', resolveListen));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolveClose) => server.close(() => resolveClose()));
  return port;
}

/** Sends SIGTERM and waits for the process to finish, however long the drain takes. */
export async function stop(child: Child) {
  child.process.kill('SIGTERM');
  return child.closed;
}

export type Answer = { status: number; body: string; connection?: string; reusedSocket: boolean } | { error: string };

/** One GET: the status, body and `Connection` header, or the network error code when refused or reset. */
export function get(
  port: number,
  path: string,
  { agent = false, apiKey }: { agent?: http.Agent | false; apiKey?: string } = {},
): Promise<Answer> {
  return new Promise((resolveGet) => {
    const headers: Record<string, string> = apiKey ? { authorization: `Bearer ${apiKey}` } : {};
    const req = http.get({ host: '127.0.0.1', port, path, agent, headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        body += chunk;
      });
      res.on('end', () =>
        resolveGet({
          status: res.statusCode ?? 0,
          body,
          connection: res.headers.connection,
          reusedSocket: req.reusedSocket,
        }),
      );
      res.on('error', (error: NodeJS.ErrnoException) => resolveGet({ error: error.code ?? error.message }));
    });
    req.on('error', (error: NodeJS.ErrnoException) => resolveGet({ error: error.code ?? error.message }));
  });
}

/** One request on a fresh connection. */
export function probe(port: number, path: string): Promise<Answer> {
  return get(port, path);
}

/** A line that starts a stack trace. */
export const NO_STACK = /^\s+at\s/m;
