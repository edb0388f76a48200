// @ts-check
/**
 * Is a build current? Two builds are checked: the server's bundle (server/dist) and the audience
 * and presenter pages (web/dist), which the server serves as they are. A fingerprint of every input
 * of a build (path, size and modification time of each file and folder under its source folders,
 * plus its configuration and the lockfile) is written beside the output when tsup finishes (each
 * package's tsup.config.ts), and compared before `pnpm start` and `pnpm pollkit` run the server
 * (scripts/ensure-built.mjs). Folders are included because adding, removing or renaming a file
 * changes its folder's time, not its own. Statting a few hundred files takes milliseconds; a build
 * takes one to two seconds.
 *
 * Plain JavaScript, so it runs with `node` before anything is compiled.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const serverDir = resolve(fileURLToPath(new URL('..', import.meta.url)));
const repoRoot = resolve(serverDir, '..');
const webDir = join(repoRoot, 'web');
const lockfile = join(repoRoot, 'pnpm-lock.yaml');
const contractsInputs = [join(repoRoot, 'contracts', 'src'), join(repoRoot, 'contracts', 'package.json')];

/**
 * @typedef {object} BuildTarget
 * @property {string} name what the build is, for messages
 * @property {string} dir the package folder tsup runs in
 * @property {string[]} outputs what must exist for the build to count as done
 * @property {string} stampFile where the fingerprint of the inputs of the last build is kept
 * @property {string[]} inputs the files and folders whose change calls for a new build
 */

/** @type {BuildTarget} */
export const serverBuild = {
  name: 'the server',
  dir: serverDir,
  // What `pnpm start` and `pnpm pollkit` run.
  outputs: [join(serverDir, 'dist', 'main.js'), join(serverDir, 'dist', 'cli.js')],
  stampFile: join(serverDir, 'dist', '.sources'),
  inputs: [
    join(serverDir, 'src'),
    join(serverDir, 'tsup.config.ts'),
    join(serverDir, 'package.json'),
    join(serverDir, 'scripts', 'build-state.mjs'),
    ...contractsInputs,
    lockfile,
  ],
};

/** @type {BuildTarget} */
export const webBuild = {
  name: 'the web pages',
  dir: webDir,
  // What the server serves at /join and /present (server/src/http/web-pages.ts).
  outputs: ['join.js', 'join.css', 'present.js', 'present.css'].map((name) => join(webDir, 'dist', name)),
  stampFile: join(webDir, 'dist', '.sources'),
  inputs: [
    join(webDir, 'src'),
    join(webDir, 'tsup.config.ts'),
    join(webDir, 'package.json'),
    join(serverDir, 'scripts', 'build-state.mjs'),
    join(repoRoot, 'sdk', 'src'),
    join(repoRoot, 'sdk', 'package.json'),
    ...contractsInputs,
    lockfile,
  ],
};

export const buildTargets = [serverBuild, webBuild];

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

/** A hash of every input's path, size and modification time. @param {BuildTarget} target */
export function sourcesFingerprint(target) {
  /** @type {string[]} */
  const lines = [];
  for (const path of target.inputs) describe(path, lines);
  return createHash('sha256').update(lines.join('\n')).digest('hex');
}

/**
 * Called by tsup once the build is written, with the fingerprint taken before it started.
 * @param {BuildTarget} target @param {string} fingerprint
 */
export function writeBuildStamp(target, fingerprint) {
  writeFileSync(target.stampFile, `${fingerprint}\n`);
}

/** `undefined` when the build is current, otherwise why it is not. @param {BuildTarget} target */
export function staleReason(target) {
  if (!target.outputs.every((path) => existsSync(path))) return 'no build yet';
  let recorded;
  try {
    recorded = readFileSync(target.stampFile, 'utf8').trim();
  } catch {
    return 'sources changed';
  }
  return recorded === sourcesFingerprint(target) ? undefined : 'sources changed';
}
