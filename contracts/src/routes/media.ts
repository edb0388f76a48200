import { defineRoute } from '../route.js';
import { IngestMediaInput, MediaEnvelope } from '../schemas/media.js';

/** The limit of `POST /media`, requests per minute per credential, counted on top of the general one. */
export const MEDIA_INGEST_REQUESTS_PER_MINUTE = 30;

export const ingestMedia = defineRoute({
  method: 'POST',
  path: '/media',
  tags: ['media'],
  summary: 'Ingest media',
  description:
    'Classifies a URL. YouTube and Vimeo URLs come back as their video type and are not fetched. Anything ' +
    'else is fetched (public addresses only, size and time limited): an image is re-encoded to WebP without ' +
    'metadata and re-hosted at `storedUrl`; any other page is a `link`. Limited to ' +
    `${MEDIA_INGEST_REQUESTS_PER_MINUTE} requests a minute on top of the general limit. See docs/media.md.`,
  auth: 'workspace',
  reachesOut: true,
  scope: 'media:write',
  successStatus: 201,
  rateLimitPerMinute: MEDIA_INGEST_REQUESTS_PER_MINUTE,
  input: IngestMediaInput,
  output: MediaEnvelope,
  errors: ['validation_failed', 'media_not_allowed', 'media_fetch_failed', 'media_too_large', 'unsupported_media'],
});
