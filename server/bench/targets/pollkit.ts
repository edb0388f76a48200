/**
 * Bench target: the real Pollkit server (startServer, the same code path as `pnpm start`) on an
 * ephemeral port, seeded with one workspace whose rate limit is raised out of the way and one poll.
 * Prints `{ url, apiKey, pollId, database }` when ready.
 */
import { createPoll, updatePoll } from '../../src/modules/polls/polls.service.js';
import { benchPollContent } from './fixtures.js';
import { benchWorkspace, startBenchServer } from './server.js';

const server = await startBenchServer();
const { workspaceId, apiKey } = await benchWorkspace(server.deps.db);
const poll = await createPoll(server.deps, workspaceId, { title: 'Bench poll', content: benchPollContent });
await updatePoll(server.deps, workspaceId, { id: poll.id, publish: true });

process.stdout.write(
  `${JSON.stringify({ url: server.url, apiKey, pollId: poll.id, database: server.deps.database.description })}\n`,
);
