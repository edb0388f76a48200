/**
 * Bench target for live sessions: the real server (startServer) with a Pro workspace and a
 * published poll of three multiple-choice slides. The scenario raises the limits through the
 * environment (RATE_LIMIT_PER_MINUTE, LIVE_RATE_LIMIT_PER_IP_PER_MINUTE, LIVE_PIN_MISSES_PER_IP_PER_MINUTE,
 * LIVE_JOINS_PER_IP_PER_MINUTE, the participant and stream caps), since every simulated participant
 * comes from 127.0.0.1.
 * Prints `{ url, pid, apiKey, pollId, slideIds, database }`.
 */
import type { Slide } from '@pollkit/contracts';
import { createApiKey } from '../../src/modules/api-keys/api-keys.service.js';
import { createPoll, updatePoll } from '../../src/modules/polls/polls.service.js';
import { createWorkspace } from '../../src/modules/workspaces/workspaces.service.js';
import { lunchSlide, startBenchServer } from './server.js';

const choice = (id: string, text: string, options: string[]): Slide => ({
  id,
  kind: 'multiple_choice',
  text,
  type: 'single',
  options: options.map((option) => ({ id: option, label: option })),
});

export const liveDeck: Slide[] = [
  lunchSlide,
  choice('drink', 'And to drink?', ['water', 'juice', 'soda', 'tea']),
  choice('dessert', 'Dessert?', ['cake', 'fruit', 'ice-cream', 'none']),
];

const server = await startBenchServer();
// The scenario reads the memory a phase leaves after a full collection (live-sessions.ts settledRssMb).
const collect = (globalThis as { gc?: () => void }).gc;
if (collect) process.on('SIGUSR2', () => collect());
// A Pro workspace takes RATE_LIMIT_PER_MINUTE (overrides are Enterprise-only): the scenario raises it.
const workspace = await createWorkspace(server.deps.db, { name: 'live bench', plan: 'pro' });
const { secret: apiKey } = await createApiKey(server.deps.db, { workspaceId: workspace.id, name: 'live bench' });
const poll = await createPoll(server.deps, workspace.id, { title: 'Live bench', content: { questions: liveDeck } });
await updatePoll(server.deps, workspace.id, { id: poll.id, publish: true });

process.stdout.write(
  `${JSON.stringify({
    url: server.url,
    pid: process.pid,
    apiKey,
    pollId: poll.id,
    slideIds: liveDeck.map((slide) => slide.id),
    database: server.deps.database.description,
  })}\n`,
);
