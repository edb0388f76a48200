/**
 * Bench target for the scale-out run of live sessions: another process of the same server on the
 * same PostgreSQL and Redis (BENCH_DATABASE_URL, REDIS_URL), seeding nothing — the first process
 * (live.ts) made the workspace, the poll and the session. Prints `{ url, pid }`.
 */
import { startBenchServer } from './server.js';

const server = await startBenchServer();
// The scenario reads the memory a phase leaves after a full collection (live-sessions.ts settledRssMb).
const collect = (globalThis as { gc?: () => void }).gc;
if (collect) process.on('SIGUSR2', () => collect());
process.stdout.write(`${JSON.stringify({ url: server.url, pid: process.pid })}\n`);
