import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CHILD_TEST_TIMEOUT_MS, type Child, freePort, NO_STACK, probe, startChild } from '../support/child.js';
import { testDatabase } from '../support/server.js';

/**
 * A server whose stdout nobody reads (the real entry point as a child process): it keeps answering,
 * reports the lines it dropped, and still stops. The logger itself is in logging.test.ts.
 */

describe('a server whose stdout is not read', () => {
  let database: { url: string; drop(): Promise<void> };
  beforeAll(async () => {
    database = await testDatabase();
  });
  afterAll(() => database?.drop());
  // Also when the test times out (a frozen server), which skips its own `finally`.
  let child: Child | undefined;
  afterEach(() => child?.kill());

  it(
    'keeps answering, reports the dropped lines once read again, and stops on SIGTERM',
    async () => {
      const port = await freePort();
      child = startChild({ PORT: String(port), DATABASE_URL: database.url, BOOTSTRAP: 'false' });
      try {
        await child.waitFor(/guides:.*\n/);
        const stdout = child.process.stdout;
        if (!stdout) throw new Error('stdout is not piped');

        // Every request writes an access-log line of ~12 kB (its URL): 600 of them are ~7 MB, past
        // what the pipe, this side's buffer and the server's 4 MiB bound hold together.
        const flood = async () => {
          const path = `/nowhere/${'x'.repeat(12_000)}`;
          const queue = Array.from({ length: 600 }, () => path);
          const workers = Array.from({ length: 8 }, async () => {
            for (let next = queue.pop(); next !== undefined; next = queue.pop()) {
              const res = await fetch(`http://127.0.0.1:${port}${next}`);
              await res.arrayBuffer();
              expect(res.status).toBe(404);
            }
          });
          await Promise.all(workers);
        };

        stdout.pause();
        await flood();
        // A server blocked on its stdout would not get here: it answers still.
        expect(await probe(port, '/healthz')).toMatchObject({ status: 200 });

        stdout.resume();
        const [, dropped] = (await child.waitFor(/"droppedLines":(\d+)/)) as [string, string];
        expect(Number(dropped)).toBeGreaterThan(0);

        stdout.pause();
        await flood();
        child.process.kill('SIGTERM');
        // Exits although nobody reads what it still has to say (the wait for it is bounded).
        const { code } = await child.exited;
        expect(code).toBe(0);
        stdout.resume();
        await child.closed;
        expect(child.output()).not.toMatch(NO_STACK);
      } finally {
        child.kill();
      }
    },
    CHILD_TEST_TIMEOUT_MS,
  );
});
