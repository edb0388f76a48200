/**
 * Bench target: the real Pollkit server on BENCH_DATABASE_URL, nothing seeded. Prints
 * `{ url, pid, database }`; `pid` is this process (tsx runs scripts in a child), for /proc readings.
 */
import { startBenchServer } from './server.js';

const server = await startBenchServer();
process.stdout.write(
  `${JSON.stringify({ url: server.url, pid: process.pid, database: server.deps.database.description })}\n`,
);
