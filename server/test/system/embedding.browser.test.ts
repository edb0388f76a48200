import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Frame, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { chromiumAvailable, LAPTOP, launchChromium, PagePool, poll, type WatchedPage } from '../support/browser.js';
import { UNLIMITED } from '../support/limits.js';
import { createLiveSession, type LiveSessionFixture } from '../support/live-deck.js';
import { onceOnEmbeddedLeg, startTestServer, type TestServer } from '../support/server.js';
import { expectOk, expectStatus, testClient } from '../support/test-client.js';

/**
 * Embedding (docs/embedding.md) in a real browser (Debian's Chromium through playwright-core): a
 * parent page on another site (`http://localhost:<port>`, cross-site from the server's
 * `http://127.0.0.1:<port>`, so the frame's storage is partitioned, as in Chrome: see
 * launchPartitioningChromium) mounts the audience page and the presenter screen with
 * `@pollkit/sdk/embed` (sdk/src/embed.ts, bundled here with esbuild) and records what it hears.
 * Allowed origins see the page and hear ids only; any other origin, or an allowed one framing
 * another workspace's page, gets no page at all; both sides check origins.
 */

const repoRoot = resolve(fileURLToPath(import.meta.url), '../../../..');

/** What this file uses of esbuild, installed in the SDK's package (not the server's). */
interface Esbuild {
  build(options: {
    entryPoints: string[];
    bundle: boolean;
    format: 'esm';
    platform: 'browser';
    write: false;
  }): Promise<{ outputFiles: { text: string }[] }>;
}
const esbuild = createRequire(join(repoRoot, 'sdk', 'package.json'))('esbuild') as Esbuild;

/** How long a refused frame gets to prove it stays silent. */
const SILENCE_MS = 3_000;

/** A deck a presenter walks: a content slide, then a multiple-choice question. */
const DECK = {
  questions: [
    { id: 'intro', kind: 'content' as const, text: 'Welcome to the webinar' },
    {
      id: 'lunch',
      kind: 'multiple_choice' as const,
      text: 'Where shall we eat after the meeting?',
      type: 'single' as const,
      options: [
        { id: 'pizza', label: 'Pizza' },
        { id: 'sushi', label: 'Sushi' },
        { id: 'tacos', label: 'Tacos' },
      ],
    },
  ],
};

let t: TestServer;
const api = testClient(() => t.api);
let browser: Browser;
let embedBundle: string;
/** The parent site whose origin the workspaces here allow, and one they never list. */
let allowed: ParentSite;
let stranger: ParentSite;
const pages = new PagePool(() => browser);

interface ParentSite {
  origin: string;
  close(): Promise<void>;
}

/** The parent page, recording every event the helper passes on (and the frame's height after each resize). */
const HELPER_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>An event platform</title></head>
<body><h1>Our webinar</h1><div id="host"></div>
<script type="module">
import { mountPollkit } from '/embed.js';
window.events = [];
window.heights = [];
const url = new URLSearchParams(location.search).get('url');
const mounted = mountPollkit(document.getElementById('host'), {
  url,
  onEvent(event) {
    window.events.push(event);
    if (event.type === 'pollkit:resize') window.heights.push({ reported: event.height, frame: mounted.frame.style.height });
  },
});
window.mounted = mounted;
</script></body></html>`;

/** A parent page without the helper: its own iframe of exactly \`url\`, recording every message with its origin. */
const RAW_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>A raw frame</title></head>
<body><h1>Raw</h1>
<script type="module">
window.messages = [];
addEventListener('message', (message) => window.messages.push({ origin: message.origin, data: message.data }));
const frame = document.createElement('iframe');
frame.src = new URLSearchParams(location.search).get('url');
frame.title = 'Pollkit';
frame.style.width = '100%';
frame.style.height = '480px';
document.body.appendChild(frame);
</script></body></html>`;

