/**
 * Bench target for webhooks: the real Pollkit server (startServer, its WEBHOOK_* settings from the
 * environment) with a workspace and a published poll, and a second Fastify app in the process
 * serving what the scenario reads besides the API:
 *
 * - `GET /stats`: the writer's flush count and, per kind of statement, how many the database ran and
 *   the wall time spent inside the driver's call (answers batch, delivery claims, outcome records,
 *   endpoint counters, begin/commit, other).
 * - `POST /worker/start`, `POST /worker/stop`: start and stop the delivery worker (start answers
 *   `{ startedAt }`, ms since the epoch). With BENCH_WEBHOOK_HOLD=true the worker is stopped as soon
 *   as the server is up: the scenario starts it when it wants deliveries, so the outbox can fill
 *   first, and on PostgreSQL this server's worker does not deliver what another server wrote.
 *
 * BENCH_WEBHOOK_EXPERIMENT (comma-separated) measures proposed changes to the server without
 * making them, by patching this process only:
 * - `analyze-outbox`: ANALYZE webhook_deliveries every 2 s, as autovacuum would if it ran (PGlite has
 *   none; PostgreSQL's waits for 10% of the table to change), so claims are planned on statistics
 *   that know the outbox holds many pending deliveries.
 *
 * Prints `{ url, statsUrl, apiKey, pollId, slideId, database, pid, experiments }` when ready.
 */
import Fastify from 'fastify';
import { type Kysely, sql } from 'kysely';
import type { Database } from '../../src/db/schema.js';
import { benchWorkspace, publishedLunchPoll, startBenchServer } from './server.js';

const experiments = new Set((process.env.BENCH_WEBHOOK_EXPERIMENT ?? '').split(',').filter(Boolean));

const statsApp = Fastify({ logger: false });
const server = await startBenchServer(() => statsApp.close());
const { db } = server.deps;
const worker = server.deps.webhookWorker;
if (process.env.BENCH_WEBHOOK_HOLD === 'true') await worker?.stop();

/** Statements by kind: how many, and milliseconds inside the driver's executeQuery (wall time). */
const statements = new Map<string, { count: number; ms: number }>();

function kindOf(text: string): string {
  if (text.includes('webhooked as')) return 'answers batch';
  if (text.includes('with candidates as')) return 'claim deliveries';
  if (text.includes('with taken as')) return 'fan out event batches';
  if (text.includes('with o (delivery_id')) return 'record outcomes';
  if (text.startsWith('update "webhook_endpoints"')) return 'endpoint counters';
  if (/^(begin|commit|rollback)/i.test(text)) return 'begin/commit';
  return 'other';
}

/**
 * Times every statement at the driver's connection (after the connection was handed over, so the
 * wait for PGlite's one connection or a pool slot is not counted). PGlite's own BEGIN and COMMIT
 * run inside its `transaction()` and are not seen here; PostgreSQL's are.
 */
function countStatements(database: Kysely<Database>): void {
  type Consumer = (connection: object) => Promise<unknown>;
  type Executor = { provideConnection(consumer: Consumer, options?: unknown): Promise<unknown> };
  type Connection = { executeQuery(query: { sql: string }, ...rest: unknown[]): Promise<unknown> };
  const executor = Object.getPrototypeOf(database.getExecutor()) as Executor;
  const provide = executor.provideConnection;
  const patched = new WeakSet<object>();
  executor.provideConnection = function (this: Executor, consumer, options) {
    return provide.call(
      this,
      (connection) => {
        const proto = Object.getPrototypeOf(connection) as Connection;
        if (!patched.has(proto)) {
          patched.add(proto);
          const execute = proto.executeQuery;
          proto.executeQuery = async function (this: Connection, query, ...rest) {
            const started = performance.now();
            try {
              return await execute.call(this, query, ...rest);
            } finally {
              const kind = kindOf(query.sql);
              const entry = statements.get(kind) ?? { count: 0, ms: 0 };
              entry.count += 1;
              entry.ms += performance.now() - started;
              statements.set(kind, entry);
            }
          };
        }
        return consumer(connection);
      },
      options,
    );
  };
}
countStatements(db);

if (experiments.has('analyze-outbox')) {
  setInterval(() => {
    sql`analyze webhook_deliveries`.execute(db).catch(() => undefined);
  }, 2000).unref();
}

const { workspaceId, apiKey } = await benchWorkspace(db);
const { pollId } = await publishedLunchPoll(server.deps, workspaceId, 'Webhooks bench');

statsApp.get('/stats', async () => ({
  flushes: server.deps.answerWriter.flushes,
  statements: Object.fromEntries(statements),
}));
statsApp.post('/worker/start', async () => {
  worker?.start();
  return { startedAt: Date.now(), worker: worker !== undefined };
});
statsApp.post('/worker/stop', async () => {
  await worker?.stop();
  return { stoppedAt: Date.now() };
});
await statsApp.listen({ port: 0, host: '127.0.0.1' });
const address = statsApp.server.address();
const port = typeof address === 'object' && address ? address.port : 0;

process.stdout.write(
  `${JSON.stringify({
    url: server.url,
    statsUrl: `http://127.0.0.1:${port}`,
    apiKey,
    pollId,
    slideId: 'lunch',
    database: server.deps.database.description,
    pid: process.pid,
    experiments: [...experiments],
  })}\n`,
);
