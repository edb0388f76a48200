/**
 * A V8 CPU profile of the server under one load, and where its CPU went (profile-summary.ts):
 *
 *   npx tsx --conditions=@pollkit/source server/bench/profile.ts <votes|get-poll> [seconds] [connections]
 *   BENCH_DATABASE_URL=postgres://… npx tsx --conditions=@pollkit/source server/bench/profile.ts votes 20
 *
 * `votes` posts a vote with a new voter per request (as vote-ingestion.ts), `get-poll` reads one poll
 * (as get-poll.ts); only Pollkit's route is loaded, so the naive baseline that shares the ingestion
 * target's process stays out of the profile. The profile (start-up and a 3 s warm-up included) is
 * written under server/bench/.tmp/profiles/.
 */

import { execFileSync } from 'node:child_process';
import { readdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { load, startTarget } from './support.js';
import { hammer } from './vote-ingestion.js';

const [scenario = 'votes', secondsArg, connectionsArg] = process.argv.slice(2);
const seconds = Number(secondsArg ?? 20);
const connections = Number(connectionsArg ?? 50);
const dir = fileURLToPath(new URL(`./.tmp/profiles/${scenario}-${Date.now()}/`, import.meta.url));
const script = scenario === 'votes' ? './targets/ingestion.ts' : './targets/pollkit.ts';
// The answer writer's batches (size, flush seconds) are read from /metrics after the load.
const metricsToken = 'bench-profile-metrics';
const target = await startTarget(
  fileURLToPath(new URL(script, import.meta.url)),
  { METRICS_TOKEN: metricsToken },
  {
    nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${dir}`],
  },
);
const info = target.info as { url: string; apiKey: string; pollId: string; slideId?: string; database: string };
const headers = { authorization: `Bearer ${info.apiKey}` };
let line = '';
if (scenario === 'votes') {
  const url = `${info.url}/api/v1/polls/${info.pollId}/votes`;
  const slideId = info.slideId ?? 'lunch';
  await hammer({ url, headers, slideId, prefix: 'warm', connections, durationSec: 3 });
  const r = await hammer({ url, headers, slideId, prefix: 'prof', connections, durationSec: seconds });
  line = `votes: ${Math.round(r.acceptedPerSec)} accepted/s, p99 ${r.p99Ms} ms, ${r.non2xx} non-2xx`;
} else {
  const url = `${info.url}/api/v1/polls/${info.pollId}`;
  await load({ url, headers, connections, durationSec: 3 });
  const r = await load({ url, headers, connections, durationSec: seconds });
  line = `get-poll: ${Math.round(r.requestsPerSec)} req/s, p99 ${r.p99Ms} ms, ${r.non2xx} non-2xx`;
}
const metrics = await (
  await fetch(`${info.url}/metrics`, { headers: { authorization: `Bearer ${metricsToken}` } })
).text();
const series = (name: string) => Number(metrics.match(new RegExp(`^${name} (\\S+)$`, 'm'))?.[1] ?? Number.NaN);
const batches = series('pollkit_answer_batch_size_count');
if (batches > 0) {
  const answers = series('pollkit_answer_batch_size_sum');
  const flushMs = (1000 * series('pollkit_answer_batch_flush_seconds_sum')) / batches;
  line += `; ${batches} batches of ${(answers / batches).toFixed(1)} answers on average, ${flushMs.toFixed(2)} ms per flush`;
}
await target.stop();
const [file] = (await readdir(dir)).filter((name) => name.endsWith('.cpuprofile'));
process.stdout.write(`${line} (${info.database}, ${connections} connections, ${seconds} s)\n`);
const summary = fileURLToPath(new URL('./profile-summary.ts', import.meta.url));
process.stdout.write(
  execFileSync(process.execPath, ['--import', 'tsx', summary, `${dir}${file}`], { encoding: 'utf8' }),
);
