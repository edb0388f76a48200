import { mkdtemp } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { supportedLanguages } from '@pollkit/contracts';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../support/assertions.js';
import { ManualClock } from '../support/clock.js';
import { sampleContent } from '../support/decks.js';
import { rawCall } from '../support/http.js';
import { UNLIMITED_PER_ADDRESS } from '../support/limits.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { type BodyOf, errorDetails, expectOk, expectStatus, testClient } from '../support/test-client.js';

/**
 * Issue 37: the pages' language, theme and framing, as the API sets them and as the pages are
 * served (`<html lang dir>`, the theme's inline style and its CSP hash, `frame-ancestors`).
 * The browser side (catalogs, RTL, themes drawn, framing) is in pages-i18n.*.browser.test.ts.
 */

let t: TestServer;
const api = testClient(() => t.api);
let imageHost: Server;
let imageBase: string;

beforeAll(async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'pollkit-themes-'));
  imageHost = createServer(async (req, res) => {
    if (!req.url?.endsWith('.png')) {
      res.writeHead(404).end();
      return;
    }
    const png = await sharp({ create: { width: 120, height: 40, channels: 3, background: '#1d4ed8' } })
      .png()
      .toBuffer();
    res.writeHead(200, { 'content-type': 'image/png', 'content-length': png.length }).end(png);
  });
  await new Promise<void>((resolve) => imageHost.listen(0, '127.0.0.1', resolve));
  imageBase = `http://127.0.0.1:${(imageHost.address() as AddressInfo).port}`;
  t = await startTestServer({
    // With a shared Redis, every test file's PIN misses from 127.0.0.1 count against one budget:
    // this server's pages must not fall back to the defaults because other files guessed PINs.
    // The budget itself is tested on a server of its own below.
    ...UNLIMITED_PER_ADDRESS,
    MEDIA_ALLOW_LOOPBACK: 'true',
    DATA_DIR: dataDir,
  });
});
afterAll(async () => {
  await t?.close();
  await new Promise((resolve) => imageHost?.close(resolve));
});

const goodColors = { primary: '#1D4ED8', background: '#ffffff', text: '#111827' };

async function publishedPoll(apiKey: string, extra: Record<string, unknown> = {}) {
  const created = await api.request('POST /polls', {
    apiKey,
    body: { title: 'Lunch', content: sampleContent(), ...extra },
  });
  expectStatus(created, 201);
  const published = await api.request('PATCH /polls/{id}', {
    params: { id: created.body.id },
    apiKey,
    body: { publish: true },
  });
  expectStatus(published, 200);
  return published.body;
}

async function session(apiKey: string, body: BodyOf<'POST /sessions'>) {
  const res = await api.request('POST /sessions', { apiKey, body });
  expectStatus(res, 201);
  return res.body;
}

async function theme(apiKey: string, body: Record<string, unknown> = {}) {
  const res = await api.request('POST /themes', { apiKey, body: { name: 'Brand', colors: goodColors, ...body } });
  expectStatus(res, 201);
  return res.body;
}

/** The page as served: its status, headers, `<html>` attributes and the JSON block its script reads. */
async function page(path: string, headers: Record<string, string> = {}) {
  const res = await fetch(`${t.url}${path}`, { headers });
  const html = await res.text();
  const htmlTag = /<html lang="([^"]+)" dir="(ltr|rtl)">/.exec(html);
  const json = /<script type="application\/json" id="pollkit-page">(.*?)<\/script>/s.exec(html)?.[1];
  const style = /<style>(.*?)<\/style>/s.exec(html)?.[1];
  return {
    status: res.status,
    csp: res.headers.get('content-security-policy') ?? '',
    frameOptions: res.headers.get('x-frame-options'),
    lang: htmlTag?.[1],
    dir: htmlTag?.[2],
    config: json ? JSON.parse(json) : undefined,
    style,
    html,
  };
}

