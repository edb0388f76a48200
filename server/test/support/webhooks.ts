import { type BodyOf, expectStatus, type OutputOf, testClient } from './test-client.js';

/**
 * The webhook endpoints API as the webhook tests drive it, against any server (`{ api }`: a
 * TestServer, or the base URL of a child process's API).
 */

interface Api {
  api: string;
}

/** Creates an endpoint, asserting the 201; the answer holds its secret this once. */
export async function createEndpoint(
  server: Api,
  apiKey: string,
  body: BodyOf<'POST /webhooks'>,
): Promise<OutputOf<'POST /webhooks'>> {
  const res = await testClient(server.api).request('POST /webhooks', { apiKey, body });
  expectStatus(res, 201);
  return res.body;
}

/** The endpoint's deliveries, newest first (one page of 100). */
export async function deliveriesOf(
  server: Api,
  apiKey: string,
  endpointId: string,
): Promise<OutputOf<'GET /webhooks/{id}/deliveries'>['data']> {
  const res = await testClient(server.api).request('GET /webhooks/{id}/deliveries', {
    params: { id: endpointId },
    query: { limit: 100 },
    apiKey,
  });
  expectStatus(res, 200);
  return res.body.data;
}

/** One delivery as `GET /webhooks/{id}/deliveries/{deliveryId}` answers it. */
export type DeliveryDetail = OutputOf<'GET /webhooks/{id}/deliveries/{deliveryId}'>;

/**
 * Polls one delivery until its status is `status`, and answers it (GET …/deliveries/{deliveryId}),
 * as the contract types it unless the caller names the fields it reads (`Detail`).
 */
export async function waitForDelivery<Detail = DeliveryDetail>(
  server: Api,
  apiKey: string,
  endpointId: string,
  deliveryId: string,
  status: DeliveryDetail['status'],
  timeoutMs = 20_000,
): Promise<Detail> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await testClient(server.api).request('GET /webhooks/{id}/deliveries/{deliveryId}', {
      params: { id: endpointId, deliveryId },
      apiKey,
    });
    expectStatus(res, 200);
    if (res.body.status === status) return res.body as Detail;
    if (Date.now() > deadline) throw new Error(`delivery ${deliveryId} still ${res.body.status}: ${res.text}`);
    await new Promise((resolve) => setTimeout(resolve, 30));
  }
}
