import { type Kysely, sql } from 'kysely';

/**
 * Scopes where they are handed on (docs/authentication.md, "Scopes").
 *
 * - A session's host token carries the scopes of the credential that created it (`POST /sessions`,
 *   `POST /sessions/{id}/host-token`): `sessions.host_token_scopes`. `null` is every scope: the
 *   tokens of sessions created before keep working as they did.
 * - An API key created with an OAuth access token (or by a key so created) records that OAuth
 *   client: `api_keys.created_by_oauth_client_id`, so that revoking the client revokes its keys. Keys
 *   made before stay `null` (which client made them was not recorded).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('sessions').addColumn('host_token_scopes', 'jsonb').execute();
  await db.schema
    .alterTable('api_keys')
    .addColumn('created_by_oauth_client_id', 'text', (c) => c.references('oauth_clients.id').onDelete('cascade'))
    .execute();
  await sql`create index api_keys_oauth_client_idx on api_keys (created_by_oauth_client_id) where created_by_oauth_client_id is not null`.execute(
    db,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('api_keys_oauth_client_idx').execute();
  await db.schema.alterTable('api_keys').dropColumn('created_by_oauth_client_id').execute();
  await db.schema.alterTable('sessions').dropColumn('host_token_scopes').execute();
}
