/**
 * Bench target for vote ingestion: the real Pollkit server (startServer) and, in the same process on
 * the same Kysely pool, a naive baseline route doing one INSERT per request. Prints
 * `{ url, baselineUrl, apiKey, pollId, slideId, database }` when ready.
 */
import Fastify from 'fastify';
import { sql } from 'kysely';
import { parseConfig } from '../../src/config.js';
import { newId } from '../../src/db/ids.js';
import { createApiKey } from '../../src/modules/api-keys/api-keys.service.js';
import { createPoll, updatePoll } from '../../src/modules/polls/polls.service.js';
import { createWorkspace } from '../../src/modules/workspaces/workspaces.service.js';
import { startServer } from '../../src/server.js';

const config = parseConfig({
  ...process.env,
  PORT: '0',
  HOST: '127.0.0.1',
  BOOTSTRAP: 'false',
  DATABASE_URL: process.env.BENCH_DATABASE_URL ?? 'memory://',
});
const server = await startServer(config);
const { db } = server.deps;
const workspace = await createWorkspace(db, { name: 'bench', plan: 'enterprise', rateLimitPerMinute: 1_000_000 });
const { secret } = await createApiKey(db, { workspaceId: workspace.id, name: 'bench' });
const poll = await createPoll(server.deps, workspace.id, {
  title: 'Ingestion bench',
  content: {
    questions: [
      {
        id: 'lunch',
        kind: 'multiple_choice',
        text: 'Where shall we eat?',
        type: 'single',
        options: ['pizza', 'sushi', 'tacos', 'salad'].map((id) => ({ id, label: id })),
      },
    ],
  },
});
await updatePoll(server.deps, workspace.id, { id: poll.id, publish: true });

// The baseline: what a straightforward implementation does, one INSERT per request, same pool.
await sql`create table if not exists bench_baseline_votes (
  id text primary key, poll_id text not null, slide_id text not null, voter_id text not null,
  option_ids jsonb not null, created_at timestamptz not null default now(),
  unique (poll_id, slide_id, voter_id))`.execute(db);
const baseline = Fastify({ logger: false });
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
    apiKey: secret,
    pollId: poll.id,
    slideId: 'lunch',
    database: server.deps.database.description,
  })}\n`,
);
process.on('SIGTERM', () => {
  Promise.all([baseline.close(), server.close()]).then(() => process.exit(0));
});
