/**
 * What every bench target shares: the real server (startServer, as `pnpm start` runs it) on
 * BENCH_DATABASE_URL or in memory, on an ephemeral loopback port, closed cleanly on SIGTERM; and a
 * workspace whose key's rate limit is out of the way.
 */
import type { Slide } from '@pollkit/contracts';
import type { Kysely } from 'kysely';
import { parseConfig } from '../../src/config.js';
import type { Database } from '../../src/db/schema.js';
import { createApiKey } from '../../src/modules/api-keys/api-keys.service.js';
import { createPoll, updatePoll } from '../../src/modules/polls/polls.service.js';
import { createWorkspace } from '../../src/modules/workspaces/workspaces.service.js';
import { type RunningServer, startServer } from '../../src/server.js';

export async function startBenchServer(onStop: () => Promise<unknown> = async () => {}): Promise<RunningServer> {
  const server = await startServer(
    parseConfig({
      ...process.env,
      PORT: '0',
      HOST: '127.0.0.1',
      BOOTSTRAP: 'false',
      DATABASE_URL: process.env.BENCH_DATABASE_URL ?? 'memory://',
    }),
  );
  process.on('SIGTERM', () => {
    Promise.all([onStop(), server.close()]).then(() => process.exit(0));
  });
  return server;
}

export async function benchWorkspace(db: Kysely<Database>): Promise<{ workspaceId: string; apiKey: string }> {
  const workspace = await createWorkspace(db, {
    name: 'bench',
    plan: 'enterprise',
    rateLimitPerMinute: 1_000_000,
  });
  const { secret } = await createApiKey(db, { workspaceId: workspace.id, name: 'bench' });
  return { workspaceId: workspace.id, apiKey: secret };
}

/** The single-choice slide the vote benches vote on (and the first of the seeded deck, bench/seed.ts). */
export const lunchSlide: Slide = {
  id: 'lunch',
  kind: 'multiple_choice',
  text: 'Where shall we eat?',
  type: 'single',
  options: ['pizza', 'sushi', 'tacos', 'salad'].map((id) => ({ id, label: id })),
};

/** A published poll whose one slide is `lunchSlide`. */
export async function publishedLunchPoll(
  deps: RunningServer['deps'],
  workspaceId: string,
  title: string,
): Promise<{ pollId: string }> {
  const poll = await createPoll(deps, workspaceId, { title, content: { questions: [lunchSlide] } });
  await updatePoll(deps, workspaceId, { id: poll.id, publish: true });
  return { pollId: poll.id };
}
