import { createHash } from 'node:crypto';
import type { Media, MediaType } from '@pollkit/contracts';
import type { OutputInfo } from 'sharp';
import type { Config } from '../../config.js';
import { ApiError } from '../../core/api-error.js';
import type { MediaStorage } from '../../infra/media-storage.js';
import { safeFetch } from '../../infra/safe-fetch.js';
import { loadSharp } from '../../infra/sharp.js';

/** Redirects followed per fetch, each hop checked like the first. */
const MEDIA_MAX_REDIRECTS = 3;

/** Path the re-hosted files are served under (http/media-files.ts). */
export const MEDIA_FILES_PATH = '/media/files';

/** Where re-hosted files go and the address they are served at. */
export interface MediaFiles {
  storage: MediaStorage;
  /** Absolute base URL of this server, without a trailing slash (known once it listens). */
  baseUrl(): string;
}

/** What media ingestion needs: its limits from the config, and where files go. */
export interface MediaDeps {
  config: Pick<Config, 'MEDIA_FETCH_TIMEOUT_MS' | 'MEDIA_MAX_BYTES' | 'MEDIA_MAX_PIXELS' | 'MEDIA_ALLOW_LOOPBACK'>;
  media: MediaFiles;
}

/**
 * `{ url, type? }` -> a Media object, as `POST /media` answers and as inline media on a poll is
 * resolved. YouTube and Vimeo URLs are classified without a request; anything else is fetched
 * safely (infra/safe-fetch.ts): an image is re-encoded to WebP, stripped of metadata and stored
 * under the SHA-256 of its source bytes; an HTML page is a `link`.
 */
export async function ingestMedia(deps: MediaDeps, input: { url: string; type?: MediaType }): Promise<Media> {
  const type = input.type ?? videoTypeOf(input.url);
  if (type === 'youtube' || type === 'vimeo' || type === 'link') return { type, url: input.url };

  const { config } = deps;
  const forcedImage = input.type === 'image';
  const response = await safeFetch(input.url, {
    timeoutMs: config.MEDIA_FETCH_TIMEOUT_MS,
    maxBytes: config.MEDIA_MAX_BYTES,
    maxRedirects: MEDIA_MAX_REDIRECTS,
    allowLoopback: config.MEDIA_ALLOW_LOOPBACK,
    loopbackSetting: 'MEDIA_ALLOW_LOOPBACK',
    // A web page is a link: its body is not needed.
    wantBody: (contentType) => forcedImage || !isHtml(contentType),
  });
  if (!response.body) return { type: 'link', url: input.url };
  return { type: 'image', url: input.url, ...(await storeImage(deps, response.body)) };
}

/**
 * An image given as bytes (embedded in an imported question bank), stored as an ingested image is:
 * re-encoded to WebP under the SHA-256 of its bytes. Its `url` is the stored file's, as it has no
 * address of its own. Refused as `POST /media` refuses: too large, too many pixels, not an image.
 */
export async function storeImageBytes(deps: MediaDeps, bytes: Buffer): Promise<Media> {
  if (bytes.length > deps.config.MEDIA_MAX_BYTES) {
    throw new ApiError('media_too_large', `The image is larger than ${deps.config.MEDIA_MAX_BYTES} bytes`, {
      maxBytes: deps.config.MEDIA_MAX_BYTES,
    });
  }
  const stored = await storeImage(deps, bytes);
  return { type: 'image', url: stored.storedUrl, ...stored };
}

/** `youtube` / `vimeo` for their watch, short, embed and player URLs; undefined otherwise. */
function videoTypeOf(rawUrl: string): 'youtube' | 'vimeo' | undefined {
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return undefined;
  const host = url.hostname.toLowerCase().replace(/^(www\.|m\.|music\.)/, '');
  const path = url.pathname;
  if (host === 'youtu.be' && /^\/[\w-]{6,}/.test(path)) return 'youtube';
  if (host === 'youtube.com' || host === 'youtube-nocookie.com') {
    if (path === '/watch' && url.searchParams.has('v')) return 'youtube';
    if (/^\/(shorts|embed|live|v)\/[\w-]{6,}/.test(path)) return 'youtube';
  }
  if (host === 'vimeo.com' && /^\/(\d+|channels\/[\w-]+\/\d+|groups\/[\w-]+\/videos\/\d+)(\/|$)/.test(path)) {
    return 'vimeo';
  }
  if (host === 'player.vimeo.com' && /^\/video\/\d+/.test(path)) return 'vimeo';
  return undefined;
}

function isHtml(contentType: string): boolean {
  return /^(text\/html|application\/xhtml\+xml)\b/.test(contentType);
}

/**
 * Source bytes -> `<sha256>.webp` in storage. The same bytes are encoded and stored once: a second
 * ingest finds the file and only reads its dimensions from the WebP header.
 */
async function storeImage(
  deps: MediaDeps,
  source: Buffer,
): Promise<{ storedUrl: string; width: number; height: number }> {
  const name = `${createHash('sha256').update(source).digest('hex')}.webp`;
  const storedUrl = `${deps.media.baseUrl()}${MEDIA_FILES_PATH}/${name}`;
  const existing = await readStored(deps.media.storage, name);
  const sharp = await loadSharp();
  if (existing) {
    const { width, height } = await sharp(existing).metadata();
    if (width && height) return { storedUrl, width, height };
  }
  let encoded: { data: Buffer; info: OutputInfo };
  try {
    encoded = await sharp(source, {
      // Decompression bombs: sharp refuses to decode more pixels than this (from the header).
      limitInputPixels: deps.config.MEDIA_MAX_PIXELS,
      // First frame of an animation; a truncated file is an error, not a grey half.
      animated: false,
      failOn: 'error',
    })
      .rotate() // apply the EXIF orientation; the output carries no metadata at all
      .webp({ quality: 82 })
      .toBuffer({ resolveWithObject: true });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (/pixel limit/i.test(message)) {
      throw new ApiError('unsupported_media', `The image has more than ${deps.config.MEDIA_MAX_PIXELS} pixels`, {
        maxPixels: deps.config.MEDIA_MAX_PIXELS,
      });
    }
    throw new ApiError('unsupported_media', 'The URL does not serve an image the server can decode');
  }
  await deps.media.storage.put(name, encoded.data);
  return { storedUrl, width: encoded.info.width, height: encoded.info.height };
}

async function readStored(storage: MediaStorage, name: string): Promise<Buffer | undefined> {
  const stream = await storage.get(name);
  if (!stream) return undefined;
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
