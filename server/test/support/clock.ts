import type { Clock } from '../../src/core/clock.js';

/**
 * A clock that stands still until the test moves it (core/clock.ts): a quiz's time limit passes
 * when the test says so, not after seconds of waiting, and answers are timed the same on any machine.
 */
export class ManualClock implements Clock {
  #now: number;

  constructor(start = Date.now()) {
    this.#now = start;
  }

  now(): number {
    return this.#now;
  }

  advance(ms: number): void {
    this.#now += ms;
  }
}
