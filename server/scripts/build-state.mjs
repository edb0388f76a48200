// @ts-check
/**
 * Is server/dist the build of the sources as they are now? A fingerprint of every input of the
 * bundle (path, size and modification time of each file and folder under server/src and
 * contracts/src, plus the build configuration and the lockfile) is written beside the bundle when
 * tsup finishes (tsup.config.ts), and compared before `pnpm start` and `pnpm pollkit` run it. Folders
 * are included because adding, removing or renaming a file changes its folder's time, not its own.
 * Statting a few hundred files takes milliseconds; a build takes one to two seconds.
 *
 * Plain JavaScript, so it runs with `node` before anything is compiled.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const serverDir = resolve(fileURLToPath(new URL('..', import.meta.url)));
const repoRoot = resolve(serverDir, '..');
export const distDir = join(serverDir, 'dist');
/** What `pnpm start` and `pnpm pollkit` run: both must exist. */
export const entryPoints = [join(distDir, 'main.js'), join(distDir, 'cli.js')];
const stampFile = join(distDir, '.sources');

const inputFolders = [join(serverDir, 'src'), join(repoRoot, 'contracts', 'src')];
const inputFiles = [
  join(serverDir, 'tsup.config.ts'),
  join(serverDir, 'package.json'),
  join(serverDir, 'scripts', 'build-state.mjs'),
  join(repoRoot, 'contracts', 'package.json'),
  join(repoRoot, 'pnpm-lock.yaml'),
];

/** @param {string} path @param {string[]} lines */
function describe(path, lines) {
  let stats;
  try {
    stats = statSync(path);
  } catch {
    lines.push(`${relative(repoRoot, path)} missing`);
    return;
  }
  lines.push(`${relative(repoRoot, path)} ${stats.size} ${stats.mtimeMs}`);
  if (!stats.isDirectory()) return;
  for (const entry of readdirSync(path).sort()) describe(join(path, entry), lines);
}

/** A hash of every input's path, size and modification time. */
export function sourcesFingerprint() {
  /** @type {string[]} */
  const lines = [];
  for (const path of [...inputFolders, ...inputFiles]) describe(path, lines);
  return createHash('sha256').update(lines.join('\n')).digest('hex');
}

/** Called by tsup once the bundle is written, with the fingerprint taken before it started. */
export function writeBuildStamp(/** @type {string} */ fingerprint) {
  writeFileSync(stampFile, `${fingerprint}\n`);
}

/** `undefined` when dist is current, otherwise why it is not. */
export function staleReason() {
  if (!entryPoints.every((path) => existsSync(path))) return 'no build yet';
  let recorded;
  try {
    recorded = readFileSync(stampFile, 'utf8').trim();
  } catch {
    return 'sources changed';
  }
  return recorded === sourcesFingerprint() ? undefined : 'sources changed';
}
