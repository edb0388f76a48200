import { existsSync } from 'node:fs';
import { copyFile, mkdir, readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  type Browser,
  type BrowserContextOptions,
  chromium,
  type Locator,
  type Page,
  type Request,
} from 'playwright-core';
import { expect } from 'vitest';

/**
 * Browser tests drive Debian's Chromium (`apt-get install -y chromium`) through playwright-core,
 * which downloads no browser. CHROMIUM_PATH points elsewhere. Without one, the browser tests are
 * skipped with a message on a developer's machine and fail in CI (`CI=true`), where .ci/run
 * installs it: they are never skipped silently where they are meant to run.
 */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const chromiumAvailable = existsSync(CHROMIUM_PATH);
if (!chromiumAvailable) {
  const message = `no Chromium at ${CHROMIUM_PATH}: install it with \`apt-get install -y chromium\` (or set CHROMIUM_PATH)`;
  if (process.env.CI) throw new Error(`Browser tests cannot run in CI: ${message}`);
  console.warn(`\n  ⚠ browser tests skipped: ${message}\n`);
}

const repoRoot = resolve(fileURLToPath(import.meta.url), '../../../..');
/** Screenshots of every run (gitignored; CI keeps them as artefacts). */
const SCREENSHOT_DIR = join(repoRoot, 'test-artifacts', 'screenshots');
/** Screenshots the docs show, rewritten when POLLKIT_DOCS_SCREENSHOTS=1. */
const DOCS_IMAGE_DIR = join(repoRoot, 'docs', 'images');

/** `extraArgs` come last, so a flag given twice takes their value (`--disable-features` does). */
export function launchChromium(extraArgs: readonly string[] = []): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    timeout: 30_000,
    // What this machine's closed network needs: no background connections to Google's hosts.
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-dev-shm-usage',
      ...extraArgs,
    ],
  });
}

export const PHONE: BrowserContextOptions = {
  viewport: { width: 360, height: 740 },
  isMobile: true,
  hasTouch: true,
};
export const LAPTOP: BrowserContextOptions = { viewport: { width: 1280, height: 800 } };
export const TABLET: BrowserContextOptions = { viewport: { width: 800, height: 1000 } };

/** A page whose console errors and uncaught exceptions are kept, to assert there were none. */
export interface WatchedPage {
  page: Page;
  name: string;
  errors: string[];
  /**
   * Network failures the test provoked on purpose are not the page's errors. Chromium reports a
   * failed request on the console through its own channel, which may arrive after the page has
   * retried and moved on, after `during` returned: reports matching `provoked` are the test's
   * doing for the rest of the page's life too (on loopback nothing else resets a connection or
   * takes the network away).
   */
  expectNetworkErrors(provoked: RegExp, during: () => Promise<void>): Promise<void>;
  /**
   * `locator.waitFor()`; when it times out, the error also says what the page showed and what its
   * last requests got (or that they never got an answer): a picture of a page stuck on "Loading…"
   * does not say whether the server, the network or the page's script was the cause.
   */
  waitFor(locator: Locator): Promise<void>;
  /** The page's last 20 requests, a line each: its status, its network error, or how long it has had no answer. */
  lastRequests(): string;
  screenshot(step: string, options?: { docs?: string }): Promise<void>;
}

export async function openPage(browser: Browser, name: string, options: BrowserContextOptions): Promise<WatchedPage> {
  const context = await browser.newContext(options);
  const page = await context.newPage();
  // Waits turn a hang into a failure; wide, for a busy machine running Chromium beside the server.
  page.setDefaultTimeout(30_000);
  const errors: string[] = [];
  let networkErrorsExpected = false;
  const provokedFailures: RegExp[] = [];
  page.on('console', (message) => {
    if (message.type() !== 'error') return;
    const text = message.text();
    if (networkErrorsExpected && /Failed to load resource|net::ERR_/.test(text)) return;
    if (/^Failed to load resource/.test(text) && provokedFailures.some((provoked) => provoked.test(text))) return;
    errors.push(`console: ${text}`);
  });
  page.on('pageerror', (error) => errors.push(`uncaught: ${error.message}`));
  const requests = requestLog(page);
  return {
    page,
    name,
    errors,
    async expectNetworkErrors(provoked, during) {
      provokedFailures.push(provoked);
      networkErrorsExpected = true;
      try {
        await during();
      } finally {
        networkErrorsExpected = false;
      }
    },
    async waitFor(locator) {
      try {
        await locator.waitFor();
      } catch (error) {
        const shown = await page
          .locator('body')
          .textContent({ timeout: 2_000 })
          .catch((unread: Error) => `(unread: ${unread.message})`);
        throw new Error(
          `${(error as Error).message}\n${name}'s page (${page.url()}) shows: ${(shown ?? '').replace(/\s+/g, ' ').slice(0, 500)}\n` +
            `its last requests:\n${requests()}`,
          { cause: error },
        );
      }
    },
    lastRequests: requests,
    async screenshot(step, shotOptions = {}) {
      await mkdir(SCREENSHOT_DIR, { recursive: true });
      const path = join(SCREENSHOT_DIR, `${step}-${name}.png`);
      await page.screenshot({ path });
      if (shotOptions.docs && process.env.POLLKIT_DOCS_SCREENSHOTS === '1') {
        await mkdir(DOCS_IMAGE_DIR, { recursive: true });
        await copyFile(path, join(DOCS_IMAGE_DIR, shotOptions.docs));
      }
    },
  };
}

