/**
 * Runs every example against a live server, as CI does (`npx -y pnpm@10 examples`).
 *
 * Starts a real Pollkit server on an ephemeral port with the embedded database (the test harness's
 * `startTestServer`), creates a pro workspace with an API key, then runs each `examples/<name>`
 * as its own process with POLLKIT_BASE_URL and POLLKIT_API_KEY set — exactly what a user does.
 * Exits non-zero if any example fails or takes longer than a minute.
 */
import { spawn } from 'node:child_process';
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startTestServer } from '../server/test/support/server.js';

const examplesDir = fileURLToPath(new URL('.', import.meta.url));
const repoRoot = join(examplesDir, '..');
const tsxBin = join(repoRoot, 'node_modules', '.bin', 'tsx');
const EXAMPLE_TIMEOUT_MS = 60_000;

async function exampleNames(): Promise<string[]> {
  const names: string[] = [];
  for (const entry of (await readdir(examplesDir, { withFileTypes: true })).sort((a, b) =>
    a.name.localeCompare(b.name),
  )) {
    if (!entry.isDirectory() || entry.name === 'node_modules') continue;
    const hasEntry = await stat(join(examplesDir, entry.name, 'index.ts')).then(
      () => true,
      () => false,
    );
    if (hasEntry) names.push(entry.name);
  }
  return names;
}

/** Runs one example to completion, its output going straight to ours; resolves to its exit code. */
function runExample(name: string, env: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(tsxBin, ['--conditions=@pollkit/source', 'index.ts'], {
      cwd: join(examplesDir, name),
      env: { ...process.env, ...env },
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    const timer = setTimeout(() => {
      console.error(`${name}: still running after ${EXAMPLE_TIMEOUT_MS / 1000} s, stopping it`);
      child.kill('SIGTERM');
    }, EXAMPLE_TIMEOUT_MS);
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      resolve(code ?? (signal ? 128 : 1));
    });
  });
}

const names = await exampleNames();
if (names.length === 0) throw new Error(`no examples found in ${examplesDir}`);

// The webhook receivers (examples/webhooks-*) listen on 127.0.0.1 over http: settings for local
// development only, which a production server never has (docs/self-hosting.md, Configuration).
const server = await startTestServer({ WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_LOOPBACK: 'true' });
const failed: string[] = [];
try {
  const { apiKey } = await server.workspace('pro');
  console.log(`Pollkit server on ${server.url} (${server.databaseUrl}), running ${names.join(', ')}`);
  for (const name of names) {
    console.log(`\n---- examples/${name}`);
    const code = await runExample(name, { POLLKIT_BASE_URL: server.url, POLLKIT_API_KEY: apiKey });
    console.log(`---- examples/${name}: ${code === 0 ? 'ok' : `FAILED (exit ${code})`}`);
    if (code !== 0) failed.push(name);
  }
} finally {
  await server.close();
}

if (failed.length > 0) {
  console.error(`\n${failed.length} of ${names.length} examples failed: ${failed.join(', ')}`);
  process.exit(1);
}
console.log(`\nall ${names.length} examples passed`);
