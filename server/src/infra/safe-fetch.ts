import { lookup as dnsLookup } from 'node:dns/promises';
import http from 'node:http';
import https from 'node:https';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { ApiError } from '../core/api-error.js';

/**
 * Outbound fetches of URLs that callers chose (media ingestion; webhook deliveries check addresses
 * with `publicAddresses`). Every hop is checked the same way:
 * http(s) only; the host name is resolved here and refused if any of its addresses is private,
 * loopback, link-local (the cloud metadata address included), CGNAT, multicast or unspecified; the
 * connection then goes to the checked address (a DNS answer that changes in between cannot swap
 * it); at most `maxRedirects` redirects; one deadline for the whole exchange, body included; the
 * body is streamed and cut off past `maxBytes`.
 */
export interface SafeFetchOptions {
  timeoutMs: number;
  maxBytes: number;
  maxRedirects: number;
  /** Tests only: allow 127.0.0.0/8 and ::1. */
  allowLoopback: boolean;
  /**
   * Called with the response headers before the body is read: return false to skip the body (the
   * response is then returned with `body: undefined`).
   */
  wantBody?: (contentType: string) => boolean;
}

export interface SafeFetchResult {
  /** The final URL, after redirects. */
  url: string;
  status: number;
  contentType: string;
  body: Buffer | undefined;
}

const blocked = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8], // "this network", unspecified
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // CGNAT
  ['169.254.0.0', 16], // link-local, 169.254.169.254 metadata
  ['172.16.0.0', 12],
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation
  ['192.168.0.0', 16],
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const) {
  blocked.addSubnet(net, prefix, 'ipv4');
}
for (const [net, prefix] of [
  ['::', 128], // unspecified
  ['64:ff9b::', 96], // NAT64: may embed a private IPv4 address
  ['100::', 64], // discard
  ['2001:db8::', 32], // documentation
  ['2002::', 16], // 6to4: may embed a private IPv4 address
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
] as const) {
  blocked.addSubnet(net, prefix, 'ipv6');
}
const loopback = new BlockList();
loopback.addSubnet('127.0.0.0', 8, 'ipv4');
loopback.addAddress('::1', 'ipv6');

/** `::ffff:127.0.0.1` / `::ffff:7f00:1` -> `127.0.0.1`; anything else unchanged. */
function unmapIpv4(address: string): string {
  const lower = address.toLowerCase();
  if (!lower.startsWith('::ffff:')) return address;
  const rest = lower.slice(7);
  if (isIP(rest) === 4) return rest;
  const m = /^([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(rest);
  if (!m) return address;
  const hi = Number.parseInt(m[1] as string, 16);
  const lo = Number.parseInt(m[2] as string, 16);
  return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
}

/** Why an address may not be fetched, or undefined when it may. */
export function forbiddenAddressReason(rawAddress: string, allowLoopback: boolean): string | undefined {
  const address = unmapIpv4(rawAddress);
  const family = isIP(address);
  if (family === 0) return 'not an IP address';
  const type = family === 4 ? 'ipv4' : 'ipv6';
  if (loopback.check(address, type)) return allowLoopback ? undefined : 'a loopback address';
  if (blocked.check(address, type)) return 'a private, link-local or reserved address';
  return undefined;
}

function notAllowed(message: string, url: string): ApiError {
  return new ApiError('media_not_allowed', message, { url });
}

function fetchFailed(message: string, url: string): ApiError {
  return new ApiError('media_fetch_failed', message, { url });
}

export type Address = { address: string; family: number };

/** Why a host may not be reached: `unresolved` (DNS gave nothing) or `forbidden` (see forbiddenAddressReason). */
export class AddressRefusedError extends Error {
  override name = 'AddressRefusedError';
  constructor(
    readonly reason: 'unresolved' | 'forbidden',
    message: string,
  ) {
    super(message);
  }
}

/**
 * Resolves `hostname` (or takes it as it is, an IP literal) and returns the addresses to connect to:
 * every one of them must be public, since a client library would pick any. Throws
 * AddressRefusedError. Media ingestion checks every hop with it, webhook deliveries every connection.
 */
export async function publicAddresses(rawHostname: string, allowLoopback: boolean): Promise<Address[]> {
  const hostname = rawHostname.replace(/^\[(.*)\]$/, '$1');
  let addresses: Address[];
  if (isIP(hostname)) {
    addresses = [{ address: hostname, family: isIP(hostname) }];
  } else {
    try {
      addresses = await dnsLookup(hostname, { all: true, verbatim: true });
    } catch {
      throw new AddressRefusedError('unresolved', `The host ${hostname} could not be resolved`);
    }
  }
  if (addresses.length === 0) throw new AddressRefusedError('unresolved', `The host ${hostname} could not be resolved`);
  for (const { address } of addresses) {
    const reason = forbiddenAddressReason(address, allowLoopback);
    if (reason) throw new AddressRefusedError('forbidden', `The host ${hostname} resolves to ${reason}`);
  }
  return addresses;
}

/** Resolves `hostname` and returns the addresses to connect to, or throws `media_not_allowed`. */
async function checkedAddresses(url: URL, allowLoopback: boolean): Promise<Address[]> {
  try {
    return await publicAddresses(url.hostname, allowLoopback);
  } catch (error) {
    if (!(error instanceof AddressRefusedError)) throw error;
    throw error.reason === 'unresolved' ? fetchFailed(error.message, url.href) : notAllowed(error.message, url.href);
  }
}

interface Hop {
  status: number;
  location: string | undefined;
  contentType: string;
  body: Buffer | undefined;
}

export async function safeFetch(rawUrl: string, options: SafeFetchOptions): Promise<SafeFetchResult> {
  const deadline = AbortSignal.timeout(options.timeoutMs);
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    throw notAllowed('The URL is not valid', rawUrl);
  }
  for (let redirects = 0; ; redirects++) {
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw notAllowed(`Only http and https URLs can be fetched, not ${url.protocol}`, url.href);
    }
    if (url.username || url.password) throw notAllowed('URLs with credentials are not fetched', url.href);
    const targets = await withDeadline(checkedAddresses(url, options.allowLoopback), deadline, url.href, options);
    const hop = await request(url, targets, deadline, options);
    if (hop.status >= 300 && hop.status < 400 && hop.location !== undefined) {
      if (redirects >= options.maxRedirects) {
        throw fetchFailed(`More than ${options.maxRedirects} redirects`, url.href);
      }
      try {
        url = new URL(hop.location, url);
      } catch {
        throw fetchFailed('The redirect location is not a valid URL', url.href);
      }
      continue;
    }
    if (hop.status < 200 || hop.status >= 300) {
      throw new ApiError('media_fetch_failed', `The URL answered HTTP ${hop.status}`, {
        url: url.href,
        status: hop.status,
      });
    }
    return { url: url.href, status: hop.status, contentType: hop.contentType, body: hop.body };
  }
}