describe('languages', () => {
  it('canonicalises tags on polls and sessions, and defaults a poll to the workspace’s language', async () => {
    const { apiKey } = await t.workspace();
    const plain = await api.request('POST /polls', { apiKey, body: { title: 'A' } });
    expectStatus(plain, 201);
    expect(plain.body.language).toBe('en');

    const patched = await api.request('PATCH /workspace', { apiKey, body: { language: 'DE-at' } });
    expectStatus(patched, 200);
    expect(patched.body.language).toBe('de');
    expect(expectOk(await api.request('POST /polls', { apiKey, body: { title: 'B' } })).language).toBe('de');

    for (const [sent, stored] of [
      ['pt', 'pt-BR'],
      ['zh', 'zh-Hans'],
      ['zh-CN', 'zh-Hans'],
      ['he-IL', 'he'],
      ['AR', 'ar'],
    ]) {
      const res = await api.request('POST /polls', { apiKey, body: { title: 'C', language: sent } });
      expectStatus(res, 201);
      expect(res.body.language).toBe(stored);
    }

    const poll = await publishedPoll(apiKey, { language: 'fr' });
    const live = await session(apiKey, { pollId: poll.id, language: 'es-MX' });
    expect(live.language).toBe('es');
    const inherit = await api.request('PATCH /sessions/{id}', {
      params: { id: live.id },
      apiKey,
      body: { language: null },
    });
    expectStatus(inherit, 200);
    expect(inherit.body.language).toBeNull();
  });

  it('refuses an unsupported language with 422 naming the supported ones, and changes nothing', async () => {
    const { apiKey } = await t.workspace();
    for (const language of ['zh-TW', 'xx', 'klingon', '', 'de;drop table', 'e'.repeat(100)]) {
      const res = await api.request('POST /polls', { apiKey, body: { title: 'A', language } });
      expectError(res, 422, 'validation_failed');
      const messages = errorDetails(res).fieldErrors.language;
      expect(messages, JSON.stringify(res.body)).toBeDefined();
      if (language.length <= 64) expect(messages!.join(' ')).toContain(supportedLanguages.join(', '));
    }
    expect(expectOk(await api.request('GET /polls', { apiKey })).data).toEqual([]);
    const workspace = await api.request('PATCH /workspace', { apiKey, body: { language: 'tlh' } });
    expectError(workspace, 422, 'validation_failed');
    expect(expectOk(await api.request('GET /workspace', { apiKey })).language).toBe('en');
  });
});

describe('themes', () => {
  it('creates, lists, reads, updates and deletes a theme, with its logo re-hosted as WebP', async () => {
    const { apiKey } = await t.workspace();
    const created = await theme(apiKey, { logo: { url: `${imageBase}/logo.png`, alt: 'Acme' }, font: 'rounded' });
    expect(created).toMatchObject({
      id: expect.stringMatching(/^thm_/),
      name: 'Brand',
      colors: { primary: '#1d4ed8', background: '#ffffff', text: '#111827' },
      font: 'rounded',
      logo: { alt: 'Acme', width: 120, height: 40, sourceUrl: `${imageBase}/logo.png` },
    });
    const logo = await fetch(created.logo!.url);
    expect(logo.headers.get('content-type')).toBe('image/webp');

    const list = await api.request('GET /themes', { apiKey });
    expect(list.body).toEqual({ data: [created], nextCursor: null });
    expect((await api.request('GET /themes/{id}', { params: { id: created.id }, apiKey })).body).toEqual(created);

    const renamed = await api.request('PATCH /themes/{id}', {
      params: { id: created.id },
      apiKey,
      body: { name: 'Dark', colors: { primary: '#60a5fa', background: '#101418', text: '#f0f0f0' }, logo: null },
    });
    expectStatus(renamed, 200);
    expect(renamed.body).toMatchObject({ name: 'Dark', logo: null, font: 'rounded' });

    const deleted = await api.request('DELETE /themes/{id}', { params: { id: created.id }, apiKey });
    expect(deleted.body).toEqual({ id: created.id, deleted: true });
    expectError(await api.request('GET /themes/{id}', { params: { id: created.id }, apiKey }), 404, 'not_found');
  });

  it('refuses colours below WCAG 2.2 AA, naming the field and the contrast, and stores nothing', async () => {
    const { apiKey } = await t.workspace();
    const grey = await api.request('POST /themes', {
      apiKey,
      body: { name: 'Grey', colors: { primary: '#1d4ed8', background: '#ffffff', text: '#999999' } },
    });
    expectError(grey, 422, 'validation_failed');
    expect(errorDetails(grey).fieldErrors['colors.text']![0]).toMatch(/2\.8\d:1.*4\.5:1/);

    const pale = await api.request('POST /themes', {
      apiKey,
      body: { name: 'Pale', colors: { primary: '#dddddd', background: '#ffffff', text: '#111111' } },
    });
    expectError(pale, 422, 'validation_failed');
    expect(errorDetails(pale).fieldErrors['colors.primary']![0]).toMatch(/:1/);

    const malformed = await api.request('POST /themes', {
      apiKey,
      body: { name: 'Bad', colors: { primary: 'red', background: '#fff', text: 'url(x)' } },
    });
    expectError(malformed, 422, 'validation_failed');
    expect(expectOk(await api.request('GET /themes', { apiKey })).data).toEqual([]);
  });

  it('puts polls, sessions and the workspace back on the default when their theme is deleted', async () => {
    const { apiKey } = await t.workspace();
    const brand = await theme(apiKey);
    const poll = await publishedPoll(apiKey, { themeId: brand.id });
    const live = await session(apiKey, { pollId: poll.id, themeId: brand.id });
    await api.request('PATCH /workspace', { apiKey, body: { themeId: brand.id } });
    // Read once, so the poll is cached: the deletion must reach the cached copy too.
    expect(expectOk(await api.request('GET /polls/{id}', { params: { id: poll.id }, apiKey })).themeId).toBe(brand.id);

    await api.request('DELETE /themes/{id}', { params: { id: brand.id }, apiKey });
    expect(expectOk(await api.request('GET /polls/{id}', { params: { id: poll.id }, apiKey })).themeId).toBeNull();
    expect(expectOk(await api.request('GET /sessions/{id}', { params: { id: live.id }, apiKey })).themeId).toBeNull();
    expect(expectOk(await api.request('GET /workspace', { apiKey })).themeId).toBeNull();
  });
});

