/**
 * Where the machine's CPU goes per accepted vote, for the naive baseline and for Pollkit, on one
 * machine that runs the load generator, the server and the database together: CPU seconds of the
 * server process, of the load generator (this process) and of every PostgreSQL process (or none:
 * PGlite runs inside the server), each divided by the votes accepted in the same window.
 *
 *   BENCH_DATABASE_URL=postgres://… npx tsx --conditions=@pollkit/source bench/cpu-per-vote.ts [seconds] [connections] [rounds]
 *
 * (run from server/, as the benchmarks are). Linux only: it reads /proc.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { machine, startTarget } from './support.js';
import { hammer } from './vote-ingestion.js';

const [secondsArg, connectionsArg, roundsArg] = process.argv.slice(2);
const seconds = Number(secondsArg ?? 10);
const connections = Number(connectionsArg ?? 50);
const rounds = Number(roundsArg ?? 3);
const TICK = 100; // USER_HZ: /proc/<pid>/stat counts CPU time in 1/100 s.

/** User + system CPU seconds of one process (children that ended included), from /proc. */
function cpuOf(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICK;
  } catch {
    return 0;
  }
}

/** Every postgres process's CPU seconds by pid (backends come and go; the pool keeps its own). */
function postgresCpu(): Map<number, number> {
  const out = new Map<number, number>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readFileSync(`/proc/${name}/comm`, 'utf8').trim() !== 'postgres') continue;
    } catch {
      continue;
    }
    out.set(Number(name), cpuOf(Number(name)));
  }
  return out;
}

const target = await startTarget(fileURLToPath(new URL('./targets/ingestion.ts', import.meta.url)));
const info = target.info as { url: string; baselineUrl: string; apiKey: string; pollId: string; database: string };
const headers = { authorization: `Bearer ${info.apiKey}` };
const urls = {
  naive: `${info.baselineUrl}/baseline/polls/${info.pollId}/votes`,
  pollkit: `${info.url}/api/v1/polls/${info.pollId}/votes`,
};
const serverPid = target.process.pid as number;

async function measure(side: keyof typeof urls, prefix: string, durationSec: number) {
  const pg0 = postgresCpu();
  const server0 = cpuOf(serverPid);
  const self0 = process.cpuUsage();
  const result = await hammer({ url: urls[side], headers, slideId: 'lunch', prefix, connections, durationSec });
  const self = process.cpuUsage(self0);
  const server = cpuOf(serverPid) - server0;
  let pg = 0;
  for (const [pid, cpu] of postgresCpu()) pg += cpu - (pg0.get(pid) ?? 0);
  const per = (s: number) => (1e6 * s) / result.accepted;
  return {
    rate: result.acceptedPerSec,
    server: per(server),
    load: per((self.user + self.system) / 1e6),
    pg: per(pg),
  };
}

process.stdout.write(`${machine()}; ${info.database}; ${connections} connections, ${seconds} s per round\n`);
process.stdout.write(
  '| round | side | votes/s | server µs/vote | PostgreSQL µs/vote | load generator µs/vote | total µs/vote |\n',
);
process.stdout.write('|---:|---|---:|---:|---:|---:|---:|\n');
await measure('naive', 'warm-n', 2);
await measure('pollkit', 'warm-p', 2);
for (let round = 1; round <= rounds; round++) {
  for (const side of ['naive', 'pollkit'] as const) {
    const r = await measure(side, `${side}-${round}`, seconds);
    const f = (n: number) => n.toFixed(0);
    process.stdout.write(
      `| ${round} | ${side} | ${Math.round(r.rate)} | ${f(r.server)} | ${f(r.pg)} | ${f(r.load)} | ${f(r.server + r.pg + r.load)} |\n`,
    );
  }
}
await target.stop();
