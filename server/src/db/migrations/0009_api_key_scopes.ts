import type { Kysely } from 'kysely';

/**
 * API keys get scopes (docs/authentication.md, "Scopes"). `null` is every scope, those added by later
 * versions included: what every key held before, so existing keys keep working as they did. A list
 * is what a key was created with; rotation copies it to the replacement.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('api_keys').addColumn('scopes', 'jsonb').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('api_keys').dropColumn('scopes').execute();
}
