/**
 * Start-to-ready: the time from running a start command to `GET /readyz` answering 200, as a user
 * sees it. Each run spawns the command in its own process group, polls /readyz every 20 ms, then
 * stops the group with SIGTERM. The first run uses a fresh, empty DATA_DIR (migrations and the
 * first-start workspace); the following runs reuse it, as a second `pnpm start` does.
 *
 *   npx tsx server/bench/start-time.ts                         # `npx -y pnpm@10 start` at the repository root, 3 runs
 *   npx tsx server/bench/start-time.ts --runs 5 --cwd /tmp/clone
 *   npx tsx server/bench/start-time.ts -- node server/dist/main.js   # any other command
 *
 * It also prints when the server printed its first line and what that line was, so a silent build
 * before the banner shows.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { machine } from './support.js';

const args = process.argv.slice(2);
const separator = args.indexOf('--');
const command = separator >= 0 ? args.slice(separator + 1) : ['npx', '-y', 'pnpm@10', 'start'];
const options = separator >= 0 ? args.slice(0, separator) : args;
const option = (name: string) => {
  const index = options.indexOf(`--${name}`);
  return index >= 0 ? options[index + 1] : undefined;
};
const runs = Number(option('runs') ?? 3);
const cwd = resolve(option('cwd') ?? fileURLToPath(new URL('../../', import.meta.url)));
const timeoutMs = Number(option('timeout') ?? 120_000);

interface Run {
  readyMs: number;
  firstOutputMs: number | undefined;
  firstLine: string | undefined;
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

/** The environment of a shell: without what npm and pnpm add when they run this script. */
function userEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !/^(npm_|pnpm_|INIT_CWD$|NODE$)/i.test(name)),
  );
}

async function ready(url: string): Promise<boolean> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(1000) });
    await response.arrayBuffer();
    return response.status === 200;
  } catch {
    return false;
  }
}

function stop(child: ChildProcess): Promise<void> {
  return new Promise((resolveStop) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolveStop();
    child.on('exit', () => resolveStop());
    // The whole group: npx, pnpm, the shell and node.
    if (child.pid) process.kill(-child.pid, 'SIGTERM');
  });
}

async function measure(dataDir: string): Promise<Run> {
  const port = await freePort();
  const started = performance.now();
  const [file, ...rest] = command as [string, ...string[]];
  const child = spawn(file, rest, {
    cwd,
    detached: true,
    env: { ...userEnv(), PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let firstOutputMs: number | undefined;
  let firstLine: string | undefined;
  // npm's own warnings about the user's configuration are not the server's output.
  const onOutput = (chunk: Buffer) => {
    if (firstOutputMs !== undefined) return;
    const line = chunk
      .toString('utf8')
      .split('\n')
      .find((text) => text.trim() !== '' && !text.startsWith('npm warn'));
    if (line === undefined) return;
    firstOutputMs = performance.now() - started;
    firstLine = line.trim().slice(0, 100);
  };
  child.stdout?.on('data', onOutput);
  child.stderr?.on('data', onOutput);
  let exited = false;
  child.on('exit', () => {
    exited = true;
  });
  try {
    while (!(await ready(`http://127.0.0.1:${port}/readyz`))) {
      if (exited) throw new Error(`${command.join(' ')} exited before it was ready`);
      if (performance.now() - started > timeoutMs) throw new Error(`not ready within ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 20));
    }
    return { readyMs: performance.now() - started, firstOutputMs, firstLine };
  } finally {
    await stop(child);
  }
}

const dataDir = mkdtempSync(join(tmpdir(), 'pollkit-start-'));
try {
  const load = () =>
    loadavg()
      .map((n) => n.toFixed(1))
      .join(' ');
  process.stdout.write(`${machine()}, load average ${load()}\n\`${command.join(' ')}\` in ${cwd}, ${runs} runs\n\n`);
  process.stdout.write('| run | DATA_DIR | ready (s) | first output (s) | first line |\n|---|---|---:|---:|---|\n');
  for (let run = 1; run <= runs; run++) {
    const r = await measure(dataDir);
    const fmt = (ms: number | undefined) => (ms === undefined ? '–' : (ms / 1000).toFixed(2));
    process.stdout.write(
      `| ${run} | ${run === 1 ? 'empty' : 'existing'} | ${fmt(r.readyMs)} | ${fmt(r.firstOutputMs)} | ${r.firstLine ?? ''} |\n`,
    );
  }
  process.stdout.write(`\nload average after: ${load()}\n`);
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
