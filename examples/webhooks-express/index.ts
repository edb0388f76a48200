/**
 * A webhook receiver in Express that verifies every delivery before trusting it.
 *
 * The signature covers the body exactly as sent, so the route reads it raw (`express.raw`), never
 * through `express.json()`: a body parsed and serialized again is not the body that was signed.
 * Run against a server that allows an `http://127.0.0.1` endpoint (`WEBHOOK_ALLOW_HTTP=true`,
 * `WEBHOOK_ALLOW_LOOPBACK=true`, for local development; `npx -y pnpm@10 examples` starts one so).
 * In production the endpoint is your public `https://` URL.
 */
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { createClient, verifyWebhook, type WebhookEvent, WebhookVerificationError } from '@pollkit/sdk';
import express from 'express';

const pollkit = createClient();
let secret = '';
let delivered: (event: WebhookEvent) => void = () => {};
const firstEvent = new Promise<WebhookEvent>((resolve) => {
  delivered = resolve;
});

const app = express();
app.post('/pollkit-webhooks', express.raw({ type: '*/*' }), async (req, res) => {
  try {
    const event = await verifyWebhook(req.body as Buffer, req.headers, secret);
    // Acknowledge fast (any 2xx); do the work after, or in a queue of your own.
    res.sendStatus(204);
    delivered(event);
  } catch (error) {
    if (!(error instanceof WebhookVerificationError)) throw error;
    res.status(400).send(error.reason);
  }
});

const server = app.listen(0, '127.0.0.1');
await once(server, 'listening');
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/pollkit-webhooks`;
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
  server.close();
}
