import { mkdtemp, rm } from 'node:fs/promises';
import { get as httpGet } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerApiReferencePage } from '../../src/http/api-reference-page.js';
import { registerErrorHandlers } from '../../src/http/errors.js';
import { startTestServer, type TestServer } from '../support/server.js';

/**
 * How the server serves the API reference at `/docs` (http/api-reference-page.ts), over real HTTP:
 * the page revalidated on every load under a CSP that allows only this server, Scalar's bundle
 * cached for a year under a path naming its version, gzip, HEAD, and errors in the envelope. What
 * the page does in a browser is api-reference.browser.test.ts's.
 */

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t.close();
});

async function get(path: string, init: RequestInit = {}) {
  const response = await fetch(`${t.url}${path}`, { redirect: 'manual', ...init });
  return { response, text: await response.text() };
}

function scriptUrls(html: string): string[] {
  return [...html.matchAll(/(?:href|src)="(\/docs\/assets\/[^"]+)"/g)].map((match) => match[1] as string);
}

function errorCode(text: string): string {
  const body = JSON.parse(text) as { error: { code: string; message: string } };
  expect(Object.keys(body)).toEqual(['error']);
  return body.error.code;
}

describe('the page', () => {
  it('is HTML, revalidated on every load, under a CSP that lets nothing in from elsewhere', async () => {
    const { response, text } = await get('/docs');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.headers.get('cache-control')).toBe('no-cache');
    const csp = (response.headers.get('content-security-policy') ?? '').split(/;\s*/);
    expect(csp).toEqual(
      expect.arrayContaining([
        "default-src 'none'",
        "script-src 'self'",
        "style-src 'self' 'unsafe-inline'",
        "img-src 'self' data:",
        "font-src 'self'",
        "connect-src 'self'",
        "frame-ancestors 'none'",
      ]),
    );
    // No source outside this server in any directive.
    expect(csp.join(' ')).not.toMatch(/https?:|\*/);
    expect(response.headers.get('x-frame-options')).toBe('DENY');
    expect(response.headers.get('referrer-policy')).toBe('no-referrer');
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(text).toContain('<title>API reference · Pollkit</title>');
    expect(text).toContain('href="/api/v1/openapi.json"');
    // No address outside this server anywhere in the page.
    expect(text).not.toMatch(/https?:\/\//);
  });

  it('loads the start script under its content hash and preloads Scalar under its version', async () => {
    const { text } = await get('/docs');
    expect(scriptUrls(text)).toEqual([
      expect.stringMatching(/^\/docs\/assets\/scalar-\d+\.\d+\.\d+\/standalone\.esm\.js$/),
      expect.stringMatching(/^\/docs\/assets\/reference\.js\?v=[0-9a-f]{16}$/),
    ]);
  });

  it('answers 304 to a page revalidated with its ETag, and gzips it when asked', async () => {
    const first = await get('/docs', { headers: { 'accept-encoding': 'identity' } });
    const etag = first.response.headers.get('etag') ?? '';
    expect(etag).toMatch(/^"[0-9a-f]{16}"$/);
    const again = await get('/docs', { headers: { 'if-none-match': etag } });
    expect(again.response.status).toBe(304);
    expect(again.text).toBe('');

    const raw = await fetch(`${t.url}/docs`, { headers: { 'accept-encoding': 'gzip' } }).then(async (response) => ({
      encoding: response.headers.get('content-encoding'),
      vary: response.headers.get('vary'),
    }));
    expect(raw).toEqual({ encoding: 'gzip', vary: 'accept-encoding' });
  });

  it('answers HEAD with the headers of GET and no body', async () => {
    const { response, text } = await get('/docs', { method: 'HEAD' });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(text).toBe('');
  });

  it('sends /docs/ to /docs, keeping the query', async () => {
    const bare = await get('/docs/');
    expect(bare.response.status).toBe(301);
    expect(bare.response.headers.get('location')).toBe('/docs');
    const query = await get('/docs/?x=1');
    expect(query.response.headers.get('location')).toBe('/docs?x=1');
  });

  it('answers another method with a 405 in the envelope', async () => {
    const { response, text } = await get('/docs', { method: 'POST', body: '{}' });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET, HEAD');
    expect(errorCode(text)).toBe('method_not_allowed');
  });
});