/** Serves the parent pages and the helper's bundle on 127.0.0.1, reached as `http://localhost:<port>`. */
async function startParentSite(): Promise<ParentSite> {
  const server: Server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const path = new URL(request.url ?? '/', 'http://localhost').pathname;
    const send = (type: string, body: string) => {
      response.writeHead(200, { 'content-type': `${type}; charset=utf-8`, 'cache-control': 'no-store' });
      response.end(body);
    };
    if (path === '/embed.js') send('text/javascript', embedBundle);
    else if (path === '/parent.html') send('text/html', HELPER_PAGE);
    else if (path === '/raw.html') send('text/html', RAW_PAGE);
    else {
      response.writeHead(404);
      response.end();
    }
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://localhost:${port}`,
    close: () =>
      new Promise((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}

type EmbedEvent = { type: string; sessionId: string | null; [field: string]: unknown };

describe.skipIf(!chromiumAvailable || onceOnEmbeddedLeg)('the pages inside another site’s frame, in Chromium', () => {
  beforeAll(async () => {
    const built = await esbuild.build({
      entryPoints: [join(repoRoot, 'sdk', 'src', 'embed.ts')],
      bundle: true,
      format: 'esm',
      platform: 'browser',
      write: false,
    });
    embedBundle = built.outputFiles[0]!.text;
    [allowed, stranger] = await Promise.all([startParentSite(), startParentSite()]);
    // Every page here comes from 127.0.0.1; with a shared Redis (TEST_REDIS_URL) every test file's
    // requests from 127.0.0.1 count against that address too.
    t = await startTestServer(UNLIMITED);
    browser = await launchPartitioningChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await allowed?.close();
    await stranger?.close();
  });

  afterEach(async (context) => pages.closeAll(context.task.result?.state === 'fail', 'embedding-failed'));

  /** A live session whose workspace lets `origins` frame its pages. */
  async function embeddableSession(origins: string[]): Promise<LiveSessionFixture> {
    const session = await createLiveSession(t, DECK);
    const patched = await api.request('PATCH /workspace', { apiKey: session.apiKey, body: { embedOrigins: origins } });
    expectStatus(patched, 200);
    expect(patched.body.embedOrigins).toEqual(origins);
    return session;
  }

  async function control(session: LiveSessionFixture, action: 'start' | 'next' | 'end'): Promise<void> {
    const res = await api.request('POST /sessions/{id}/control', {
      params: { id: session.sessionId },
      apiKey: session.apiKey,
      body: { action },
    });
    expectStatus(res, 200);
  }

  async function participantCount(session: LiveSessionFixture): Promise<number> {
    const res = await api.request('GET /sessions/{id}', { params: { id: session.sessionId }, apiKey: session.apiKey });
    expectStatus(res, 200);
    return res.body.participantCount;
  }

  /** The parent page on `site`, mounting `url` with the helper. */
  async function mount(site: ParentSite, url: string, name: string): Promise<WatchedPage> {
    const parent = await pages.open(name, LAPTOP);
    await parent.page.goto(`${site.origin}/parent.html?url=${encodeURIComponent(url)}`);
    return parent;
  }

  const eventsOf = async (page: Page) => (await page.evaluate('window.events')) as EmbedEvent[];
  const typesOf = async (page: Page) => (await eventsOf(page)).map((event) => event.type);

  /** The participant id the frame's next join answers with (a promise made before the join). */
  async function joinedAs(page: Page, session: LiveSessionFixture): Promise<string> {
    const response = await page.waitForResponse(
      (response) =>
        response.url() === `${t.url}/api/v1/live/${session.pin}/join` && response.request().method() === 'POST',
    );
    expect(response.status()).toBe(200);
    return ((await response.json()) as { participant: { id: string } }).participant.id;
  }

  /** The Pollkit page's frame inside the parent (by its origin: a refused frame shows Chromium's error page instead). */
  function pollkitFrame(page: Page): Frame | undefined {
    return page.frames().find((frame) => frame !== page.mainFrame() && frame.url().startsWith(`${t.url}/`));
  }

  it('tells an allowed parent what happens, in order, with ids only, and sizes the frame to the page', async () => {
    const session = await embeddableSession([allowed.origin]);
    const parent = await mount(allowed, session.joinUrl, 'parent-allowed');
    const p = parent.page;
    const frame = p.frameLocator('iframe');
    await poll(() => typesOf(p), 'pollkit:ready').toContain('pollkit:ready');
    expect((await eventsOf(p))[0]).toEqual({ type: 'pollkit:ready', sessionId: null, page: 'join' });

    await frame.getByLabel(/Your name/).fill('Ada');
    const participantId = joinedAs(p, session);
    await frame.getByRole('button', { name: 'Join' }).click();
    await frame.getByTestId('waiting').waitFor();
    expect(await frame.getByTestId('me-name').textContent()).toBe('Ada');
    expect(await participantId).toMatch(/^prt_/);

    await control(session, 'start');
    await frame.locator('[data-slide-id=intro]').waitFor();
    await control(session, 'next');
    await frame.locator('[data-slide-id=lunch]').waitFor();
    await frame.getByText('Sushi', { exact: true }).click();
    await frame.getByRole('button', { name: 'Send' }).click();
    await frame.getByTestId('answer-received').waitFor();
    await control(session, 'end');
    await frame.getByTestId('ended').waitFor();
    await poll(() => typesOf(p), 'pollkit:ended').toContain('pollkit:ended');
    await parent.screenshot('embedding-ended');

    // Ids only: neither the participant's token nor the chosen option (label or id) ever crossed.
    const events = await eventsOf(p);
    const text = JSON.stringify(events);
    const stored = await storedToken(pollkitFrame(p)!, session.pin);
    const token = (JSON.parse(stored ?? '{}') as { token?: string }).token;
    expect(token, `the token in the frame's storage: ${stored}`).toMatch(/.{16,}/);
    expect(text).not.toContain(token!);
    expect(text).not.toContain('Sushi');
    expect(text).not.toContain('sushi');

    // Resizes: whole pixels, and the frame follows each.
    const resizes = events.filter((event) => event.type === 'pollkit:resize');
    expect(resizes.length).toBeGreaterThan(0);
    for (const resize of resizes) {
      expect(Number.isInteger(resize.height) && (resize.height as number) > 0, JSON.stringify(resize)).toBe(true);
      expect(resize.sessionId === null || resize.sessionId === session.sessionId).toBe(true);
    }
    const heights = (await p.evaluate('window.heights')) as { reported: number; frame: string }[];
    expect(heights.map((height) => height.frame)).toEqual(heights.map((height) => `${height.reported}px`));
    const frameHeight = await p.locator('iframe').evaluate((element) => element.getBoundingClientRect().height);
    expect(frameHeight).toBe(resizes.at(-1)!.height);
    // …and fits what the page shows now (the end's summary, shorter than the slide before it): a
    // frame that only ever grows leaves the parent a blank band under the page.
    const shown = Math.ceil(await contentHeight(pollkitFrame(p)!));
    expect
      .soft(
        frameHeight,
        `the frame (${frameHeight}px) around a page showing ${shown}px; resizes: ${JSON.stringify(heights)}`,
      )
      .toBeLessThanOrEqual(shown + 1);

    // Each step once, in order. Joining a session not started yet also reports its "slide" (none, at 0).
    const sessionId = session.sessionId;
    const flow = events.filter((event) => event.type !== 'pollkit:resize');
    const steps = flow.filter((event) => !(event.type === 'pollkit:slide' && event.slideId === null));
    expect.soft(steps, JSON.stringify(flow)).toEqual([
      { type: 'pollkit:ready', sessionId: null, page: 'join' },
      { type: 'pollkit:joined', sessionId, participantId: await participantId },
      { type: 'pollkit:slide', sessionId, slideId: 'intro', slideIndex: 0 },
      { type: 'pollkit:slide', sessionId, slideId: 'lunch', slideIndex: 1 },
      { type: 'pollkit:answered', sessionId, slideId: 'lunch' },
      { type: 'pollkit:ended', sessionId },
    ]);
    pages.expectNoErrors();
  });

  it('rejoins as the same participant inside the frame after the parent reloads (partitioned storage)', async () => {
    const session = await embeddableSession([allowed.origin]);
    const parent = await mount(allowed, session.joinUrl, 'parent-reload');
    const p = parent.page;
    const frame = p.frameLocator('iframe');
    await frame.getByLabel(/Your name/).fill('Grace');
    const firstJoin = joinedAs(p, session);
    await frame.getByRole('button', { name: 'Join' }).click();
    await frame.getByTestId('waiting').waitFor();
    const participantId = await firstJoin;
    await control(session, 'start');
    await frame.locator('[data-slide-id=intro]').waitFor();
    expect(await participantCount(session)).toBe(1);
    const token = await storedToken(pollkitFrame(p)!, session.pin);
    expect(token, 'the token in the frame’s storage').toMatch(/"token":".+"/);
    const joinedBefore = (await eventsOf(p)).filter((event) => event.type === 'pollkit:joined');

    const rejoin = joinedAs(p, session);
    await p.reload();
    // No form: the same participant again, on the slide the session is on.
    await frame.locator('[data-slide-id=intro]').waitFor();
    expect(await rejoin).toBe(participantId);
    expect(await frame.getByTestId('me-name').textContent()).toBe('Grace');
    expect(await frame.getByLabel(/Your name/).count()).toBe(0);
    expect(await participantCount(session)).toBe(1);
    expect(await storedToken(pollkitFrame(p)!, session.pin)).toBe(token);

    // Partitioned, not shared: the server's own site at the top level of the same browser has no such token.
    const topLevel = await p.context().newPage();
    await topLevel.goto(`${t.url}/join`);
    expect(await storedToken(topLevel.mainFrame(), session.pin)).toBeNull();
    await topLevel.close();

    // The parent heard both joins, as the same participant.
    expect
      .soft(joinedBefore, 'pollkit:joined on the first join')
      .toEqual([{ type: 'pollkit:joined', sessionId: session.sessionId, participantId }]);
    await expect
      .poll(async () => (await eventsOf(p)).filter((event) => event.type === 'pollkit:joined'), {
        timeout: 3_000,
        message: 'pollkit:joined after the reload',
      })
      .toEqual([{ type: 'pollkit:joined', sessionId: session.sessionId, participantId }]);
    pages.expectNoErrors();
  });
  it('is refused in the frame of an origin the workspace does not list, and in an allowed one for another workspace', async () => {
    const session = await embeddableSession([allowed.origin]);
    const other = await createLiveSession(t, DECK);
    expect(
      expectOk(await api.request('GET /workspace', { apiKey: other.apiKey })).embedOrigins,
      'the other workspace lists no origin',
    ).toEqual([]);

    // Over HTTP: the session's pages name the allowed origin, and send no X-Frame-Options; a page
    // that names no session may be framed by nobody.
    const framingOf = async (path: string) => {
      const res = await fetch(`${t.url}${path}`);
      expect(res.status, path).toBe(200);
      await res.arrayBuffer();
      return {
        ancestors: /frame-ancestors ([^;]*)$/.exec(res.headers.get('content-security-policy') ?? '')?.[1],
        xFrameOptions: res.headers.get('x-frame-options'),
      };
    };
    expect(await framingOf(`/join/${session.pin}`)).toEqual({
      ancestors: `'self' ${allowed.origin}`,
      xFrameOptions: null,
    });
    expect(await framingOf(`/present/${session.sessionId}`)).toEqual({
      ancestors: `'self' ${allowed.origin}`,
      xFrameOptions: null,
    });
    expect(await framingOf('/join')).toEqual({ ancestors: `'none'`, xFrameOptions: 'DENY' });
    expect(await framingOf(`/join/${other.pin}`)).toEqual({ ancestors: `'none'`, xFrameOptions: 'DENY' });

    // In the browser: the frame stays empty and silent.
    const refusals = [
      { site: stranger, url: session.joinUrl, framing: `'self' ${allowed.origin}`, name: 'parent-stranger' },
      { site: allowed, url: other.joinUrl, framing: `'none'`, name: 'parent-other-workspace' },
    ];
    await Promise.all(
      refusals.map(async ({ site, url, framing, name }) => {
        const parent = await pages.open(name, LAPTOP);
        const p = parent.page;
        const answered = p.waitForResponse((response) => response.url().startsWith(url));
        await p.goto(`${site.origin}/parent.html?url=${encodeURIComponent(url)}`);
        const response = await answered;
        const policy = (await response.allHeaders())['content-security-policy'] ?? '';
        expect(policy, name).toMatch(new RegExp(`frame-ancestors ${framing.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`));
        if (framing === `'none'`) expect((await response.allHeaders())['x-frame-options']).toBe('DENY');
        else expect((await response.allHeaders())['x-frame-options']).toBeUndefined();
        await p.waitForTimeout(SILENCE_MS);
        expect(await eventsOf(p), name).toEqual([]);
        expect(
          await p
            .frameLocator('iframe')
            .getByLabel(/Your name/)
            .count(),
          name,
        ).toBe(0);
        expect(pollkitFrame(p)?.url(), `${name}: no Pollkit document in the frame`).toBeUndefined();
        // Chromium says why on the parent's console: the frame-ancestors directive.
        expect(parent.errors.join('\n'), name).toMatch(/frame-ancestors/);
        parent.errors.length = 0;
      }),
    );

    // The same page, mounted by the allowed origin, shows (the refusals were the origin's doing).
    const parent = await mount(allowed, session.joinUrl, 'parent-control');
    await parent.page
      .frameLocator('iframe')
      .getByLabel(/Your name/)
      .waitFor();
    await poll(() => typesOf(parent.page)).toContain('pollkit:ready');
    pages.expectNoErrors();
  });

  it('posts only to the parent’s real origin, whatever ?embedOrigin= says', async () => {
    // A frame of its own (the helper would set `embedOrigin` to the parent's origin), whose address
    // names another origin; Chromium's location.ancestorOrigins names the real one.
    const session = await embeddableSession([allowed.origin]);
    const parent = await pages.open('parent-forged', LAPTOP);
    const p = parent.page;
    await recordPosts(p);
    const forged = `${session.joinUrl}?embedOrigin=${encodeURIComponent('http://evil.localhost')}`;
    await p.goto(`${allowed.origin}/raw.html?url=${encodeURIComponent(forged)}`);
    const messages = async () => (await p.evaluate('window.messages')) as { origin: string; data: EmbedEvent }[];
    await poll(async () => (await messages()).map((message) => message.data?.type)).toContain('pollkit:ready');
    const inFrame = pollkitFrame(p)!;
    expect(await inFrame.evaluate(`new URLSearchParams(location.search).get('embedOrigin')`)).toBe(
      'http://evil.localhost',
    );
    await p
      .frameLocator('iframe')
      .getByLabel(/Your name/)
      .fill('Linus');
    await p.frameLocator('iframe').getByRole('button', { name: 'Join' }).click();
    await p.frameLocator('iframe').getByTestId('waiting').waitFor();
    await control(session, 'start');
    await p.frameLocator('iframe').locator('[data-slide-id=intro]').waitFor();
    await poll(async () => (await messages()).map((message) => message.data?.type)).toContain('pollkit:slide');
    // What the parent heard came from the server's origin.
    for (const message of await messages()) expect(message.origin).toBe(t.url);
    // Every post the page made named the parent's real origin: never the forged one, never `*`.
    const posts = (await inFrame.evaluate('window.__pollkitPosts')) as { type: string; to: string }[];
    expect(posts.length).toBeGreaterThan(0);
    expect(new Set(posts.map((post) => post.to))).toEqual(new Set([allowed.origin]));
    pages.expectNoErrors();
  });

  it('passes on only well-formed messages from its own frame', async () => {
    const session = await embeddableSession([allowed.origin]);
    const parent = await mount(allowed, session.joinUrl, 'parent-filter');
    const p = parent.page;
    await poll(() => typesOf(p)).toContain('pollkit:ready');
    await p
      .frameLocator('iframe')
      .getByLabel(/Your name/)
      .waitFor();
    const inFrame = pollkitFrame(p)!;

    // From the parent itself: not the frame.
    await p.evaluate(`window.postMessage({ type: 'pollkit:ended', sessionId: 'ses_forged_by_parent' }, '*')`);
    // From another frame of the server's origin (a stylesheet: no frame-ancestors): not the helper's frame.
    await p.evaluate((href) => {
      // Runs in the page: this project has no DOM types (lib ES2023), so its globals are `any`.
      const { document } = globalThis as any;
      const other = document.createElement('iframe');
      other.src = href;
      other.id = 'other';
      document.body.appendChild(other);
      return new Promise((done) => other.addEventListener('load', done, { once: true }));
    }, `${t.url}/assets/join.css`);
    const otherFrame = p.frames().find((frame) => frame.url().startsWith(`${t.url}/assets/`));
    expect(otherFrame, 'a second frame of the server’s origin').toBeDefined();
    await otherFrame!.evaluate(
      `parent.postMessage({ type: 'pollkit:ended', sessionId: 'ses_forged_by_sibling' }, '*')`,
    );
    // From the frame, malformed.
    await inFrame.evaluate(() => {
      // Runs in the page: this project has no DOM types (lib ES2023), so its globals are `any`.
      const { parent } = globalThis as any;
      for (const message of [
        { type: 'pollkit:resize', sessionId: null, height: -5 },
        { type: 'pollkit:resize', sessionId: null, height: 'abc' },
        { type: 'pollkit:resize', sessionId: null, height: 12.5 },
        { type: 'pollkit:resize', sessionId: null, height: 1e9 },
        { type: 'pollkit:resize', sessionId: null },
        { type: 'pollkit:ended', sessionId: 42 },
        { type: 'pollkit:unknown', sessionId: null },
        'pollkit:ended',
        null,
      ]) {
        parent.postMessage(message, '*');
      }
      // Then a well-formed one: what came before it has been delivered (or not) by the time it arrives.
      parent.postMessage({ type: 'pollkit:resize', sessionId: null, height: 321 }, '*');
    });
    await poll(async () => (await eventsOf(p)).some((event) => event.height === 321)).toBe(true);
    const events = await eventsOf(p);
    expect(JSON.stringify(events)).not.toContain('forged');
    expect(events.filter((event) => event.type === 'pollkit:ended')).toEqual([]);
    expect(events.filter((event) => event.type === 'pollkit:unknown')).toEqual([]);
    for (const event of events.filter((event) => event.type === 'pollkit:resize')) {
      expect(Number.isInteger(event.height) && (event.height as number) > 0, JSON.stringify(event)).toBe(true);
    }
    // The well-formed one sized the frame; none of the others did.
    const heights = (await p.evaluate('window.heights')) as { reported: number; frame: string }[];
    expect(heights).toContainEqual({ reported: 321, frame: '321px' });
    expect(heights.every(({ reported, frame }) => reported > 0 && frame === `${reported}px`)).toBe(true);
    pages.expectNoErrors();
  });

  it('embeds the presenter screen: ready as "present", then each slide', async () => {
    const session = await embeddableSession([allowed.origin]);
    const parent = await mount(allowed, session.presenterUrl, 'parent-presenter');
    const p = parent.page;
    await poll(() => typesOf(p), 'pollkit:ready').toContain('pollkit:ready');
    expect((await eventsOf(p)).find((event) => event.type === 'pollkit:ready')).toMatchObject({
      type: 'pollkit:ready',
      page: 'present',
    });
    await p.frameLocator('iframe').getByTestId('waiting').waitFor();
    await control(session, 'start');
    await poll(async () => (await eventsOf(p)).filter((event) => event.type === 'pollkit:slide')).toEqual([
      { type: 'pollkit:slide', sessionId: session.sessionId, slideId: 'intro', slideIndex: 0 },
    ]);
    await control(session, 'next');
    await poll(async () => (await eventsOf(p)).filter((event) => event.type === 'pollkit:slide').length).toBe(2);
    expect((await eventsOf(p)).filter((event) => event.type === 'pollkit:slide')[1]).toEqual({
      type: 'pollkit:slide',
      sessionId: session.sessionId,
      slideId: 'lunch',
      slideIndex: 1,
    });
    await control(session, 'end');
    await poll(() => typesOf(p), 'pollkit:ended').toContain('pollkit:ended');
    expect(JSON.stringify(await eventsOf(p))).not.toContain(session.hostToken);
    await parent.screenshot('embedding-presenter');
    pages.expectNoErrors();
  });
});

/**
 * Records, inside every Pollkit frame of the page's context, each message the page posts to its
 * parent and the target origin it names (`parent` is a replaceable attribute of the window).
 */
async function recordPosts(page: Page): Promise<void> {
  await page.context().addInitScript(() => {
    // Runs in the page: this project has no DOM types (lib ES2023), so its globals are `any`.
    const window = globalThis as any;
    if (window.top === window || !window.location.pathname.startsWith('/join')) return;
    const real = window.parent;
    const posts: { type: unknown; to: string }[] = [];
    window.__pollkitPosts = posts;
    Object.defineProperty(window, 'parent', {
      configurable: true,
      value: {
        postMessage(message: { type?: unknown }, to: string) {
          posts.push({ type: message?.type, to });
          real.postMessage(message, to);
        },
      },
    });
  });
}

/** The participant's stored token (JSON) in a frame's local storage, or null. */
function storedToken(frame: Frame, pin: string): Promise<string | null> {
  return frame.evaluate(
    // Runs in the page: this project has no DOM types (lib ES2023), so its globals are `any`.
    (key) => (globalThis as any).localStorage.getItem(key) as string | null,
    `pollkit.participant.${pin}`,
  );
}

/**
 * Chromium as support/browser.ts launches it, but with third-party storage partitioning on, as in
 * Chrome: playwright-core turns `ThirdPartyStoragePartitioning` off (its `--disable-features`), and
 * its contexts, like incognito windows, block third-party cookies, so a cross-site frame would get
 * no storage at all (`localStorage` throws "Access is denied for this document"). The switch's last
 * value wins: this one repeats playwright-core 1.65's list without that feature (those that stop
 * background requests to Google's hosts among them).
 */
function launchPartitioningChromium(): Promise<Browser> {
  const disabledFeatures = [
    'AvoidUnnecessaryBeforeUnloadCheckSync',
    'DestroyProfileOnBrowserClose',
    'HttpsUpgrades',
    'HttpsFirstBalancedModeAutoEnable',
    'LensOverlay',
    'MediaRouter',
    'PaintHolding',
    'AvoidCorsURLLoaderRestartOnRedirect',
    'OptimizationHints',
    'NetworkTimeServiceQuerying',
    'AimEnabled',
    'PreconnectToSearch',
  ];
  return launchChromium([`--disable-features=${disabledFeatures.join(',')}`]);
}

/**
 * The height of what the page in `frame` shows: its document's height with the body's
 * `min-height: 100vh` lifted for a moment (inside a frame, 100vh is the frame's own height).
 */
function contentHeight(frame: Frame): Promise<number> {
  return frame.evaluate(() => {
    // Runs in the page: this project has no DOM types (lib ES2023), so its globals are `any`.
    const { document } = globalThis as any;
    document.body.style.minHeight = '0';
    const height = document.documentElement.getBoundingClientRect().height as number;
    document.body.style.minHeight = '';
    return height;
  });
}
