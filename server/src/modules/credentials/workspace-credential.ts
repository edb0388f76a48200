import type { Plan } from '@pollkit/contracts';
import type { HeldScopes } from './credential-scopes.js';

/** Who is calling, once the bearer credential is resolved. */
export interface WorkspaceCredential {
  kind: 'api_key' | 'oauth_token';
  /** The key id, or the OAuth client id for a token: rate limits are counted per key or client. */
  id: string;
  workspaceId: string;
  plan: Plan;
  rateLimitPerMinute: number | null;
  /**
   * `all` for an API key created without a list of scopes (every key made before keys had scopes);
   * otherwise the key's scopes, or those an OAuth token was granted.
   */
  scopes: HeldScopes;
  /** When it stops working: a rotated key's end of grace, a token's expiry; null for a key never rotated. */
  expiresAt: Date | null;
  /**
   * The OAuth client behind it: a token's own client, or the client whose token created the key
   * (directly or through keys it created); null for other keys. A key it creates records it too, and
   * revoking the client revokes them.
   */
  oauthClientId: string | null;
}
