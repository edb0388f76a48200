import { defineConfig } from 'vitest/config';
import { TEST_PROJECTS } from './vitest.projects.js';

/**
 * The whole workspace's tests in three projects (vitest.projects.ts lists which file is in which).
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
    testTimeout: 20_000,
    hookTimeout: 60_000,
    reporters: ['default', './vitest.summary-reporter.ts'],
    projects: Object.entries(TEST_PROJECTS).map(([name, include]) => ({
      extends: true,
      test: { name, include: [...include] },
    })),
  },
});
