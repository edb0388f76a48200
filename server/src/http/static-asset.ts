import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * A file the server serves as it is, to browsers (the audience and presenter pages' assets, the API
 * reference's bundle): its bytes, gzipped once, and a strong ETag of them. The pages' own files are
 * also compressed with Brotli (about 15 % smaller than gzip for a phone on a venue's Wi-Fi); until
 * that copy is made, gzip is sent.
 */
export interface StaticAsset {
  body: Buffer;
  gzipped: Buffer;
  brotli?: Buffer;
  etag: string;
  type: string;
}

/** 16 hex digits of SHA-256: an asset's version in its URL, and (quoted) its ETag. */
export function contentHash(body: string | Buffer): string {
  return createHash('sha256').update(body).digest('hex').slice(0, 16);
}

/** Whether the browser's cached copy (`If-None-Match`, weak or strong) is this one. */
function notModified(request: FastifyRequest, etag: string): boolean {
  const header = request.headers['if-none-match'];
  return header?.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag) ?? false;
}

const ENCODINGS = { gzip: /\bgzip\b/, br: /\bbr\b/ } as const;

function accepts(request: FastifyRequest, encoding: keyof typeof ENCODINGS): boolean {
  return ENCODINGS[encoding].test(String(request.headers['accept-encoding'] ?? ''));
}

/** Sends `asset` with its caching headers: a 304 when the browser has it, gzipped when it may be. */
export function sendStaticAsset(
  request: FastifyRequest,
  reply: FastifyReply,
  asset: StaticAsset,
  cacheControl: string,
  /** Another request header the response depends on (a page's `accept-language`). */
  alsoVaryOn?: string,
) {
  reply
    .header('cache-control', cacheControl)
    .header('etag', asset.etag)
    .header('vary', alsoVaryOn ? `accept-encoding, ${alsoVaryOn}` : 'accept-encoding')
    .header('x-content-type-options', 'nosniff');
  if (notModified(request, asset.etag)) return reply.code(304).send();
  reply.type(asset.type);
  if (asset.brotli && accepts(request, 'br')) return reply.header('content-encoding', 'br').send(asset.brotli);
  if (accepts(request, 'gzip')) return reply.header('content-encoding', 'gzip').send(asset.gzipped);
  return reply.send(asset.body);
}
