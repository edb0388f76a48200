import { defineConfig } from 'tsup';
// The same staleness check as the server's bundle: `pnpm start` rebuilds the pages only when their
// sources (or the SDK's, or the contracts') changed.
import { sourcesFingerprint, webBuild, writeBuildStamp } from '../server/scripts/build-state.mjs';

const fingerprint = sourcesFingerprint(webBuild);

/**
 * The two pages as one ES module and one stylesheet each, for browsers of the last few years:
 * Preact, `@pollkit/sdk/live` (the live helpers without zod) and the page's own code, minified.
 * Names are fixed (`join.js`, `present.css`…): the server serves them under a content hash of its
 * own (server/src/http/web-pages.ts), so a new build is never mixed with a cached old one.
 */
export default defineConfig({
  entry: { join: 'src/join/main.tsx', present: 'src/present/main.tsx' },
  format: ['esm'],
  platform: 'browser',
  target: ['es2022', 'chrome100', 'firefox100', 'safari15.4'],
  outDir: 'dist',
  clean: true,
  minify: true,
  sourcemap: true,
  splitting: false,
  dts: false,
  // Everything is bundled: the page loads nothing but its own two files.
  noExternal: [/.*/],
  onSuccess: async () => writeBuildStamp(webBuild, fingerprint),
  esbuildOptions(options) {
    options.conditions = ['@pollkit/source'];
    options.jsx = 'automatic';
    options.jsxImportSource = 'preact';
    options.legalComments = 'none';
  },
});
