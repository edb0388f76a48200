import { z } from 'zod';
import { storableText } from './text.js';

/** `image` is re-hosted as WebP; `youtube`, `vimeo` and `link` keep their URL and are rendered client-side. */
export const MediaType = z.enum(['image', 'youtube', 'vimeo', 'link']).meta({ id: 'MediaType' });
export type MediaType = z.infer<typeof MediaType>;

export const HttpUrl = z
  .url({ protocol: /^https?$/ })
  .check(storableText)
  .max(2048)
  .describe('An http(s) URL.');

/** Media attached to a slide or an option. */
export const Media = z
  .strictObject({
    type: MediaType,
    url: HttpUrl.describe('For images the original address; for video and links the address as given.'),
    storedUrl: HttpUrl.optional().describe('Images only: the re-hosted WebP.'),
    width: z.number().int().positive().optional(),
    height: z.number().int().positive().optional(),
  })
  .meta({ id: 'Media' });

export type Media = z.infer<typeof Media>;

/** Body of `POST /media`. */
export const IngestMediaInput = z
  .strictObject({
    url: HttpUrl.describe('Address of the asset: an image, a YouTube or Vimeo video, or any web page.'),
    type: MediaType.optional().describe(
      'Force the type instead of detecting it. `image` fails unless the URL serves a decodable image.',
    ),
  })
  .meta({ id: 'IngestMediaInput' });

/** Response of `POST /media`: the media wrapped as `{ data: … }`. */
export const MediaEnvelope = z.strictObject({ data: Media }).meta({ id: 'MediaEnvelope' });

// Types of the same names: a request body or query as a client writes it (`z.input`: defaulted
// fields optional) for `*Input` schemas, the value as the API answers it (`z.output`) for the rest.
export type HttpUrl = z.output<typeof HttpUrl>;
export type IngestMediaInput = z.input<typeof IngestMediaInput>;
export type MediaEnvelope = z.output<typeof MediaEnvelope>;
