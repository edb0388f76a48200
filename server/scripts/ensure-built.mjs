// @ts-check
/**
 * Builds server/dist and web/dist when either is missing or older than its sources, then exits:
 * `pnpm start` and `pnpm pollkit` run this, then `exec node dist/…`, so a start after the first (or
 * after `pnpm install`, which builds too) pays a few milliseconds here instead of a rebuild. The
 * server itself never builds anything: it serves web/dist as it finds it. Messages go to stderr:
 * stdout may be a command's JSON.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { buildTargets, staleReason } from './build-state.mjs';

for (const target of buildTargets) {
  const reason = staleReason(target);
  if (!reason) continue;
  process.stderr.write(`building ${target.name} (${reason})…\n`);
  const require = createRequire(join(target.dir, 'package.json'));
  const tsupPackage = require.resolve('tsup/package.json');
  const bin = JSON.parse(readFileSync(tsupPackage, 'utf8')).bin.tsup;
  const result = spawnSync(process.execPath, [join(dirname(tsupPackage), bin), '--silent'], {
    cwd: target.dir,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  if (result.status !== 0) {
    process.stderr.write(`the build of ${target.name} failed (see above)\n`);
    process.exit(result.status ?? 1);
  }
}
