/**
 * Bench target for poisoned votes: the real Pollkit server (startServer) with two workspaces, A and
 * B, each with a published poll of its own. A bench-only CHECK constraint refuses answers whose
 * voter id starts with `poison-`: it stands for any rejection the database makes that validation
 * did not foresee, so the scenario exercises the writer's isolation whatever validation catches.
 * A second Fastify app in the process serves `GET /stats` (the writer's statement count).
 * Prints `{ url, statsUrl, database, a: { apiKey, pollId }, b: { apiKey, pollId }, slideId }` when ready.
 */
import Fastify from 'fastify';
import { sql } from 'kysely';
import { benchWorkspace, publishedLunchPoll, startBenchServer } from './server.js';

const statsApp = Fastify({ logger: false });
const server = await startBenchServer(() => statsApp.close());
const { db } = server.deps;

async function workspaceWithPoll(title: string) {
  const { workspaceId, apiKey } = await benchWorkspace(db);
  const { pollId } = await publishedLunchPoll(server.deps, workspaceId, title);
  return { apiKey, pollId };
}

const a = await workspaceWithPoll('Clean workspace');
const b = await workspaceWithPoll('Poisoning workspace');

// Bench databases are fresh (memory:// or one created for the run), so this touches nothing else.
await sql`alter table answers add constraint bench_poison check (voter_id not like 'poison-%')`.execute(db);

statsApp.get('/stats', async () => ({ flushes: server.deps.answerWriter.flushes }));
await statsApp.listen({ port: 0, host: '127.0.0.1' });
const address = statsApp.server.address();
const port = typeof address === 'object' && address ? address.port : 0;

process.stdout.write(
  `${JSON.stringify({
    url: server.url,
    statsUrl: `http://127.0.0.1:${port}/stats`,
    database: server.deps.database.description,
    a,
    b,
    slideId: 'lunch',
  })}\n`,
);
