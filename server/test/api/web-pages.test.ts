import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerErrorHandlers } from '../../src/http/errors.js';
import { registerWebPages } from '../../src/http/web-pages.js';
import { startTestServer, type TestServer } from '../support/server.js';

/**
 * How the server serves the audience and presenter pages (http/web-pages.ts), over real HTTP: the
 * HTML revalidated on every load, the assets cached for a year under their content hash, gzip, the
 * security headers, and errors in the envelope. What the pages do is live-pages.*.browser.test.ts's.
 */

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t.close();
});

async function get(path: string, headers: Record<string, string> = {}) {
  const response = await fetch(`${t.url}${path}`, { headers });
  return { response, text: await response.text() };
}

function assetUrls(html: string): string[] {
  return [...html.matchAll(/(?:href|src)="(\/assets\/[^"]+)"/g)].map((match) => match[1] as string);
}

describe('the pages', () => {
  it.each(['/join', '/join/123456', '/join/not-a-pin', '/present/ses_01AAAAAAAAAAAAAAAAAAAAAAAA'])(
    'serves %s as HTML that loads only this server’s script and stylesheet',
    async (path) => {
      const { response, text } = await get(path);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(response.headers.get('cache-control')).toBe('no-cache');
      const csp = response.headers.get('content-security-policy') ?? '';
      expect(csp).toContain("script-src 'self'");
      expect(csp).toContain("connect-src 'self'");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(response.headers.get('x-frame-options')).toBe('DENY');
      expect(response.headers.get('referrer-policy')).toBe('no-referrer');
      const page = path.startsWith('/present') ? 'present' : 'join';
      const urls = assetUrls(text);
      // Its stylesheet, the catalog of its language (English: no session names another), its script.
      expect(urls).toEqual([
        expect.stringMatching(new RegExp(`^/assets/${page}\\.css\\?v=[0-9a-f]{16}$`)),
        expect.stringMatching(new RegExp(`^/assets/messages-${page}-en\\.js\\?v=[0-9a-f]{16}$`)),
        expect.stringMatching(new RegExp(`^/assets/${page}\\.js\\?v=[0-9a-f]{16}$`)),
      ]);
      expect(text).toContain('<html lang="en" dir="ltr">');
      // No address outside this server anywhere in the page: it works on a LAN without internet.
      expect(text).not.toMatch(/https?:\/\//);
    },
  );

  it('answers 304 to a page revalidated with its ETag', async () => {
    const first = await get('/join');
    const etag = first.response.headers.get('etag') ?? '';
    expect(etag).toMatch(/^"[0-9a-f]{16}"$/);
    const again = await get('/join', { 'if-none-match': etag });
    expect(again.response.status).toBe(304);
    expect(again.text).toBe('');
  });

  it('serves each asset immutable under its current hash, revalidated under any other address, gzipped when asked', async () => {
    const { text } = await get('/present/ses_01AAAAAAAAAAAAAAAAAAAAAAAA');
    for (const url of assetUrls(text)) {
      const hashed = await fetch(`${t.url}${url}`, { headers: { 'accept-encoding': 'gzip' } });
      expect(hashed.status).toBe(200);
      expect(hashed.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(hashed.headers.get('content-encoding')).toBe('gzip');
      expect(hashed.headers.get('vary')).toBe('accept-encoding');
      expect(hashed.headers.get('content-type')).toMatch(url.includes('.js') ? /^text\/javascript/ : /^text\/css/);
      const body = await hashed.text();
      expect(body.length).toBeGreaterThan(1000);

      const bare = url.replace(/\?.*$/, '');
      const unversioned = await fetch(`${t.url}${bare}`);
      expect(unversioned.headers.get('cache-control')).toBe('no-cache');
      expect(await unversioned.text()).toBe(body);
      const stale = await fetch(`${t.url}${bare}?v=0000000000000000`);
      expect(stale.headers.get('cache-control')).toBe('no-cache');
      const notModified = await fetch(`${t.url}${url}`, { headers: { 'if-none-match': hashed.headers.get('etag')! } });
      expect(notModified.status).toBe(304);
    }
  });

  it('keeps the script free of zod: the pages call the API through @pollkit/sdk/live', async () => {
    const { text } = await get('/join');
    const script = assetUrls(text).find((url) => url.startsWith('/assets/join.js'))!;
    const body = await (await fetch(`${t.url}${script}`)).text();
    expect(body).toContain('/live/{pin}/join');
    // zod's error map names its issue codes; the route table does not.
    expect(body).not.toContain('invalid_union');
  });

  it('serves the pages and their files Brotli-compressed to a browser that takes it, the same bytes', async () => {
    const { text } = await get('/join');
    const page = await fetch(`${t.url}/join`, { headers: { 'accept-encoding': 'br' } });
    expect(page.headers.get('content-encoding')).toBe('br');
    expect(await page.text()).toBe(text);
    const script = assetUrls(text).find((url) => url.startsWith('/assets/join.js'))!;
    const plain = await (await fetch(`${t.url}${script}`, { headers: { 'accept-encoding': 'identity' } })).text();
    // The file's Brotli copy is made in the background on first use: gzip until then.
    await expect
      .poll(async () =>
        (await fetch(`${t.url}${script}`, { headers: { 'accept-encoding': 'br' } })).headers.get('content-encoding'),
      )
      .toBe('br');
    const compressed = await fetch(`${t.url}${script}`, { headers: { 'accept-encoding': 'gzip, deflate, br' } });
    expect(compressed.headers.get('content-encoding')).toBe('br');
    expect(await compressed.text()).toBe(plain);
  });

  it.each(['/assets/nope.js', '/assets/..%2Fpackage.json', '/assets/join.exe', '/assets/.sources'])(
    'answers %s with a 404 in the envelope',
    async (path) => {
      const { response, text } = await get(path);
      expect(response.status).toBe(404);
      expect(JSON.parse(text).error.code).toBe('not_found');
    },
  );

  it('answers another method on a page with a 405 in the envelope', async () => {
    const response = await fetch(`${t.url}/join/123456`, { method: 'POST', body: '{}' });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET, HEAD');
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('method_not_allowed');
  });
});

describe('a server whose pages were not built', () => {
  it('answers the pages with 503 in the envelope, saying how to build them, and serves the API as usual', async () => {
    const empty = await mkdtemp(join(tmpdir(), 'pollkit-web-'));
    await writeFile(join(empty, 'join.js'), 'only one file of four');
    const warnings: string[] = [];
    const app = Fastify({ logger: false });
    app.log.warn = ((object: unknown, message?: string) => warnings.push(message ?? String(object))) as never;
    registerErrorHandlers(app);
    registerWebPages(app, { dir: empty });
    try {
      const page = await app.inject({ method: 'GET', url: '/join' });
      expect(page.statusCode).toBe(503);
      expect(page.json().error.code).toBe('service_unavailable');
      expect(page.json().error.message).toContain('pnpm@10 install');
      expect(warnings.join('\n')).toContain('not built');
    } finally {
      await app.close();
      await rm(empty, { recursive: true, force: true });
    }
  });
});
