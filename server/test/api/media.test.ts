import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import type { ErrorCode } from '@pollkit/contracts';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalDiskMediaStorage } from '../../src/infra/media-storage.js';
import { forbiddenAddressReason } from '../../src/infra/safe-fetch.js';
import { expectError } from '../support/assertions.js';
import { type HttpResponse, rawCall } from '../support/http.js';
import { startTestServer, type TestServer } from '../support/server.js';
import {
  type ApiResponse,
  type BodyOf,
  errorDetails,
  expectOk,
  expectStatus,
  testClient,
} from '../support/test-client.js';

/**
 * `POST /media` and `GET /media/files/{name}` through real HTTP, with a "third-party" image host on
 * 127.0.0.1 (the server runs with MEDIA_ALLOW_LOOPBACK=true; a second one without it checks that
 * loopback is refused by default).
 */

const MAX_BYTES = 256 * 1024;
const TIMEOUT_MS = 1500;

let t: TestServer;
const api = testClient(() => t.api);
let dataDir: string;
let host: ImageHost;
let fixtures: { png: Buffer; jpeg: Buffer; gif: Buffer; bomb: Buffer; big: Buffer };

interface ImageHost {
  url: string;
  server: Server;
  /** Paths requested, in order. */
  requests: string[];
  /** Bytes the endless route wrote before the client went away, and whether it did. */
  endless: { written: number; closed: Promise<void> };
}

type Route = (req: IncomingMessage, res: ServerResponse) => void;

function send(type: string, body: Buffer | string): Route {
  return (_req, res) => {
    res.writeHead(200, { 'content-type': type, 'content-length': Buffer.byteLength(body) });
    res.end(body);
  };
}

async function startImageHost(): Promise<ImageHost> {
  let closeEndless: () => void = () => {};
  const endless = {
    written: 0,
    closed: new Promise<void>((resolve) => {
      closeEndless = resolve;
    }),
  };
  const requests: string[] = [];
  const routes: Record<string, Route> = {
    '/photo.png': send('image/png', fixtures.png),
    '/photo.jpg': send('image/jpeg', fixtures.jpeg),
    '/anim.gif': send('image/gif', fixtures.gif),
    // Same bytes as /photo.png under another address.
    '/copy-of-photo.png': send('application/octet-stream', fixtures.png),
    // An image served with a misleading type is still an image: sharp decides.
    '/mislabelled': send('text/plain', fixtures.png),
    '/page.html': send('text/html; charset=utf-8', '<!doctype html><title>A page</title>'),
    '/notes.txt': send('text/plain', 'just some text, not an image'),
    '/fake.png': send('image/png', 'GIF89a but not really an image at all'),
    '/bomb.png': send('image/png', fixtures.bomb),
    '/declared-big': send('image/png', fixtures.big),
    '/not-found': (_req, res) => {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('nope');
    },
    '/to-private': (_req, res) => {
      res.writeHead(302, { location: 'http://10.0.0.1/photo.png' });
      res.end();
    },
    '/to-metadata': (_req, res) => {
      res.writeHead(301, { location: 'http://169.254.169.254/latest/meta-data/' });
      res.end();
    },
    '/to-file': (_req, res) => {
      res.writeHead(302, { location: 'file:///etc/passwd' });
      res.end();
    },
    '/endless': (req, res) => {
      // Streams forever, without a Content-Length: the client must cut it off.
      res.writeHead(200, { 'content-type': 'image/png' });
      const chunk = Buffer.alloc(16 * 1024, 7);
      const pump = () => {
        while (!res.destroyed) {
          endless.written += chunk.length;
          if (!res.write(chunk)) {
            res.once('drain', pump);
            return;
          }
        }
      };
      req.socket.on('close', () => closeEndless());
      pump();
    },
    '/slow-body': (req, res) => {
      res.writeHead(200, { 'content-type': 'image/png' });
      res.write(fixtures.png.subarray(0, 8));
      const timer = setInterval(() => res.write(Buffer.from([0])), 100);
      req.socket.on('close', () => clearInterval(timer));
    },
    '/slow-headers': (req, res) => {
      const timer = setTimeout(() => send('image/png', fixtures.png)(req, res), 60_000);
      req.socket.on('close', () => clearTimeout(timer));
    },
  };
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0] as string;
    requests.push(path);
    const hops = /^\/hops\/(\d+)$/.exec(path);
    if (hops) {
      // /hops/3 redirects three times, then serves the PNG.
      const left = Number(hops[1]);
      if (left === 0) return send('image/png', fixtures.png)(req, res);
      res.writeHead(302, { location: `/hops/${left - 1}` });
      return res.end();
    }
    const route = routes[path];
    if (route) return route(req, res);
    res.writeHead(404);
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, server, requests, endless };
}

