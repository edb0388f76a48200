/**
 * The time request handling measures by (a quiz slide's time limit: when it went live, when an
 * answer came). In the deps so that a test can move it forward instead of waiting for it
 * (server/test/support/clock.ts); the server runs on `systemClock`.
 */
export interface Clock {
  /** Milliseconds since the Unix epoch, as `Date.now()`. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };
