import { type ChildProcess, spawn } from 'node:child_process';
import { cpus, totalmem } from 'node:os';
import { basename } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { build } from 'tsup';

const serverDir = fileURLToPath(new URL('..', import.meta.url));

export interface BenchTarget {
  process: ChildProcess;
  /** What the child printed as its one JSON line: at least `{ url }`. */
  info: { url: string; [key: string]: unknown };
  stop(): Promise<void>;
}

/**
 * Bundles a target script the way the server ships (tsup, as in `pnpm start`), so benchmarks
 * measure `node` running built code, not `tsx` compiling on the fly.
 */
export async function bundle(script: string, under = 'targets'): Promise<string> {
  // Each bundle empties its folder (server/tsup.config.ts cleans): scripts that run side by side
  // (a target and its load generators) are bundled under different folders.
  const outDir = fileURLToPath(new URL(`./.tmp/${under}/`, import.meta.url));
  const name = basename(script, '.ts');
  await build({
    // The server's imports read files on a thread loaded by file, beside the bundle (tsup.config.ts).
    entry: {
      [name]: script,
      'bank-reader-thread': fileURLToPath(new URL('../src/modules/decks/bank-reader-thread.ts', import.meta.url)),
    },
    format: ['esm'],
    platform: 'node',
    target: 'node20',
    outDir,
    sourcemap: true,
    silent: true,
    noExternal: ['@pollkit/contracts'],
    esbuildOptions(options) {
      options.conditions = ['@pollkit/source'];
    },
  });
  return `${outDir}${name}.js`;
}

/**
 * The line a bench script prints its result on, among the server's log lines (pino's JSON, printed
 * before it at LOG_LEVEL=warn and above: a warning at start-up) that also begin with `{`.
 */
export function resultLine(output: string): string | undefined {
  return output.split('\n').find((line) => line.startsWith('{') && !line.startsWith('{"level":'));
}

/**
 * Starts a bench target in its own process, so the load generator (this process) and the server
 * under test do not share an event loop. The child prints one JSON line when it is ready.
 */
export async function startTarget(
  script: string,
  env: Record<string, string> = {},
  options: { fdLimit?: number; nodeArgs?: string[]; under?: string } = {},
): Promise<BenchTarget> {
  const bundled = await bundle(script, options.under);
  const args = [...(options.nodeArgs ?? []), '--enable-source-maps', bundled];
  const [command, commandArgs] = options.fdLimit ? withFdLimit(options.fdLimit, args) : [process.execPath, args];
  const child = spawn(command, commandArgs, {
    cwd: serverDir,
    env: { ...process.env, LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const info = await new Promise<BenchTarget['info']>((resolve, reject) => {
    let buffer = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      const line = resultLine(buffer);
      if (line) resolve(JSON.parse(line));
    });
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code} before it was ready`)));
  });
  return {
    process: child,
    info,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/**
 * `node <args>` run by bash after `ulimit -n <limit>` (Node cannot raise its own limit): where
 * the hard limit is lower and may not be raised (not root), the soft limit goes up to the hard one.
 * `exec` keeps the pid, so /proc readings of the child's pid are node's.
 */
export function withFdLimit(limit: number, args: string[]): [string, string[]] {
  const script = `ulimit -n ${limit} 2>/dev/null || ulimit -n "$(ulimit -Hn)"; exec "$@"`;
  return ['bash', ['-c', script, 'bash', process.execPath, ...args]];
}

export interface LoadResult {
  requestsPerSec: number;
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
  errors: number;
  total: number;
}

export async function load(options: {
  url: string;
  headers?: Record<string, string>;
  method?: 'GET' | 'POST';
  body?: string;
  connections?: number;
  durationSec?: number;
}): Promise<LoadResult> {
  const result = await autocannon({
    url: options.url,
    method: options.method ?? 'GET',
    headers: options.headers,
    body: options.body,
    connections: options.connections ?? 50,
    duration: options.durationSec ?? 10,
  });
  return {
    requestsPerSec: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
    total: result.requests.total,
  };
}

/** The round with the median throughput. */
export function median(rounds: LoadResult[]): LoadResult {
  const sorted = [...rounds].sort((a, b) => a.requestsPerSec - b.requestsPerSec);
  const middle = sorted[Math.floor(sorted.length / 2)];
  if (!middle) throw new Error('no rounds measured');
  return middle;
}

export function machine(): string {
  const cpu = cpus();
  return `${cpu.length} × ${cpu[0]?.model ?? 'unknown CPU'}, ${Math.round(totalmem() / 2 ** 30)} GiB RAM, Node ${process.version}, ${process.platform}/${process.arch}`;
}
