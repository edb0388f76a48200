import { describe, expect, it } from 'vitest';
import { CHILD_TEST_TIMEOUT_MS, NO_STACK, startChild } from '../support/child.js';

/**
 * `TRUST_PROXY=true` refused by the real entry point, started as a child process (the values
 * themselves are checked in trust-proxy.test.ts).
 */

describe('TRUST_PROXY values', () => {
  it(
    'stops the server at start-up on `true`, naming the variable, without a stack trace',
    async () => {
      const child = startChild({ TRUST_PROXY: 'true', DATABASE_URL: 'memory://' });
      try {
        // A server that starts anyway fails the test at once (and is killed below), not at the timeout.
        const started = await Promise.race([
          child.closed.then(() => false),
          child.waitFor(/Pollkit listening/).then(
            () => true,
            () => false,
          ),
        ]);
        expect(started, child.output()).toBe(false);
        const { code } = await child.closed;
        expect(code).toBe(1);
        expect(child.stderr()).toContain('Invalid configuration');
        expect(child.stderr()).toMatch(/^\s*TRUST_PROXY: `true` is not offered/m);
        expect(child.output()).not.toMatch(NO_STACK);
      } finally {
        child.kill();
      }
    },
    CHILD_TEST_TIMEOUT_MS,
  );
});