async function withDeadline<T>(
  promise: Promise<T>,
  deadline: AbortSignal,
  url: string,
  options: SafeFetchOptions,
): Promise<T> {
  if (deadline.aborted) throw timeoutError(url, options);
  let onAbort: (() => void) | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        onAbort = () => reject(timeoutError(url, options));
        deadline.addEventListener('abort', onAbort, { once: true });
      }),
    ]);
  } finally {
    if (onAbort) deadline.removeEventListener('abort', onAbort);
  }
}

function timeoutError(url: string, options: SafeFetchOptions): ApiError {
  return fetchFailed(`The URL did not answer within ${options.timeoutMs} ms`, url);
}

/** One HTTP exchange with the connection pinned to the checked addresses. */
function request(url: URL, targets: Address[], deadline: AbortSignal, options: SafeFetchOptions): Promise<Hop> {
  // The socket connects to an address checked above, whatever DNS answers now (happy eyeballs
  // tries them in turn); TLS still verifies the certificate against the host name.
  const first = targets[0] as Address;
  const pinnedLookup: LookupFunction = (_hostname, lookupOptions, callback) => {
    if (lookupOptions.all) {
      callback(null, targets);
    } else {
      callback(null, first.address, first.family);
    }
  };
  const client = url.protocol === 'https:' ? https : http;
  return new Promise<Hop>((resolve, reject) => {
    let settled = false;
    const fail = (error: ApiError) => {
      if (settled) return;
      settled = true;
      req.destroy();
      reject(error);
    };
    const onAbort = () => fail(timeoutError(url.href, options));
    if (deadline.aborted) {
      reject(timeoutError(url.href, options));
      return;
    }
    deadline.addEventListener('abort', onAbort, { once: true });
    const done = () => deadline.removeEventListener('abort', onAbort);
    const req = client.request(
      url,
      {
        method: 'GET',
        lookup: pinnedLookup,
        agent: false,
        headers: { 'user-agent': 'Pollkit-Media/1.0', accept: 'image/*, text/html;q=0.5, */*;q=0.1' },
      },
      (res) => {
        const status = res.statusCode ?? 0;
        const contentType = String(res.headers['content-type'] ?? '').toLowerCase();
        const location = res.headers.location;
        const finish = (body: Buffer | undefined) => {
          if (settled) return;
          settled = true;
          done();
          res.destroy();
          resolve({ status, location, contentType, body });
        };
        if (status < 200 || status >= 300 || (options.wantBody && !options.wantBody(contentType))) {
          finish(undefined);
          return;
        }
        const declared = Number(res.headers['content-length']);
        if (Number.isFinite(declared) && declared > options.maxBytes) {
          done();
          fail(tooLarge(url.href, options));
          return;
        }
        const chunks: Buffer[] = [];
        let total = 0;
        res.on('data', (chunk: Buffer) => {
          total += chunk.length;
          if (total > options.maxBytes) {
            done();
            fail(tooLarge(url.href, options));
            return;
          }
          chunks.push(chunk);
        });
        res.on('end', () => finish(Buffer.concat(chunks, total)));
        res.on('error', () => {
          done();
          fail(fetchFailed('The connection failed while reading the response', url.href));
        });
      },
    );
    req.on('error', (error: NodeJS.ErrnoException) => {
      done();
      fail(fetchFailed(`The URL could not be fetched (${error.code ?? error.message})`, url.href));
    });
    req.end();
  });
}

function tooLarge(url: string, options: SafeFetchOptions): ApiError {
  return new ApiError('media_too_large', `The media is larger than ${options.maxBytes} bytes`, {
    url,
    maxBytes: options.maxBytes,
  });
}
