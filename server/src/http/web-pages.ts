import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { brotliCompress, brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { type SupportedLanguage, supportedLanguage, supportedLanguages, textDirection } from '@pollkit/contracts';
import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../core/api-error.js';
import { TtlCache } from '../infra/ttl-cache.js';
import type { PageSettings, PageTarget, PageTheme } from '../modules/pages/pages.service.js';
import { contentHash, type StaticAsset, sendStaticAsset } from './static-asset.js';

/**
 * The audience page (`/join`, `/join/{pin}`: the join URL the QR code encodes) and the presenter
 * screen (`/present/{sessionId}#hostToken=…`), served from web/dist as the build left it
 * (`@pollkit/web`, bundled by `pnpm install`/`pnpm build`; the server never builds it).
 *
 * Each page is a small HTML document naming its script and stylesheet by a content hash
 * (`/assets/join.js?v=…`): the document is revalidated on every load (`no-cache`), the assets are
 * cached for a year when asked for by their current hash, so a new build reaches every browser on
 * its next load and an unchanged one costs a 304 at most. Assets are read and gzipped once, on
 * first use. Nothing is loaded from anywhere else: the pages work on a LAN with no internet.
 */

const ASSETS_PATH = '/assets';
const BROTLI_BEST = { params: { [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY } };
const ASSET_NAME = /^[a-z][a-z0-9-]*\.(?:js|css|map)$/;
/** A page's message catalog in a language, built by web/tsup.config.ts: `messages-join-pt-br.js`. */
const catalogName = (language: SupportedLanguage, page: 'join' | 'present') =>
  `messages-${page}-${language.toLowerCase()}.js`;
const CONTENT_TYPES: Record<string, string> = {
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  map: 'application/json; charset=utf-8',
};

/**
 * Scripts only from this server; styles from this server plus, for a themed page, the one inline
 * `<style>` it carries (allowed by its hash, nothing else inline); images also from where a poll's
 * media live; API calls only to this server. Framing: none, unless the page belongs to a workspace
 * that lists origins allowed to embed its pages (docs/embedding.md); a join page inside anyone
 * else's frame is a phishing kit.
 */
function securityHeaders(frameAncestors: readonly string[], inlineStyleHash: string | undefined) {
  const styles = inlineStyleHash ? `'self' 'sha256-${inlineStyleHash}'` : "'self'";
  const framing = frameAncestors.length > 0 ? `'self' ${frameAncestors.join(' ')}` : "'none'";
  return {
    'content-security-policy':
      `default-src 'none'; script-src 'self'; style-src ${styles}; img-src 'self' data: https: http:; ` +
      `connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors ${framing}`,
    'referrer-policy': 'no-referrer',
    'x-content-type-options': 'nosniff',
    // Superseded by frame-ancestors in every current browser; kept for old ones where nothing may frame.
    ...(frameAncestors.length === 0 ? { 'x-frame-options': 'DENY' } : {}),
  };
}

interface Asset extends StaticAsset {
  version: string;
}

/** web/dist, found through the workspace dependency (so it is found from server/src and server/dist alike). */
function defaultWebDistDir(): string {
  const require = createRequire(import.meta.url);
  return join(dirname(require.resolve('@pollkit/web/package.json')), 'dist');
}

class WebAssets {
  readonly #dir: string;
  readonly #names: ReadonlySet<string>;
  readonly #cache = new Map<string, Asset>();

  constructor(dir: string, log: FastifyBaseLogger) {
    this.#dir = dir;
    let names: string[] = [];
    try {
      names = readdirSync(dir).filter((name) => ASSET_NAME.test(name));
    } catch {
      // Reported below: the API works without the pages.
    }
    this.#names = new Set(names);
    if (!this.ready) {
      log.warn({ dir }, 'the audience and presenter pages are not built: run `npx -y pnpm@10 install` (or `build`)');
    }
  }

  /** Whether both pages' files, and the English catalog every page can fall back to, are there. */
  get ready(): boolean {
    return [
      'join.js',
      'join.css',
      'present.js',
      'present.css',
      catalogName('en', 'join'),
      catalogName('en', 'present'),
    ].every((name) => this.#names.has(name));
  }

  readonly #catalogs = new Map<string, Promise<Record<string, (values?: object) => string>>>();

  /**
   * The page's title and its `<noscript>` line in the language, from the catalog the page itself
   * loads (an ES module of functions, web/tsup.config.ts), imported once per language. English
   * words if the catalog cannot be read.
   */
  async words(language: SupportedLanguage, page: 'join' | 'present'): Promise<PageWords> {
    const english = {
      title: page === 'join' ? 'Join a session · Pollkit' : 'Present · Pollkit',
      noscript: 'This page needs JavaScript.',
    };
    let catalog = this.#catalogs.get(catalogName(language, page));
    if (!catalog) {
      const file = pathToFileURL(join(this.#dir, catalogName(language, page))).href;
      catalog = import(file).then((module: { default: Record<string, (values?: object) => string> }) => module.default);
      this.#catalogs.set(catalogName(language, page), catalog);
    }
    try {
      const messages = await catalog;
      const title = messages[`${page}.title`]?.({});
      const noscript = messages['page.noscript']?.({});
      return { title: title ?? english.title, noscript: noscript ?? english.noscript };
    } catch {
      return english;
    }
  }

  /** The languages whose catalog the build holds: the ones a page may be served in. */
  get builtLanguages(): readonly SupportedLanguage[] {
    return supportedLanguages.filter(
      (language) => this.#names.has(catalogName(language, 'join')) && this.#names.has(catalogName(language, 'present')),
    );
  }

  get(name: string): Asset | undefined {
    if (!this.#names.has(name)) return undefined;
    let asset = this.#cache.get(name);
    if (!asset) {
      let body: Buffer;
      try {
        body = readFileSync(join(this.#dir, name));
      } catch {
        return undefined;
      }
      const version = contentHash(body);
      const extension = name.slice(name.lastIndexOf('.') + 1);
      asset = {
        body,
        gzipped: gzipSync(body, { level: 9 }),
        version,
        etag: `"${version}"`,
        type: CONTENT_TYPES[extension] ?? 'application/octet-stream',
      };
      this.#cache.set(name, asset);
      // Brotli at its best quality, in the thread pool (a bundle takes tens of milliseconds): served
      // from the next request on. A failure leaves gzip, which is always there.
      const made = asset;
      brotliCompress(body, BROTLI_BEST, (error, compressed) => {
        if (!error) made.brotli = compressed;
      });
    }
    return asset;
  }

  url(name: string): string {
    const asset = this.get(name);
    return asset ? `${ASSETS_PATH}/${name}?v=${asset.version}` : `${ASSETS_PATH}/${name}`;
  }
}

/** What one page is served with: the defaults, or its session's settings. */
interface PageView {
  page: 'join' | 'present';
  language: SupportedLanguage;
  theme: PageTheme | null;
  embedOrigins: readonly string[];
  /** The audience page of a session with the join challenge: it solves one before its first join. */
  joinChallenge: 'pow' | null;
}

/** JSON inside `<script type="application/json">`: no `<` can close the element early. */
function scriptJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c');
}

/**
 * The page: `<html lang dir>` in its language, its theme's custom properties (an inline style the
 * CSP names by hash), its catalog preloaded beside its script (only that language's is fetched),
 * and the facts its script starts from in a JSON block (language, the languages it can switch to,
 * the catalog, the logo, the origins allowed to frame it, and on the audience page of a session
 * with the join challenge, `joinChallenge`).
 */
/** The words the server itself writes into a page, from the language's catalog. */
interface PageWords {
  title: string;
  noscript: string;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function pageHtml(
  assets: WebAssets,
  view: PageView,
  words: PageWords,
): { html: string; styleHash: string | undefined } {
  const catalog = assets.url(catalogName(view.language, view.page));
  const config = {
    language: view.language,
    languages: assets.builtLanguages,
    catalog,
    logo: view.theme?.logo ?? null,
    embedOrigins: view.embedOrigins,
    ...(view.joinChallenge ? { joinChallenge: view.joinChallenge } : {}),
  };
  const style = view.theme ? view.theme.stylesheet : undefined;
  const html = `<!doctype html>
<html lang="${view.language}" dir="${textDirection(view.language)}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="${view.theme?.dark ? 'dark' : 'light'}">
<link rel="icon" href="data:,">
<title>${escapeHtml(words.title)}</title>
<link rel="stylesheet" href="${assets.url(`${view.page}.css`)}">
${style ? `<style>${style}</style>\n` : ''}<link rel="modulepreload" href="${catalog}">
<script type="application/json" id="pollkit-page">${scriptJson(config)}</script>
<script type="module" src="${assets.url(`${view.page}.js`)}"></script>
</head>
<body>
<div id="app"></div>
<noscript><p>${escapeHtml(words.noscript)}</p></noscript>
</body>
</html>
`;
  return { html, styleHash: style ? createHash('sha256').update(style).digest('base64') : undefined };
}

/** The first supported language of an `Accept-Language` header, by its order of preference. */
function acceptedLanguage(header: string | undefined): SupportedLanguage | undefined {
  if (!header) return undefined;
  const ranked = header
    .slice(0, 500)
    .split(',')
    .map((part, index) => {
      const [tag = '', ...params] = part.trim().split(';');
      const q = Number(
        params
          .find((param) => param.trim().startsWith('q='))
          ?.trim()
          .slice(2) ?? 1,
      );
      return { tag: tag.trim(), q: Number.isFinite(q) ? q : 0, index };
    })
    .filter((entry) => entry.q > 0)
    .sort((a, b) => b.q - a.q || a.index - b.index);
  for (const { tag } of ranked) {
    const language = supportedLanguage(tag);
    if (language) return language;
  }
  return undefined;
}

function notBuilt(reply: FastifyReply) {
  const error = new ApiError(
    'service_unavailable',
    'The audience and presenter pages are not built on this server: run `npx -y pnpm@10 install` or `build`',
  );
  return reply.code(error.status).send(error.toEnvelope());
}

/**
 * Finds the settings of the session a page names (undefined: none, or not now). The composition of
 * the app gives it (app.ts); without one every page is served with the defaults.
 */
export type PageSettingsLookup = (request: FastifyRequest, target: PageTarget) => Promise<PageSettings | undefined>;

const JOIN_CODE = /^(?:[0-9]{6}|lnk_[A-Za-z0-9_-]{43})$/;
const SESSION_ID = /^ses_[0-9A-HJKMNP-TV-Z]{26}$/;
/** Pages rendered per view (language × theme × origins), kept so a room joining at once renders each once. */
const RENDERED_PAGES = 500;

export function registerWebPages(
  app: FastifyInstance,
  options: { dir?: string; lookup?: PageSettingsLookup } = {},
): void {
  const assets = new WebAssets(options.dir ?? defaultWebDistDir(), app.log);
  const rendered = new TtlCache<{ page: StaticAsset; headers: Record<string, string> }>(10 * 60_000, RENDERED_PAGES);

  const settingsOf = async (request: FastifyRequest, target: PageTarget | undefined) => {
    if (!target || !options.lookup) return undefined;
    try {
      return await options.lookup(request, target);
    } catch (error) {
      // The database or Redis is away: the page is served with the defaults, and says so itself
      // when its API calls fail. Never a 500 for a page.
      request.log.warn({ err: error }, 'page settings unavailable: serving the page with the defaults');
      return undefined;
    }
  };

  const servePage =
    (page: 'join' | 'present', targetOf: (request: FastifyRequest) => PageTarget | undefined) =>
    async (request: FastifyRequest, reply: FastifyReply) => {
      if (!assets.ready) return notBuilt(reply);
      const settings = await settingsOf(request, targetOf(request));
      const { lang } = request.query as { lang?: unknown };
      const asked = typeof lang === 'string' ? supportedLanguage(lang) : undefined;
      // A participant's own choice (`?lang=`; an unknown one is ignored), else the session's; a page
      // that names no session follows the browser's languages. A language whose catalog this build
      // lacks is served in English.
      const chosen =
        asked ??
        settings?.language ??
        (settings ? 'en' : (acceptedLanguage(request.headers['accept-language']) ?? 'en'));
      const view: PageView = {
        page,
        language: assets.builtLanguages.includes(chosen) ? chosen : 'en',
        theme: settings?.theme ?? null,
        embedOrigins: settings?.embedOrigins ?? [],
        joinChallenge: page === 'join' ? (settings?.joinChallenge ?? null) : null,
      };
      const key = JSON.stringify([view.page, view.language, view.theme, view.embedOrigins, view.joinChallenge]);
      let entry = rendered.get(key);
      if (!entry) {
        const { html, styleHash } = pageHtml(assets, view, await assets.words(view.language, view.page));
        const body = Buffer.from(html);
        // A page is a kilobyte or two: compressed at once, both ways.
        const page: StaticAsset = {
          body,
          gzipped: gzipSync(body, { level: 9 }),
          brotli: brotliCompressSync(body, BROTLI_BEST),
          etag: `"${contentHash(body)}"`,
          type: 'text/html; charset=utf-8',
        };
        entry = { page, headers: securityHeaders(view.embedOrigins, styleHash) };
        rendered.set(key, entry);
      }
      reply.headers(entry.headers);
      // The same URL is another page when the request's language differs.
      return sendStaticAsset(request, reply, entry.page, 'no-cache', settings ? undefined : 'accept-language');
    };

  app.get(
    '/join',
    servePage('join', () => undefined),
  );
  app.get(
    '/join/:pin',
    servePage('join', (request) => {
      const code = (request.params as { pin: string }).pin;
      if (!JOIN_CODE.test(code)) return undefined;
      return code.startsWith('lnk_') ? { linkId: code } : { pin: code };
    }),
  );
  app.get(
    '/present/:sessionId',
    servePage('present', (request) => {
      const id = (request.params as { sessionId: string }).sessionId;
      return SESSION_ID.test(id) ? { sessionId: id } : undefined;
    }),
  );

  app.get<{ Params: { name: string }; Querystring: { v?: unknown } }>(`${ASSETS_PATH}/:name`, (request, reply) => {
    const asset = assets.get(request.params.name);
    if (!asset) return reply.code(404).send(ApiError.notFound('Asset').toEnvelope());
    // Asked for by its current hash: that URL will never name other bytes. Any other URL is revalidated.
    const immutable = request.query.v === asset.version;
    return sendStaticAsset(request, reply, asset, immutable ? 'public, max-age=31536000, immutable' : 'no-cache');
  });
}
