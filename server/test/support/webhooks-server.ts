import { startTestServer, type TestServer } from './server.js';
import { WebhookReceiver } from './webhook-receiver.js';

/**
 * The server and the loopback receiver the webhook API tests (server/test/api/webhooks.*.test.ts)
 * share: deliveries to loopback over plain HTTP allowed, retried in tens of milliseconds.
 */

// Retries in tens of milliseconds, so a whole schedule runs inside a test.
const SCHEDULE = '40,80';

interface WebhookServer {
  t: TestServer;
  receiver: WebhookReceiver;
}

export async function startWebhookServer(): Promise<WebhookServer> {
  const receiver = await WebhookReceiver.start();
  const t = await startTestServer({
    WEBHOOK_ALLOW_HTTP: 'true',
    WEBHOOK_ALLOW_LOOPBACK: 'true',
    WEBHOOK_RETRY_SCHEDULE_MS: SCHEDULE,
    WEBHOOK_POLL_INTERVAL_MS: '50',
  });
  return { t, receiver };
}

export async function closeWebhookServer(server: Partial<WebhookServer>): Promise<void> {
  await server.t?.close();
  await server.receiver?.close();
}

export async function waitFor(check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 30));
  }
}
