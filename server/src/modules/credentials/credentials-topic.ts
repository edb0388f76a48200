/**
 * The invalidation topic every process's `Authenticator` listens on (deps.ts): after a key is revoked
 * or rotated, or an OAuth client revoked, its credential cache is dropped, so the change applies
 * everywhere within the time a Redis message takes, not the cache's 5 seconds.
 */
export const CREDENTIALS_TOPIC = 'credentials';
