import { z } from 'zod';

/** `image` is re-hosted as WebP; `youtube`, `vimeo` and `link` keep their URL and are rendered client-side. */
export const MediaType = z.enum(['image', 'youtube', 'vimeo', 'link']).meta({ id: 'MediaType' });

export const HttpUrl = z
  .url({ protocol: /^https?$/ })
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