/** The page's last requests, each with its answer, its failure, or "no answer yet" and how long it has waited. */
function requestLog(page: Page): () => string {
  const KEPT = 20;
  const entries: { request: Request; startedAt: number; outcome?: string }[] = [];
  const entryOf = (request: Request) => entries.find((entry) => entry.request === request);
  page.on('request', (request) => {
    entries.push({ request, startedAt: Date.now() });
    if (entries.length > KEPT) entries.shift();
  });
  page.on('response', (response) => {
    const entry = entryOf(response.request());
    if (entry) entry.outcome = `${response.status()} after ${Date.now() - entry.startedAt} ms`;
  });
  page.on('requestfailed', (request) => {
    const entry = entryOf(request);
    if (entry) entry.outcome = `failed (${request.failure()?.errorText}) after ${Date.now() - entry.startedAt} ms`;
  });
  return () =>
    entries
      .map(({ request, startedAt, outcome }) => {
        const { pathname, search } = new URL(request.url());
        const address = `${pathname}${search}`.slice(0, 160);
        return `  ${request.method()} ${address}: ${outcome ?? `no answer after ${Date.now() - startedAt} ms`}`;
      })
      .join('\n') || '  (none)';
}

/**
 * The pages a browser test opens: each test's are closed after it (with a picture of each first
 * when it failed), so nothing of one test (an open stream) lives on into the next; and none may have
 * logged an error, whatever it showed.
 */
export class PagePool {
  readonly #pages: WatchedPage[] = [];

  constructor(private readonly browser: () => Browser) {}

  readonly open = async (name: string, options: BrowserContextOptions): Promise<WatchedPage> => {
    const page = await openPage(this.browser(), name, options);
    this.#pages.push(page);
    return page;
  };

  /** After each test: `failedShot` names the pictures taken when it failed; each page's last requests are printed then too. */
  async closeAll(failed: boolean, failedShot: string): Promise<void> {
    for (const page of this.#pages.splice(0)) {
      if (failed) {
        await page.screenshot(failedShot).catch(() => {});
        console.error(`${page.name}'s last requests (${page.page.url()}):\n${page.lastRequests()}`);
      }
      await page.page.context().close();
    }
  }

  expectNoErrors(): void {
    for (const page of this.#pages) expect(page.errors, `${page.name}'s console`).toEqual([]);
  }
}

/**
 * What the pages show arrives over their streams: polled, with a timeout that only turns a hang into
 * a failure (wide: a busy 2-core machine runs Chromium, the server and the test together).
 */
export function poll<T>(read: () => Promise<T> | T, message?: string): ReturnType<typeof expect.poll<T>> {
  return expect.poll(read, { timeout: 30_000, interval: 50, message });
}

/** axe-core's browser build, injected into a page to check it. */
const require = createRequire(import.meta.url);
const AXE_SCRIPT = require.resolve('axe-core/axe.min.js');
let axeText: Promise<string> | undefined;
const axeSource = () => {
  axeText ??= readFile(AXE_SCRIPT, 'utf8');
  return axeText;
};
/** The WCAG 2.0, 2.1 and 2.2 level A and AA rules: what the pages promise (docs/accessibility.md). */
const WCAG_AA_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22a', 'wcag22aa'];

/**
 * Fails when axe-core finds a WCAG 2.2 A or AA violation on the page as it is now; `state` names the
 * screen in the message. Each violation is listed with the elements it was found on.
 */
export async function expectAccessible(page: Page, state: string): Promise<void> {
  // Evaluated through the DevTools protocol, which the pages' Content-Security-Policy (no inline
  // scripts) does not apply to: a <script> tag would be refused.
  if (!(await page.evaluate(() => 'axe' in globalThis))) await page.evaluate(await axeSource());
  const violations = await page.evaluate(async (tags) => {
    const axe = (globalThis as unknown as { axe: { run: (options: unknown) => Promise<{ violations: unknown }> } }).axe;
    const result = await axe.run({ runOnly: { type: 'tag', values: tags } });
    return (result.violations as Array<{ id: string; help: string; nodes: Array<{ target: unknown[] }> }>).map(
      (violation) =>
        `${violation.id} (${violation.help}): ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`,
    );
  }, WCAG_AA_TAGS);
  expect(violations, `axe-core on ${state}`).toEqual([]);
}
