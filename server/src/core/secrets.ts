import { hash, randomBytes } from 'node:crypto';

/**
 * API key secrets, OAuth client secrets and access tokens carry 32 random bytes, so they are stored
 * as their SHA-256 (hex): with that much entropy a slow password hash adds nothing, and looking a
 * credential up by its hash means no secret is ever compared byte by byte. `crypto.hash` is the
 * one-shot form: it is hashed on every authenticated request.
 */
export function hashSecret(secret: string): string {
  return hash('sha256', secret, 'hex');
}

/** A new secret: `prefix` + 32 random bytes, base64url. The prefix says what it is (and to secret scanners). */
export function newSecret(prefix: string): string {
  return `${prefix}${randomBytes(32).toString('base64url')}`;
}
