import type { FastifyInstance } from 'fastify';
import { invalidInput } from '../core/api-error.js';

/**
 * Deepest nesting a JSON body may have. Real bodies nest about ten levels; thousands of levels
 * overflow the stack of recursive code further on (validation, canonical JSON for idempotency
 * fingerprints), which would be a 500 instead of a client error.
 */
export const MAX_JSON_DEPTH = 64;

/**
 * JSON only: anything else is 415 before any handler runs. Bodies go through Fastify's secure
 * parser (it rejects `__proto__`/`constructor.prototype` keys), behind a depth check.
 */
export function registerJsonBodyParser(app: FastifyInstance): void {
  app.removeContentTypeParser(['text/plain']);
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, rawBody, done) => {
    const body = typeof rawBody === 'string' ? rawBody : rawBody.toString('utf8');
    // Many clients send `Content-Type: application/json` on every request, bodiless DELETEs and
    // POSTs (`/keys/{id}/revoke`) included: an empty body is no body. Where a route does take one,
    // validation then names the missing fields (422) as for `{}`.
    if (JSON_WHITESPACE_ONLY.test(body)) {
      done(null, undefined);
      return;
    }
    if (jsonNestsDeeperThan(body, MAX_JSON_DEPTH)) {
      done(invalidInput(`The request body nests deeper than ${MAX_JSON_DEPTH} levels`), undefined);
      return;
    }
    parseJson(request, body, done);
  });
}

/** JSON's whitespace (space, tab, LF, CR) and nothing else, the empty body included. */
const JSON_WHITESPACE_ONLY = /^[ \t\n\r]*$/;

/** Whether `text` opens more than `max` arrays/objects at once. One pass, no recursion. */
function jsonNestsDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const char = text.charCodeAt(i);
    if (inString) {
      if (char === 0x5c) {
        i++; // a backslash escapes the next character, quotes included
      } else if (char === 0x22) {
        inString = false;
      }
    } else if (char === 0x22) {
      inString = true;
    } else if (char === 0x7b || char === 0x5b) {
      if (++depth > max) return true;
    } else if (char === 0x7d || char === 0x5d) {
      depth--;
    }
  }
  return false;
}
