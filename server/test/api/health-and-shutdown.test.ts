import type { ErrorEnvelope } from '@pollkit/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawCall } from '../support/http.js';
import { startTestServer, type TestServer } from '../support/server.js';

/**
 * Health endpoints, and the draining state graceful shutdown begins with. The real entry point
 * started as a child process (start-up output, bad configuration, SIGTERM) is in entry-point.test.ts.
 */

describe('health endpoints', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer();
  });
  afterAll(() => t?.close());

  it('answers /healthz and /readyz with 200 while the database is up', async () => {
    const health = await rawCall('GET', `${t.url}/healthz`);
    expect(health.status).toBe(200);
    expect(health.body).toEqual({ status: 'ok' });
    const ready = await rawCall('GET', `${t.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({ status: 'ok' });
  });

  it('answers every request with a 503 envelope and Connection: close once draining has begun', async () => {
    // `shuttingDown` is the flag close() sets first, before the listener closes; set alone it holds
    // the server in the draining state long enough to look at the responses.
    const { apiKey } = await t.workspace('pro');
    t.server.deps.state.shuttingDown = true;
    try {
      for (const [url, key] of [
        [`${t.url}/readyz`, undefined],
        [`${t.api}/polls`, apiKey],
      ] as const) {
        const res = await rawCall<ErrorEnvelope>('GET', url, { apiKey: key });
        expect(res.status, url).toBe(503);
        expect(res.body.error.code).toBe('service_unavailable');
        expect(res.headers.get('connection')).toBe('close');
      }
    } finally {
      t.server.deps.state.shuttingDown = false;
    }
    expect((await rawCall('GET', `${t.url}/readyz`)).status).toBe(200);
  });
});
