import { defineConfig } from 'tsup';

export default defineConfig({
  // `live-entry` is `@pollkit/sdk/live`: the live helpers without zod, for browsers.
  // `embed` is `@pollkit/sdk/embed`: the browser helper that frames the pages (it calls no API).
  entry: ['src/index.ts', 'src/live-entry.ts', 'src/embed.ts'],
  format: ['esm', 'cjs'],
  // The two entries share their modules through chunks, in CommonJS too, so that an error thrown
  // through one entry is an instance of the other's error classes.
  splitting: true,
  dts: true,
  clean: true,
  sourcemap: true,
  target: 'node20',
});
