import { expect } from 'vitest';
import type { JsonResponse } from './http.js';

/** The response is an error with this status and code, and says what went wrong in a message. */
export function expectError(res: JsonResponse, status: number, code: string): void {
  checkError(res, status, code, false);
}

/**
 * expectError, and the response is the envelope and nothing else: JSON, `{ error: { code, message,
 * details? } }`. The tests of the envelope itself check this; elsewhere the code is what matters.
 */
export function expectErrorEnvelope(res: JsonResponse, status: number, code: string): void {
  checkError(res, status, code, true);
}

/**
 * One body for both. The extra envelope checks sit between the common ones rather than after them so
 * that either variant reports its first failure in the same order: status, shape, code, message.
 */
function checkError(res: JsonResponse, status: number, code: string, onlyTheEnvelope: boolean): void {
  expect(res.status, res.text).toBe(status);
  if (onlyTheEnvelope) {
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(Object.keys(res.body)).toEqual(['error']);
  }
  expect(res.body.error.code).toBe(code);
  if (onlyTheEnvelope) expect(typeof res.body.error.message).toBe('string');
  expect(res.body.error.message.length).toBeGreaterThan(0);
  if (onlyTheEnvelope) {
    for (const key of Object.keys(res.body.error)) expect(['code', 'message', 'details']).toContain(key);
  }
}
