/**
 * Open-ended answers through the answer path with the text filter on (`mask`, the default) and off, in
 * one process: `recordAnswer` (the poll from its cache, the judge, the filter's scan, the deltas) and
 * the group-commit writer, 512 in flight, each answer a new voter of one open-ended slide in one
 * session. Texts are 200 characters, one in ten with a vulgar word (issue 38). The two polls are
 * measured in alternating rounds in the same process, so that the machine's drift falls on both.
 * Prints, per round, answers/s and the process's CPU µs per answer, then the medians and the ratio.
 *
 *   npx tsx --conditions=@pollkit/source server/bench/text-ingestion.ts [answers per round] [rounds]
 *
 * With BENCH_DATABASE_URL (a PostgreSQL database the script may fill), on PostgreSQL; else PGlite.
 */
import type { ContentInput } from '../test/support/decks.js';

const perRound = Number(process.argv[2] ?? 20_000);
const rounds = Number(process.argv[3] ?? 3);
const { startTestServer } = await import('../test/support/server.js');
const { expectOk, testClient } = await import('../test/support/test-client.js');
const { recordAnswer } = await import('../src/modules/answers/answers.service.js');

if (process.env.BENCH_DATABASE_URL) process.env.TEST_DATABASE_URL = process.env.BENCH_DATABASE_URL;
const t = await startTestServer({ RATE_LIMIT_PER_MINUTE: '100000000', LOG_LEVEL: 'error' });
const { id: workspaceId, apiKey } = await t.workspace('pro');
const api = testClient(t.api, { apiKey });

async function openPoll(textFilter: 'off' | 'mask') {
  const content: ContentInput = {
    questions: [{ id: 'q', kind: 'open_ended', text: 'How was it?', maxLength: 500 }],
  };
  const poll = expectOk(
    await api.request('POST /polls', { body: { title: `Texts ${textFilter}`, content, textFilter } }),
  );
  await api.request('PATCH /polls/{id}', { params: { id: poll.id }, body: { publish: true } });
  const session = expectOk(await api.request('POST /sessions', { body: { pollId: poll.id } }));
  return { pollId: poll.id, live: { sessionId: session.id, points: () => null } };
}

const CLEAN =
  'The roadmap section was clear and the demo of the new export worked well, but the Q&A ran long and we ' +
  'never got to the hiring plan for the Lisbon office. Could we get the slides and a summary by Friday?';
const VULGAR = CLEAN.replace('ran long', 'was fucking long');
const polls = { off: await openPoll('off'), mask: await openPoll('mask') };

let sent = 0;
function answer(target: { pollId: string; live: { sessionId: string; points: () => null } }): Promise<unknown> {
  const i = sent++;
  const text = i % 10 === 0 ? VULGAR : `${CLEAN.slice(0, 190)} #${i}`;
  return recordAnswer(
    t.server.deps,
    workspaceId,
    { id: target.pollId, slideId: 'q', voterId: `prt_bench${i}` },
    'response',
    () => ({ text }),
    target.live,
  );
}

async function run(target: (typeof polls)['off'], count: number) {
  let started = 0;
  const lane = async () => {
    while (started++ < count) await answer(target);
  };
  const cpuBefore = process.cpuUsage();
  const startedAt = performance.now();
  await Promise.all(Array.from({ length: 512 }, lane));
  const seconds = (performance.now() - startedAt) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  return { perSec: Math.round(count / seconds), cpuUsPerAnswer: Math.round((cpu.user + cpu.system) / count) };
}

await run(polls.off, 3_000); // warm-up: the JIT, the caches, the first pages of every index
await run(polls.mask, 3_000);
const results: Record<'off' | 'mask', Array<{ perSec: number; cpuUsPerAnswer: number }>> = { off: [], mask: [] };
for (let round = 0; round < rounds; round++) {
  for (const mode of round % 2 === 0 ? (['off', 'mask'] as const) : (['mask', 'off'] as const)) {
    const result = await run(polls[mode], perRound);
    results[mode].push(result);
    console.log(JSON.stringify({ round: round + 1, textFilter: mode, ...result }));
  }
}
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
const summary = (mode: 'off' | 'mask') => ({
  perSec: median(results[mode].map((r) => r.perSec)),
  cpuUsPerAnswer: median(results[mode].map((r) => r.cpuUsPerAnswer)),
});
const off = summary('off');
const mask = summary('mask');
console.log(
  JSON.stringify({
    medians: { off, mask },
    throughputRatio: Number((mask.perSec / off.perSec).toFixed(3)),
    cpuRatio: Number((mask.cpuUsPerAnswer / off.cpuUsPerAnswer).toFixed(3)),
  }),
);
await t.close();
