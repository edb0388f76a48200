/**
 * Runs the benchmarks and prints a Markdown section for RESULTS.md.
 *   npx -y pnpm@10 bench                       # all scenarios, embedded PGlite
 *   BENCH_DATABASE_URL=postgres://… npx -y pnpm@10 bench
 *   BENCH_DURATION=20 BENCH_CONNECTIONS=100 BENCH_ROUNDS=5 npx -y pnpm@10 bench
 */
import { getPollScenario } from './get-poll.js';
import { machine } from './support.js';

const durationSec = Number(process.env.BENCH_DURATION ?? 10);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 50);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

const lines: string[] = [];
lines.push(`### ${new Date().toISOString().slice(0, 10)} — ${machine()}`);
lines.push('');
lines.push(
  `autocannon, ${connections} connections, ${durationSec} s per measurement after a 2 s warm-up; targets alternate over ${rounds} rounds and the median round is shown.`,
);
lines.push('');

const getPoll = await getPollScenario({ durationSec, connections, rounds });
lines.push(`#### GET /api/v1/polls/{id} (${getPoll.database}, ${getPoll.bodyBytes}-byte body)`);
lines.push('');
lines.push('| target | req/s | p50 ms | p99 ms | non-2xx | errors |');
lines.push('|---|---:|---:|---:|---:|---:|');
for (const [name, r] of [
  ['bare Fastify route, same JSON', getPoll.bare],
  ['Pollkit (auth, rate limit, validation, database)', getPoll.pollkit],
] as const) {
  lines.push(`| ${name} | ${fmt(r.requestsPerSec)} | ${r.p50Ms} | ${r.p99Ms} | ${r.non2xx} | ${r.errors} |`);
}
lines.push('');
lines.push(`Ratio Pollkit / bare: **${getPoll.ratio.toFixed(2)}** (target ≥ 0.50).`);
lines.push(
  `Rounds (req/s): bare ${getPoll.rounds.bare.map(fmt).join(' / ')}; Pollkit ${getPoll.rounds.pollkit.map(fmt).join(' / ')}.`,
);
lines.push('');

process.stdout.write(`${lines.join('\n')}\n`);
