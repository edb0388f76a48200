import { expect } from 'vitest';
import type { JsonResponse } from './http.js';

/** The response is the error envelope with this status and code, a message, and nothing else. */
export function expectError(res: JsonResponse, status: number, code: string): void {
  expect(res.status, res.text).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  expect(Object.keys(res.body)).toEqual(['error']);
  expect(res.body.error.code).toBe(code);
  expect(typeof res.body.error.message).toBe('string');
  expect(res.body.error.message.length).toBeGreaterThan(0);
  for (const key of Object.keys(res.body.error)) expect(['code', 'message', 'details']).toContain(key);
}
