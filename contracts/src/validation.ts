import type { z } from 'zod';
import type { ValidationErrorDetails } from './schemas/common.js';

/**
 * zod issues -> `{ fieldErrors, formErrors }`, the `details` of a `validation_failed` error. Unlike
 * zod's own `flattenError`, nested fields keep their full dotted path (`content.questions.2.options`),
 * so a client can point at the slide, and an unknown key is reported at its own path ("Unknown
 * field"). The server answers with it; the SDK uses it for its own input and response checks.
 *
 * Paths come from the caller's input, so a field may be named `constructor` or `__proto__`: messages
 * are gathered in a Map and copied into an object with own data properties only.
 */
export function validationDetails(issues: readonly z.core.$ZodIssue[]): ValidationErrorDetails {
  const byField = new Map<string, string[]>();
  const formErrors: string[] = [];
  const addFieldError = (path: string, message: string) => {
    const messages = byField.get(path);
    if (messages) messages.push(message);
    else byField.set(path, [message]);
  };
  for (const issue of issues) {
    if (issue.code === 'unrecognized_keys' && issue.keys.length > 0) {
      for (const key of issue.keys) addFieldError([...issue.path, key].map(String).join('.'), 'Unknown field');
      continue;
    }
    if (issue.path.length === 0) formErrors.push(issue.message);
    else addFieldError(issue.path.map(String).join('.'), issue.message);
  }
  return { fieldErrors: Object.fromEntries(byField), formErrors };
}

/** The one-line message of a `validation_failed` error: the first fields named, or the first form error. */
export function validationSummary(details: ValidationErrorDetails): string {
  const fields = Object.keys(details.fieldErrors);
  return fields.length > 0
    ? `Validation failed for ${fields.slice(0, 5).join(', ')}${fields.length > 5 ? ', …' : ''}`
    : `Validation failed: ${details.formErrors[0] ?? 'invalid input'}`;
}