describe('the assets', () => {
  it('serves the start script immutable under its hash, revalidated under any other address', async () => {
    const { text } = await get('/docs');
    const url = scriptUrls(text).find((path) => path.includes('reference.js')) as string;
    const hashed = await get(url);
    expect(hashed.response.status).toBe(200);
    expect(hashed.response.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(hashed.response.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    // It mounts Scalar with every call to its vendor off, and "try it" aimed at this origin.
    expect(hashed.text).toContain('withDefaultFonts: false');
    expect(hashed.text).toContain('telemetry: false');
    expect(hashed.text).not.toContain('proxyUrl:');
    expect(hashed.text).toContain('window.location.origin');

    for (const other of ['/docs/assets/reference.js', '/docs/assets/reference.js?v=0000000000000000']) {
      const unversioned = await get(other);
      expect(unversioned.response.headers.get('cache-control')).toBe('no-cache');
      expect(unversioned.text).toBe(hashed.text);
    }
    const etag = hashed.response.headers.get('etag') as string;
    expect((await get(url, { headers: { 'if-none-match': etag } })).response.status).toBe(304);
  });

  it('serves Scalar’s bundle and its chunks immutable and gzipped, each file it imports found', async () => {
    const { text } = await get('/docs');
    const entry = scriptUrls(text).find((path) => path.endsWith('standalone.esm.js')) as string;
    const response = await fetch(`${t.url}${entry}`, { headers: { 'accept-encoding': 'gzip' } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(response.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(response.headers.get('content-encoding')).toBe('gzip');
    expect(response.headers.get('vary')).toBe('accept-encoding');
    const body = await response.text();
    expect(body).toContain('createApiReference');

    // Every chunk the entry imports, statically or lazily, resolves next to it.
    const chunks = [...new Set([...body.matchAll(/["`]\.\/(chunks\/[^"`]+\.js)["`]/g)].map((match) => match[1]))];
    expect(chunks.length).toBeGreaterThan(5);
    const base = entry.slice(0, entry.lastIndexOf('/') + 1);
    for (const chunk of chunks) {
      const chunkResponse = await fetch(`${t.url}${base}${chunk}`, { method: 'HEAD' });
      expect(chunkResponse.status, chunk).toBe(200);
      expect(chunkResponse.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    }

    const etag = response.headers.get('etag') as string;
    expect(etag).toMatch(/^"[0-9a-f]{16}"$/);
    expect((await get(entry, { headers: { 'if-none-match': etag } })).response.status).toBe(304);
  });

  it('sends the same bytes with and without gzip', async () => {
    const { text } = await get('/docs');
    const url = `${t.url}${scriptUrls(text).find((path) => path.includes('reference.js'))}`;
    const plain = Buffer.from(await (await fetch(url, { headers: { 'accept-encoding': 'identity' } })).arrayBuffer());
    // fetch would decode the gzip itself: node:http hands over the bytes as sent.
    const gzipped = await new Promise<Buffer>((resolve, reject) => {
      httpGet(url, { headers: { 'accept-encoding': 'gzip' } }, (response) => {
        const parts: Buffer[] = [];
        response.on('data', (part: Buffer) => parts.push(part));
        response.on('end', () => resolve(Buffer.concat(parts)));
        response.on('error', reject);
      }).on('error', reject);
    });
    expect(gunzipSync(gzipped).equals(plain)).toBe(true);
  });

  it.each([
    '/docs/assets/nope.js',
    '/docs/assets/scalar-0.0.0/standalone.esm.js',
    '/docs/assets/scalar-VERSION/nope.js',
    '/docs/assets/scalar-VERSION/standalone.d.ts',
    '/docs/assets/scalar-VERSION/..%2Fpackage.json',
    '/docs/assets/scalar-VERSION/chunks/..%2F..%2Findex.js',
    '/docs/assets/scalar-VERSION/chunks/nope.js',
    '/docs/assets/scalar-VERSION/chunks/.hidden.js',
    '/docs/nope',
    '/docs/index.html',
  ])('answers %s with a 404 in the envelope', async (template) => {
    const { text } = await get('/docs');
    const version = /scalar-(\d+\.\d+\.\d+)/.exec(text)?.[1] as string;
    const { response, text: body } = await get(template.replace('VERSION', version));
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(errorCode(body)).toBe('not_found');
  });
});

describe('a server without Scalar’s package', () => {
  it('answers the page and its files with 503 in the envelope, saying how to install it, and logs why', async () => {
    const empty = await mkdtemp(join(tmpdir(), 'pollkit-scalar-'));
    const errors: string[] = [];
    const app = Fastify({ logger: false });
    app.log.error = ((_object: unknown, message?: string) => errors.push(message ?? '')) as never;
    registerErrorHandlers(app);
    registerApiReferencePage(app, { openApiPath: '/api/v1/openapi.json', scalarDist: empty });
    try {
      for (const url of ['/docs', '/docs/assets/reference.js', '/docs/assets/scalar-1.0.0/standalone.esm.js']) {
        const response = await app.inject({ method: 'GET', url });
        expect(response.statusCode, url).toBe(503);
        expect(response.json().error.code).toBe('service_unavailable');
        expect(response.json().error.message).toContain('pnpm@10 install');
      }
      expect(errors[0]).toContain('@scalar/api-reference');
    } finally {
      await app.close();
      await rm(empty, { recursive: true, force: true });
    }
  });
});
