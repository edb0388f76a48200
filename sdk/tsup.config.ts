import { defineConfig } from 'tsup';

export default defineConfig({
  // `live-entry` is `@pollkit/sdk/live`: the live helpers without zod, for browsers.
  entry: ['src/index.ts', 'src/live-entry.ts'],
  format: ['esm', 'cjs'],
  dts: true,
  clean: true,
  sourcemap: true,
  target: 'node20',
});
