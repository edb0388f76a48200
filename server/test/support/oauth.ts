import { expect } from 'vitest';
import { createClient, enableOAuth } from '../../src/modules/oauth/oauth.service.js';
import { rawCall } from './http.js';
import type { TestServer } from './server.js';

/** An Enterprise workspace with OAuth enabled, its API key, and one OAuth client allowed `allowed`. */
export interface TestOAuthClient {
  workspaceId: string;
  apiKey: string;
  clientId: string;
  clientSecret: string;
}

export async function oauthClient(t: TestServer, allowed: string, name = 'test client'): Promise<TestOAuthClient> {
  const workspace = await t.workspace('enterprise');
  await enableOAuth(t.server.deps.db, workspace.id);
  const { client, secret } = await createClient(t.server.deps.db, { workspaceId: workspace.id, name, scopes: allowed });
  return { workspaceId: workspace.id, apiKey: workspace.apiKey, clientId: client.id, clientSecret: secret };
}

/** What `POST /api/oauth/token` answers (RFC 6749): a token, or an OAuth error. */
export interface OAuthToken {
  access_token: string;
  token_type: string;
  expires_in: number;
  scope: string;
}
interface OAuthError {
  error: string;
  error_description?: string;
}
/** Either reply, for tests that read a token request's body before knowing which it is. */
export type OAuthReply = Partial<OAuthToken & OAuthError>;

/** A token from `POST /api/oauth/token` (form-encoded, credentials in the body), asserting the 200. */
export async function issuedToken(t: TestServer, client: TestOAuthClient, scope?: string): Promise<OAuthToken> {
  const res = await rawCall<OAuthToken>('POST', `${t.url}/api/oauth/token`, {
    rawBody: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: client.clientId,
      client_secret: client.clientSecret,
      ...(scope ? { scope } : {}),
    }).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
  expect(res.status, res.text).toBe(200);
  return res.body;
}
