import { createHash } from 'node:crypto';
import { open, readFile, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * What test files share to build something once per state of its sources (the packed SDK, the docs
 * site): a fingerprint of those sources, and a lock so that one file's build is not read half-made
 * by another.
 */

/** A hash of files (paths relative to `root`, each named in it; a missing one counts as such). */
export async function filesFingerprint(root: string, files: string[]): Promise<string> {
  const hash = createHash('sha256');
  for (const file of [...files].sort()) {
    hash.update(`${file}\0`);
    hash.update(await readFile(join(root, file)).catch(() => Buffer.from('(none)')));
  }
  return hash.digest('hex').slice(0, 16);
}

/**
 * An exclusive lock file holding its owner's process id. A lock whose process is gone (a test run
 * stopped mid-build) is taken over at once; one older than ten minutes, whoever holds it, too.
 */
export async function lock(path: string): Promise<() => Promise<void>> {
  const staleAfterMs = 10 * 60_000;
  for (;;) {
    try {
      const handle = await open(path, 'wx');
      await handle.writeFile(String(process.pid));
      await handle.close();
      return () => rm(path, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const [owner, age] = await Promise.all([
        readFile(path, 'utf8').then(Number, () => Number.NaN),
        stat(path).then(
          (info) => Date.now() - info.mtimeMs,
          () => 0,
        ),
      ]);
      if (age > staleAfterMs || (Number.isInteger(owner) && owner > 0 && !isAlive(owner))) {
        await rm(path, { force: true });
      } else {
        await new Promise((resolveWait) => setTimeout(resolveWait, 250));
      }
    }
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, it is just not ours to signal.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
