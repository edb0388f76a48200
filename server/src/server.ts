import type { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { type Config, developmentSettingsInEffect, publicBaseUrl } from './config.js';
import { type AppDeps, closeDeps, createDeps, type DepsOptions } from './deps.js';
import { buildApp } from './http/app.js';
import { createLogger } from './logger.js';
import { handlers } from './modules/index.js';
import { SessionCloser } from './modules/sessions/index.js';

export interface RunningServer {
  app: FastifyInstance;
  deps: AppDeps;
  /** Ends sessions at their `closesAt` (tests call `tick()` to close at once). */
  sessionCloser: SessionCloser;
  /** `http://host:port` as bound (the real port when PORT=0). */
  url: string;
  /**
   * Drains: refuses new requests with 503 (on new and kept-alive connections), lets in-flight
   * requests finish, then closes the listener, the idle connections and the database (http/app.ts).
   */
  close(): Promise<void>;
}

/**
 * Start-up progress (main.ts), and for tests an injected clock, a migrated database template and
 * where the log goes (stdout unless given: a test that reads the access log passes a stream).
 */
export type StartOptions = DepsOptions & { logOut?: Writable };

/**
 * config -> dependencies (database migrated) -> Fastify app -> listening. Used by main and by tests.
 * This is the composition root: it hands the app the modules' handler registry and the OpenAPI
 * document builder, so the transport imports neither the modules' handlers nor the generator.
 */
export async function startServer(config: Config, options: StartOptions = {}): Promise<RunningServer> {
  const log = createLogger({
    level: config.LOG_LEVEL,
    format: config.LOG_FORMAT,
    ...(options.logOut ? { out: options.logOut } : {}),
  });
  for (const { setting, allows } of developmentSettingsInEffect(config)) {
    log.warn({ setting }, `${setting}=true: ${allows}. For local development and tests only, never in production.`);
  }
  const deps = await createDeps(config, log, options);
  let app: FastifyInstance;
  // The document is built on its first request, by when the port is known (PORT=0 picks one).
  let port = config.PORT;
  try {
    app = await buildApp(deps, {
      handlers,
      // The generator (trpc-to-openapi, zod-openapi) takes ~0.3 s to load: on the first request for
      // the document, not at every start.
      openApiDocument: async () =>
        (await import('./openapi/document.js')).servedOpenApiDocument(publicBaseUrl(config, port)),
    });
    await app.listen({ port: config.PORT, host: config.HOST });
  } catch (error) {
    await closeDeps(deps);
    throw error;
  }
  // Deliveries start once the server is up (and stop, in closeDeps, after the last request).
  deps.webhookWorker?.start();
  const sessionCloser = new SessionCloser(deps, config.SESSION_CLOSE_CHECK_MS);
  sessionCloser.start();
  const address = app.server.address();
  port = typeof address === 'object' && address ? address.port : config.PORT;
  const host = config.HOST.includes(':') ? `[${config.HOST}]` : config.HOST;
  let closing: Promise<void> | undefined;
  return {
    app,
    deps,
    sessionCloser,
    url: `http://${host}:${port}`,
    close: () => {
      closing ??= (async () => {
        deps.state.shuttingDown = true;
        // Event streams never finish by themselves: end them now (clients reconnect elsewhere with
        // Last-Event-ID) so that draining waits only for ordinary requests.
        deps.liveHub.closeAll();
        // No webhook attempt starts while requests drain; those in flight get half the shutdown
        // deadline, then are handed back to the outbox, due at once (closeDeps awaits the same stop).
        const deliveriesStopped = deps.webhookWorker?.stop(config.SHUTDOWN_TIMEOUT_MS / 2);
        await app.close();
        await sessionCloser.stop();
        await deliveriesStopped;
        await closeDeps(deps);
      })();
      return closing;
    },
  };
}
