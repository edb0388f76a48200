import type { KnipConfig } from 'knip';

/**
 * `npx -y pnpm@10 knip` (part of `pnpm check`): files, exports and dependencies nothing uses, and
 * dependencies used but not listed, in every workspace of pnpm-workspace.yaml.
 *
 * Entries, where knip finds them itself: the package.json scripts (`start`, `cli`, `dev`, `bench`,
 * `openapi:lint`, `examples`, `generate`… through the tsx and node plugins), the tsup configs (the
 * server's main, cli and bank-reader thread; the pages and the join challenge's worker; the SDK's
 * three entries), the package.json `exports` of @pollkit/contracts and @pollkit/sdk, the examples'
 * index.ts, the VitePress config. Listed below: what none of these names — the tests (by the globs
 * of vitest.config.ts, which knip cannot read from the projects it builds), the benchmarks and
 * scripts run by hand, the docs' generators.
 *
 * An entry's own exports are not reported (`includeEntryExports` stays false): that is how the
 * published surface of @pollkit/contracts and @pollkit/sdk counts as used without listing a symbol.
 * Whatever is kept despite knip is below, each with its reason.
 */
const config: KnipConfig = {
  workspaces: {
    '.': {
      entry: ['vitest.{sequencer,summary-reporter}.ts'],
      project: ['*.{ts,cjs}', 'examples/*.ts', 'scripts/*.mjs'],
      ignoreDependencies: [
        // Run by `packages:check` inside `pnpm --filter … exec sh -c '…'`, which knip does not read.
        'publint',
        '@arethetypeswrong/cli',
        // Resolved from the repository's root by server/src/openapi/lint.ts (`openapi:lint`).
        '@redocly/cli',
      ],
    },
    server: {
      entry: [
        // Loaded by URL as the bank-reader thread when the server runs from its sources (bank-readers.ts).
        'src/modules/decks/bank-reader-thread-source.mjs',
        // Kysely calls each migration's `up` and `down` through the namespaces migrations/index.ts registers.
        'src/db/migrations/0*.ts',
        'bench/**/*.ts',
        'scripts/*.{ts,mjs}',
        'test/{unit,api,system}/**/*.test.ts',
      ],
      project: ['{src,bench,scripts,test}/**/*.{ts,mjs}'],
      // The test servers' Redis and the QTI schema test's validator are Debian packages, not npm's.
      ignoreBinaries: ['redis-server', 'xmllint'],
    },
    contracts: {
      project: ['src/**/*.ts'],
    },
    sdk: {
      entry: ['test/{api,system}/**/*.test.ts'],
      project: ['{src,test}/**/*.ts'],
    },
    web: {
      entry: ['test/**/*.test.ts'],
      project: ['{src,test}/**/*.{ts,tsx}'],
      // Imported by the message catalogs that @messageformat/core compiles at build time (tsup.config.ts).
      ignoreDependencies: ['@messageformat/runtime'],
    },
    docs: {
      // Imported by the `<script setup>` of reference/api.md: knip reads no Markdown.
      entry: ['.vitepress/components/*.vue'],
      project: ['scripts/*.ts', '.vitepress/**/*.{mts,vue}'],
      ignoreDependencies: [
        // Loaded by name as TypeDoc's plugins (`plugin` in scripts/generate.ts).
        'typedoc-plugin-markdown',
        'typedoc-vitepress-theme',
        // VitePress's peer, imported by the `<script setup>` of reference/api.md: knip reads no Markdown.
        'vue',
      ],
    },
  },
  ignoreIssues: {
    // One value, two names on purpose: `usingPostgres` says which leg runs, `onceOnEmbeddedLeg` why a test skips.
    'server/test/support/server.ts': ['duplicates'],
  },
};

export default config;
