import { type ErrorCode, type ErrorEnvelope, statusOf } from '@pollkit/contracts';
import { TRPCError } from '@trpc/server';
import { getHTTPStatusCodeFromError } from '@trpc/server/http';
import type { z } from 'zod';

/**
 * A failure the client should see: a stable code from the registry in `contracts/src/errors.ts`, a
 * human message, optional details. Services throw it; the HTTP layer renders it as the envelope.
 */
export class ApiError extends Error {
  override name = 'ApiError';
  readonly status: number;

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.status = statusOf(code);
  }

  toEnvelope(): ErrorEnvelope {
    return {
      error: {
        code: this.code,
        message: this.message,
        ...(this.details ? { details: this.details } : {}),
      },
    };
  }

  static notFound(what: string): ApiError {
    return new ApiError('not_found', `${what} not found`);
  }
}

/**
 * zod issues -> `{ fieldErrors, formErrors }`. Unlike zod's own `flattenError`, nested fields keep
 * their full dotted path (`content.questions.2.options`), so a client can point at the slide.
 */
export function validationDetails(issues: readonly z.core.$ZodIssue[]) {
  const fieldErrors: Record<string, string[]> = {};
  const formErrors: string[] = [];
  const addFieldError = (path: string, message: string) => {
    const messages = fieldErrors[path] ?? [];
    messages.push(message);
    fieldErrors[path] = messages;
  };
  for (const issue of issues) {
    if (issue.code === 'unrecognized_keys' && issue.keys.length > 0) {
      for (const key of issue.keys) {
        addFieldError([...issue.path, key].join('.'), 'Unknown field');
      }
      continue;
    }
    if (issue.path.length === 0) {
      formErrors.push(issue.message);
    } else {
      addFieldError(issue.path.map(String).join('.'), issue.message);
    }
  }
  return { fieldErrors, formErrors };
}

export function validationError(issues: readonly z.core.$ZodIssue[]): ApiError {
  const details = validationDetails(issues);
  const fields = Object.keys(details.fieldErrors);
  const message =
    fields.length > 0
      ? `Validation failed for ${fields.slice(0, 5).join(', ')}${fields.length > 5 ? ', …' : ''}`
      : `Validation failed: ${details.formErrors[0] ?? 'invalid input'}`;
  return new ApiError('validation_failed', message, details);
}

function isZodError(value: unknown): value is { issues: z.core.$ZodIssue[] } {
  return value instanceof Error && value.name === 'ZodError' && Array.isArray((value as { issues?: unknown }).issues);
}

/**
 * Anything thrown while serving a route -> the ApiError the client sees. Domain errors travel as the
 * TRPCError's `cause`; input validation becomes 422; other tRPC client errors keep a 4xx
 * (`bad_request`), never a blanket 500. An unexpected error becomes `internal_error` with a generic
 * message: nothing internal leaks.
 */
export function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof TRPCError) {
    if (error.cause instanceof ApiError) return error.cause;
    if (error.code === 'BAD_REQUEST' && isZodError(error.cause)) return validationError(error.cause.issues);
    if (getHTTPStatusCodeFromError(error) < 500) return new ApiError('bad_request', error.message);
  }
  return new ApiError('internal_error', 'Internal server error');
}
