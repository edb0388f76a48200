import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'tsup';

// The two builds below share dist/: it is emptied once, here, since tsup's own `clean` on either
// could delete what the other has just written.
rmSync(fileURLToPath(new URL('dist', import.meta.url)), { recursive: true, force: true });

const common = { sourcemap: true, target: 'node20', clean: false } as const;

export default defineConfig([
  {
    // ESM, one module per source file: with `sideEffects: false`, a bundler keeps only the modules a
    // client reaches. A page that imports the route table and the error registry (the SDK's
    // `@pollkit/sdk/live`) is then sent no zod, where one bundled file would be kept whole.
    ...common,
    entry: ['src/**/*.ts'],
    bundle: false,
    format: ['esm'],
    dts: { entry: { index: 'src/index.ts' } },
  },
  { ...common, entry: ['src/index.ts'], format: ['cjs'], dts: true },
]);
