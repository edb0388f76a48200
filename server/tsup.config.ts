import { defineConfig } from 'tsup';

/**
 * The server as it runs in production: one ESM bundle per entry point, the workspace's contracts
 * compiled in from source, npm dependencies left to node_modules. Running the bundle with plain
 * `node` instead of `tsx` starts faster and uses ~45 MB less memory (server/bench/RESULTS.md).
 */
export default defineConfig({
  entry: { main: 'src/main.ts', cli: 'src/cli/main.ts' },
  format: ['esm'],
  platform: 'node',
  target: 'node20',
  outDir: 'dist',
  clean: true,
  sourcemap: true,
  dts: false,
  noExternal: ['@pollkit/contracts'],
  esbuildOptions(options) {
    options.conditions = ['@pollkit/source'];
  },
});
