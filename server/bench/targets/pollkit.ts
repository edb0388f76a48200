/**
 * Bench target: the real Pollkit server (startServer, the same code path as `pnpm start`) on an
 * ephemeral port, seeded with one workspace whose rate limit is raised out of the way and one poll.
 * Prints `{ url, apiKey, pollId, database }` when ready.
 */
import { parseConfig } from '../../src/config.js';
import { createApiKey } from '../../src/modules/api-keys/api-keys.service.js';
import { createPoll, updatePoll } from '../../src/modules/polls/polls.service.js';
import { createWorkspace } from '../../src/modules/workspaces/workspaces.service.js';
import { startServer } from '../../src/server.js';
import { benchPollContent } from './fixtures.js';

const config = parseConfig({
  ...process.env,
  PORT: '0',
  HOST: '127.0.0.1',
  BOOTSTRAP: 'false',
  DATABASE_URL: process.env.BENCH_DATABASE_URL ?? 'memory://',
});
const server = await startServer(config);
const db = server.deps.db;
const workspace = await createWorkspace(db, { name: 'bench', plan: 'enterprise', rateLimitPerMinute: 1_000_000 });
const { secret } = await createApiKey(db, { workspaceId: workspace.id, name: 'bench' });
const poll = await createPoll(server.deps, workspace.id, { title: 'Bench poll', content: benchPollContent });
await updatePoll(server.deps, workspace.id, { id: poll.id, publish: true });

process.stdout.write(
  `${JSON.stringify({ url: server.url, apiKey: secret, pollId: poll.id, database: server.deps.database.description })}\n`,
);
process.on('SIGTERM', () => {
  server.close().then(() => process.exit(0));
});
