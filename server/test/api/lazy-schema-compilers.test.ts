import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lazySchemaCompilers } from '../../src/http/lazy-schema-compilers.js';
import { rawCall } from '../support/http.js';

/**
 * The app loads Fastify's schema compilers only when a route declares a Fastify schema
 * (http/lazy-schema-compilers.ts). None of ours does; should one ever, it is validated and
 * serialized as with Fastify's defaults.
 */
describe('Fastify schema compilers loaded on first use', () => {
  let app: FastifyInstance;
  let url: string;
  beforeAll(async () => {
    app = Fastify({ schemaController: { compilersFactory: lazySchemaCompilers() } });
    app.post(
      '/echo',
      {
        schema: {
          body: { type: 'object', required: ['n'], properties: { n: { type: 'integer' } } },
          response: { 200: { type: 'object', properties: { n: { type: 'integer' } } } },
        },
      },
      async (request) => ({ ...(request.body as { n: number }), undeclared: 'dropped by the serializer' }),
    );
    url = await app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(() => app?.close());

  it('validates a body against its schema', async () => {
    const refused = await rawCall('POST', `${url}/echo`, { body: { n: 'one' } });
    expect(refused.status).toBe(400);
  });

  it('serializes a response through its schema', async () => {
    const answered = await rawCall('POST', `${url}/echo`, { body: { n: 1 } });
    expect(answered.status).toBe(200);
    expect(answered.body).toEqual({ n: 1 });
  });
});
