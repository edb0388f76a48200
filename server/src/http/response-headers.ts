import { WINDOW_HEADER_VALUE } from './rate-limit-headers.js';

/**
 * The headers this transport sets on responses under /api (http/app.ts, http/rate-limit-headers.ts),
 * as the OpenAPI document's `components.headers`. Declared here, beside the code that sets them.
 */
export const responseHeaders = {
  'X-RateLimit-Limit': {
    description:
      'Requests allowed per window for this credential (120 unless your plan says otherwise). On an ' +
      'operation with a limit of its own (`POST /media`: 30) it describes whichever limit binds.',
    required: true,
    schema: { type: 'integer', minimum: 1 },
  },
  'X-RateLimit-Window': {
    description: 'Length of the fixed rate-limit window.',
    required: true,
    schema: { type: 'string', const: WINDOW_HEADER_VALUE },
  },
  'X-RateLimit-Remaining': {
    description:
      'Requests left in the current window. Sent once the credential is known: absent on 401 and on ' +
      'requests refused before authentication (malformed or oversized bodies).',
    schema: { type: 'integer', minimum: 0 },
  },
  'X-RateLimit-Reset': {
    description: 'When the current window ends, in Unix seconds. Sent whenever `X-RateLimit-Remaining` is.',
    schema: { type: 'integer', minimum: 0 },
  },
  'X-Request-Id': {
    description: 'The `X-Request-Id` the client sent, or one the server assigned; quote it when reporting a problem.',
    required: true,
    schema: { type: 'string', minLength: 1 },
  },
} as const;

export type ResponseHeaderName = keyof typeof responseHeaders;

/** `{ name: { $ref } }` for each header named. */
function headerRefs(names: readonly ResponseHeaderName[]) {
  return Object.fromEntries(names.map((name) => [name, { $ref: `#/components/headers/${name}` }]));
}

/** What every response of a contract operation carries once the credential is known. */
export const allHeaderRefs = headerRefs(Object.keys(responseHeaders) as ResponseHeaderName[]);
/** What a response under /api carries before (or without) the rate limiter counting it. */
export const baseHeaderRefs = headerRefs(['X-RateLimit-Limit', 'X-RateLimit-Window', 'X-Request-Id']);
