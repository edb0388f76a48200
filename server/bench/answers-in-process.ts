/**
 * Live-session answers through the answer path alone, in one process: `recordAnswer` (the poll from
 * its cache, the judge, the deltas) and the group-commit writer on embedded PGlite, 512 in flight,
 * each answer a new voter of one multiple-choice slide in one session — what a room answering at once
 * costs the writer, without the HTTP, SSE and load-generator work that make the live-sessions
 * scenario's rounds vary by ±30 %. Prints answers/s and the process's CPU µs per answer.
 *
 *   npx tsx --conditions=@pollkit/source server/bench/answers-in-process.ts [tree] [answers]
 *
 * `tree`: the repository to measure (default: this one), so two commits' worktrees can be measured
 * from one script in alternating rounds (issue 28's comparison: server/bench/RESULTS.md).
 */
import { fileURLToPath } from 'node:url';
import type { ContentInput } from '../test/support/decks.js';

const tree = process.argv[2] ?? fileURLToPath(new URL('../..', import.meta.url));
const total = Number(process.argv[3] ?? 40_000);
const { startTestServer } = await import(`${tree}/server/test/support/server.ts`);
const { recordAnswer } = await import(`${tree}/server/src/modules/answers/answers.service.ts`);
// This tree's client, whichever tree is measured: it only sends the setup's requests, which every
// tree's API answers alike.
const { expectOk, testClient } = await import('../test/support/test-client.js');

const t = await startTestServer({ RATE_LIMIT_PER_MINUTE: '100000000', LOG_LEVEL: 'error' });
const { id: workspaceId, apiKey } = await t.workspace('pro');
const options = ['a', 'b', 'c'];
const content: ContentInput = {
  questions: [
    { id: 'q', kind: 'multiple_choice', text: 'Q?', options: options.map((id) => ({ id, label: id.toUpperCase() })) },
  ],
};
const api = testClient(t.api, { apiKey });
const poll = expectOk(await api.request('POST /polls', { body: { title: 'Answers in process', content } }));
await api.request('PATCH /polls/{id}', { params: { id: poll.id }, body: { publish: true } });
const session = expectOk(await api.request('POST /sessions', { body: { pollId: poll.id } }));
const live = { sessionId: session.id, points: () => null };

let sent = 0;
function answer(): Promise<unknown> {
  const i = sent++;
  return recordAnswer(
    t.server.deps,
    workspaceId,
    { id: poll.id, slideId: 'q', voterId: `prt_bench${i}` },
    'vote',
    () => ({ optionIds: [options[i % options.length]] }),
    live,
  );
}

async function run(count: number): Promise<void> {
  let started = 0;
  const lane = async () => {
    while (started++ < count) await answer();
  };
  await Promise.all(Array.from({ length: 512 }, lane));
}

await run(5_000); // warm-up: the JIT, the caches, the first pages of every index
const cpuBefore = process.cpuUsage();
const startedAt = performance.now();
await run(total);
const seconds = (performance.now() - startedAt) / 1000;
const cpu = process.cpuUsage(cpuBefore);
console.log(
  JSON.stringify({
    tree,
    answers: total,
    perSec: Math.round(total / seconds),
    cpuUsPerAnswer: Math.round((cpu.user + cpu.system) / total),
  }),
);
await t.close();
