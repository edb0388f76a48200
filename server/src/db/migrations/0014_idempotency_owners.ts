import { type Kysely, sql } from 'kysely';

/**
 * Idempotency keys belong to a credential, and keep no secret in clear (issue 35; docs/idempotency.md).
 *
 * - `key` now starts with the namespace of whoever sent it (`api_key:key_…/`, `oauth:oac_…:…/`,
 *   `host:ses_…/`, `participant:prt_…/`; api/idempotency.ts): the rows written before this
 *   migration, keyed per workspace, can no longer be replayed by anyone, and some hold secrets in
 *   clear (a `POST /keys` reply's `secret`, a host token, a webhook signing secret). They are deleted:
 *   a retry of a request sent before the upgrade runs again, as it would after 24 hours.
 * - `response_sealed`: the reply is sealed (core/sealed-secrets.ts, the webhook secrets' sealer),
 *   because it carries a secret; it is opened only to replay it to the credential that sent it.
 * - `voter_id`: the respondent the request was about (the participant who sent it, or the `voterId`
 *   of an API request's body), so that erasure rewrites the replies of that respondent's own
 *   requests and no one else's (modules/respondents); indexed for that lookup.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`delete from idempotency_keys`.execute(db);
  await db.schema
    .alterTable('idempotency_keys')
    .addColumn('response_sealed', 'boolean', (c) => c.notNull().defaultTo(false))
    .execute();
  await db.schema.alterTable('idempotency_keys').addColumn('voter_id', 'text').execute();
  await db.schema
    .createIndex('idempotency_keys_voter_idx')
    .on('idempotency_keys')
    .columns(['workspace_id', 'voter_id'])
    .where(sql.ref('voter_id'), 'is not', null)
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('idempotency_keys_voter_idx').execute();
  await db.schema.alterTable('idempotency_keys').dropColumn('voter_id').execute();
  await db.schema.alterTable('idempotency_keys').dropColumn('response_sealed').execute();
}
