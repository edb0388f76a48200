import { type Config, ConfigError, parseConfig, publicBaseUrl } from './config.js';
import { DependencyUnavailableError } from './core/unavailable.js';
import type { DatabaseProgress } from './db/database.js';
import { API_BASE_PATH } from './http/app.js';
import { MCP_PATH } from './http/mcp-route.js';
import { flushLogs } from './logger.js';
import { bootstrapDefaultWorkspace } from './modules/api-keys/api-keys.admin.js';
import { type RunningServer, startServer } from './server.js';

/**
 * Entry point: config -> database (migrated) -> first-run workspace -> listen. SIGTERM/SIGINT drain
 * (new requests get 503, in-flight ones finish, up to SHUTDOWN_TIMEOUT_MS), close the database,
 * flush the logs and exit 0.
 */
async function main(): Promise<void> {
  let config: Config;
  try {
    config = parseConfig(process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(1);
    }
    throw error;
  }

  const server = await startServer(config, { progress: printedProgress });
  const { deps } = server;
  const base = publicBaseUrl(config, Number(new URL(server.url).port));

  const bootstrap = config.BOOTSTRAP ? await bootstrapDefaultWorkspace(deps.db) : undefined;
  const lines = [
    `Pollkit listening on ${server.url}`,
    `  database:  ${deps.database.description}${deps.redis ? ' + Redis' : ''}`,
    `  API:       ${base}${API_BASE_PATH}`,
    `  OpenAPI:   ${base}${API_BASE_PATH}/openapi.json`,
    `  reference: ${base}/docs (the API reference; "try it" with your key)`,
    `  MCP:       ${base}${MCP_PATH} (AI agents: every operation a tool, with your key; docs/mcp.md)`,
    `  audience:  ${base}/join (live sessions; the presenter screen is /present/{sessionId}#hostToken=…)`,
    '  guides:    docs/ in the repository',
  ];
  if (bootstrap) {
    lines.push(
      '',
      `First start: created workspace ${bootstrap.workspace.id} (enterprise plan) and an API key.`,
      'The key is shown this once and stored only as a hash. Copy this line into your shell:',
      '',
      `  export POLLKIT_API_KEY=${bootstrap.secret}`,
      '',
    );
  }
  // Written to stdout directly, not through the logger: this is the one place a secret is shown.
  process.stdout.write(`${lines.join('\n')}\n`);

  installShutdown(server, config);
}

/** Straight to stdout, before the logger's first line: what a first start spends its seconds on. */
const printedProgress: DatabaseProgress = {
  creating: (location) => process.stdout.write(`creating the embedded database in ${location} (first start only)…\n`),
  migrating: (name) => process.stdout.write(`migrating database: ${name} … `),
  migrated: (_name, ms) => process.stdout.write(`done (${Math.round(ms)} ms)\n`),
};

function installShutdown(server: RunningServer, config: Config): void {
  const { log } = server.deps;
  let stopping = false;
  // process.exit discards log lines still queued for stdout (logger.ts): wait for them, boundedly.
  const exit = (code: number) => flushLogs(log).then(() => process.exit(code));
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down: draining in-flight requests');
    const timer = setTimeout(() => {
      log.error('shutdown timed out; exiting');
      void exit(1);
    }, config.SHUTDOWN_TIMEOUT_MS);
    timer.unref();
    server.close().then(
      () => {
        log.info('shutdown complete');
        void exit(0);
      },
      (error: unknown) => {
        log.error({ err: error }, 'shutdown failed');
        void exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

main().catch((error: unknown) => {
  // An unreachable database at start names its cause (refused, timed out, bad credentials …).
  const message =
    error instanceof DependencyUnavailableError
      ? `${error.message} (${error.reason})`
      : error instanceof Error
        ? error.message
        : error;
  console.error('Pollkit failed to start:', message);
  process.exit(1);
});
