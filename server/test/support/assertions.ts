import type { ErrorCode, ErrorEnvelope } from '@pollkit/contracts';
import { expect } from 'vitest';
import type { HttpResponse } from './http.js';

/**
 * What a response is known to be once it is an error: the typed client's error member, or a raw
 * response whose body is the envelope.
 */
export type AsError<R> = R extends { ok: boolean } ? Extract<R, { ok: false }> : R & { body: ErrorEnvelope };

/**
 * The response is an error with this status and code, and says what went wrong in a message. Its
 * type narrows to the error envelope.
 */
export function expectError<R extends HttpResponse<unknown>>(
  res: R,
  status: number,
  code: ErrorCode,
): asserts res is AsError<R> {
  checkError(res, status, code, false);
}

/**
 * expectError, and the response is the envelope and nothing else: JSON, `{ error: { code, message,
 * details? } }`. The tests of the envelope itself check this; elsewhere the code is what matters.
 */
export function expectErrorEnvelope<R extends HttpResponse<unknown>>(
  res: R,
  status: number,
  code: ErrorCode,
): asserts res is AsError<R> {
  checkError(res, status, code, true);
}

/**
 * One body for both. The extra envelope checks sit between the common ones rather than after them so
 * that either variant reports its first failure in the same order: status, shape, code, message.
 */
function checkError(res: HttpResponse<unknown>, status: number, code: ErrorCode, onlyTheEnvelope: boolean): void {
  expect(res.status, res.text).toBe(status);
  // Read as the envelope: a body that is not one fails the expectations below, as it should.
  const body = res.body as ErrorEnvelope;
  if (onlyTheEnvelope) {
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(Object.keys(body)).toEqual(['error']);
  }
  expect(body.error.code).toBe(code);
  if (onlyTheEnvelope) expect(typeof body.error.message).toBe('string');
  expect(body.error.message.length).toBeGreaterThan(0);
  if (onlyTheEnvelope) {
    for (const key of Object.keys(body.error)) expect(['code', 'message', 'details']).toContain(key);
  }
}
