import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, open, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

/**
 * `@pollkit/contracts` and `@pollkit/sdk` as a user gets them: built with tsup, packed by
 * scripts/pack-packages.mjs (what `pnpm packages:pack` runs) and installed with npm into a scratch
 * project outside the workspace, so that nothing resolves to the workspace's sources.
 */

const run = promisify(execFile);
export const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const PACKAGE_DIRS = ['contracts', 'sdk'].map((name) => join(REPO_ROOT, name));

/**
 * Builds both packages and packs them into `tarballDir`. Test files run in parallel and tsup empties
 * `dist/` before it writes: a lock file (per checkout) keeps one file's build from packing another's
 * half-written one.
 */
export async function buildAndPack(tarballDir: string): Promise<{ contracts: string; sdk: string }> {
  await mkdir(tarballDir, { recursive: true });
  const release = await lock(join(tmpdir(), `pollkit-packages-${hashOf(REPO_ROOT)}.lock`));
  try {
    // Contracts first: the SDK's declaration build reads the contracts' types.
    for (const dir of PACKAGE_DIRS) await run('npx', ['tsup', '--silent'], { cwd: dir });
    await run(process.execPath, [join(REPO_ROOT, 'scripts/pack-packages.mjs'), tarballDir], { cwd: REPO_ROOT });
  } finally {
    await release();
  }
  const tarballs = (await readdir(tarballDir)).filter((file) => file.endsWith('.tgz'));
  const tarballOf = (prefix: string) => {
    const file = tarballs.find((name) => name.startsWith(prefix));
    if (!file) throw new Error(`no ${prefix}*.tgz among ${tarballs.join(', ')}`);
    return join(tarballDir, file);
  };
  return { contracts: tarballOf('pollkit-contracts-'), sdk: tarballOf('pollkit-sdk-') };
}

/**
 * A scratch npm project in `projectDir` with both tarballs installed. npm, not pnpm: the project must
 * not see the workspace; only the SDK's own dependencies (zod, eventsource-parser) come from the
 * registry, or from npm's cache.
 */
export async function installPackedSdk(projectDir: string, tarballDir: string): Promise<void> {
  const tarballs = await buildAndPack(tarballDir);
  await mkdir(projectDir, { recursive: true });
  await writeFile(
    join(projectDir, 'package.json'),
    JSON.stringify({
      name: 'pollkit-scratch',
      private: true,
      type: 'module',
      dependencies: { '@pollkit/contracts': `file:${tarballs.contracts}`, '@pollkit/sdk': `file:${tarballs.sdk}` },
    }),
  );
  await run('npm', ['install', '--no-audit', '--no-fund', '--ignore-scripts', '--prefer-offline', '--loglevel=error'], {
    cwd: projectDir,
  });
}

function hashOf(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 12);
}

/** An exclusive lock file; one left by a crashed run is taken over after ten minutes. */
async function lock(path: string): Promise<() => Promise<void>> {
  const staleAfterMs = 10 * 60_000;
  for (;;) {
    try {
      const handle = await open(path, 'wx');
      await handle.close();
      return () => rm(path, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const age = await stat(path).then(
        (info) => Date.now() - info.mtimeMs,
        () => 0,
      );
      if (age > staleAfterMs) await rm(path, { force: true });
      else await new Promise((resolveWait) => setTimeout(resolveWait, 250));
    }
  }
}
