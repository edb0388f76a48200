/**
 * Bench baseline: a bare Fastify route answering the same poll JSON from memory. No auth, no
 * validation, no database: the ceiling the real route is compared with.
 */
import Fastify from 'fastify';

const body = process.env.BENCH_BODY ?? '{}';
const app = Fastify({ logger: false });
app.get('/api/v1/polls/:id', async (_request, reply) => reply.type('application/json').send(body));
await app.listen({ port: 0, host: '127.0.0.1' });
const address = app.server.address();
const port = typeof address === 'object' && address ? address.port : 0;
process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${port}` })}\n`);
process.on('SIGTERM', () => {
  app.close().then(() => process.exit(0));
});