describe('a theme deleted while a write names it', () => {
  it('ends with the poll on the default and never a 5xx, whichever commits first', async () => {
    const { apiKey } = await t.workspace();
    const poll = await publishedPoll(apiKey);
    const outcomes = new Set<number>();
    for (let round = 0; round < 12; round++) {
      const doomed = await theme(apiKey);
      const [patched, deleted] = await Promise.all([
        api.request('PATCH /polls/{id}', { params: { id: poll.id }, apiKey, body: { themeId: doomed.id } }),
        api.request('DELETE /themes/{id}', { params: { id: doomed.id }, apiKey }),
      ]);
      expectStatus(deleted, 200);
      // Named before the deletion (then set back to null by it), or refused after it: a 422 on themeId.
      expect([200, 422], patched.text).toContain(patched.status);
      if (patched.status === 422) expect(errorDetails(patched).fieldErrors.themeId).toBeDefined();
      outcomes.add(patched.status);
      expect(expectOk(await api.request('GET /polls/{id}', { params: { id: poll.id }, apiKey })).themeId).toBeNull();
    }
    expect(outcomes.size).toBeGreaterThan(0);
  });
});

describe('another workspace’s theme, and narrow credentials', () => {
  it('cannot be named, read, changed or deleted from another workspace', async () => {
    const owner = await t.workspace();
    const other = await t.workspace();
    const theirs = await theme(owner.apiKey);
    const poll = await publishedPoll(other.apiKey);
    const live = await session(other.apiKey, { pollId: poll.id });

    const attempts = [
      api.request('POST /polls', { apiKey: other.apiKey, body: { title: 'X', themeId: theirs.id } }),
      api.request('PATCH /polls/{id}', { params: { id: poll.id }, apiKey: other.apiKey, body: { themeId: theirs.id } }),
      api.request('POST /sessions', { apiKey: other.apiKey, body: { pollId: poll.id, themeId: theirs.id } }),
      api.request('PATCH /sessions/{id}', {
        params: { id: live.id },
        apiKey: other.apiKey,
        body: { themeId: theirs.id },
      }),
      api.request('PATCH /workspace', { apiKey: other.apiKey, body: { themeId: theirs.id } }),
      // The host token acts for its session, inside the session's workspace.
      api.request('PATCH /sessions/{id}', {
        params: { id: live.id },
        headers: { 'x-host-token': live.hostToken },
        body: { themeId: theirs.id },
      }),
    ];
    for (const res of await Promise.all(attempts)) {
      expectError(res, 422, 'validation_failed');
      expect(errorDetails(res).fieldErrors.themeId).toBeDefined();
    }
    for (const [method, body] of [
      ['GET', undefined],
      ['PATCH', { name: 'Mine now' }],
      ['DELETE', undefined],
    ] as const) {
      expectError(
        await rawCall(method, `${t.api}/themes/${theirs.id}`, { apiKey: other.apiKey, body }),
        404,
        'not_found',
      );
    }
    expect(
      expectOk(await api.request('GET /themes/{id}', { params: { id: theirs.id }, apiKey: owner.apiKey })).name,
    ).toBe('Brand');
    expect(
      expectOk(await api.request('GET /polls/{id}', { params: { id: poll.id }, apiKey: other.apiKey })).themeId,
    ).toBeNull();
  });

  it('needs polls:write to write themes and workspace:write to change the workspace', async () => {
    const { apiKey } = await t.workspace();
    const reader = await api.request('POST /keys', { apiKey, body: { name: 'read', scopes: ['polls:read'] } });
    expectStatus(reader, 201);
    const readKey = reader.body.secret;
    expectError(
      await api.request('POST /themes', { apiKey: readKey, body: { name: 'x', colors: goodColors } }),
      403,
      'insufficient_scope',
    );
    expect((await api.request('GET /themes', { apiKey: readKey })).status).toBe(200);
    const patch = await api.request('PATCH /workspace', {
      apiKey: readKey,
      body: { embedOrigins: ['https://evil.example'] },
    });
    expectError(patch, 403, 'insufficient_scope');
    expect(expectOk(await api.request('GET /workspace', { apiKey: readKey })).embedOrigins).toEqual([]);
  });
});

