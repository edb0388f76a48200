/**
 * A webhook receiver in Fastify that verifies every delivery before trusting it.
 *
 * The signature covers the body exactly as sent, so this route's JSON body stays a Buffer (a content
 * type parser with `parseAs: 'buffer'`, registered in its own plugin so the rest of the app keeps
 * Fastify's JSON parsing). Run against a server that allows an `http://127.0.0.1` endpoint
 * (`WEBHOOK_ALLOW_HTTP=true`, `WEBHOOK_ALLOW_LOOPBACK=true`, for local development;
 * `npx -y pnpm@10 examples` starts one so). In production the endpoint is your public `https://` URL.
 */
import { createClient, verifyWebhook, type WebhookEvent, WebhookVerificationError } from '@pollkit/sdk';
import Fastify from 'fastify';

const pollkit = createClient();
let secret = '';
let delivered: (event: WebhookEvent) => void = () => {};
const firstEvent = new Promise<WebhookEvent>((resolve) => {
  delivered = resolve;
});

const app = Fastify();
await app.register(async (receiver) => {
  // This plugin's routes get the raw bytes; other routes of the app parse JSON as usual.
  receiver.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
  receiver.post('/pollkit-webhooks', async (request, reply) => {
    try {
      const event = await verifyWebhook(request.body as Buffer, request.headers, secret);
      // Acknowledge fast (any 2xx); do the work after, or in a queue of your own.
      delivered(event);
      return reply.code(204).send();
    } catch (error) {
      if (!(error instanceof WebhookVerificationError)) throw error;
      return reply.code(400).send(error.reason);
    }
  });
});

const address = await app.listen({ port: 0, host: '127.0.0.1' });
const url = `${address}/pollkit-webhooks`;
try {
  // The signing secret is in the answer this once: keep it where your receiver reads it.
  const endpoint = await pollkit.webhooks.create({ url, events: ['poll.created'] });
  secret = endpoint.secret;
  await pollkit.webhooks.test({ id: endpoint.id });
  const event = await Promise.race([
    firstEvent,
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error('no delivery within 20 s')), 20_000)),
  ]);
  console.log(`verified ${event.type} ${event.id}`);

  // Anything not signed with the secret is refused before it is read.
  const forged = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'webhook-id': 'msg_forged',
      'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
      'webhook-signature': 'v1,AAAA',
    },
    body: JSON.stringify({ ...event, id: 'evt_forged' }),
  });
  console.log(`forged delivery answered ${forged.status} ${await forged.text()}`);
  if (forged.status !== 400) throw new Error('a forged delivery was accepted');
  await pollkit.webhooks.delete({ id: endpoint.id });
} finally {
  await app.close();
}
