import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { copyFile, mkdir, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { filesFingerprint, lock } from './build-cache.js';

/**
 * `@pollkit/contracts` and `@pollkit/sdk` as a user gets them: built with tsup, packed by
 * scripts/pack-packages.mjs (what `pnpm packages:pack` runs) and installed with npm into a scratch
 * project outside the workspace, so that nothing resolves to the workspace's sources.
 */

const run = promisify(execFile);
export const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const PACKAGE_DIRS = ['contracts', 'sdk'].map((name) => join(REPO_ROOT, name));

/**
 * Both packages built and packed into `tarballDir`. Test files run in parallel and tsup empties
 * `dist/` before it writes: a lock file (per checkout) keeps one file's build from packing another's
 * half-written one. The tarballs are kept under a fingerprint of everything that goes into them,
 * whichever checkout built them, so the second file of a run, a later run, or another clone of the
 * same sources copies them instead of building (30-50 s on the 2-core machine).
 */
async function buildAndPack(tarballDir: string): Promise<{ contracts: string; sdk: string }> {
  await mkdir(tarballDir, { recursive: true });
  const release = await lock(join(tmpdir(), `pollkit-packages-${hashOf(REPO_ROOT)}.lock`));
  try {
    const cached = join(tmpdir(), 'pollkit-packages', await sourceFingerprint());
    if (!existsSync(join(cached, 'done'))) {
      // Packed into a folder of this process's, then renamed: another checkout building the same
      // sources at once finds all of it or none.
      const partial = `${cached}.${process.pid}.partial`;
      await rm(partial, { recursive: true, force: true });
      await mkdir(partial, { recursive: true });
      // Contracts first: the SDK's declaration build reads the contracts' types.
      for (const dir of PACKAGE_DIRS) await run('npx', ['tsup', '--silent'], { cwd: dir });
      await run(process.execPath, [join(REPO_ROOT, 'scripts/pack-packages.mjs'), partial], { cwd: REPO_ROOT });
      await writeFile(join(partial, 'done'), '');
      await rename(partial, cached).catch(async (error: NodeJS.ErrnoException) => {
        // Another checkout renamed its copy first: the same bytes, so this one goes.
        if (!existsSync(join(cached, 'done'))) throw error;
        await rm(partial, { recursive: true, force: true });
      });
    }
    for (const file of await readdir(cached)) {
      if (file.endsWith('.tgz')) await copyFile(join(cached, file), join(tarballDir, file));
    }
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

/** A hash of every file that shapes the tarballs: both packages' sources and configs, the lockfile, the packer. */
async function sourceFingerprint(): Promise<string> {
  const files = ['pnpm-lock.yaml', 'tsconfig.base.json', 'scripts/pack-packages.mjs'];
  for (const name of ['contracts', 'sdk']) {
    for (const file of ['package.json', 'tsconfig.json', 'tsup.config.ts']) files.push(`${name}/${file}`);
    const sources = await readdir(join(REPO_ROOT, name, 'src'), { recursive: true, withFileTypes: true });
    for (const entry of sources) {
      if (entry.isFile()) files.push(relative(REPO_ROOT, join(entry.parentPath, entry.name)));
    }
  }
  return filesFingerprint(REPO_ROOT, files);
}

/**
 * A scratch npm project in `projectDir` with both tarballs installed. npm, not pnpm: the project must
 * not see the workspace; only the SDK's own dependencies (zod, eventsource-parser) come from the
 * registry, or from npm's cache.
 */
export async function installPackedSdk(
  projectDir: string,
  tarballDir: string,
  /** Packages from the registry the project needs besides the SDK (name -> version range). */
  registryDependencies: Record<string, string> = {},
): Promise<void> {
  const tarballs = await buildAndPack(tarballDir);
  await mkdir(projectDir, { recursive: true });
  await writeFile(
    join(projectDir, 'package.json'),
    JSON.stringify({
      name: 'pollkit-scratch',
      private: true,
      type: 'module',
      dependencies: {
        ...registryDependencies,
        '@pollkit/contracts': `file:${tarballs.contracts}`,
        '@pollkit/sdk': `file:${tarballs.sdk}`,
      },
    }),
  );
  await run('npm', ['install', '--no-audit', '--no-fund', '--ignore-scripts', '--prefer-offline', '--loglevel=error'], {
    cwd: projectDir,
  });
}

function hashOf(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 12);
}
