import { expect } from 'vitest';
import { call } from './http.js';

/**
 * Creates a poll and publishes it, asserting both answers; returns the id and both bodies. Each test
 * file wraps it with its own deck and what it needs back (the id, the slides, the version).
 */
export async function publishPoll(options: {
  api: string;
  apiKey: string;
  content: unknown;
  title?: string;
}): Promise<{ id: string; created: any; published: any }> {
  const { api, apiKey, content, title = 'Poll' } = options;
  const created = await call('POST', `${api}/polls`, { apiKey, body: { title, content } });
  expect(created.status).toBe(201);
  const published = await call('PATCH', `${api}/polls/${created.body.id}`, { apiKey, body: { publish: true } });
  expect(published.status).toBe(200);
  return { id: created.body.id, created: created.body, published: published.body };
}
