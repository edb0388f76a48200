import type { FastifyInstance } from 'fastify';
import { baseHeaderRefs } from './response-headers.js';

/**
 * `GET /api/v1/openapi.json`. The document is built on the first request, then kept: it is a pure
 * function of the contracts, and building it (~30 ms) need not delay start-up.
 */
export function registerOpenApiRoute(app: FastifyInstance, basePath: string, buildDocument: () => object): void {
  let document: string | undefined;
  app.get(`${basePath}/openapi.json`, async (_request, reply) => {
    document ??= JSON.stringify(buildDocument());
    return reply.type('application/json').header('cache-control', 'public, max-age=300').send(document);
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
                properties: { openapi: { type: 'string', pattern: '^3\\.1\\.\\d+$' } },
              },
            },
          },
        },
      },
    },
  },
};
