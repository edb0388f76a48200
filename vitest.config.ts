import { defineConfig } from 'vitest/config';
import { SlowFirstSequencer } from './vitest.sequencer.js';

/**
 * A test's budget only turns a hang into a failure; it must never fail a slow machine. Measured on
 * the 2-core machine with five sessions sharing it (load average 11-22), before a test server
 * started from a migrated template: api tests without a budget of their own ran up to 36 s (eight
 * failed after 21-36 s against the 20-s budget), a test server took up to 30 s to start. Hence
 * about three times that: 120 s for api tests, 180 s for system tests (browsers, child processes;
 * most set their own) and for setting up either (servers, Chromium; the docs build sets its own).
 * Unit tests start nothing.
 */
/**
 * A test's folder says what it costs and which project runs it:
 * - `unit`: no server, no network, no child process (server/test/unit, web/test);
 * - `api`: a real server over HTTP in the test process; loopback stand-ins such as a fake OpenAI or a
 *   webhook receiver allowed (server/test/api, sdk/test/api);
 * - `system`: browsers, the docs build, packing the SDK, child processes, fault tests
 *   (server/test/system, sdk/test/system).
 * `pnpm test` runs all three; `pnpm test:unit` etc. one. Helpers live in `support/` and data in
 * `fixtures/`, outside the globs.
 */
const TEST_PROJECTS = {
  unit: ['server/test/unit/**/*.test.ts', 'web/test/**/*.test.ts'],
  api: ['server/test/api/**/*.test.ts', 'sdk/test/api/**/*.test.ts'],
  system: ['server/test/system/**/*.test.ts', 'sdk/test/system/**/*.test.ts'],
} as const;

const PROJECT_BUDGETS = {
  unit: { testTimeout: 20_000, hookTimeout: 60_000 },
  api: { testTimeout: 120_000, hookTimeout: 180_000 },
  system: { testTimeout: 180_000, hookTimeout: 180_000 },
} satisfies Record<keyof typeof TEST_PROJECTS, { testTimeout: number; hookTimeout: number }>;

/**
 * Unit and api files share their worker's modules (`isolate: false`): each api file starts its own
 * server, database and ports, so a fresh module graph per file bought nothing but importing the
 * whole server again, 1-2 s a file. Measured on 24 api files: 139 s -> 87 s, CPU 178 s -> 86 s
 * (docs/decisions/0095-unit-and-api-tests-share-modules.md). What a file changes of the process it undoes:
 * stubbed env and globals and mocks are restored after each test (below); fake timers are ended by
 * the test that started them; no unit or api file mocks a module (`vi.mock` belongs in system/,
 * which keeps isolation, as do its child processes, browsers and fault tests).
 */
const SHARED_MODULES = {
  isolate: false,
  unstubEnvs: true,
  unstubGlobals: true,
  restoreMocks: true,
} as const;
const PROJECT_ISOLATION = { unit: SHARED_MODULES, api: SHARED_MODULES, system: {} } satisfies Record<
  keyof typeof TEST_PROJECTS,
  object
>;

/**
 * The whole workspace's tests in three projects, by folder (TEST_PROJECTS).
 * Integration tests start real servers on ephemeral ports, so files run in separate processes, two
 * at a time (the CI machine has two cores).
 * TEST_DATABASE_URL / TEST_REDIS_URL switch the same tests from PGlite to real PostgreSQL and Redis.
 */
export default defineConfig({
  resolve: { conditions: ['@pollkit/source'] },
  ssr: { resolve: { conditions: ['@pollkit/source'] } },
  test: {
    pool: 'forks',
    maxWorkers: 2,
    // The slowest files first, whatever their project (vitest.sequencer.ts).
    sequence: { sequencer: SlowFirstSequencer },
    reporters: ['default', './vitest.summary-reporter.ts'],
    projects: Object.entries(TEST_PROJECTS).map(([name, include]) => ({
      extends: true,
      test: {
        name,
        include: [...include],
        ...PROJECT_BUDGETS[name as keyof typeof TEST_PROJECTS],
        ...PROJECT_ISOLATION[name as keyof typeof TEST_PROJECTS],
      },
    })),
  },
});
