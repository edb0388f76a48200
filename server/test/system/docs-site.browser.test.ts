import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { type DefaultTreeAdapterTypes, parse } from 'parse5';
import type { Browser } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { chromiumAvailable, LAPTOP, launchChromium, openPage, type WatchedPage } from '../support/browser.js';
import { filesFingerprint, lock } from '../support/build-cache.js';
import { onceOnEmbeddedLeg } from '../support/server.js';
import { type StaticSite, serveStaticSite } from '../support/static-site.js';

/**
 * The docs site as a reader gets it: built by VitePress from docs/ into a scratch folder, served
 * by a static server on 127.0.0.1. Every page the sidebar, the nav or any page links to must answer
 * 200 (and an `#anchor` must name an element of its page), read as served; in Debian's Chromium, every
 * guide and generated page, and three each of the decision records and the SDK reference, run
 * hydrated: none may log an error, fail a request, or ask for anything outside the site's own
 * origin (no CDN, no hosted fonts, no telemetry). Local search must find "rate limit", and the API
 * reference must show every operation of docs/openapi.json. Screenshots go to
 * test-artifacts/screenshots/docs-site-*.png.
 */

const repoRoot = resolve(fileURLToPath(import.meta.url), '../../../..');
const docsRoot = join(repoRoot, 'docs');
const run = promisify(execFile);

type ParentNode = DefaultTreeAdapterTypes.ParentNode;
type Template = DefaultTreeAdapterTypes.Template;

let outDir: string;
let site: StaticSite;
let browser: Browser;
const pages: WatchedPage[] = [];

/** Requests a page made outside the site's origin, and requests that failed or answered an error. */
interface Traffic {
  outside: string[];
  failed: string[];
}

async function open(): Promise<WatchedPage & { traffic: Traffic }> {
  const watched = await openPage(browser, 'laptop', LAPTOP);
  pages.push(watched);
  const traffic: Traffic = { outside: [], failed: [] };
  const origin = new URL(site.url).origin;
  // Anything bound elsewhere is recorded and stopped here: the machine may have no network, and a
  // docs site that works only online is what this test is against.
  await watched.page.route('**/*', (route) => {
    const url = route.request().url();
    if (url.startsWith('data:') || url.startsWith('blob:') || new URL(url).origin === origin) return route.continue();
    traffic.outside.push(url);
    return route.abort('blockedbyclient');
  });
  watched.page.on('requestfailed', (request) => {
    const reason = request.failure()?.errorText;
    // VitePress prefetches the pages a page links to; leaving the page cancels what is in flight.
    // A request that reached the server and failed shows as its status below.
    if (reason === 'net::ERR_ABORTED' || traffic.outside.includes(request.url())) return;
    traffic.failed.push(`${request.url()}: ${reason}`);
  });
  watched.page.on('response', (response) => {
    if (response.status() >= 400) traffic.failed.push(`${response.url()}: ${response.status()}`);
  });
  return Object.assign(watched, { traffic });
}

function expectClean(watched: WatchedPage & { traffic: Traffic }, where: string): void {
  expect(watched.errors, `console errors on ${where}`).toEqual([]);
  expect(watched.traffic.failed, `failed requests on ${where}`).toEqual([]);
  expect(watched.traffic.outside, `requests leaving the site on ${where}`).toEqual([]);
}

/** `/polls` of `http://127.0.0.1:…/polls#x`, without a trailing `.html` (VitePress's clean URLs). */
function pathOf(url: URL): string {
  return url.pathname.replace(/\.html$/, '');
}

/** The ids of a page's elements and its links' targets, resolved against `url`, as a browser would. */
function idsAndLinks(html: string, url: string): { ids: string[]; hrefs: string[] } {
  const ids: string[] = [];
  const hrefs: string[] = [];
  const walk = (node: ParentNode): void => {
    for (const child of node.childNodes) {
      if (!('attrs' in child)) continue;
      for (const { name, value } of child.attrs) {
        if (name === 'id') ids.push(value);
        else if (name === 'href' && child.tagName === 'a') hrefs.push(new URL(value, url).href);
      }
      walk(child.tagName === 'template' ? (child as Template).content : child);
    }
  };
  walk(parse(html));
  return { ids, hrefs };
}

/** Every file the build reads from docs/ (its sources, theme, generated pages, openapi.json), and the lockfile. */
async function siteInputsHash(): Promise<string> {
  const skip = /^docs\/(?:node_modules|\.vitepress\/(?:dist|cache))(?:\/|$)/;
  const files = (await readdir(docsRoot, { recursive: true, withFileTypes: true }))
    .filter((entry) => entry.isFile())
    .map((entry) => relative(repoRoot, join(entry.parentPath, entry.name)))
    .filter((file) => !skip.test(file));
  return filesFingerprint(repoRoot, [...files, 'pnpm-lock.yaml']);
}

