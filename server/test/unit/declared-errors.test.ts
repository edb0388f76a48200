import { defineRoute, type ErrorCode } from '@pollkit/contracts';
import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { type ApiRequest, newCall } from '../../src/api/call.js';
import { declaredErrorCodes } from '../../src/api/declared-errors.js';
import { compose, type PipelineDeps, stepsFor } from '../../src/api/pipeline.js';
import { ApiError } from '../../src/core/api-error.js';

/**
 * With RESPONSE_VALIDATION (every test server) a route may fail only with the codes it declares —
 * its `errors` and its gates' (`declaredErrorCodes`, what the OpenAPI document lists); any other is
 * a logged 500. Without it (production) errors pass untouched. The real steps of a public route,
 * composed as the pipeline composes them, around a handler that throws.
 */
const route = defineRoute({
  method: 'GET',
  path: '/things/{id}',
  tags: [],
  summary: 'A thing',
  auth: 'none',
  successStatus: 200,
  input: z.object({ id: z.string() }),
  output: z.object({ id: z.string() }),
  errors: ['not_found'],
});

/** Runs one call of `route` whose handler throws `code`; what the pipeline threw, and what it logged. */
async function failWith(code: ErrorCode, responseValidation: boolean) {
  const log = { error: vi.fn(), warn: vi.fn(), info: vi.fn(), debug: vi.fn() };
  const deps = { config: { RESPONSE_VALIDATION: responseValidation } } as unknown as PipelineDeps;
  const run = compose(stepsFor(route, deps), () => Promise.reject(new ApiError(code, `Failed with ${code}`)));
  const request = { id: 'test', log, params: { id: 'a' }, query: {} } as unknown as ApiRequest;
  const thrown = await run(newCall(route, request)).then(
    () => undefined,
    (error: unknown) => error,
  );
  expect(thrown).toBeInstanceOf(ApiError);
  return { error: thrown as ApiError, log };
}

describe('declared errors, with RESPONSE_VALIDATION', () => {
  it('passes a code the route declares through unchanged', async () => {
    const { error, log } = await failWith('not_found', true);
    expect(error.code).toBe('not_found');
    expect(error.message).toBe('Failed with not_found');
    expect(log.error).not.toHaveBeenCalled();
  });

  it('passes the codes of the gates every route has (the document lists them too)', async () => {
    const { error } = await failWith('service_unavailable', true);
    expect(error.code).toBe('service_unavailable');
  });

  it('turns a code the route does not declare into a 500, logged with the route and the code', async () => {
    const { error, log } = await failWith('poll_closed', true);
    expect(error.code).toBe('internal_error');
    expect(error.status).toBe(500);
    expect(log.error).toHaveBeenCalledTimes(1);
    expect(log.error.mock.calls[0]?.[0]).toMatchObject({ path: 'GET /things/{id}', code: 'poll_closed' });
    expect(log.error.mock.calls[0]?.[1]).toBe('error code not declared for the route');
  });
});

describe('declared errors, without RESPONSE_VALIDATION (production)', () => {
  it('leaves an undeclared code as it was thrown', async () => {
    const { error, log } = await failWith('poll_closed', false);
    expect(error.code).toBe('poll_closed');
    expect(log.error).not.toHaveBeenCalled();
  });
});

describe('declaredErrorCodes', () => {
  it("adds the gates' codes to a route's own list: the guard's on a workspace route", () => {
    const workspaceRoute = defineRoute({ ...route, method: 'POST', auth: 'workspace', scope: 'polls:write' });
    const codes = declaredErrorCodes(workspaceRoute);
    for (const code of ['not_found', 'invalid_api_key', 'insufficient_scope', 'rate_limited'] as const) {
      expect(codes).toContain(code);
    }
    expect(codes).toContain('idempotency_key_in_use');
    expect(codes).toContain('payload_too_large');
    expect(declaredErrorCodes(route)).not.toContain('invalid_api_key');
    expect(declaredErrorCodes(route)).not.toContain('payload_too_large');
  });
});
