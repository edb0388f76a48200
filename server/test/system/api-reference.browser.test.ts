import type { Browser, Request } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  chromiumAvailable,
  expectAccessible,
  LAPTOP,
  launchChromium,
  openPage,
  poll,
  type WatchedPage,
} from '../support/browser.js';
import { rawCall } from '../support/http.js';
import { onceOnEmbeddedLeg, startTestServer, type TestServer } from '../support/server.js';

/**
 * The API reference at `/docs` (http/api-reference-page.ts) in Debian's Chromium against a real
 * server: nothing is fetched from anywhere but the server, the console stays clean, every
 * operation of the OpenAPI document is on the page, axe-core finds nothing to fault in light mode or
 * dark, and "try it" sends a request with the key the reader pasted to this server and shows its
 * answer. Screenshots go to test-artifacts/screenshots.
 */

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

let t: TestServer;
let browser: Browser;
let reader: WatchedPage;
/** Every request the page made, in order: its own and those of Scalar's request client. */
const requests: Request[] = [];

describe.skipIf(!chromiumAvailable || onceOnEmbeddedLeg)('the API reference at /docs, in Chromium', () => {
  beforeAll(async () => {
    t = await startTestServer();
    browser = await launchChromium();
    reader = await openPage(browser, 'laptop', LAPTOP);
    reader.page.context().on('request', (request) => requests.push(request));
    await reader.page.goto(`${t.url}/docs`);
    await reader.page.locator('[id$="/GET/workspace"]').first().waitFor();
  });

  afterEach(async (context) => {
    if (context.task.result?.state === 'fail') await reader?.screenshot('api-reference-failed').catch(() => {});
  });

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('shows every operation of the OpenAPI document, each by its method, path and summary', async () => {
    await reader.screenshot('api-reference-overview');
    const document = (await rawCall('GET', `${t.api}/openapi.json`)).body as {
      paths: Record<string, Partial<Record<(typeof METHODS)[number], { summary: string; tags: string[] }>>>;
    };
    const operations = Object.entries(document.paths).flatMap(([path, item]) =>
      METHODS.flatMap((method) => (item[method] ? [{ method, path, ...item[method] }] : [])),
    );
    expect(operations.length).toBeGreaterThan(40);
    // Scalar renders an operation's section only as it scrolls into view (one by one, ~60 of them:
    // more than a test's budget on a slow machine), but its navigation lists every operation at
    // once: one entry per operation, its anchor naming the method and path (`…/tag/<tag>/<METHOD>/
    // <path without its leading slash>`), its text the summary. Read in one pass, whatever the
    // machine's speed.
    const entries = new Map(
      await reader.page
        .locator('li[data-sidebar-id*="/tag/"]')
        .evaluateAll((items) =>
          items.map((item) => [item.getAttribute('data-sidebar-id') ?? '', item.querySelector('a')?.textContent ?? '']),
        ),
    );
    const missing: string[] = [];
    for (const { method, path, summary, tags } of operations) {
      const anchor = `/tag/${tags[0]}/${method.toUpperCase()}${path}`;
      const text = [...entries].find(([id]) => id.endsWith(anchor))?.[1] ?? '';
      if (!text.includes(summary)) missing.push(`${method.toUpperCase()} ${path} (${summary})`);
    }
    expect(missing).toEqual([]);
  });

  it('the API reference has no serious or critical accessibility violation', async () => {
    const page = reader.page;
    // The page as loaded, at an operation: one with its examples and its "Test Request" button is rendered.
    await page.locator('[id$="/tag/workspace/GET/workspace"]').first().scrollIntoViewIfNeeded();
    await page.getByRole('button', { name: /Test Request\s*\(get \/workspace\)/ }).waitFor();
    // The start script adds what Scalar's markup lacks (names, focus) a frame after each render: once
    // every copy button has its name, and two frames more, what was rendered has been repaired.
    await poll(() => page.locator('button[class*="group/copy-button"]:not([aria-label])').count()).toBe(0);
    const frames = 'new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))';
    await page.evaluate(frames);
    // Not only serious and critical: none of any impact, in either of the sidebar's colour modes.
    await expectAccessible(page, '/docs in light mode');
    await page.getByRole('button', { name: 'Set dark mode' }).click();
    await page.locator('body.dark-mode').waitFor({ state: 'attached' });
    await page.evaluate(frames);
    await expectAccessible(page, '/docs in dark mode');
    await page.getByRole('button', { name: 'Set light mode' }).click();
    await page.locator('body.light-mode').waitFor({ state: 'attached' });
  });

  it('sends "try it" to this server with the key the reader pasted, and shows the answer', async () => {
    const { id: workspaceId, apiKey } = await t.workspace();
    const page = reader.page;
    await page.locator('[id$="/tag/workspace/GET/workspace"]').first().scrollIntoViewIfNeeded();
    const test = page.getByRole('button', { name: /Test Request\s*\(get \/workspace\)/ });
    await test.scrollIntoViewIfNeeded();
    await reader.screenshot('api-reference-operation');
    await test.click();
    const client = page.getByRole('dialog');
    // The client calls the page's own origin, whatever the document's `servers` say.
    const send = client.getByRole('button', { name: `Send get request to ${t.api}/workspace` });
    await send.waitFor();
    const token = client.getByPlaceholder('Token');
    expect(await token.inputValue()).toBe('');
    await token.fill(apiKey);

    const sent = page.waitForRequest((request) => request.url() === `${t.api}/workspace`);
    const answered = page.waitForResponse((response) => response.url() === `${t.api}/workspace`);
    await send.click();
    expect((await sent).headers().authorization).toBe(`Bearer ${apiKey}`);
    expect((await answered).status()).toBe(200);
    // The answer as the client renders it: its status and the workspace it describes.
    await client
      .getByText(/^\s*200\b/)
      .first()
      .waitFor();
    await client.getByText(workspaceId).first().waitFor();
    await reader.screenshot('api-reference-try-it');
  });

  // Last: it judges everything the page did in the tests before it.
  it('fetched nothing from outside this server, showed no link to Scalar’s services, and logged no error', async () => {
    const origin = new URL(t.url).origin;
    const urls = requests.map((request) => request.url());
    expect(urls.length).toBeGreaterThan(3);
    expect(urls.filter((url) => !url.startsWith('data:') && new URL(url).origin !== origin)).toEqual([]);
    // Links to the vendor (Scalar's footers) are hidden; links to MDN (what a status code means) may stay.
    const toVendor = await reader.page
      .locator('a[href*="scalar.com"]:visible')
      .evaluateAll((links) => links.map((link) => link.getAttribute('href')));
    expect(toVendor).toEqual([]);
    expect(reader.errors).toEqual([]);
  });
});