/** A PNG whose header declares 20000×20000 pixels (400 megapixels) over a few bytes of data. */
function pixelBombPng(): Buffer {
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (bytes: Buffer) => {
    let c = 0xffffffff;
    for (const byte of bytes) c = (crcTable[(c ^ byte) & 0xff] as number) ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type: string, data: Buffer) => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const sum = Buffer.alloc(4);
    sum.writeUInt32BE(crc(body));
    return Buffer.concat([length, body, sum]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(20_000, 0);
  ihdr.writeUInt32BE(20_000, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 0; // greyscale
  // A few rows of zeros: a real bomb would carry 400 MB of them, compressed to about 400 KB.
  const idat = deflateSync(Buffer.alloc(20_001 * 16));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', idat),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

async function makeFixtures() {
  const red = { width: 40, height: 30, channels: 3 as const, background: { r: 200, g: 30, b: 30 } };
  const png = await sharp({ create: red }).png().toBuffer();
  // 60×40 pixels stored, EXIF orientation 6 (rotate 90° clockwise to view): shown as 40×60.
  const jpeg = await sharp({ create: { ...red, width: 60, height: 40 } })
    .jpeg()
    .withMetadata({ orientation: 6 })
    .withExif({ IFD0: { Copyright: 'secret owner', Artist: 'someone' } })
    .toBuffer();
  const gif = await sharp({ create: { ...red, width: 24, height: 18 } })
    .gif()
    .toBuffer();
  // Larger than MAX_BYTES with a Content-Length saying so.
  const big = Buffer.alloc(MAX_BYTES * 2, 1);
  return { png, jpeg, gif, bomb: pixelBombPng(), big };
}

beforeAll(async () => {
  fixtures = await makeFixtures();
  host = await startImageHost();
  dataDir = await mkdtemp(join(tmpdir(), 'pollkit-media-test-'));
  t = await startTestServer({
    DATA_DIR: dataDir,
    MEDIA_ALLOW_LOOPBACK: 'true',
    MEDIA_MAX_BYTES: String(MAX_BYTES),
    MEDIA_FETCH_TIMEOUT_MS: String(TIMEOUT_MS),
  });
});

afterAll(async () => {
  await t?.close();
  host?.server.closeAllConnections();
  await new Promise((resolve) => host?.server.close(resolve));
  await rm(dataDir, { recursive: true, force: true });
});

function mediaDir(): string {
  return (t.server.deps.media.storage as LocalDiskMediaStorage).dir;
}

async function storedFiles(): Promise<string[]> {
  try {
    return (await readdir(mediaDir())).sort();
  } catch {
    return [];
  }
}

/** A fresh workspace per call: `POST /media` allows 30 a minute per credential. */
async function ingest(body: BodyOf<'POST /media'>): Promise<ApiResponse<'POST /media'>> {
  const { apiKey } = await t.workspace('pro');
  return api.request('POST /media', { apiKey, body });
}

async function download(url: string): Promise<{ res: Response; bytes: Buffer }> {
  const res = await fetch(url);
  return { res, bytes: Buffer.from(await res.arrayBuffer()) };
}

describe('POST /media: images', () => {
  it.each([
    ['PNG', '/photo.png', 40, 30],
    ['JPEG (EXIF orientation 6: shown rotated)', '/photo.jpg', 40, 60],
    ['GIF', '/anim.gif', 24, 18],
  ])('re-encodes a %s to WebP, stores it and serves it cacheable for a year', async (_name, path, width, height) => {
    const url = `${host.url}${path}`;
    const res = await ingest({ url });
    expectStatus(res, 201);
    const { data } = res.body;
    expect(data).toMatchObject({ type: 'image', url, width, height });
    expect(data.storedUrl).toMatch(new RegExp(`^${t.url}/media/files/[0-9a-f]{64}\\.webp$`));

    const { res: file, bytes } = await download(data.storedUrl!);
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('image/webp');
    expect(file.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(file.headers.get('etag')).toMatch(/^"[0-9a-f]{64}"$/);
    const meta = await sharp(bytes).metadata();
    expect(meta.format).toBe('webp');
    expect([meta.width, meta.height]).toEqual([width, height]);
    // Metadata stripped: no EXIF (copyright, orientation), no ICC profile, no XMP.
    expect(meta.exif).toBeUndefined();
    expect(meta.orientation).toBeUndefined();
    expect(meta.icc).toBeUndefined();
    expect(meta.xmp).toBeUndefined();

    const revalidated = await fetch(data.storedUrl!, { headers: { 'if-none-match': file.headers.get('etag') ?? '' } });
    expect(revalidated.status).toBe(304);
  });

  it('the JPEG fixture does carry EXIF (orientation and copyright) to strip', async () => {
    const meta = await sharp(fixtures.jpeg).metadata();
    expect(meta.orientation).toBe(6);
    expect(meta.exif?.includes(Buffer.from('secret owner'))).toBe(true);
    expect([meta.width, meta.height]).toEqual([60, 40]);
  });

  it('stores the same source bytes once, whatever the URL, and decides by decoding, not by Content-Type', async () => {
    const first = await ingest({ url: `${host.url}/photo.png` });
    const before = await storedFiles();
    const again = await ingest({ url: `${host.url}/copy-of-photo.png` });
    const mislabelled = await ingest({ url: `${host.url}/mislabelled` });
    for (const res of [again, mislabelled]) {
      expectStatus(res, 201);
      expect(res.body.data.storedUrl).toBe(expectOk(first).data.storedUrl);
      expect([res.body.data.width, res.body.data.height]).toEqual([40, 30]);
    }
    expect(await storedFiles()).toEqual(before);
  });

  it('connects to the address it checked for a host name (localhost, loopback allowed here)', async () => {
    const url = `http://localhost:${new URL(host.url).port}/photo.png`;
    const res = await ingest({ url });
    expectStatus(res, 201);
    expect(res.body.data).toMatchObject({ type: 'image', url, width: 40, height: 30 });
  });

  it('follows up to three redirects', async () => {
    const res = await ingest({ url: `${host.url}/hops/3` });
    expectStatus(res, 201);
    expect(res.body.data).toMatchObject({ type: 'image', url: `${host.url}/hops/3`, width: 40, height: 30 });
  });
});

describe('POST /media: video and links', () => {
  it.each([
    ['https://www.youtube.com/watch?v=dQw4w9WgXcQ', 'youtube'],
    ['https://youtu.be/dQw4w9WgXcQ', 'youtube'],
    ['https://youtube.com/shorts/abcdefghijk', 'youtube'],
    ['https://www.youtube.com/embed/dQw4w9WgXcQ', 'youtube'],
    ['https://vimeo.com/76979871', 'vimeo'],
    ['https://player.vimeo.com/video/76979871', 'vimeo'],
  ])('%s is %s, returned as given', async (url, type) => {
    const res = await ingest({ url });
    expectStatus(res, 201);
    expect(res.body).toEqual({ data: { type, url } });
  });

  it('does not fetch video URLs or forced video/link types', async () => {
    const seen = host.requests.length;
    const forced = await ingest({ url: `${host.url}/photo.png`, type: 'vimeo' });
    expect(forced.body).toEqual({ data: { type: 'vimeo', url: `${host.url}/photo.png` } });
    const link = await ingest({ url: `${host.url}/photo.png`, type: 'link' });
    expect(link.body).toEqual({ data: { type: 'link', url: `${host.url}/photo.png` } });
    expect(host.requests.length).toBe(seen);
  });

  it('an HTML page is a link, not stored', async () => {
    const before = await storedFiles();
    const res = await ingest({ url: `${host.url}/page.html` });
    expectStatus(res, 201);
    expect(res.body).toEqual({ data: { type: 'link', url: `${host.url}/page.html` } });
    expect(await storedFiles()).toEqual(before);
  });
});

describe('POST /media: hostile input is refused and nothing is stored', () => {
  const refused: [string, () => string, number, ErrorCode][] = [
    ['a file: URL', () => 'file:///etc/passwd', 422, 'validation_failed'],
    ['an ftp: URL', () => 'ftp://127.0.0.1/photo.png', 422, 'validation_failed'],
    ['the cloud metadata address', () => 'http://169.254.169.254/latest/meta-data/', 422, 'media_not_allowed'],
    ['a private address', () => 'http://10.0.0.1/photo.png', 422, 'media_not_allowed'],
    ['a CGNAT address', () => 'http://100.64.0.1/photo.png', 422, 'media_not_allowed'],
    ['an IPv6 link-local address', () => 'http://[fe80::1]/photo.png', 422, 'media_not_allowed'],
    ['an IPv4-mapped private address', () => 'http://[::ffff:192.168.0.1]/x.png', 422, 'media_not_allowed'],
    ['a redirect to a private address', () => `${host.url}/to-private`, 422, 'media_not_allowed'],
    ['a redirect to the metadata address', () => `${host.url}/to-metadata`, 422, 'media_not_allowed'],
    ['a redirect to a file: URL', () => `${host.url}/to-file`, 422, 'media_not_allowed'],
    ['too many redirects', () => `${host.url}/hops/4`, 422, 'media_fetch_failed'],
    ['a 404', () => `${host.url}/not-found`, 422, 'media_fetch_failed'],
    ['a body declared over the size limit', () => `${host.url}/declared-big`, 422, 'media_too_large'],
    ['a slow body (timeout)', () => `${host.url}/slow-body`, 422, 'media_fetch_failed'],
    ['slow headers (timeout)', () => `${host.url}/slow-headers`, 422, 'media_fetch_failed'],
    ['a text file', () => `${host.url}/notes.txt`, 422, 'unsupported_media'],
    ['a fake PNG', () => `${host.url}/fake.png`, 422, 'unsupported_media'],
    ['a decompression bomb (400 megapixels declared)', () => `${host.url}/bomb.png`, 422, 'unsupported_media'],
  ];
  it.each(refused)('%s', async (_name, url, status, code) => {
    const before = await storedFiles();
    const res = await ingest({ url: url() });
    expectError(res, status, code);
    expect(await storedFiles()).toEqual(before);
  });

  it('names the pixel limit when refusing a decompression bomb', async () => {
    const res = await ingest({ url: `${host.url}/bomb.png` });
    expectError(res, 422, 'unsupported_media');
    expect(res.body.error.details).toEqual({ maxPixels: 50_000_000 });
  });

  it('an HTML page forced to `image` is unsupported', async () => {
    expectError(await ingest({ url: `${host.url}/page.html`, type: 'image' }), 422, 'unsupported_media');
  });

  it('cuts off a body that streams forever', async () => {
    const before = await storedFiles();
    const res = await ingest({ url: `${host.url}/endless` });
    expectError(res, 422, 'media_too_large');
    expect(errorDetails(res).maxBytes).toBe(MAX_BYTES);
    // The client hung up: the host's endless stream stopped.
    await host.endless.closed;
    expect(await storedFiles()).toEqual(before);
  });

  it('refuses loopback unless MEDIA_ALLOW_LOOPBACK=true (localhost resolves to it)', async () => {
    const strict = await startTestServer({ DATA_DIR: dataDir });
    try {
      const { apiKey } = await strict.workspace('pro');
      const seen = host.requests.length;
      const port = new URL(host.url).port;
      for (const url of [`http://localhost:${port}/photo.png`, `${host.url}/photo.png`, `http://[::1]:${port}/x`]) {
        const res = await rawCall('POST', `${strict.api}/media`, { apiKey, body: { url } });
        expectError(res, 422, 'media_not_allowed');
        // The refusal names the setting that allows it, for a developer trying it locally.
        expect(res.body.error.message).toContain('only with MEDIA_ALLOW_LOOPBACK=true');
      }
      expect(host.requests.length).toBe(seen);
    } finally {
      await strict.close();
    }
  });

  it('classifies addresses after unmapping IPv4-in-IPv6', () => {
    expect(forbiddenAddressReason('127.0.0.1', false)).toBeDefined();
    expect(forbiddenAddressReason('127.0.0.1', true)).toBeUndefined();
    expect(forbiddenAddressReason('::ffff:7f00:1', false)).toBeDefined();
    expect(forbiddenAddressReason('::ffff:a9fe:a9fe', true)).toBeDefined();
    expect(forbiddenAddressReason('fd12::1', true)).toBeDefined();
    expect(forbiddenAddressReason('0.0.0.0', true)).toBeDefined();
    expect(forbiddenAddressReason('172.31.255.255', true)).toBeDefined();
    expect(forbiddenAddressReason('172.32.0.1', false)).toBeUndefined();
    expect(forbiddenAddressReason('93.184.216.34', false)).toBeUndefined();
    expect(forbiddenAddressReason('2606:4700::1111', false)).toBeUndefined();
  });
});

describe('POST /media: its own rate limit', () => {
  it('allows 30 a minute on top of the general limit; other routes keep their budget', async () => {
    // Window-safe: a batch that straddles a window boundary is retried with a fresh key.
    for (let attempt = 0; attempt < 3; attempt++) {
      const { apiKey } = await t.workspace('pro');
      const body = { url: 'https://youtu.be/dQw4w9WgXcQ' };
      const responses: HttpResponse[] = [];
      for (let i = 0; i < 31; i++) responses.push(await api.request('POST /media', { apiKey, body }));
      const resets = new Set(responses.map((r) => r.headers.get('x-ratelimit-reset')));
      if (resets.size > 1) continue;
      responses.slice(0, 30).forEach((res, i) => {
        expect(res.status, res.text).toBe(201);
        expect(res.headers.get('x-ratelimit-limit')).toBe('30');
        expect(res.headers.get('x-ratelimit-remaining')).toBe(String(29 - i));
      });
      const last = responses[30] as HttpResponse;
      expectError(last, 429, 'rate_limited');
      expect(last.headers.get('x-ratelimit-limit')).toBe('30');
      expect(last.headers.get('x-ratelimit-remaining')).toBe('0');

      const polls = await api.request('GET /polls', { apiKey });
      if (polls.headers.get('x-ratelimit-reset') !== last.headers.get('x-ratelimit-reset')) continue;
      expectStatus(polls, 200);
      expect(polls.headers.get('x-ratelimit-limit')).toBe('120');
      expect(polls.headers.get('x-ratelimit-remaining')).toBe(String(120 - 32));
      return;
    }
    throw new Error('three batches straddled a window boundary');
  });
});

describe('GET /media/files/{name}', () => {
  it.each([
    '/media/files/..%2F..%2Fpackage.json',
    '/media/files/%2e%2e%2fetc%2fpasswd',
    '/media/files/../../package.json',
    `/media/files/${'0'.repeat(64)}.webp`,
    `/media/files/${'0'.repeat(64)}.png`,
    '/media/files/.hidden.tmp',
  ])('%s is 404 in the envelope', async (path) => {
    const res = await rawCall('GET', `${t.url}${path}`);
    expectError(res, 404, 'not_found');
  });
});
