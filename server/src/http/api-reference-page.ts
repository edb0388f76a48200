import { readdir, readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../core/api-error.js';
import { contentHash, type StaticAsset, sendStaticAsset } from './static-asset.js';

/**
 * `GET /docs`: the API reference, rendered in the browser by Scalar (`@scalar/api-reference`) from
 * the OpenAPI document this server serves, with "try it" against this server.
 *
 * Scalar's version is pinned exactly in server/package.json: it calls its vendor's services by
 * default (hosted fonts, a request proxy, telemetry, an AI agent), and a minor release can add
 * another. A bump must pass api-reference.browser.test.ts, which fails on any request that leaves
 * the page's origin. The configuration below switches each of them off; the CSP blocks whatever
 * a new version would add.
 *
 * Every file comes from this server: Scalar's code-split ESM build straight from the installed
 * package, under a path that names its version (`/docs/assets/scalar-1.72.1/…`, cached for a year),
 * and a small start-up script of ours under its content hash. The bundle (~4.5 MB of JavaScript) is
 * read and gzipped on first request, off the event loop, never at start-up.
 */

const DOCS_PATH = '/docs';
const ASSETS_PATH = `${DOCS_PATH}/assets`;
const START_SCRIPT = 'reference.js';
/** Scalar's own file names: letters, digits, dots, dashes, underscores (`markdown-BZaBS8Vq.js`). */
const BUNDLE_FILE = /^[A-Za-z0-9][A-Za-z0-9._-]*\.(?:js|map)$/;
const IMMUTABLE = 'public, max-age=31536000, immutable';

/**
 * What each relaxation of `'self'` is for:
 * - `style-src 'unsafe-inline'`: Scalar injects its stylesheet as a `<style>` element and renders
 *   `style="…"` attributes, which no nonce or hash can authorise (its own docs say so). Inline
 *   styles load nothing from anywhere.
 * - `img-src data:`: Scalar's icons and the favicon placeholder are data: URLs.
 * Nothing else: scripts, fonts, requests ("try it" included) and frames only from this server.
 */
const PAGE_SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; " +
    "font-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
};

async function makeAsset(body: Buffer, type: string): Promise<StaticAsset> {
  const etag = `"${contentHash(body)}"`;
  // In the thread pool: a megabyte at level 9 would hold the event loop for a tenth of a second.
  const gzipped = await promisify(gzip)(body, { level: 9 });
  return { body, gzipped, etag, type };
}

function contentType(name: string): string {
  return name.endsWith('.map') ? 'application/json; charset=utf-8' : 'text/javascript; charset=utf-8';
}

function defaultScalarDist(): string {
  // The package exports no package.json: its main entry is dist/index.js.
  const require = createRequire(import.meta.url);
  return dirname(require.resolve('@scalar/api-reference'));
}

/** Scalar's browser build as installed: dist/browser/standalone.esm.js and its chunks/. */
class ScalarBundle {
  readonly version: string;
  readonly #dir: string;
  readonly #listings = new Map<string, Promise<ReadonlySet<string>>>();
  readonly #cache = new Map<string, Promise<StaticAsset | undefined>>();

  private constructor(dir: string, version: string) {
    this.#dir = dir;
    this.version = version;
  }

  /**
   * The package's dist/ (given by tests), by default resolved through the server's dependency, so
   * found from server/src and server/dist alike.
   */
  static async locate(dist = defaultScalarDist()): Promise<ScalarBundle> {
    const { version } = JSON.parse(await readFile(join(dist, '..', 'package.json'), 'utf8')) as { version: string };
    return new ScalarBundle(join(dist, 'browser'), version);
  }

  /** URL path of the entry module; its chunks sit in `chunks/` beside it. */
  get entryUrl(): string {
    return `${ASSETS_PATH}/scalar-${this.version}/standalone.esm.js`;
  }

  /** A file of the bundle (`sub` is '' or 'chunks'), or undefined if the build has no such file. */
  get(sub: '' | 'chunks', name: string): Promise<StaticAsset | undefined> {
    const key = `${sub}/${name}`;
    let asset = this.#cache.get(key);
    if (!asset) {
      asset = this.#load(sub, name);
      this.#cache.set(key, asset);
      // Only files that exist are kept: a miss costs a listing lookup, not a cache entry.
      asset.then(
        (found) => found ?? this.#cache.delete(key),
        () => this.#cache.delete(key),
      );
    }
    return asset;
  }