describe('embedding origins', () => {
  it('keeps exact origins, canonicalised, and refuses anything else', async () => {
    const { apiKey } = await t.workspace();
    const ok = await api.request('PATCH /workspace', {
      apiKey,
      body: {
        embedOrigins: [
          'HTTPS://Events.Example.com:443/',
          'https://lms.example.org:8443',
          'http://localhost:5173',
          'http://127.0.0.1',
        ],
      },
    });
    expectStatus(ok, 200);
    expect(ok.body.embedOrigins).toEqual([
      'https://events.example.com',
      'https://lms.example.org:8443',
      'http://localhost:5173',
      'http://127.0.0.1',
    ]);
    for (const origin of [
      '*',
      'https://*.example.com',
      'http://example.com',
      'https://example.com/path',
      'https://user:pw@example.com',
      'javascript:alert(1)',
      'https://example.com?x=1',
      "https://example.com; script-src 'unsafe-inline'",
      'example.com',
      'data:text/html,hi',
    ]) {
      const res = await api.request('PATCH /workspace', { apiKey, body: { embedOrigins: [origin] } });
      expectError(res, 422, 'validation_failed');
    }
    expect(expectOk(await api.request('GET /workspace', { apiKey })).embedOrigins).toHaveLength(4);
    const cleared = await api.request('PATCH /workspace', { apiKey, body: { embedOrigins: [] } });
    expectStatus(cleared, 200);
    expect(cleared.body.embedOrigins).toEqual([]);
  });
});

