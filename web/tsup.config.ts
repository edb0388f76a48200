import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import MessageFormat from '@messageformat/core';
import compileModule from '@messageformat/core/compile-module.js';
import { defineConfig, type Options } from 'tsup';
// The same staleness check as the server's bundle: `pnpm start` rebuilds the pages only when their
// sources (or the SDK's, or the contracts') changed.
import { sourcesFingerprint, webBuild, writeBuildStamp } from '../server/scripts/build-state.mjs';

const fingerprint = sourcesFingerprint(webBuild);

/**
 * The message catalogs: src/i18n/messages/<tag>.json (`de.json`, `pt-BR.json`, `zh-Hans.json`), one
 * per language, each built twice, once per page, with only the messages that page can show:
 * `messages-join-<tag in lower case>.js` without the presenter's (`present.*`), and
 * `messages-present-<tag>.js` without the audience page's (`join.*`). A phone on a venue's Wi-Fi
 * downloads about a third less.
 */
const MESSAGES_DIR = new URL('./src/i18n/messages/', import.meta.url);
const PAGES = { join: 'present.', present: 'join.' } as const;
/** tsup wants entry files that exist: one line each, naming the catalog the plugin below makes. */
const ENTRIES_DIR = fileURLToPath(new URL('./.catalogs/', import.meta.url));
mkdirSync(ENTRIES_DIR, { recursive: true });
const catalogs = Object.fromEntries(
  readdirSync(MESSAGES_DIR)
    .filter((name) => name.endsWith('.json'))
    .flatMap((name) => {
      const tag = name.slice(0, -'.json'.length);
      return Object.keys(PAGES).map((page) => {
        const entry = join(ENTRIES_DIR, `${page}-${tag}.js`);
        writeFileSync(entry, `export { default } from 'pollkit-catalog:${page}:${tag}';\n`);
        return [`messages-${page}-${tag.toLowerCase()}`, entry];
      });
    }),
);

/**
 * Compiles a page's part of a catalog's ICU MessageFormat strings at build time (`@messageformat/core`),
 * so the page downloads functions, not a parser: the bundle's default export maps each key to a
 * function of the message's arguments, with the few runtime helpers it uses (`@messageformat/runtime`:
 * plural, number) and the language's plural rule inlined. An unknown plural category for the
 * language or a malformed message fails the build.
 */
const messageCatalogs: NonNullable<Options['esbuildPlugins']>[number] = {
  name: 'pollkit-message-catalogs',
  setup(build) {
    build.onResolve({ filter: /^pollkit-catalog:/ }, (args) => ({
      path: args.path.slice('pollkit-catalog:'.length),
      namespace: 'pollkit-catalog',
    }));
    build.onLoad({ filter: /.*/, namespace: 'pollkit-catalog' }, (args) => {
      const [page, tag] = args.path.split(':') as [keyof typeof PAGES, string];
      const file = fileURLToPath(new URL(`${tag}.json`, MESSAGES_DIR));
      const all = JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>;
      const messages = Object.fromEntries(Object.entries(all).filter(([key]) => !key.startsWith(PAGES[page])));
      const mf = new MessageFormat(tag, { strictPluralKeys: true });
      return {
        contents: compileModule(mf, messages),
        loader: 'js',
        resolveDir: fileURLToPath(MESSAGES_DIR),
        watchFiles: [file],
      };
    });
  },
};

/**
 * The two pages as one ES module and one stylesheet each, for browsers of the last few years:
 * Preact, `@pollkit/sdk/live` (the live helpers without zod) and the page's own code, minified.
 * Beside them, one small ES module per page and language (`messages-join-de.js`…), of which a page imports only
 * the one its HTML names (web/src/shared/i18n.ts): no catalog is in the pages' own bundles.
 * Names are fixed (`join.js`, `present.css`…): the server serves them under a content hash of its
 * own (server/src/http/web-pages.ts), so a new build is never mixed with a cached old one.
 */
export default defineConfig({
  // `join-challenge`: the join challenge's solver, the Web Worker the audience page starts only for a session
  // that asks for one (src/join/challenge.ts). No imports nor exports once bundled, so it loads as a classic
  // worker script, which every browser the pages support runs (module workers came to Firefox in 114).
  entry: {
    join: 'src/join/main.tsx',
    present: 'src/present/main.tsx',
    'join-challenge': 'src/join/challenge-worker.ts',
    ...catalogs,
  },
  format: ['esm'],
  platform: 'browser',
  target: ['es2022', 'chrome100', 'firefox100', 'safari15.4'],
  outDir: 'dist',
  clean: true,
  minify: true,
  sourcemap: true,
  splitting: false,
  dts: false,
  // Everything is bundled: the page loads nothing but its own two files and its language's catalog.
  noExternal: [/.*/],
  esbuildPlugins: [messageCatalogs],
  onSuccess: async () => writeBuildStamp(webBuild, fingerprint),
  esbuildOptions(options) {
    options.conditions = ['@pollkit/source'];
    options.jsx = 'automatic';
    options.jsxImportSource = 'preact';
    options.legalComments = 'none';
    // Catalogs in Japanese or Arabic as UTF-8, not \u escapes (served as charset=utf-8).
    options.charset = 'utf8';
  },
});
