import { lookup as dnsLookup } from 'node:dns/promises';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import { ApiError } from '../core/api-error.js';

/**
 * Outbound fetches of URLs that callers chose (media ingestion; webhook deliveries check addresses
 * with `publicAddresses`). Every hop is checked the same way:
 * http(s) only; the host name is resolved here and refused if any of its addresses is not public
 * (`forbiddenAddressReason`: an allow-list of public IPv4 and global unicast IPv6); the
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
  /** The setting that allows loopback (`MEDIA_ALLOW_LOOPBACK`): a loopback refusal names it. */
  loopbackSetting?: string;
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

/** The reason given for every address that is not public, whatever its block. */
const NOT_PUBLIC = 'a private, link-local or reserved address';

/** IPv6 global unicast: the only IPv6 block outbound fetches may reach (minus its special parts). */
const GLOBAL_UNICAST = ipaddr.parseCIDR('2000::/3');
/** NAT64's well-known prefix (RFC 6052): the IPv4 address is the last 32 bits. */
const NAT64_WELL_KNOWN = ipaddr.parseCIDR('64:ff9b::/96');

/**
 * Why an address may not be fetched, or undefined when it may. An allow-list, so a block nobody
 * thought of is refused rather than reached:
 *
 * - IPv4: only addresses in no special-purpose block (ipaddr.js's `range()` is `unicast`: not private,
 *   loopback, link-local — the cloud metadata address among them —, CGNAT, documentation,
 *   benchmarking, multicast, broadcast, reserved, AS112 or AMT).
 * - IPv6: only global unicast, 2000::/3, and within it none of the IANA special-purpose blocks that
 *   ipaddr.js names (2001::/23 — Teredo, benchmarking, ORCHID and the rest of the IETF protocol
 *   assignments —, the documentation blocks 2001:db8::/32 and 3fff::/20, AS112). That leaves out the
 *   IPv4-compatible ::/96, the IPv4-translated ::ffff:0:0:0/96, the local-use NAT64 64:ff9b:1::/48,
 *   unique-local, link-local, site-local, multicast, discard and whatever is yet unassigned.
 * - IPv6 forms that embed an IPv4 address are judged by that address: IPv4-mapped ::ffff:0:0/96 as
 *   the IPv4 address itself, 6to4 (2002::/16) and NAT64's well-known 64:ff9b::/96 as public only when
 *   the address they carry is (a loopback one included: only 127.0.0.0/8 and ::1 are ever allowed).
 *
 * `allowLoopback` (tests only) lets 127.0.0.0/8 and ::1 through, written as such or IPv4-mapped.
 */
export function forbiddenAddressReason(rawAddress: string, allowLoopback: boolean): string | undefined {
  // Node's parser first: ipaddr.js also reads forms no resolver returns (`0x7f.1`, `127.1`).
  const family = isIP(rawAddress);
  if (family === 0) return 'not an IP address';
  // ipaddr.js reads the deprecated `::a.b.c.d` as IPv4-mapped; it is IPv4-compatible (::/96), refused
  // like `::7f00:1`, the way URLs and resolvers write it.
  if (/^::[0-9]+\./.test(rawAddress)) return NOT_PUBLIC;
  const address = ipaddr.parse(rawAddress);
  return address.kind() === 'ipv4'
    ? ipv4Reason(address as ipaddr.IPv4, allowLoopback)
    : ipv6Reason(address as ipaddr.IPv6, allowLoopback);
}

const LOOPBACK_REASON = 'a loopback address';

function ipv4Reason(address: ipaddr.IPv4, allowLoopback: boolean): string | undefined {
  const range = address.range();
  if (range === 'unicast') return undefined;
  if (range === 'loopback') return allowLoopback ? undefined : LOOPBACK_REASON;
  return NOT_PUBLIC;
}

function ipv6Reason(address: ipaddr.IPv6, allowLoopback: boolean): string | undefined {
  const range = address.range();
  if (range === 'ipv4Mapped') return ipv4Reason(address.toIPv4Address(), allowLoopback);
  if (range === 'loopback') return allowLoopback ? undefined : LOOPBACK_REASON;
  const embedded = embeddedIpv4(address, range);
  if (embedded) {
    const reason = ipv4Reason(embedded, false);
    return reason && `an IPv6 form of ${reason}`;
  }
  if (range !== 'unicast' || !address.match(GLOBAL_UNICAST)) return NOT_PUBLIC;
  return undefined;
}

/** The IPv4 address a 6to4 or well-known NAT64 address carries, if it is one. */
function embeddedIpv4(address: ipaddr.IPv6, range: string): ipaddr.IPv4 | undefined {
  const bytes = address.toByteArray();
  if (range === '6to4') return new ipaddr.IPv4(bytes.slice(2, 6));
  if (range === 'rfc6052' && address.match(NAT64_WELL_KNOWN)) return new ipaddr.IPv4(bytes.slice(12, 16));
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
    /** Refused only for being a loopback address, which a setting allows (for development and tests). */
    readonly loopback = false,
  ) {
    super(message);
  }

  /** The message, and for a loopback refusal the setting that would allow it. */
  messageNaming(setting: string | undefined): string {
    if (!this.loopback || setting === undefined) return this.message;
    return `${this.message}; the server allows loopback addresses only with ${setting}=true, for local development and tests, never in production`;
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
    if (reason) {
      throw new AddressRefusedError(
        'forbidden',
        `The host ${hostname} resolves to ${reason}`,
        reason === LOOPBACK_REASON,
      );
    }
  }
  return addresses;
}

/** Resolves `hostname` and returns the addresses to connect to, or throws `media_not_allowed`. */
async function checkedAddresses(url: URL, options: SafeFetchOptions): Promise<Address[]> {
  try {
    return await publicAddresses(url.hostname, options.allowLoopback);
  } catch (error) {
    if (!(error instanceof AddressRefusedError)) throw error;
    if (error.reason === 'unresolved') throw fetchFailed(error.message, url.href);
    throw notAllowed(error.messageNaming(options.loopbackSetting), url.href);
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
    const targets = await withDeadline(checkedAddresses(url, options), deadline, url.href, options);
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
