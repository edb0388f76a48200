/**
 * Bench target: the real Pollkit server on BENCH_DATABASE_URL, nothing seeded. Prints
 * `{ url, pid, database }`; `pid` is this process (tsx runs scripts in a child), for /proc readings.
 */
import { parseConfig } from '../../src/config.js';
import { startServer } from '../../src/server.js';

const config = parseConfig({
  ...process.env,
  PORT: '0',
  HOST: '127.0.0.1',
  BOOTSTRAP: 'false',
  DATABASE_URL: process.env.BENCH_DATABASE_URL ?? 'memory://',
});
const server = await startServer(config);
process.stdout.write(
  `${JSON.stringify({ url: server.url, pid: process.pid, database: server.deps.database.description })}\n`,
);
process.on('SIGTERM', () => {
  server.close().then(() => process.exit(0));
});
