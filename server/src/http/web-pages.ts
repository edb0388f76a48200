import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../core/api-error.js';
import { contentHash, notModified, type StaticAsset, sendStaticAsset } from './static-asset.js';

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
const ASSET_NAME = /^[a-z][a-z0-9-]*\.(?:js|css|map)$/;
const CONTENT_TYPES: Record<string, string> = {
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  map: 'application/json; charset=utf-8',
};

/**
 * Scripts and styles only from this server; images also from where a poll's media live; API calls
 * only to this server; no framing (a join page inside someone else's frame is a phishing kit).
 */
const PAGE_SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: https: http:; " +
    "connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
};

interface Asset extends StaticAsset {
  version: string;
}

/** web/dist, found through the workspace dependency (so it is found from server/src and server/dist alike). */
export function defaultWebDistDir(): string {
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

  /** Whether both pages' files are there. */
  get ready(): boolean {
    return ['join.js', 'join.css', 'present.js', 'present.css'].every((name) => this.#names.has(name));
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
    }
    return asset;
  }

  url(name: string): string {
    const asset = this.get(name);
    return asset ? `${ASSETS_PATH}/${name}?v=${asset.version}` : `${ASSETS_PATH}/${name}`;
  }
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function pageHtml(assets: WebAssets, page: 'join' | 'present', title: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light">
<link rel="icon" href="data:,">
<title>${escapeHtml(title)}</title>
<link rel="stylesheet" href="${assets.url(`${page}.css`)}">
<script type="module" src="${assets.url(`${page}.js`)}"></script>
</head>
<body>
<div id="app"></div>
<noscript><p>This page needs JavaScript.</p></noscript>
</body>
</html>
`;
}

function notBuilt(reply: FastifyReply) {
  const error = new ApiError(
    'service_unavailable',
    'The audience and presenter pages are not built on this server: run `npx -y pnpm@10 install` or `build`',
  );
  return reply.code(error.status).send(error.toEnvelope());
}

export function registerWebPages(app: FastifyInstance, options: { dir?: string } = {}): void {
  const assets = new WebAssets(options.dir ?? defaultWebDistDir(), app.log);

  const pages = {
    join: { title: 'Join a session · Pollkit', html: undefined as { body: string; etag: string } | undefined },
    present: { title: 'Present · Pollkit', html: undefined as { body: string; etag: string } | undefined },
  };
  const servePage = (page: keyof typeof pages) => (request: FastifyRequest, reply: FastifyReply) => {
    if (!assets.ready) return notBuilt(reply);
    const entry = pages[page];
    if (!entry.html) {
      const body = pageHtml(assets, page, entry.title);
      entry.html = { body, etag: `"${contentHash(body)}"` };
    }
    reply.headers(PAGE_SECURITY_HEADERS).header('cache-control', 'no-cache').header('etag', entry.html.etag);
    if (notModified(request, entry.html.etag)) return reply.code(304).send();
    return reply.type('text/html; charset=utf-8').send(entry.html.body);
  };

  app.get('/join', servePage('join'));
  app.get('/join/:pin', servePage('join'));
  app.get('/present/:sessionId', servePage('present'));

  app.get<{ Params: { name: string }; Querystring: { v?: unknown } }>(`${ASSETS_PATH}/:name`, (request, reply) => {
    const asset = assets.get(request.params.name);
    if (!asset) return reply.code(404).send(ApiError.notFound('Asset').toEnvelope());
    // Asked for by its current hash: that URL will never name other bytes. Any other URL is revalidated.
    const immutable = request.query.v === asset.version;
    return sendStaticAsset(request, reply, asset, immutable ? 'public, max-age=31536000, immutable' : 'no-cache');
  });
}
