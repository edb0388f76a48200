import { defineConfig } from 'tsup';
import { serverBuild, sourcesFingerprint, writeBuildStamp } from './scripts/build-state.mjs';

// Taken before the build: a source edited while it runs makes the next start build again.
const fingerprint = sourcesFingerprint(serverBuild);

/**
 * The server as it runs in production: one ESM bundle per entry point, the workspace's contracts
 * compiled in from source, npm dependencies left to node_modules but Kysely: its ESM build is ~300
 * files, which Node 20 resolves and compiles one by one on every start (0.15 s of CPU; bundled, 0.01 s:
 * bench/RESULTS.md, "Issue 25: start-up"). zod stays out: the OpenAPI generator, loaded from
 * node_modules, must see the contracts' zod. Running the bundle with plain
 * `node` instead of `tsx` starts faster and uses ~45 MB less memory (server/bench/RESULTS.md).
 * Once written, the bundle is stamped with its sources' fingerprint (scripts/build-state.mjs), so
 * `pnpm start` and `pnpm pollkit` rebuild only when the sources changed.
 */
export default defineConfig((overrides) => ({
  // The bank-reader thread is an entry of its own: a worker thread loads it by file (decks/bank-readers.ts).
  entry: {
    main: 'src/main.ts',
    cli: 'src/cli/main.ts',
    'bank-reader-thread': 'src/modules/decks/bank-reader-thread.ts',
  },
  format: ['esm'],
  platform: 'node',
  target: 'node20',
  outDir: 'dist',
  clean: true,
  sourcemap: true,
  dts: false,
  noExternal: ['@pollkit/contracts', /^kysely(\/|$)/],
  // Only a build of these entry points into dist stamps it: the benchmarks bundle other entries
  // elsewhere through this same config (bench/support.ts), which says nothing about dist.
  onSuccess: overrides.entry || overrides.outDir ? undefined : async () => writeBuildStamp(serverBuild, fingerprint),
  esbuildOptions(options) {
    options.conditions = ['@pollkit/source'];
  },
}));
