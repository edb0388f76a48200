import {
  type ErrorCode,
  type ErrorEnvelope,
  statusOf,
  type ValidationErrorDetails,
  validationDetails,
  validationSummary,
} from '@pollkit/contracts';
import type { z } from 'zod';

/**
 * A failure the client should see: a stable code from the registry in `contracts/src/errors.ts`, a
 * human message, optional details. Services, infra and the CLI throw it; the transport renders it as
 * the envelope (http/) or as a message (cli/). It lives below both so that nothing under the
 * transport has to import the transport to fail.
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

  /** The body every error answers: `{ error: { code, message, details? } }` (the contract's ErrorEnvelope). */
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

/** 422 `validation_failed` for one field, with the usual details. */
export function invalidField(field: string, message: string): ApiError {
  const details: ValidationErrorDetails = { fieldErrors: { [field]: [message] }, formErrors: [] };
  return new ApiError('validation_failed', message, { ...details });
}

/** 422 `validation_failed` about the input as a whole. */
export function invalidInput(message: string): ApiError {
  const details: ValidationErrorDetails = { fieldErrors: {}, formErrors: [message] };
  return new ApiError('validation_failed', message, { ...details });
}

/** 422 `validation_failed` from zod issues (contracts' `validationDetails`). */
export function validationError(issues: readonly z.core.$ZodIssue[]): ApiError {
  const details = validationDetails(issues);
  return new ApiError('validation_failed', validationSummary(details), { ...details });
}

/**
 * Anything thrown while serving a request -> the ApiError the client sees. An unexpected error
 * becomes `internal_error` with a generic message: nothing internal leaks.
 */
export function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  return new ApiError('internal_error', 'Internal server error');
}
