import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';
import { CHILD_TEST_TIMEOUT_MS, SERVER_DIR } from '../support/child.js';

const run = promisify(execFile);

/**
 * The bank-reader thread (modules/decks/bank-readers.ts) never keeps a process alive: a process that
 * read files on it ends by itself when its work is done. It did not once: a `message` listener added
 * after `unref()` took the thread's port back into the event loop, and the process never ended.
 */
it(
  'lets a process that read files on the thread end by itself',
  async () => {
    const threads = join(SERVER_DIR, 'src/modules/decks/bank-readers.ts');
    const program = `
      const { bankReaders } = await import(${JSON.stringify(threads)});
      for (let i = 0; i < 3; i++) {
        const bank = await bankReaders.read('aiken', Buffer.from('Q?\\nA) a\\nB) b\\nANSWER: A\\n'));
        console.log(bank.questions.length);
      }
      await bankReaders.read('gift', Buffer.from('')).catch(() => console.log('refused'));
    `;
    const folder = await mkdtemp(join(tmpdir(), 'pollkit-thread-'));
    const script = join(folder, 'reads.mts');
    await writeFile(script, program);
    const { stdout } = await run(process.execPath, ['--import', 'tsx', '--conditions=@pollkit/source', script], {
      cwd: SERVER_DIR,
      // A process that does not end fails the test here, rather than hanging it.
      timeout: CHILD_TEST_TIMEOUT_MS / 2,
    }).finally(() => rm(folder, { recursive: true, force: true }));
    expect(stdout.trim().split('\n')).toEqual(['1', '1', '1', 'refused']);
  },
  CHILD_TEST_TIMEOUT_MS,
);