/**
 * The site as `vitepress build` makes it of the sources as they are now, built once per state of
 * those sources: under the temp folder, keyed by a hash of every input, so CI's second test leg (the
 * same sources) reuses the first leg's build instead of running a minute of build beside the other
 * browser tests. What is checked is still a build of exactly these sources.
 */
async function builtSite(): Promise<string> {
  const dir = join(tmpdir(), `pollkit-docs-site-${await siteInputsHash()}`);
  const release = await lock(`${dir}.lock`);
  try {
    if (existsSync(join(dir, '.built'))) return dir;
    await rm(dir, { recursive: true, force: true });
    const started = Date.now();
    await run(join(docsRoot, 'node_modules', '.bin', 'vitepress'), ['build', docsRoot, '--outDir', dir], {
      cwd: docsRoot,
      maxBuffer: 64 * 1024 * 1024,
    });
    await writeFile(join(dir, '.built'), new Date().toISOString());
    console.log(`docs site built in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    return dir;
  } finally {
    await release();
  }
}

// Static files: built and checked once per CI run, on the embedded leg (support/server.ts).
describe.skipIf(!chromiumAvailable || onceOnEmbeddedLeg)('the docs site, built and served, in Chromium', () => {
  beforeAll(async () => {
    outDir = await builtSite();
    site = await serveStaticSite(outDir);
    browser = await launchChromium();
    // The build: 89 s on a quiet 2-core machine, past 300 s on the same machine shared five ways.
  }, 900_000);

  afterAll(async () => {
    await browser?.close();
    await site?.close();
  });

  afterEach(async (context) => {
    const failed = context.task.result?.state === 'fail';
    for (const page of pages.splice(0)) {
      if (failed) await page.screenshot('docs-site-failed').catch(() => {});
      await page.page.context().close();
    }
  });

  it('resolves every page of the sidebar and the nav and every internal link, each page clean', async () => {
    const origin = new URL(site.url).origin;
    /** Page → the ids on it; a page is in here once it answered 200. */
    const visited = new Map<string, Set<string>>();
    /** `#anchor` links to check once every page is visited: page → anchor → where the link was. */
    const anchors = new Map<string, Map<string, string>>();
    /** Every internal link: target page → the first page linking to it. */
    const linkedFrom = new Map<string, string>();

    const noteLinks = (from: string, hrefs: string[]): string[] => {
      const targets: string[] = [];
      for (const href of hrefs) {
        const url = new URL(href);
        if (url.origin !== origin) continue;
        const target = pathOf(url);
        // Scalar's own links (`#api-1/tag/…`) are its router's: it renders the sections lazily and
        // scrolls to them itself. The test below checks every operation is on the page.
        if (url.hash && target !== '/reference/api') {
          const onPage = anchors.get(target) ?? new Map<string, string>();
          onPage.set(decodeURIComponent(url.hash.slice(1)), from);
          anchors.set(target, onPage);
        }
        if (!linkedFrom.has(target)) linkedFrom.set(target, from);
        targets.push(target);
      }
      return targets;
    };

    // Every page, as served: VitePress renders each page's whole HTML at build time (the nav, the
    // sidebar, the headings' ids, the links), so reading the HTML the server sends (parse5, the HTML
    // standard's parser) reads what a reader gets with JavaScript off, at a fraction of a browser's
    // load each: 178 pages in Chromium with JavaScript off took 26 s, most of this test.
    const queue = ['/', '/getting-started'];
    while (queue.length > 0) {
      const path = queue.shift() as string;
      if (visited.has(path)) continue;
      const response = await fetch(`${site.url}${path}`);
      expect(response.status, `${path} answers (linked from ${linkedFrom.get(path) ?? 'the start'})`).toBe(200);
      const { ids, hrefs } = idsAndLinks(await response.text(), response.url);
      visited.set(path, new Set(ids));
      for (const target of noteLinks(path, hrefs)) if (!visited.has(target)) queue.push(target);
    }
    // Every guide, the generated pages, the decisions and the SDK reference's pages.
    expect(visited.size).toBeGreaterThan(150);
    for (const path of [
      '/reference/errors',
      '/reference/configuration',
      '/changelog',
      '/sdk/reference/',
      '/decisions/README',
    ]) {
      expect(visited.has(path), `${path} was reached`).toBe(true);
    }

    // Then each kind of page as the browser runs it, hydrated: no error, no failed request, nothing
    // asked of another origin, and the links its scripts add resolve too. Every guide and generated
    // page; of the decision records and the SDK reference (one template each, 147 pages of markdown
    // alone) the first two and the last, in path order.
    const sampleOf = (folder: string) => {
      const pages = [...visited.keys()].filter((path) => path.startsWith(folder)).sort();
      return [...new Set([pages[0], pages[1], pages.at(-1)])].filter((path): path is string => path !== undefined);
    };
    const sampled = ['/decisions/', '/sdk/reference/'];
    const hydrated = [
      ...[...visited.keys()].filter((path) => !sampled.some((folder) => path.startsWith(folder))),
      ...sampled.flatMap(sampleOf),
    ];
    const watched = await open();
    for (const path of hydrated) {
      await watched.page.goto(`${site.url}${path}`, { waitUntil: 'load' });
      const hrefs = await watched.page.$$eval('a[href]', (elements) =>
        elements.map((link) => (link as unknown as { href: string }).href),
      );
      for (const target of noteLinks(path, hrefs)) {
        expect(visited.has(target), `${target}, linked from ${path} once its scripts ran, was served`).toBe(true);
      }
    }
    expect(hydrated.length).toBeGreaterThan(30);

    for (const [target, onPage] of anchors) {
      const ids = visited.get(target);
      for (const [anchor, from] of onPage) {
        expect(ids?.has(anchor), `#${anchor} on ${target} (linked from ${from})`).toBe(true);
      }
    }
    expectClean(watched, 'the crawled pages');
  }, 600_000);

  it('finds "rate limit" with the local search, and its first result leads to a page that says it', async () => {
    const watched = await open();
    const { page } = watched;
    await page.goto(site.url);
    await watched.screenshot('docs-site-home');
    await page.locator('.VPNavBarSearch button').click();
    await page.locator('#localsearch-input').fill('rate limit');
    const first = page.locator('.VPLocalSearchBox .result').first();
    await first.waitFor();
    await watched.screenshot('docs-site-search');
    await first.click();
    await page.waitForURL((url) => url.pathname !== '/');
    await expect.poll(() => page.locator('.vp-doc').textContent()).toMatch(/rate limit/i);
    expectClean(watched, `search and ${page.url()}`);
  });

  it('shows a guide', async () => {
    const watched = await open();
    const { page } = watched;
    await page.goto(`${site.url}/webhooks`);
    await expect.poll(() => page.locator('.vp-doc h1').textContent()).toMatch(/^Webhooks/);
    await watched.screenshot('docs-site-guide');
    expectClean(watched, '/webhooks');
  });

  it('shows every operation of docs/openapi.json in the API reference, from the site alone', async () => {
    const openapi = JSON.parse(await readFile(join(docsRoot, 'openapi.json'), 'utf8')) as {
      paths: Record<string, Record<string, { summary?: string; operationId?: string }>>;
    };
    const operations = Object.entries(openapi.paths).flatMap(([path, methods]) =>
      Object.entries(methods)
        .filter(([method]) => ['get', 'post', 'put', 'patch', 'delete'].includes(method))
        .map(([method, operation]) => ({ method: method.toUpperCase(), path, summary: operation.summary })),
    );
    expect(operations.length).toBeGreaterThan(40);

    const watched = await open();
    const { page } = watched;
    await page.goto(`${site.url}/reference/api`);
    // Scalar names each operation's entry `…/tag/<tag>/<METHOD><path>`; the sidebar lists them all.
    await page.locator('[id$="/tag/polls/GET/polls"]').first().waitFor();
    const ids = await page.$$eval('[id]', (elements) => elements.map((element) => element.id));
    const text = (await page.locator('body').textContent()) ?? '';
    for (const { method, path, summary } of operations) {
      expect(
        ids.some((id) => id.endsWith(`/${method}${path}`)),
        `${method} ${path} in the reference`,
      ).toBe(true);
      if (summary) expect(text, `the summary of ${method} ${path}`).toContain(summary);
    }
    await watched.screenshot('docs-site-api-reference');
    // An operation as a reader sees it: its request sample, and no "Test Request" button, since a
    // static page on another origin cannot reach a server (the server's own /docs can).
    // Scalar's sidebar entry scrolls to its section (VitePress's router must leave its links alone).
    await page.getByText('Create a poll', { exact: true }).first().click();
    await page.waitForURL((url) => url.hash === '#tag/polls/POST/polls');
    await expect.poll(() => page.evaluate('window.scrollY')).toBeGreaterThan(500);
    expect(await page.getByRole('button', { name: /test request/i }).count()).toBe(0);
    await watched.screenshot('docs-site-api-operation');
    expectClean(watched, '/reference/api');
  });
});
