import type { Scope } from '@pollkit/contracts';
import type { Kysely } from 'kysely';
import type { Database, OAuthClientRow, OAuthTokenRow, WorkspaceRow } from '../../db/schema.js';
import { workspaceAccess } from '../workspaces/workspaces.service.js';

type Db = Kysely<Database>;

export function insertClient(
  db: Db,
  client: { id: string; workspace_id: string; name: string; secret_hash: string; allowed_scopes: Scope[] },
): Promise<OAuthClientRow> {
  return db
    .insertInto('oauth_clients')
    .values({ ...client, allowed_scopes: JSON.stringify(client.allowed_scopes) })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export function listClients(db: Db, workspaceId: string): Promise<OAuthClientRow[]> {
  return db.selectFrom('oauth_clients').selectAll().where('workspace_id', '=', workspaceId).orderBy('id').execute();
}

export function findClient(db: Db, id: string): Promise<OAuthClientRow | undefined> {
  return db.selectFrom('oauth_clients').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The client and what the token endpoint needs of its workspace, in one round trip. */
export function findClientWithWorkspace(
  db: Db,
  id: string,
): Promise<(OAuthClientRow & Pick<WorkspaceRow, 'plan' | 'oauth_enabled'>) | undefined> {
  return db
    .selectFrom('oauth_clients')
    .innerJoin(workspaceAccess(db).as('workspaces'), 'workspaces.id', 'oauth_clients.workspace_id')
    .selectAll('oauth_clients')
    .select(['workspaces.plan', 'workspaces.oauth_enabled'])
    .where('oauth_clients.id', '=', id)
    .executeTakeFirst();
}

/**
 * Whether the client is revoked, its row locked against a revocation until the transaction ends (a
 * key being created for it is then either revoked with it or refused); undefined when unknown.
 */
export async function clientRevokedForShare(db: Db, id: string): Promise<{ revoked: boolean } | undefined> {
  const row = await db
    .selectFrom('oauth_clients')
    .select('revoked_at')
    .where('id', '=', id)
    .forShare()
    .executeTakeFirst();
  return row && { revoked: row.revoked_at !== null };
}

export function revokeClient(db: Db, id: string, at: Date): Promise<OAuthClientRow | undefined> {
  return db
    .updateTable('oauth_clients')
    .set({ revoked_at: at })
    .where('id', '=', id)
    .where('revoked_at', 'is', null)
    .returningAll()
    .executeTakeFirst();
}

export function insertToken(
  db: Db,
  token: { id: string; client_id: string; workspace_id: string; token_hash: string; scopes: Scope[]; expires_at: Date },
): Promise<OAuthTokenRow> {
  return db
    .insertInto('oauth_tokens')
    .values({ ...token, scopes: JSON.stringify(token.scopes) })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Tokens of a client that expired before `before`: nobody can use them, so they need not be kept. */
export async function deleteExpiredTokens(db: Db, clientId: string, before: Date): Promise<void> {
  await db.deleteFrom('oauth_tokens').where('client_id', '=', clientId).where('expires_at', '<', before).execute();
}

/** An access token with its client's state and its workspace's, for the authenticator. */
export function findTokenWithClient(db: Db, tokenHash: string) {
  return db
    .selectFrom('oauth_tokens')
    .innerJoin('oauth_clients', 'oauth_clients.id', 'oauth_tokens.client_id')
    .innerJoin(workspaceAccess(db).as('workspaces'), 'workspaces.id', 'oauth_tokens.workspace_id')
    .select([
      'oauth_tokens.client_id',
      'oauth_tokens.workspace_id',
      'oauth_tokens.scopes',
      'oauth_tokens.expires_at',
      'oauth_clients.revoked_at',
      'workspaces.plan',
      'workspaces.oauth_enabled',
      'workspaces.rate_limit_per_minute',
    ])
    .where('oauth_tokens.token_hash', '=', tokenHash)
    .executeTakeFirst();
}
