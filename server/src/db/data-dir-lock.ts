import { randomBytes } from 'node:crypto';
import { linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';

/** Lives beside (not inside) the PGlite folder, so PGlite never sees a file it did not write. */
export const LOCK_FILE_NAME = 'pollkit.lock';

export class DataDirInUseError extends Error {
  override name = 'DataDirInUseError';

  constructor(
    readonly dataDir: string,
    readonly pid: number,
    readonly lockPath: string,
  ) {
    super(
      `The embedded database at ${dataDir} is in use by process ${pid} (is the server running?). ` +
        'Stop it first, or use DATABASE_URL=postgres://… to share a database. ' +
        `(If process ${pid} is not Pollkit, the lock is left over from a crash: delete ${lockPath}.)`,
    );
  }
}

export interface DataDirLock {
  readonly path: string;
  /** Idempotent; removes the lock file only while it is still this process's lock. */
  release(): void;
}

interface LockOwner {
  pid: number;
  host: string;
}

/**
 * PGlite is one process's database: two processes writing the same data directory corrupt it. This
 * takes an exclusive lock file holding the owner's pid and host name. It is created atomically
 * (written under a private name, then hard-linked into place, which fails if the lock exists), so
 * no reader ever sees a half-written lock. A lock whose process is gone (a crash, `kill -9`) is
 * taken over; a lock from another host cannot be checked and is honoured.
 */
export function acquireDataDirLock(dataDir: string): DataDirLock {
  mkdirSync(dataDir, { recursive: true });
  const lockPath = join(dataDir, LOCK_FILE_NAME);
  const content = `${process.pid}\n${hostname()}\n`;
  const draftPath = `${lockPath}.${process.pid}.${randomBytes(4).toString('hex')}`;
  writeFileSync(draftPath, content, { flag: 'wx' });
  try {
    // Another round follows the removal of a stale lock, or a lock released while we looked at it.
    for (let attempt = 0; attempt < 5; attempt++) {
      try {
        linkSync(draftPath, lockPath);
        return ownedLock(lockPath, content);
      } catch (error) {
        if (!isErrno(error, 'EEXIST')) throw error;
      }
      const existing = readLock(lockPath);
      if (existing === undefined) continue; // released between our link and our read
      const owner = parseOwner(existing);
      if (owner && isHeld(owner)) throw new DataDirInUseError(dataDir, owner.pid, lockPath);
      removeIfUnchanged(lockPath, existing);
    }
    throw new Error(`Could not lock the embedded database at ${dataDir}: ${lockPath} keeps changing hands`);
  } finally {
    unlinkSync(draftPath);
  }
}

function ownedLock(lockPath: string, content: string): DataDirLock {
  let released = false;
  // A process that exits without closing the database (process.exit, an uncaught error) still
  // leaves no lock behind; only a hard kill does, and that lock is then found stale.
  const onExit = () => release();
  function release(): void {
    if (released) return;
    released = true;
    process.off('exit', onExit);
    removeIfUnchanged(lockPath, content);
  }
  process.on('exit', onExit);
  return { path: lockPath, release };
}

function readLock(lockPath: string): string | undefined {
  try {
    return readFileSync(lockPath, 'utf8');
  } catch (error) {
    if (isErrno(error, 'ENOENT')) return undefined;
    throw error;
  }
}

function parseOwner(content: string): LockOwner | undefined {
  const [pidLine, hostLine] = content.split('\n');
  const pid = Number(pidLine);
  if (!Number.isSafeInteger(pid) || pid <= 0) return undefined;
  return { pid, host: hostLine?.trim() || hostname() };
}

/** Whether the lock's owner may still be running. */
function isHeld(owner: LockOwner): boolean {
  if (owner.host !== hostname()) return true;
  try {
    // Signal 0 checks that the process exists without touching it.
    process.kill(owner.pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to another user.
    return !isErrno(error, 'ESRCH');
  }
}

/** Deletes the lock only if it still holds `expected`, so a lock someone else just took survives. */
function removeIfUnchanged(lockPath: string, expected: string): void {
  if (readLock(lockPath) !== expected) return;
  try {
    unlinkSync(lockPath);
  } catch (error) {
    if (!isErrno(error, 'ENOENT')) throw error;
  }
}

function isErrno(error: unknown, code: string): boolean {
  return error instanceof Error && (error as NodeJS.ErrnoException).code === code;
}
