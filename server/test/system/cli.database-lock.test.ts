import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acquireDataDirLock, DataDirInUseError, LOCK_FILE_NAME } from '../../src/db/data-dir-lock.js';

/**
 * The embedded database's lock (src/db/data-dir-lock.ts), which keeps the admin CLI and a server
 * from opening one DATA_DIR at once: held, released, taken over from a process that is gone. It
 * needs a scratch folder only: no database, no build, no server (the CLI's other files: cli.*.test.ts).
 */

let scratch: string;

beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), 'pollkit-cli-'));
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('embedded database lock', () => {
  it('refuses a second opener while the lock is held, and is released on release', () => {
    const dataDir = join(scratch, 'locked');
    const lock = acquireDataDirLock(dataDir);
    expect(readFileSync(join(dataDir, LOCK_FILE_NAME), 'utf8').split('\n')[0]).toBe(String(process.pid));
    expect(() => acquireDataDirLock(dataDir)).toThrow(DataDirInUseError);
    expect(() => acquireDataDirLock(dataDir)).toThrow(
      `The embedded database at ${dataDir} is in use by process ${process.pid} (is the server running?). Stop it first, or use DATABASE_URL=postgres://… to share a database.`,
    );
    lock.release();
    expect(existsSync(join(dataDir, LOCK_FILE_NAME))).toBe(false);
    const again = acquireDataDirLock(dataDir);
    again.release();
  });

  it('takes over a lock left by a process that is gone, and honours one whose process is alive', async () => {
    const dataDir = join(scratch, 'stale');
    const lockPath = join(dataDir, LOCK_FILE_NAME);
    const gone = spawn(process.execPath, ['-e', '']);
    const gonePid = gone.pid ?? 0;
    await new Promise((resolve) => gone.on('close', resolve));
    acquireDataDirLock(dataDir).release();

    writeFileSync(lockPath, `${gonePid}\n`);
    const lock = acquireDataDirLock(dataDir);
    expect(readFileSync(lockPath, 'utf8').split('\n')[0]).toBe(String(process.pid));
    lock.release();

    // The parent of this test process is certainly running.
    writeFileSync(lockPath, `${process.ppid}\n`);
    expect(() => acquireDataDirLock(dataDir)).toThrow(`in use by process ${process.ppid}`);
    expect(readFileSync(lockPath, 'utf8')).toBe(`${process.ppid}\n`);
  });
});
