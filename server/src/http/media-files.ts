import type { FastifyInstance } from 'fastify';
import { ApiError } from '../core/api-error.js';
import { MEDIA_FILE_NAME } from '../infra/media-storage.js';
import { MEDIA_FILES_PATH } from '../modules/media/media.service.js';
import type { HttpDeps } from './http-deps.js';

/**
 * `GET /media/files/{name}`: the re-hosted WebP files, public (their names are SHA-256 content
 * addresses) and immutable, so caches may keep them for a year. Only names of the server's own
 * form are looked up; anything else (`../`, other extensions) is a 404 in the envelope.
 */
export function registerMediaFilesRoute(app: FastifyInstance, deps: Pick<HttpDeps, 'media'>): void {
  // The base URL of storedUrl needs the bound port (PORT=0 in tests).
  app.addHook('onListen', (done) => {
    const address = app.server.address();
    if (typeof address === 'object' && address) deps.media.setPort(address.port);
    done();
  });

  app.get<{ Params: { name: string } }>(`${MEDIA_FILES_PATH}/:name`, async (request, reply) => {
    const { name } = request.params;
    const notFound = () => reply.code(404).send(ApiError.notFound('Media file').toEnvelope());
    if (!MEDIA_FILE_NAME.test(name)) return notFound();
    const etag = `"${name.slice(0, 64)}"`;
    reply
      .header('cache-control', 'public, max-age=31536000, immutable')
      .header('etag', etag)
      .header('x-content-type-options', 'nosniff');
    const ifNoneMatch = request.headers['if-none-match'];
    if (ifNoneMatch?.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag)) {
      if (await deps.media.storage.exists(name)) return reply.code(304).send();
    }
    const stream = await deps.media.storage.get(name);
    if (!stream) {
      reply.removeHeader('cache-control').removeHeader('etag');
      return notFound();
    }
    return reply.type('image/webp').send(stream);
  });
}

/** `GET /media/files/{name}` is a plain Fastify route (http/media-files.ts) at the server root. */
export const mediaFilesPath = {
  '/media/files/{name}': {
    servers: [{ url: '/', description: 'Re-hosted media files are served outside /api/v1.' }],
    get: {
      operationId: 'mediaFile',
      summary: 'Get a re-hosted media file',
      description:
        'The WebP an image was re-encoded to by `POST /media`: the `storedUrl` it answered. Public (no ' +
        'credential) and immutable: the name is the SHA-256 of the source bytes, so caches may keep it for a year.',
      tags: ['media'],
      security: [],
      parameters: [
        {
          name: 'name',
          in: 'path',
          required: true,
          description: '`<64 hex digits>.webp`; any other name is 404.',
          schema: { type: 'string', pattern: '^[0-9a-f]{64}\\.webp$' },
        },
        {
          name: 'If-None-Match',
          in: 'header',
          required: false,
          description: 'An ETag from an earlier response: 304 when it still matches.',
          schema: { type: 'string' },
        },
      ],
      responses: {
        '200': {
          description: 'The image.',
          headers: {
            'Cache-Control': {
              required: true,
              schema: { type: 'string', const: 'public, max-age=31536000, immutable' },
            },
            ETag: { required: true, schema: { type: 'string' } },
            'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' },
          },
          content: { 'image/webp': { schema: { type: 'string', format: 'binary' } } },
        },
        '304': { description: 'Not modified: the `If-None-Match` ETag matches.' },
        '404': {
          description: '`not_found`: no file of that name (or not a valid name).',
          headers: { 'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' } },
          content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } },
        },
      },
    },
  },
};
