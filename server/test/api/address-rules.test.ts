import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { forbiddenAddressReason } from '../../src/infra/safe-fetch.js';
import { WebhookSender } from '../../src/infra/webhook-sender.js';
import { expectError } from '../support/assertions.js';
import { UNLIMITED } from '../support/limits.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { type ApiResponse, errorDetails, expectOk, expectStatus, testClient } from '../support/test-client.js';

/**
 * Which addresses media fetches and webhook deliveries may reach (infra/safe-fetch.ts), issue 24
 * finding 11: public IPv4 and global unicast IPv6 only. The IPv6 spellings of loopback and private
 * IPv4 addresses that a blocklist missed (IPv4-compatible `::/96`, IPv4-translated
 * `::ffff:0:0:0/96`, local-use NAT64 `64:ff9b:1::/48`, …) are refused at webhook registration, for
 * `POST /media` (and its redirects), and by the sender at connection time — on a server that allows
 * loopback, which shows that only 127.0.0.0/8 and `::1` themselves are let through by it.
 */

let t: TestServer;
const api = testClient(() => t.api);
let apiKey: string;
let host: { url: string; port: number; server: Server; requests: string[] };

/** IPv6 literals that carry 127.0.0.1 or another non-public IPv4 address, or are not global unicast. */
const refusedLiterals: [string, string][] = [
  ['IPv4-compatible loopback', '::7f00:1'],
  ['IPv4-compatible loopback, dotted', '::127.0.0.1'],
  ['IPv4-compatible private', '::a00:1'],
  ['IPv4-translated loopback', '::ffff:0:7f00:1'],
  ['IPv4-translated loopback, dotted', '::ffff:0:127.0.0.1'],
  ['IPv4-translated metadata', '::ffff:0:a9fe:a9fe'],
  ['local-use NAT64 loopback', '64:ff9b:1::7f00:1'],
  ['local-use NAT64 of a public address', '64:ff9b:1::808:808'],
  ['well-known NAT64 loopback', '64:ff9b::7f00:1'],
  ['well-known NAT64 metadata', '64:ff9b::169.254.169.254'],
  ['6to4 of loopback', '2002:7f00:1::1'],
  ['6to4 of a private address', '2002:c0a8:101::1'],
  ['Teredo', '2001:0:4136:e378:8000:63bf:3fff:fdd2'],
  ['documentation', '2001:db8::1'],
  ['documentation (RFC 9637)', '3fff::1'],
  ['benchmarking', '2001:2::1'],
  ['ORCHIDv2', '2001:20::1'],
  ['discard-only', '100::1'],
  ['unassigned, outside 2000::/3', '4000::1'],
  ['unspecified', '::'],
  ['IPv4-mapped private (already refused)', '::ffff:10.0.0.1'],
  ['unique local', 'fd00::1'],
  ['link-local', 'fe80::1'],
  ['multicast', 'ff02::1'],
];

async function startImageHost(): Promise<typeof host> {
  const png = await sharp({ create: { width: 4, height: 4, channels: 3, background: '#3366cc' } })
    .png()
    .toBuffer();
  const requests: string[] = [];
  let port = 0;
  const server = createServer((req, res) => {
    const path = req.url ?? '/';
    requests.push(path);
    // /via/<literal>: a redirect to this host's /photo.png at that IPv6 literal.
    const via = /^\/via\/(.+)$/.exec(path);
    if (via) {
      res.writeHead(302, { location: `http://[${decodeURIComponent(via[1] as string)}]:${port}/photo.png` });
      res.end();
      return;
    }
    res.writeHead(200, { 'content-type': 'image/png', 'content-length': png.length });
    res.end(png);
  });
  // Every interface, IPv6 included, so a fetch the rules let through would arrive here.
  await new Promise<void>((resolve) => server.listen(0, '::', resolve));
  port = (server.address() as AddressInfo).port;
  return { url: `http://127.0.0.1:${port}`, port, server, requests };
}

beforeAll(async () => {
  host = await startImageHost();
  t = await startTestServer({
    ...UNLIMITED,
    MEDIA_ALLOW_LOOPBACK: 'true',
    WEBHOOK_ALLOW_LOOPBACK: 'true',
    WEBHOOK_ALLOW_HTTP: 'true',
  });
  ({ apiKey } = await t.workspace('pro'));
});
afterAll(async () => {
  await t?.close();
  await new Promise((resolve) => host?.server.close(resolve));
});

