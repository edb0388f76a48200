// The Idempotency-Key of a POST: its own file, as the lean `@pollkit/sdk/live` entry exports it.
/**
 * A random UUID (v4). `crypto.randomUUID` exists only in secure contexts: a page served over plain
 * http on a LAN (an audience page at a venue) has `getRandomValues` but not `randomUUID`.
 */
export function newIdempotencyKey(): string {
  const crypto = globalThis.crypto;
  if (typeof crypto.randomUUID === 'function') return crypto.randomUUID();
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[6] = ((bytes[6] as number) & 0x0f) | 0x40;
  bytes[8] = ((bytes[8] as number) & 0x3f) | 0x80;
  const hex = Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
