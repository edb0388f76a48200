import type { FastifyInstance } from 'fastify';
import { ApiError } from '../core/api-error.js';
import type { AppDeps } from '../deps.js';
import { MEDIA_FILE_NAME } from '../infra/media-storage.js';
import { MEDIA_FILES_PATH } from '../modules/media/media.service.js';

/**
 * `GET /media/files/{name}`: the re-hosted WebP files, public (their names are SHA-256 content
 * addresses) and immutable, so caches may keep them for a year. Only names of the server's own
 * form are looked up; anything else (`../`, other extensions) is a 404 in the envelope.
 */
export function registerMediaFilesRoute(app: FastifyInstance, deps: AppDeps): void {
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
