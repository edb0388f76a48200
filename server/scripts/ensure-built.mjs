// @ts-check
/**
 * Builds server/dist when it is missing or older than its sources, then exits: `pnpm start` and
 * `pnpm pollkit` run this, then `exec node dist/…`, so a start after the first (or after
 * `pnpm install`, which builds too) pays a few milliseconds here instead of a rebuild. The message
 * goes to stderr: stdout may be a command's JSON.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { serverDir, staleReason } from './build-state.mjs';

const reason = staleReason();
if (reason) {
  process.stderr.write(`building the server (${reason})…\n`);
  const require = createRequire(join(serverDir, 'package.json'));
  const tsupPackage = require.resolve('tsup/package.json');
  const bin = JSON.parse(readFileSync(tsupPackage, 'utf8')).bin.tsup;
  const result = spawnSync(process.execPath, [join(dirname(tsupPackage), bin), '--silent'], {
    cwd: serverDir,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  if (result.status !== 0) {
    process.stderr.write('the build failed (see above)\n');
    process.exit(result.status ?? 1);
  }
}
