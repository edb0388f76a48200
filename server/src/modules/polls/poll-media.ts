import type { Media, PollContent } from '@pollkit/contracts';
import { ApiError } from '../../core/api-error.js';
import { MEDIA_FILE_NAME } from '../../infra/media-storage.js';
import { loadSharp } from '../../infra/sharp.js';
import { ingestMedia, MEDIA_FILES_PATH, type MediaDeps } from '../media/media.service.js';

/** What resolving inline media needs: whatever `POST /media` needs. */
export type PollMediaDeps = MediaDeps;

/** Downloads running at once while one poll is saved. */
const CONCURRENCY = 4;

/**
 * New images one save may ingest. Each costs a download and ~1.5 s of CPU (server/bench/RESULTS.md)
 * and, inline, escapes `POST /media`'s own 30-a-minute limit; a deck needing more ingests them ahead
 * with `POST /media` and references the results.
 */
export const MAX_INLINE_INGESTIONS = 20;

/** One media object in the deck, with the dotted path the client sent it at. */
interface Site {
  path: string;
  media: Media;
  set(resolved: Media): void;
}

/**
 * Resolves every inline `media` on slides and options as `POST /media` would: images are fetched,
 * re-encoded and stored (the result carries `storedUrl`, `width`, `height`); video and link media are
 * classified without a fetch. Each distinct (type, url) is ingested once, at most CONCURRENCY at a
 * time. Media that already point at a file this server stored (a poll read from the API and saved
 * again) are kept as they are.
 *
 * Returns a new content object; the input is not modified. The first failure (in deck order among
 * those that ran) rejects with the media error, its details naming the slide or option.
 */
export async function resolveContentMedia(deps: PollMediaDeps, content: PollContent): Promise<PollContent> {
  const resolved: PollContent = structuredClone(content);
  const sites: Site[] = [];
  resolved.questions.forEach((slide, s) => {
    if (slide.media) {
      sites.push({ path: `content.questions.${s}.media`, media: slide.media, set: (m) => (slide.media = m) });
    }
    if ('options' in slide) {
      slide.options.forEach((option, o) => {
        if (option.media) {
          sites.push({
            path: `content.questions.${s}.options.${o}.media`,
            media: option.media,
            set: (m) => (option.media = m),
          });
        }
      });
    }
  });

  // Group the sites by what they resolve from: media already stored here are checked (file present,
  // dimensions read from it), anything else is ingested from its `url`.
  const jobs = new Map<string, { run: () => Promise<Media>; sites: Site[] }>();
  for (const site of sites) {
    const { type, url } = site.media;
    const stored = storedFileName(deps, site.media);
    const key = stored ? `stored ${url} ${stored}` : `${type} ${url}`;
    const job = jobs.get(key);
    if (job) {
      job.sites.push(site);
      continue;
    }
    const ingest = () => ingestMedia(deps, { url, type });
    const run = stored ? async () => (await keepStored(deps, site.media, stored)) ?? (await ingest()) : ingest;
    jobs.set(key, { run, sites: [site] });
  }

  const queue = [...jobs.values()];
  const ingestions = [...jobs.keys()].filter((key) => key.startsWith('image ')).length;
  if (ingestions > MAX_INLINE_INGESTIONS) {
    const message = `A save may ingest at most ${MAX_INLINE_INGESTIONS} new images inline (this one has ${ingestions}); ingest them first with POST /media`;
    throw new ApiError('validation_failed', message, { fieldErrors: {}, formErrors: [message] });
  }
  const failures: { index: number; error: unknown }[] = [];
  let next = 0;
  const worker = async () => {
    while (failures.length === 0 && next < queue.length) {
      const index = next++;
      const job = queue[index] as (typeof queue)[number];
      try {
        const media = await job.run();
        for (const site of job.sites) site.set({ ...media });
      } catch (error) {
        failures.push({ index, error });
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, queue.length) }, worker));

  const first = failures.sort((a, b) => a.index - b.index)[0];
  if (first) {
    const site = (queue[first.index] as (typeof queue)[number]).sites[0] as Site;
    throw atPath(first.error, `${site.path}.url`);
  }
  return resolved;
}

/** A media error re-thrown so the client can tell which slide or option it came from. */
function atPath(error: unknown, path: string): unknown {
  if (!(error instanceof ApiError)) return error;
  if (error.code === 'validation_failed') {
    return new ApiError(error.code, `${path}: ${error.message}`, {
      ...error.details,
      fieldErrors: { [path]: [error.message] },
      formErrors: [],
    });
  }
  return new ApiError(error.code, `${path}: ${error.message}`, { ...error.details, path });
}

/**
 * The file name when `media` is an image whose `storedUrl` is a file URL of this server (as a poll
 * read from the API carries); undefined otherwise, including for a `storedUrl` elsewhere, which is
 * ignored in favour of ingesting `url`.
 */
function storedFileName(deps: PollMediaDeps, media: Media): string | undefined {
  if (media.type !== 'image' || !media.storedUrl) return undefined;
  const prefix = `${deps.media.baseUrl()}${MEDIA_FILES_PATH}/`;
  if (!media.storedUrl.startsWith(prefix)) return undefined;
  const name = media.storedUrl.slice(prefix.length);
  return MEDIA_FILE_NAME.test(name) ? name : undefined;
}

/**
 * An already-stored image kept as it is, with its dimensions read from the stored file rather than
 * taken from the client; undefined when the file is not (or no longer) in storage.
 */
async function keepStored(deps: PollMediaDeps, media: Media, name: string): Promise<Media | undefined> {
  const stream = await deps.media.storage.get(name);
  if (!stream) return undefined;
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  const sharp = await loadSharp();
  const { width, height } = await sharp(Buffer.concat(chunks))
    .metadata()
    .catch(() => ({ width: undefined, height: undefined }));
  if (!width || !height) return undefined;
  return { type: 'image', url: media.url, storedUrl: media.storedUrl, width, height };
}
