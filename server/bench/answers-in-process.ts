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

const tree = process.argv[2] ?? fileURLToPath(new URL('../..', import.meta.url));
const total = Number(process.argv[3] ?? 40_000);
const { startTestServer } = await import(`${tree}/server/test/support/server.ts`);
const { call } = await import(`${tree}/server/test/support/http.ts`);
const { recordAnswer } = await import(`${tree}/server/src/modules/answers/answers.service.ts`);

const t = await startTestServer({ RATE_LIMIT_PER_MINUTE: '100000000', LOG_LEVEL: 'error' });
const { id: workspaceId, apiKey } = await t.workspace('pro');
const options = ['a', 'b', 'c'];
const content = {
  questions: [
    { id: 'q', kind: 'multiple_choice', text: 'Q?', options: options.map((id) => ({ id, label: id.toUpperCase() })) },
  ],
};
const poll = await call('POST', `${t.api}/polls`, { apiKey, body: { title: 'Answers in process', content } });
await call('PATCH', `${t.api}/polls/${poll.body.id}`, { apiKey, body: { publish: true } });
const session = await call('POST', `${t.api}/sessions`, { apiKey, body: { pollId: poll.body.id } });
const live = { sessionId: session.body.id, points: () => null };

let sent = 0;
function answer(): Promise<unknown> {
  const i = sent++;
  return recordAnswer(
    t.server.deps,
    workspaceId,
    { id: poll.body.id, slideId: 'q', voterId: `prt_bench${i}` },
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
