import { z } from 'zod';
import { errorCodeList } from '../errors.js';
import { text } from './text.js';

/** Resource ids are a type prefix and a ULID: `poll_01JF3Z8Q6M4W9Y2K7T5R0B1C3D`. */
export function resourceId(prefix: string, description: string) {
  return text()
    .regex(new RegExp(`^${prefix}_[0-9A-HJKMNP-TV-Z]{26}$`), `Must be a ${prefix}_… id`)
    .describe(description);
}

export const Timestamp = z.iso.datetime({ offset: true }).describe('ISO 8601 timestamp (UTC).');

/** Page size for cursor-paginated lists. A query-string field, coerced from text by the server. */
export const ListLimit = z.number().int().min(1).max(100).default(20).describe('Items per page, 1–100.');
export const ListCursor = text()
  .min(1)
  .max(200)
  .optional()
  .describe('The `nextCursor` of the previous page; omit for the first page.');

/** `{ data, nextCursor }`: one page of a list, newest first. */
export function pageOf<T extends z.ZodType>(item: T, id: string) {
  return z
    .object({
      data: z.array(item),
      nextCursor: z.string().nullable().describe('Pass as `cursor` to get the next page; null on the last page.'),
    })
    .meta({ id });
}

/** What a `format: 'svg'` route answers (`image/svg+xml`), as text. */
export const SvgDocument = z.string().startsWith('<svg').describe('An SVG document (`image/svg+xml`).');

/**
 * Why `POST /polls/{id}/branch` refused an instruction, most specific first (the parser reports the
 * first that applies). `does_not_fit`: it reads, but its rules do not fit the poll.
 */
export const branchRefusalReasons = [
  'backward_jump',
  'free_text',
  'across_slides',
  'all_of',
  'content_slide',
  'per_statement',
  'out_of_range',
  'no_such_slide',
  'no_such_option',
  'unsupported_action',
  'ambiguous',
  'no_rule',
  'unreadable',
] as const;

export const ValidationErrorDetails = z
  .object({
    fieldErrors: z
      .record(z.string(), z.array(z.string()))
      .describe('Messages per field; nested fields use dotted paths such as `content.questions.0.options`.'),
    formErrors: z.array(z.string()).describe('Messages about the request as a whole.'),
    reason: z
      .enum([...branchRefusalReasons, 'does_not_fit'])
      .optional()
      .describe('On an instruction `POST /polls/{id}/branch` refused: why, in one word (docs/branching.md).'),
    fragment: z.string().optional().describe('On a refused instruction: the words it could not read, as written.'),
    expected: z.string().optional().describe('On a refused instruction: what was expected there, with an example.'),
    suggestion: z
      .string()
      .optional()
      .describe('On a refused instruction: the closest instruction that reads, when a small change away.'),
  })
  .meta({ id: 'ValidationErrorDetails' });

export const ErrorEnvelope = z
  .object({
    error: z.object({
      code: z.enum(errorCodeList).describe('Stable, machine-readable error code.'),
      message: z.string().describe('Human-readable explanation.'),
      details: z
        .union([ValidationErrorDetails, z.record(z.string(), z.unknown())])
        .optional()
        .describe('Present on `validation_failed` (field and form errors) and on some other codes.'),
    }),
  })
  .meta({ id: 'ErrorEnvelope', description: 'Every error answers this envelope.' });

export type ErrorEnvelope = z.infer<typeof ErrorEnvelope>;

// Types of the same names: a request body or query as a client writes it (`z.input`: defaulted
// fields optional) for `*Input` schemas, the value as the API answers it (`z.output`) for the rest.
export type ListCursor = z.output<typeof ListCursor>;
export type ListLimit = z.output<typeof ListLimit>;
export type Timestamp = z.output<typeof Timestamp>;
export type ValidationErrorDetails = z.output<typeof ValidationErrorDetails>;
