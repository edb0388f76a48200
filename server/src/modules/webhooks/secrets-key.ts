import type { Kysely } from 'kysely';
import { newSealingKey, SecretSealer } from '../../core/sealed-secrets.js';
import type { Database } from '../../db/schema.js';

const KEY_NAME = 'webhook_secrets';

/**
 * The sealer of webhook signing secrets. With WEBHOOK_SECRETS_KEY it seals with that key; without,
 * with a key the server made once and keeps in the database (`server_keys`), shared by every process
 * on that database — zero set-up, but a database dump then holds the key beside what it seals, so
 * production sets WEBHOOK_SECRETS_KEY. Either way the database's key, if there is one, still opens
 * what it sealed: setting WEBHOOK_SECRETS_KEY later breaks no endpoint (a rotation re-seals).
 */
export async function webhookSecretSealer(
  db: Kysely<Database>,
  configuredKey: string | undefined,
): Promise<SecretSealer> {
  if (configuredKey === undefined) {
    await db
      .insertInto('server_keys')
      .values({ name: KEY_NAME, key: newSealingKey() })
      .onConflict((oc) => oc.column('name').doNothing())
      .execute();
  }
  const stored = await db.selectFrom('server_keys').select('key').where('name', '=', KEY_NAME).executeTakeFirst();
  const storedKey = stored ? [Buffer.from(stored.key, 'base64')] : [];
  if (configuredKey !== undefined) return new SecretSealer(Buffer.from(configuredKey, 'base64'), storedKey);
  return new SecretSealer(storedKey[0] as Buffer);
}
