import type { ConfigInput } from '../../src/config.js';

type Limits = Partial<Record<keyof ConfigInput, string>>;

/**
 * The limits counted per address, out of reach. Every test server is 127.0.0.1 to every client, and
 * with a shared Redis (TEST_REDIS_URL) every test file's requests from that address count together:
 * a test that is not about these limits lifts them. The per-key limits stay as configured (the docs
 * tests print them).
 */
export const UNLIMITED_PER_ADDRESS = {
  LIVE_RATE_LIMIT_PER_IP_PER_MINUTE: '1000000',
  LIVE_PIN_MISSES_PER_IP_PER_MINUTE: '1000000',
  LIVE_JOINS_PER_IP_PER_MINUTE: '1000000',
  LIVE_QA_QUESTIONS_PER_IP_PER_MINUTE: '1000000',
} as const satisfies Limits;

/**
 * Every per-minute limit of the server out of a test's reach: for the tests whose subject is not a
 * limit, which send more requests, from one address and with one key, than a minute allows. A test
 * that measures one limit spreads this first and sets that one after it.
 *
 * @example
 * t = await startTestServer(UNLIMITED);
 * t = await startTestServer({ ...UNLIMITED, BRANCH_RATE_LIMIT_PER_MINUTE: String(LIMIT) });
 */
export const UNLIMITED = {
  ...UNLIMITED_PER_ADDRESS,
  RATE_LIMIT_PER_MINUTE: '1000000',
  BRANCH_RATE_LIMIT_PER_MINUTE: '1000000',
  LIVE_RATE_LIMIT_PER_PARTICIPANT_PER_MINUTE: '1000000',
  LIVE_QA_QUESTIONS_PER_PARTICIPANT_PER_MINUTE: '1000000',
} as const satisfies Limits;

/** A workspace whose own per-minute limit is out of reach: `t.workspace('enterprise', UNLIMITED_WORKSPACE)`. */
export const UNLIMITED_WORKSPACE = { rateLimitPerMinute: 1_000_000 } as const;
