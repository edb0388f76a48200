import type { ValidationErrorDetails } from '@pollkit/contracts';
import { ApiError } from './api-error.js';

/**
 * Cursors are opaque to clients (base64url of the last id on the page), so the ordering key can
 * change later without breaking anyone who stores them.
 */
function encodeCursor(lastId: string): string {
  return Buffer.from(lastId, 'utf8').toString('base64url');
}

/** The answer to a cursor no list of ours made: every list's, whatever its keyset. */
export function invalidCursor(): ApiError {
  return new ApiError('validation_failed', 'Invalid cursor', {
    fieldErrors: { cursor: ['Not a cursor this list returned'] },
    formErrors: [],
  } satisfies ValidationErrorDetails);
}

function decodeCursor(cursor: string, idPrefix: string): string {
  const id = Buffer.from(cursor, 'base64url').toString('utf8');
  if (!new RegExp(`^${idPrefix}_[0-9A-HJKMNP-TV-Z]{26}$`).test(id)) throw invalidCursor();
  return id;
}

/**
 * One page of a newest-first keyset list. `fetchRows` is asked for one row more than the page holds:
 * that extra row tells whether another page exists, without a count query.
 */
export async function keysetPage<Row extends { id: string }, Item>(
  input: { limit: number; cursor?: string | undefined },
  idPrefix: string,
  fetchRows: (query: { beforeId: string | undefined; limit: number }) => Promise<Row[]>,
  toItem: (row: Row) => Item,
): Promise<{ data: Item[]; nextCursor: string | null }> {
  const beforeId = input.cursor === undefined ? undefined : decodeCursor(input.cursor, idPrefix);
  const rows = await fetchRows({ beforeId, limit: input.limit + 1 });
  const page = rows.slice(0, input.limit);
  const last = page.at(-1);
  return { data: page.map(toItem), nextCursor: rows.length > input.limit && last ? encodeCursor(last.id) : null };
}
