/**
 * Bench target for vote ingestion: the real Pollkit server (startServer) and, in the same process on
 * the same Kysely pool, a naive baseline route doing one INSERT per request. Prints
 * `{ url, baselineUrl, apiKey, pollId, slideId, database }` when ready.
 */
import Fastify from 'fastify';
import { sql } from 'kysely';
import { newId } from '../../src/db/ids.js';
import { benchWorkspace, publishedLunchPoll, startBenchServer } from './server.js';

// The baseline's Fastify app closes with the server (startBenchServer's SIGTERM handler).
const baseline = Fastify({ logger: false });
const server = await startBenchServer(() => baseline.close());
const { db } = server.deps;
const { workspaceId, apiKey } = await benchWorkspace(server.deps.db);
const { pollId } = await publishedLunchPoll(server.deps, workspaceId, 'Ingestion bench');

// The baseline: what a straightforward implementation does, one INSERT per request, same pool.
await sql`create table if not exists bench_baseline_votes (
  id text primary key, poll_id text not null, slide_id text not null, voter_id text not null,
  option_ids jsonb not null, created_at timestamptz not null default now(),
  unique (poll_id, slide_id, voter_id))`.execute(db);
baseline.post('/baseline/polls/:id/votes', async (request, reply) => {
  const { voterId, slideId, optionIds } = request.body as { voterId: string; slideId: string; optionIds: string[] };
  const id = newId('vote');
  await sql`insert into bench_baseline_votes (id, poll_id, slide_id, voter_id, option_ids)
    values (${id}, ${(request.params as { id: string }).id}, ${slideId}, ${voterId}, ${JSON.stringify(optionIds)})`.execute(
    db,
  );
  return reply.code(201).send({ id });
});
await baseline.listen({ port: 0, host: '127.0.0.1' });
const address = baseline.server.address();
const port = typeof address === 'object' && address ? address.port : 0;

process.stdout.write(
  `${JSON.stringify({
    url: server.url,
    baselineUrl: `http://127.0.0.1:${port}`,
    apiKey,
    pollId,
    slideId: 'lunch',
    database: server.deps.database.description,
  })}\n`,
);
