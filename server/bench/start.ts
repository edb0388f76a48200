/**
 * Start-up of the built server: from spawning the process to `GET /readyz` answering 200 (polled
 * every 10 ms), on a temporary DATA_DIR: one first start (PGlite's initdb, the migrations, the
 * first-start workspace), then `--runs` second starts on the same DATA_DIR, as a user's next start.
 * Prints each run, then the median, min and max of the second starts, in wall time and in the CPU
 * time the process group had used by then (Linux: /proc), which a busy machine inflates less.
 *
 *   npx tsx server/bench/start.ts                                  # node server/dist/main.js, 10 second starts
 *   npx tsx server/bench/start.ts --runs 20
 *   npx tsx server/bench/start.ts -- npx -y pnpm@10 start          # any command, run in --cwd (default: the repository)
 *
 * `server/dist` must be built (`npx -y pnpm@10 install` builds it). Each run also records when the
 * command printed its first output and what that line was, so that a silent build (or npx fetching
 * pnpm) before the banner shows.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { get } from 'node:http';
import { createServer } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { machine } from './support.js';

const args = process.argv.slice(2);
const separator = args.indexOf('--');
const command = separator >= 0 ? args.slice(separator + 1) : ['node', 'server/dist/main.js'];
const options = separator >= 0 ? args.slice(0, separator) : args;
const option = (name: string) => {
  const index = options.indexOf(`--${name}`);
  return index >= 0 ? options[index + 1] : undefined;
};
const runs = Number(option('runs') ?? 10);
const cwd = resolve(option('cwd') ?? fileURLToPath(new URL('../../', import.meta.url)));
const timeoutMs = Number(option('timeout') ?? 120_000);
/** Clock ticks per second of /proc/<pid>/stat's utime and stime (USER_HZ, 100 on Linux). */
const TICKS_PER_SECOND = 100;

interface Run {
  readyMs: number;
  /** When the command first wrote to stdout or stderr, and that line. */
  firstOutputMs?: number;
  firstLine?: string;
  /** CPU (user + system) of the command's process group when /readyz first answered 200. */
  cpuMs: number | undefined;
}

async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolvePort(port));
    });
    server.on('error', reject);
  });
}

/** One GET on a fresh connection: true on a 200. */
function ready(port: number): Promise<boolean> {
  return new Promise((resolveReady) => {
    const request = get({ host: '127.0.0.1', port, path: '/readyz', agent: false, timeout: 1000 }, (response) => {
      response.resume();
      resolveReady(response.statusCode === 200);
    });
    request.on('timeout', () => request.destroy());
    request.on('error', () => resolveReady(false));
  });
}

/** CPU time used so far by every process of the group `pgid` (the command and what it started). */
function groupCpuMs(pgid: number): number | undefined {
  if (process.platform !== 'linux') return undefined;
  let ticks = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // The fields after the command name (which may hold spaces) start at its closing parenthesis.
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      // fields[2] is the process group; fields[11] and fields[12] are utime and stime.
      if (Number(fields[2]) === pgid) ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // The process ended between the listing and the read.
    }
  }
  return (ticks / TICKS_PER_SECOND) * 1000;
}

/** The environment of a shell: without what npm and pnpm add when they run this script. */
function userEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !/^(npm_|pnpm_|INIT_CWD$|NODE$)/i.test(name)),
  );
}

function stop(child: ChildProcess): Promise<void> {
  return new Promise((resolveStop) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolveStop();
    child.on('exit', () => resolveStop());
    if (child.pid) process.kill(-child.pid, 'SIGTERM');
  });
}

async function measure(dataDir: string): Promise<Run> {
  const port = await freePort();
  const [file, ...rest] = command as [string, ...string[]];
  const started = performance.now();
  const child = spawn(file, rest, {
    cwd,
    detached: true,
    env: { ...userEnv(), PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: Pick<Run, 'firstOutputMs' | 'firstLine'> = {};
  const onOutput = (chunk: Buffer) => {
    if (output.firstOutputMs !== undefined) return;
    output.firstOutputMs = performance.now() - started;
    output.firstLine = chunk.toString('utf8').split('\n')[0]?.trim().slice(0, 100);
  };
  // Read to the end either way: a pipe left full would stall the server.
  child.stdout?.on('data', onOutput);
  child.stderr?.on('data', onOutput);
  let exited = false;
  child.on('exit', () => {
    exited = true;
  });
  try {
    while (!(await ready(port))) {
      if (exited) throw new Error(`${command.join(' ')} exited before it was ready`);
      if (performance.now() - started > timeoutMs) throw new Error(`not ready within ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 10));
    }
    const readyMs = performance.now() - started;
    return { readyMs, cpuMs: child.pid ? groupCpuMs(child.pid) : undefined, ...output };
  } finally {
    await stop(child);
  }
}

const seconds = (ms: number | undefined) => (ms === undefined ? '–' : (ms / 1000).toFixed(2));

function summary(values: (number | undefined)[]): string {
  const known = values.filter((v): v is number => v !== undefined).sort((a, b) => a - b);
  if (known.length === 0) return '– | – | –';
  const middle = Math.floor(known.length / 2);
  const median = known.length % 2 ? known[middle] : ((known[middle - 1] ?? 0) + (known[middle] ?? 0)) / 2;
  return `${seconds(median)} | ${seconds(known[0])} | ${seconds(known.at(-1))}`;
}

const load = () =>
  loadavg()
    .map((n) => n.toFixed(1))
    .join(' ');
const dataDir = mkdtempSync(join(tmpdir(), 'pollkit-start-'));
try {
  process.stdout.write(`${machine()}, load average ${load()}\n\`${command.join(' ')}\` in ${cwd}\n\n`);
  const first = await measure(dataDir);
  const second: Run[] = [];
  for (let run = 1; run <= runs; run++) second.push(await measure(dataDir));
  process.stdout.write(
    [
      '| start | ready (s) | CPU (s) | first output (s) | first line |',
      '|---|---:|---:|---:|---|',
      ...[first, ...second].map(
        (r, i) =>
          `| ${i === 0 ? 'first (empty DATA_DIR)' : `second #${i}`} | ${seconds(r.readyMs)} | ${seconds(r.cpuMs)} | ` +
          `${seconds(r.firstOutputMs)} | ${r.firstLine ?? ''} |`,
      ),
      '',
      `| ${runs} second starts | median | min | max |`,
      '|---|---:|---:|---:|',
      `| ready (s) | ${summary(second.map((r) => r.readyMs))} |`,
      `| CPU (s) | ${summary(second.map((r) => r.cpuMs))} |`,
      '',
      `load average after: ${load()}`,
      '',
    ].join('\n'),
  );
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
