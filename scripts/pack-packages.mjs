// @ts-check
/**
 * `pnpm packages:pack`: packs the built `@pollkit/contracts` and `@pollkit/sdk` as the tarballs npm
 * would publish (`pnpm pack`, so the SDK's `workspace:^` dependency becomes a version range), into
 * ./packages-dist or the folder given, and says how to install them. Both are needed: the SDK
 * depends on the contracts, which are not on the registry until the first release.
 *
 *   npx -y pnpm@10 packages:pack                          # builds both, then this
 *   node scripts/pack-packages.mjs /tmp/tarballs          # packs what is built, elsewhere
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = resolve(fileURLToPath(new URL('..', import.meta.url)));
const destination = resolve(process.argv[2] ?? join(repoRoot, 'packages-dist'));
const packages = ['contracts', 'sdk'];

// Under `pnpm run`, the pnpm that runs us; otherwise the one the README uses.
const pnpm = process.env.npm_execpath?.includes('pnpm')
  ? [process.execPath, process.env.npm_execpath]
  : ['npx', '-y', 'pnpm@10'];

for (const name of packages) {
  const dir = join(repoRoot, name);
  const { name: packageName, version } = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  if (!readdirSync(dir).includes('dist')) {
    throw new Error(`${packageName} is not built: run \`npx -y pnpm@10 packages:build\` first`);
  }
  // A tarball of the same name and version left from an earlier pack would be installed instead.
  rmSync(join(destination, `${packageName.replace('@', '').replace('/', '-')}-${version}.tgz`), { force: true });
}
mkdirSync(destination, { recursive: true });

const tarballs = packages.map((name) => {
  const [command, ...args] = /** @type {[string, ...string[]]} */ (pnpm);
  const output = execFileSync(command, [...args, 'pack', '--pack-destination', destination], {
    cwd: join(repoRoot, name),
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  // pnpm prints the file list, then the tarball's path on the last line.
  const tarball = output.trim().split('\n').at(-1)?.trim() ?? '';
  return relative(process.cwd(), resolve(destination, tarball)) || tarball;
});

process.stdout.write(
  `Packed into ${relative(process.cwd(), destination) || '.'}:\n${tarballs.map((t) => `  ${t}`).join('\n')}\n\n` +
    `Install both in your project (the SDK depends on the contracts):\n  npm install ${tarballs.map((t) => resolve(t)).join(' ')}\n`,
);