describe('the pages as served', () => {
  it('writes the session’s language and direction, and lets ?lang= pick another (an unknown one is ignored)', async () => {
    const { apiKey } = await t.workspace();
    const poll = await publishedPoll(apiKey, { language: 'ar' });
    const live = await session(apiKey, { pollId: poll.id });

    const arabic = await page(`/join/${live.pin}`);
    expect([arabic.status, arabic.lang, arabic.dir]).toEqual([200, 'ar', 'rtl']);
    expect(arabic.config).toMatchObject({
      language: 'ar',
      catalog: expect.stringMatching(/^\/assets\/messages-join-ar\.js/),
    });
    expect(arabic.html).toContain(`<link rel="modulepreload" href="${arabic.config.catalog}">`);

    expect((await page(`/join/${live.pin}?lang=DE-ch`)).lang).toBe('de');
    expect((await page(`/join/${live.pin}?lang=nope`)).lang).toBe('ar');
    const presenter = await page(`/present/${live.id}`);
    expect([presenter.lang, presenter.dir]).toEqual(['ar', 'rtl']);

    await api.request('PATCH /sessions/{id}', { params: { id: live.id }, apiKey, body: { language: 'ja' } });
    await expect.poll(async () => (await page(`/join/${live.pin}`)).lang, { timeout: 5_000 }).toBe('ja');
  });

  it('serves a page that names no session in the browser’s language, else English, framed by no one', async () => {
    const bare = await page('/join', { 'accept-language': 'xx, fr-CA;q=0.8, en;q=0.5' });
    expect([bare.lang, bare.dir]).toEqual(['fr', 'ltr']);
    expect((await page('/join')).lang).toBe('en');
    const unknown = await page('/join/000000');
    expect(unknown.lang).toBe('en');
    expect(unknown.csp).toContain("frame-ancestors 'none'");
    expect(unknown.frameOptions).toBe('DENY');
  });

  it('carries the theme as an inline style allowed by its hash, and its logo in the page’s JSON, escaped', async () => {
    const { apiKey } = await t.workspace();
    const brand = await theme(apiKey, {
      logo: { url: `${imageBase}/logo.png`, alt: '</script><script>alert(1)</script>' },
    });
    const poll = await publishedPoll(apiKey, { themeId: brand.id });
    const live = await session(apiKey, { pollId: poll.id });
    const themed = await page(`/join/${live.pin}`);
    expect(themed.style).toContain('--accent:');
    const hash = (await import('node:crypto'))
      .createHash('sha256')
      .update(themed.style ?? '')
      .digest('base64');
    expect(themed.csp).toContain(`style-src 'self' 'sha256-${hash}'`);
    expect(themed.csp).not.toContain('unsafe-inline');
    expect(themed.html).not.toContain('</script><script>alert(1)');
    expect(themed.config.logo).toMatchObject({ alt: '</script><script>alert(1)</script>', url: brand.logo!.url });

    // The workspace's theme where the poll names none; the session's over the poll's.
    const second = await theme(apiKey, { colors: { primary: '#60a5fa', background: '#101418', text: '#f0f0f0' } });
    const plainPoll = await publishedPoll(apiKey);
    const plain = await session(apiKey, { pollId: plainPoll.id });
    expect((await page(`/join/${plain.pin}`)).style).toBeUndefined();
    await api.request('PATCH /workspace', { apiKey, body: { themeId: second.id } });
    await expect
      .poll(async () => (await page(`/join/${plain.pin}`)).style, { timeout: 5_000 })
      .toContain('color-scheme:dark');
    const overridden = await session(apiKey, { pollId: poll.id, themeId: second.id });
    expect((await page(`/join/${overridden.pin}`)).style).toContain('color-scheme:dark');
  });

  it('lets only the workspace’s origins frame its pages, and no one frame the rest', async () => {
    const { apiKey } = await t.workspace();
    await api.request('PATCH /workspace', {
      apiKey,
      body: { embedOrigins: ['https://events.example.com', 'http://localhost:5173'] },
    });
    const poll = await publishedPoll(apiKey);
    const live = await session(apiKey, { pollId: poll.id });
    const selfPaced = await session(apiKey, { pollId: poll.id, pace: 'audience' });
    const linkId = new URL(selfPaced.joinUrl).pathname.split('/').pop();
    for (const path of [`/join/${live.pin}`, `/join/${linkId}`, `/present/${live.id}`]) {
      const framed = await page(path);
      expect(framed.csp, path).toContain("frame-ancestors 'self' https://events.example.com http://localhost:5173");
      expect(framed.frameOptions, path).toBeNull();
      expect(framed.config.embedOrigins).toEqual(['https://events.example.com', 'http://localhost:5173']);
    }
    for (const path of ['/join', '/docs']) {
      const closed = await fetch(`${t.url}${path}`);
      expect(closed.headers.get('content-security-policy'), path).toContain("frame-ancestors 'none'");
    }
    // Another workspace's session is not framable by these origins.
    const stranger = await t.workspace();
    const theirs = await session(stranger.apiKey, { pollId: (await publishedPoll(stranger.apiKey)).id });
    expect((await page(`/join/${theirs.pin}`)).csp).toContain("frame-ancestors 'none'");
  });

  // With a shared Redis every file's misses from 127.0.0.1 share the budget: tested on the embedded leg.
  it.skipIf(Boolean(process.env.TEST_REDIS_URL))(
    'budgets PIN lookups through pages as the join route does: over budget, every PIN gets the defaults',
    async () => {
      const main = t;
      // The budget is a clock-aligned minute: on a clock that stands still, the 45 misses cannot
      // straddle two minutes and find the budget renewed (they did once, on CI's embedded leg).
      t = await startTestServer({ LIVE_PIN_MISSES_PER_IP_PER_MINUTE: '40' }, { clock: new ManualClock() });
      try {
        const { apiKey } = await t.workspace();
        const poll = await publishedPoll(apiKey, { language: 'de' });
        const live = await session(apiKey, { pollId: poll.id });
        expect((await page(`/join/${live.pin}`)).lang).toBe('de');
        // Misses spend this address's budget (40 a minute on this server)…
        for (let n = 0; n < 45; n++) {
          const guess = String(100000 + n);
          if (guess !== live.pin) await page(`/join/${guess}`);
        }
        // …and then even the real PIN is served as an unknown one is: the page tells nothing.
        expect((await page(`/join/${live.pin}`)).lang).toBe('en');
        // So does the join route, which counts the same misses.
        const join = await api.request('POST /live/{pin}/join', { params: { pin: live.pin! }, body: { name: 'Ada' } });
        expectError(join, 429, 'rate_limited');
        // A join link (unguessable) is not budgeted.
        const selfPaced = await session(apiKey, { pollId: poll.id, pace: 'audience' });
        expect((await page(new URL(selfPaced.joinUrl).pathname)).lang).toBe('de');
      } finally {
        await t.close();
        t = main;
      }
    },
  );
});