  async #load(sub: '' | 'chunks', name: string): Promise<StaticAsset | undefined> {
    if (!BUNDLE_FILE.test(name)) return undefined;
    // Only names the directory lists are read: no path, however encoded, reaches another file.
    if (!(await this.#list(sub)).has(name)) return undefined;
    return makeAsset(await readFile(join(this.#dir, sub, name)), contentType(name));
  }

  #list(sub: '' | 'chunks'): Promise<ReadonlySet<string>> {
    let listing = this.#listings.get(sub);
    if (!listing) {
      listing = readdir(join(this.#dir, sub)).then((names) => new Set(names));
      this.#listings.set(sub, listing);
    }
    return listing;
  }
}

/**
 * Scalar's default theme, made to meet WCAG 2.2 AA (api-reference.browser.test.ts runs axe-core on
 * the page). Unlayered, so it wins over the theme, which Scalar puts in `@layer scalar-theme`; the
 * theme's display-p3 colours are replaced too (axe-core, like an sRGB screen, sees them clipped).
 * - Secondary and muted text (`--scalar-color-2/3`, the sidebar's, the search box's placeholder)
 *   and the method colours (GET blue, POST green, PATCH yellow, DELETE red, and orange for
 *   "required" and numbers in examples) were 1.6:1 to 4.3:1 on the page's greys: each is darkened
 *   in light mode to 4.5:1 or more on every background it sits on (down to `--scalar-background-3`,
 *   #e7e7e7). Dark mode (the sidebar's toggle) only needed its muted text and its red lightened,
 *   and the red of errors no longer mixed with the background (which took it below 4.5:1 again).
 * - The sidebar's expand/collapse buttons are 22×22 px: one pixel more padding makes them the 24×24
 *   of WCAG 2.5.8, still centred on the same line.
 * - The footers' links to scalar.com are hidden: they are there whatever the configuration says.
 */
const CUSTOM_CSS = `a[href*="scalar.com"] { display: none !important; }
.light-mode {
  --scalar-color-2: #575757;
  --scalar-color-3: #666666;
  --scalar-color-blue: #0068a8;
  --scalar-color-green: #007350;
  --scalar-color-yellow: #806000;
  --scalar-color-red: #c80006;
  --scalar-color-orange: #b04000;
  --scalar-color-query: #007479;
}
.dark-mode {
  --scalar-color-3: #8f8f8f;
  --scalar-color-red: #ff5c5c;
  --scalar-color-danger: var(--scalar-color-red);
}
li[data-sidebar-id] > div > button[aria-expanded] { padding: 4px; }
`;

/**
 * Runs in the browser. It loads the document itself (rather than handing Scalar its URL) to point
 * every server URL at this page's origin, whatever the document lists (PUBLIC_BASE_URL may name a
 * proxy in front of this process): "try it" calls the server that serves the page. Then it mounts
 * Scalar with every call to Scalar's services switched off.
 */
function startScript(entryUrl: string, openApiPath: string): string {
  return `import { createApiReference } from ${JSON.stringify(entryUrl)};

const origin = window.location.origin;
const here = (url) => origin + new URL(url, origin).pathname.replace(/\\/$/, '');
const toHere = (servers) => servers?.map((server) => ({ ...server, url: here(server.url) }));

async function mount(target) {
  const response = await fetch(${JSON.stringify(openApiPath)}, { headers: { accept: 'application/json' } });
  if (!response.ok) throw new Error('the OpenAPI document answered ' + response.status);
  const document = await response.json();
  document.servers = toHere(document.servers) ?? [{ url: here(${JSON.stringify(openApiPath.replace(/\/[^/]*$/, ''))}) }];
  for (const item of Object.values(document.paths ?? {})) {
    if (item.servers) item.servers = toHere(item.servers);
  }
  for (const scheme of Object.values(document.components?.securitySchemes ?? {})) {
    for (const flow of Object.values(scheme.flows ?? {})) {
      if (flow.tokenUrl) flow.tokenUrl = new URL(flow.tokenUrl, origin).href;
    }
  }
  createApiReference(target, {
    content: document,
    // Each of these would otherwise reach scalar.com or a CDN.
    withDefaultFonts: false,
    telemetry: false,
    showDeveloperTools: 'never',
    hideClientButton: true,
    agent: { disabled: true },
    mcp: { disabled: true },
    // No proxy URL is set: requests go from the browser straight to this origin.
    // The reader pastes a key; it stays in this tab (not in localStorage).
    persistAuth: false,
    authentication: { preferredSecurityScheme: 'ApiKey', securitySchemes: { ApiKey: { token: '' } } },
    documentDownloadType: 'json',
    // Every operation on the page from the start, so a reader can find one with the browser's own search.
    defaultOpenAllTags: true,
    metaData: { title: 'API reference · Pollkit' },
    customCss: ${JSON.stringify(CUSTOM_CSS)},
  });
}

// What Scalar's markup lacks for WCAG 2.2 AA and no option or stylesheet can add: names, focus, ARIA
// states. Scalar renders sections as they scroll into view and the request client (a dialog outside
// the target) on demand, so every element it adds is checked, once a frame: a scan of the whole page
// (~50,000 elements once all is rendered) would take tens of milliseconds each time. Each repair only
// adds what is missing: its own mutations leave nothing more to do.
const REPAIRS = [
  // Most copy buttons of code blocks have their label hidden (display: none) until the block is hovered
  // or focused: to a screen reader reading the page each is a button without a name. All get one, the
  // same; it contains the "Copy" they show.
  ['button[class*="group/copy-button"]:not([aria-label])', (button) => button.setAttribute('aria-label', 'Copy code')],
  // Each tag's list of endpoints scrolls (paths do not wrap, the card is at most 60vh tall) but holds
  // links without an href, which the keyboard cannot reach: the list itself takes focus, so that it
  // can be scrolled with the arrow keys. Every list: whether one overflows changes with the window.
  ['ul.endpoints:not([tabindex])', (list) => {
    if (!list.querySelector('a[href], button, input, select, textarea, [tabindex]')) list.tabIndex = 0;
  }],
  // The request client's copy button for a response points aria-controls at an element never rendered.
  ['button[class*="group/copy-button"][aria-controls]', (button) => {
    if (!document.getElementById(button.getAttribute('aria-controls'))) button.removeAttribute('aria-controls');
  }],
  // The request client shows bodies in CodeMirror: a text box without a name (its section's title,
  // "Body", is), and when read-only (a response) not focusable, so its scrolling area is out of the
  // keyboard's reach. Focused, it scrolls with the arrow keys.
  ['.cm-content[role="textbox"]:not([aria-label]):not([aria-labelledby])', (content) => {
    const title = content.closest('section[aria-labelledby]')?.getAttribute('aria-labelledby');
    if (title) content.setAttribute('aria-labelledby', title);
    if (content.getAttribute('contenteditable') === 'false' && !content.hasAttribute('tabindex')) {
      content.tabIndex = 0;
      content.setAttribute('aria-readonly', 'true');
    }
  }],
  // The request client's fields that offer variables are comboboxes, which drop aria-expanded when
  // closed rather than set it to false (a combobox must say whether its list is open).
  ['[role="combobox"]:not([aria-expanded])', (field) => field.setAttribute('aria-expanded', 'false')],
  // role="none" is ignored on a focusable element: the button stays a button, and its aria-label is
  // then refused for the role it claims. Without it, nothing changes for a screen reader.
  ['button[role="none"]', (button) => button.removeAttribute('role')],
  // Schema pickers are named "Schema" but show the variant picked ("object 1"): a voice user says what
  // they see, so the name must contain it (WCAG 2.5.3). Updated when the pick changes.
  ['button[aria-haspopup="listbox"][aria-label]', (picker) => {
    picker.dataset.label ??= picker.getAttribute('aria-label');
    const { label } = picker.dataset;
    const shown = picker.textContent.trim();
    const name = shown && !label.includes(shown) ? label + ': ' + shown : label;
    if (picker.getAttribute('aria-label') !== name) picker.setAttribute('aria-label', name);
  }],
];

const changed = new Set();
let repairQueued = false;
function repairChanged() {
  repairQueued = false;
  for (const root of changed) {
    if (!root.isConnected) continue;
    for (const [selector, repair] of REPAIRS) {
      if (root.matches(selector)) repair(root);
      for (const element of root.querySelectorAll(selector)) repair(element);
    }
  }
  changed.clear();
}
new MutationObserver((records) => {
  for (const record of records) {
    for (const node of record.type === 'childList' ? record.addedNodes : [record.target]) {
      const element = node.nodeType === Node.ELEMENT_NODE ? node : node.parentElement;
      // Inside a button (a picker's text), the button is what to check.
      if (element) changed.add(element.closest('button') ?? element);
    }
  }
  if (!repairQueued && changed.size) {
    repairQueued = true;
    requestAnimationFrame(repairChanged);
  }
}).observe(document.body, {
  subtree: true,
  childList: true,
  characterData: true,
  attributes: true,
  attributeFilter: ['aria-expanded', 'role'],
});

// Not #api-reference: Scalar's bundle mounts a reference of its own, with its defaults (hosted
// fonts included), on an element of that id as soon as it loads.
const target = document.getElementById('reference');
mount(target).catch((error) => {
  target.textContent = 'The API reference could not load: ' + error.message + '. The document is at ${openApiPath}.';
  console.error(error);
});
`;
}

function pageHtml(entryUrl: string, startUrl: string, openApiPath: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<title>API reference · Pollkit</title>
<link rel="modulepreload" href="${entryUrl}">
<script type="module" src="${startUrl}"></script>
</head>
<body>
<div id="reference"></div>
<noscript><p>The API reference needs JavaScript. The OpenAPI document is at <a href="${openApiPath}">${openApiPath}</a>.</p></noscript>
</body>
</html>
`;
}

function assetNotFound(reply: FastifyReply) {
  return reply.code(404).send(ApiError.notFound('Asset').toEnvelope());
}

interface Built {
  bundle: ScalarBundle;
  page: StaticAsset;
  start: StaticAsset;
  startVersion: string;
}

export function registerApiReferencePage(
  app: FastifyInstance,
  options: { openApiPath: string; scalarDist?: string },
): void {
  const { openApiPath, scalarDist } = options;
  let built: Promise<Built> | undefined;
  // Everything is made on the first request for the page or a file of it; a failure is retried.
  const build = (): Promise<Built> => {
    if (!built) {
      built = (async () => {
        const bundle = await ScalarBundle.locate(scalarDist);
        const start = await makeAsset(Buffer.from(startScript(bundle.entryUrl, openApiPath)), contentType('.js'));
        const startVersion = start.etag.slice(1, -1);
        const startUrl = `${ASSETS_PATH}/${START_SCRIPT}?v=${startVersion}`;
        const html = pageHtml(bundle.entryUrl, startUrl, openApiPath);
        const page = await makeAsset(Buffer.from(html), 'text/html; charset=utf-8');
        return { bundle, page, start, startVersion };
      })();
      built.catch((error: unknown) => {
        app.log.error({ err: error }, 'the API reference cannot be served: @scalar/api-reference is missing');
        built = undefined;
      });
    }
    return built;
  };
  /** The built parts, or a 503 in the envelope (sent) when Scalar's package cannot be read. */
  const parts = async (reply: FastifyReply): Promise<Built | undefined> => {
    try {
      return await build();
    } catch {
      const error = new ApiError(
        'service_unavailable',
        'The API reference is not installed on this server: run `npx -y pnpm@10 install`',
      );
      reply.code(error.status).send(error.toEnvelope());
      return undefined;
    }
  };

  app.get(DOCS_PATH, async (request, reply) => {
    const ready = await parts(reply);
    if (!ready) return reply;
    const { page } = ready;
    // The page is revalidated on every load: a new server version reaches the reader at once.
    reply.headers(PAGE_SECURITY_HEADERS);
    return sendStaticAsset(request, reply, page, 'no-cache');
  });

  // One address for the page: `/docs/` (as typed, or from a relative link) is `/docs`.
  app.get(`${DOCS_PATH}/`, (request, reply) => {
    const query = request.url.indexOf('?');
    return reply.redirect(query === -1 ? DOCS_PATH : `${DOCS_PATH}${request.url.slice(query)}`, 301);
  });

  app.get<{ Querystring: { v?: unknown } }>(`${ASSETS_PATH}/${START_SCRIPT}`, async (request, reply) => {
    const ready = await parts(reply);
    if (!ready) return reply;
    const { start, startVersion } = ready;
    // Asked for by its current hash: that URL will never name other bytes. Any other URL is revalidated.
    return sendStaticAsset(request, reply, start, request.query.v === startVersion ? IMMUTABLE : 'no-cache');
  });

  // The version is in the path, so every file under it is immutable; another version's path is a 404.
  const serveBundleFile =
    (sub: '' | 'chunks') =>
    async (request: FastifyRequest<{ Params: { bundle: string; name: string } }>, reply: FastifyReply) => {
      const ready = await parts(reply);
      if (!ready) return reply;
      const { bundle } = ready;
      if (request.params.bundle !== `scalar-${bundle.version}`) return assetNotFound(reply);
      const asset = await bundle.get(sub, request.params.name);
      if (!asset) return assetNotFound(reply);
      return sendStaticAsset(request, reply, asset, IMMUTABLE);
    };
  app.get(`${ASSETS_PATH}/:bundle/:name`, serveBundleFile(''));
  app.get(`${ASSETS_PATH}/:bundle/chunks/:name`, serveBundleFile('chunks'));
}
