/**
 * Which project each test file runs in, by name: `unit` (no server, no network, no child process),
 * `api` (a real server over HTTP in the test process; loopback stand-ins such as a fake OpenAI or a
 * webhook receiver allowed) and `system` (browsers, the docs build, packing the SDK, child
 * processes, fault tests). `pnpm test` runs all three; `pnpm test:unit` etc. one.
 * server/test/test-projects.test.ts fails when a test file is in none of the lists or in two, so a
 * new file cannot be skipped silently.
 */

/** The folders holding test files (`*.test.ts`, at any depth). */
export const TEST_FOLDERS = ['server/test', 'sdk/test', 'web/test'] as const;

export const TEST_PROJECTS = {
  unit: [
    'server/test/branching-parser.test.ts',
    'server/test/branching-rules.test.ts',
    'server/test/contract-inputs.test.ts',
    'server/test/group-commit.test.ts',
    'server/test/logging.test.ts',
    'server/test/test-projects.test.ts',
    'web/test/contrast.test.ts',
  ],
  api: [
    'server/test/address-rules.test.ts',
    'server/test/answer-races.test.ts',
    'server/test/answers-reset.test.ts',
    'server/test/answers.test.ts',
    'server/test/api-reference-page.test.ts',
    'server/test/auth-failures.test.ts',
    'server/test/branching-limits.test.ts',
    'server/test/branching-openai.test.ts',
    'server/test/branching.test.ts',
    'server/test/display-text.test.ts',
    'server/test/errors.test.ts',
    'server/test/export.test.ts',
    'server/test/fuzz.test.ts',
    'server/test/health-and-shutdown.test.ts',
    'server/test/hostile-input.test.ts',
    'server/test/idempotency.test.ts',
    'server/test/keys.test.ts',
    'server/test/live-abuse.test.ts',
    'server/test/live-sessions.test.ts',
    'server/test/media.test.ts',
    'server/test/metrics.test.ts',
    'server/test/oauth.test.ts',
    'server/test/openai-drafter.test.ts',
    'server/test/openapi.test.ts',
    'server/test/poll-cache.test.ts',
    'server/test/poll-media.test.ts',
    'server/test/polls.test.ts',
    'server/test/presenter-routes.test.ts',
    'server/test/questions.test.ts',
    'server/test/request-timeout.test.ts',
    'server/test/results.test.ts',
    'server/test/transport-errors.test.ts',
    'server/test/trust-proxy.test.ts',
    'server/test/web-pages.test.ts',
    'server/test/webhooks-durability.test.ts',
    'server/test/webhooks-event-batches.test.ts',
    'server/test/webhooks-give-way.test.ts',
    'server/test/webhooks.test.ts',
    'server/test/workspace.test.ts',
    'sdk/test/answers.test.ts',
    'sdk/test/client.test.ts',
    'sdk/test/env.test.ts',
    'sdk/test/errors.test.ts',
    'sdk/test/event-stream.test.ts',
    'sdk/test/live-entry.test.ts',
    'sdk/test/live.test.ts',
    'sdk/test/oauth.test.ts',
    'sdk/test/pagination.test.ts',
    'sdk/test/resilience.test.ts',
    'sdk/test/webhooks.test.ts',
  ],
  system: [
    // Browsers (Chromium through playwright-core).
    'server/test/api-reference.browser.test.ts',
    'server/test/docs-site.browser.test.ts',
    'server/test/live-pages.browser.test.ts',
    // Child processes: the entry point, the CLI, several server processes, the docs' shell samples.
    'server/test/cli.test.ts',
    'server/test/docs-branching.test.ts',
    'server/test/docs-live-sessions.test.ts',
    'server/test/docs-samples.test.ts',
    'server/test/docs-webhooks.test.ts',
    'server/test/entry-point.test.ts',
    'server/test/layering.test.ts',
    'server/test/live-multi-process.test.ts',
    'server/test/logging-process.test.ts',
    'server/test/multi-process.test.ts',
    'server/test/trust-proxy-start.test.ts',
    'server/test/webhooks-multi-process.test.ts',
    // Faults: a PostgreSQL cluster and a redis-server of their own, stopped and killed.
    'server/test/faults-postgres.test.ts',
    'server/test/faults-process-kill.test.ts',
    'server/test/faults-redis.test.ts',
    // Packing the SDK.
    'sdk/test/package.test.ts',
  ],
} as const satisfies Record<string, readonly string[]>;
