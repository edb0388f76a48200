import { ApiError } from './api-error.js';

/**
 * Cursors are opaque to clients (base64url of the last id on the page), so the ordering key can
 * change later without breaking anyone who stores them.
 */
export function encodeCursor(lastId: string): string {
  return Buffer.from(lastId, 'utf8').toString('base64url');
}

export function decodeCursor(cursor: string, idPrefix: string): string {
  const id = Buffer.from(cursor, 'base64url').toString('utf8');
  if (!new RegExp(`^${idPrefix}_[0-9A-HJKMNP-TV-Z]{26}$`).test(id)) {
    throw new ApiError('validation_failed', 'Invalid cursor', {
      fieldErrors: { cursor: ['Not a cursor this list returned'] },
      formErrors: [],
    });
  }
  return id;
}
