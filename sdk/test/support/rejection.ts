import { expect } from 'vitest';

/** What the promise rejects with; the test fails if it resolves. */
export async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => expect.fail('expected the call to fail'),
    (reason: unknown) => reason,
  );
}
