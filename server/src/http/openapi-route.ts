import type { FastifyInstance } from 'fastify';
import { baseHeaderRefs } from './response-headers.js';

/**
 * `GET /api/v1/openapi.json`. The document is built on the first request, then kept: it is a pure
 * function of the contracts and the server's address, and building it (~30 ms, plus loading the
 * generator, ~0.3 s) need not delay start-up.
 */
export function registerOpenApiRoute(
  app: FastifyInstance,
  basePath: string,
  buildDocument: () => Promise<object>,
): void {
  let document: Promise<string> | undefined;
  app.get(`${basePath}/openapi.json`, async (_request, reply) => {
    if (!document) {
      document = buildDocument().then((built) => JSON.stringify(built));
      // A failed build is not kept: the next request tries again.
      document.catch(() => {
        document = undefined;
      });
    }
    const text = await document;
    return reply.type('application/json').header('cache-control', 'public, max-age=300').send(text);
  });
}

/** How the OpenAPI document describes this route (a plain Fastify route, so the generator cannot). */
export const openApiDocumentPath = {
  '/openapi.json': {
    get: {
      operationId: 'openapiDocument',
      summary: 'Get this OpenAPI document',
      description: 'The OpenAPI 3.1 description of this API, generated from the contracts the server runs.',
      tags: ['meta'],
      security: [],
      responses: {
        '200': {
          description: 'The OpenAPI document.',
          headers: {
            ...baseHeaderRefs,
            'Cache-Control': { description: 'The document is cacheable.', schema: { type: 'string' } },
          },
          content: {
            'application/json': {
              schema: {
                type: 'object',
                required: ['openapi', 'info', 'paths'],
                properties: {
                  openapi: { type: 'string', pattern: '^3\\.1\\.\\d+$' },
                  info: { type: 'object' },
                  paths: { type: 'object' },
                },
              },
            },
          },
        },
      },
    },
  },
};
