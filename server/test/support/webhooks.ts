import { expect } from 'vitest';
import { call } from './http.js';

/**
 * The webhook endpoints API as the webhook tests drive it, against any server (`{ api }`: a
 * TestServer, or the base URL of a child process's API).
 */

interface Api {
  api: string;
}

/** Creates an endpoint, asserting the 201; the answer holds its secret this once. */
export async function createEndpoint(server: Api, apiKey: string, body: Record<string, unknown>) {
  const res = await call('POST', `${server.api}/webhooks`, { apiKey, body });
  expect(res.status, res.text).toBe(201);
  return res.body as { id: string; secret: string; url: string; events: string[] };
}

/** The endpoint's deliveries, newest first (one page of 100). */
export async function deliveriesOf(server: Api, apiKey: string, endpointId: string) {
  const res = await call('GET', `${server.api}/webhooks/${endpointId}/deliveries?limit=100`, { apiKey });
  expect(res.status, res.text).toBe(200);
  return res.body.data as Array<{ id: string; eventId: string; eventType: string; status: string; attempts: number }>;
}

/** Polls one delivery until its status is `status`, and answers it (GET …/deliveries/{deliveryId}). */
export async function waitForDelivery<Detail = any>(
  server: Api,
  apiKey: string,
  endpointId: string,
  deliveryId: string,
  status: string,
  timeoutMs = 20_000,
): Promise<Detail> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await call('GET', `${server.api}/webhooks/${endpointId}/deliveries/${deliveryId}`, { apiKey });
    expect(res.status, res.text).toBe(200);
    if (res.body.status === status) return res.body;
    if (Date.now() > deadline) throw new Error(`delivery ${deliveryId} still ${res.body.status}: ${res.text}`);
    await new Promise((resolve) => setTimeout(resolve, 30));
  }
}