describe('the address rules', () => {
  it.each(refusedLiterals)('refuse %s (%s), whether loopback is allowed or not', (_what, address) => {
    expect(forbiddenAddressReason(address, false)).toBeDefined();
    expect(forbiddenAddressReason(address, true)).toBeDefined();
  });

  it.each([
    ['a public IPv4 address', '93.184.216.34'],
    ['global unicast IPv6', '2606:4700::1111'],
    ['global unicast IPv6 inside 2001::/16 but outside 2001::/23', '2001:4860:4860::8888'],
    ['well-known NAT64 of a public address (DNS64 answers so on IPv6-only networks)', '64:ff9b::808:808'],
    ['6to4 of a public address', '2002:808:808::1'],
  ])('allow %s (%s)', (_what, address) => {
    expect(forbiddenAddressReason(address, false)).toBeUndefined();
  });

  it('let loopback through only as 127.0.0.0/8 and ::1 (IPv4-mapped included), and only when allowed', () => {
    for (const address of ['127.0.0.1', '127.9.9.9', '::1', '::ffff:127.0.0.1', '::ffff:7f00:1']) {
      expect(forbiddenAddressReason(address, false), address).toBe('a loopback address');
      expect(forbiddenAddressReason(address, true), address).toBeUndefined();
    }
  });

  it('say why an embedded IPv4 address is refused', () => {
    expect(forbiddenAddressReason('64:ff9b::7f00:1', true)).toBe('an IPv6 form of a loopback address');
    expect(forbiddenAddressReason('2002:a00:1::', true)).toBe(
      'an IPv6 form of a private, link-local or reserved address',
    );
    expect(forbiddenAddressReason('::7f00:1', true)).toBe('a private, link-local or reserved address');
  });
});

describe('webhook registration', () => {
  it.each(refusedLiterals)(
    'refuses an endpoint at %s (%s) with 422 webhook_url_not_allowed',
    async (_what, address) => {
      for (const url of [`https://[${address}]/hooks`, `http://[${address}]:8080/hooks`]) {
        const res = await api.request('POST /webhooks', { apiKey, body: { url } });
        expectError(res, 422, 'webhook_url_not_allowed');
        expect(res.body.error.message, url).toMatch(/resolves to (a|an IPv6 form of a) (private|loopback)/);
      }
    },
  );

  it('refuses the same addresses when an endpoint is moved to them, and stored nothing', async () => {
    const { apiKey: own } = await t.workspace('pro');
    const created = await api.request('POST /webhooks', {
      apiKey: own,
      body: { url: `${host.url}/hooks`, events: ['poll.deleted'] },
    });
    expectStatus(created, 201);
    for (const address of ['::7f00:1', '::ffff:0:7f00:1', '64:ff9b:1::7f00:1']) {
      const moved: ApiResponse<'PATCH /webhooks/{id}'> = await api.request('PATCH /webhooks/{id}', {
        params: { id: created.body.id },
        apiKey: own,
        body: { url: `https://[${address}]/hooks` },
      });
      expectError(moved, 422, 'webhook_url_not_allowed');
    }
    const listed = await api.request('GET /webhooks', { apiKey: own });
    expect(expectOk(listed).data.map((endpoint) => endpoint.url)).toEqual([`${host.url}/hooks`]);
  });

  it('accepts global unicast IPv6 and loopback itself (allowed on this server)', async () => {
    const { apiKey: own } = await t.workspace('pro');
    for (const url of ['https://[2606:4700::1111]/hooks', `http://[::1]:${host.port}/hooks`]) {
      const res = await api.request('POST /webhooks', { apiKey: own, body: { url, events: ['poll.deleted'] } });
      expect(res.status, `${url}: ${res.text}`).toBe(201);
    }
  });
});

describe('webhook delivery', () => {
  it('refuses to connect to such an address, checked again as each attempt connects', async () => {
    const sender = new WebhookSender({
      timeoutMs: 2_000,
      allowHttp: true,
      allowLoopback: true,
      excerptBytes: 100,
      maxSocketsPerHost: 1,
    });
    for (const address of ['::7f00:1', '::ffff:0:7f00:1', '64:ff9b:1::7f00:1']) {
      const result = await sender.send({ url: `http://[${address}]:${host.port}/hooks`, headers: {}, body: '{}' });
      expect(result).toMatchObject({
        status: null,
        error: "The endpoint's address is a private, link-local or reserved address",
      });
    }
    expect(host.requests.filter((path) => path === '/hooks')).toEqual([]);
  });
});

describe('POST /media', () => {
  const ingest = (url: string) => api.request('POST /media', { apiKey, body: { url } });

  it('fetches from loopback itself on this server (the control)', async () => {
    for (const url of [`${host.url}/photo.png`, `http://[::1]:${host.port}/photo.png`]) {
      const res = await ingest(url);
      expectStatus(res, 201, url);
      expect(res.body.data.type).toBe('image');
    }
  });

  it.each(refusedLiterals)('refuses %s (%s) with 422 media_not_allowed, fetching nothing', async (_what, address) => {
    const seen = host.requests.length;
    const res = await ingest(`http://[${address}]:${host.port}/photo.png`);
    expectError(res, 422, 'media_not_allowed');
    expect(host.requests.length).toBe(seen);
  });

  it('refuses a redirect to such an address', async () => {
    const photos = () => host.requests.filter((path) => path === '/photo.png').length;
    const before = photos();
    for (const address of ['::7f00:1', '::ffff:0:7f00:1', '64:ff9b:1::7f00:1']) {
      const res = await ingest(`${host.url}/via/${encodeURIComponent(address)}`);
      expectError(res, 422, 'media_not_allowed');
      expect(errorDetails(res).url).toBe(`http://[${address}]:${host.port}/photo.png`);
    }
    expect(photos()).toBe(before);
  });
});
