import { type Kysely, sql } from 'kysely';
import { keyIdOf, newSealingKey, SecretSealer, sealingKeyIdOf } from '../../core/sealed-secrets.js';
import type { Database } from '../../db/schema.js';
import { resealReplies } from '../idempotency/index.js';

const KEY_NAME = 'webhook_secrets';

/** The CLI command that moves every secret off the stored key (cli/webhooks-program.ts). */
export const RESEAL_COMMAND = 'pollkit webhooks reseal-secrets';

/**
 * The sealer of webhook signing secrets. With WEBHOOK_SECRETS_KEY it seals with that key; without,
 * with a key the server made once and keeps in the database (`server_keys`), shared by every process
 * on that database — zero set-up, but a database dump then holds the key beside what it seals, so
 * production sets WEBHOOK_SECRETS_KEY. Either way the database's key, if there is one, still opens
 * what it sealed: setting WEBHOOK_SECRETS_KEY later breaks no endpoint, and `resealWebhookSecrets`
 * (the CLI's `webhooks reseal-secrets`) then moves every secret to it and deletes the stored key.
 *
 * While the stored key is in use — it seals (no WEBHOOK_SECRETS_KEY), or secrets sealed with it
 * remain — one `warn` line says so at start-up: nothing else would tell the operator.
 */
export async function webhookSecretSealer(
  db: Kysely<Database>,
  configuredKey: string | undefined,
  log: { warn(object: object, message: string): void },
): Promise<SecretSealer> {
  if (configuredKey === undefined) {
    await db
      .insertInto('server_keys')
      .values({ name: KEY_NAME, key: newSealingKey() })
      .onConflict((oc) => oc.column('name').doNothing())
      .execute();
  }
  const stored = await storedKey(db);
  if (configuredKey === undefined) {
    log.warn(
      { storedKeyId: keyIdOf(stored as Buffer) },
      'WEBHOOK_SECRETS_KEY is not set: webhook signing secrets are sealed with a key kept in the database beside ' +
        'them, so a copy of the database holds both. Set WEBHOOK_SECRETS_KEY (openssl rand -base64 32) on every ' +
        `server, then run \`${RESEAL_COMMAND}\` once (docs/webhooks.md, Configuration).`,
    );
    return new SecretSealer(stored as Buffer);
  }
  if (stored) {
    const sealedWithIt = await countSealedWith(db, keyIdOf(stored));
    if (sealedWithIt > 0) {
      log.warn(
        { storedKeyId: keyIdOf(stored), secrets: sealedWithIt },
        `WEBHOOK_SECRETS_KEY is set, but ${sealedWithIt} webhook signing secret(s) are still sealed with the key ` +
          `kept in the database: run \`${RESEAL_COMMAND}\` to re-seal them under WEBHOOK_SECRETS_KEY and delete ` +
          'the stored key.',
      );
    }
  }
  return new SecretSealer(Buffer.from(configuredKey, 'base64'), stored ? [stored] : []);
}

async function storedKey(db: Kysely<Database>): Promise<Buffer | undefined> {
  const row = await db.selectFrom('server_keys').select('key').where('name', '=', KEY_NAME).executeTakeFirst();
  return row ? Buffer.from(row.key, 'base64') : undefined;
}

/** Secrets (current or previous) sealed with the key of this id. */
async function countSealedWith(db: Kysely<Database>, keyId: string): Promise<number> {
  const prefix = `v1.${keyId}.%`;
  const row = await db
    .selectFrom('webhook_endpoints')
    .select(
      sql<
        string | number
      >`count(*) filter (where secret_sealed like ${prefix}) + count(*) filter (where previous_secret_sealed like ${prefix})`.as(
        'count',
      ),
    )
    .executeTakeFirst();
  return Number(row?.count ?? 0);
}

/** What `resealWebhookSecrets` did. */
export interface ResealOutcome {
  /** Endpoints looked at: every endpoint of every workspace. */
  endpoints: number;
  /** Secrets (current and previous) opened and sealed again under WEBHOOK_SECRETS_KEY. */
  resealed: number;
  /** Secrets already sealed under it, left as they were. */
  alreadySealed: number;
  /** Stored idempotent replies carrying a secret (docs/idempotency.md), re-sealed with them. */
  idempotentReplies: number;
  /** Whether the key kept in the database existed, and so was deleted. */
  storedKeyDeleted: boolean;
}

/** Some secret is sealed with a key neither WEBHOOK_SECRETS_KEY nor the stored key is: nothing was changed. */
export class UnopenableSecretsError extends Error {
  override name = 'UnopenableSecretsError';
  readonly code = 'secrets_not_openable';
}

/**
 * Re-seals every webhook signing secret, current and previous, under `configuredKey`
 * (WEBHOOK_SECRETS_KEY), and deletes the key kept in the database, in one transaction: either every
 * secret is moved and the stored key is gone, or nothing changed. The endpoints are locked while it
 * runs, so a rotation waits for it (and then copies the re-sealed secret). Running again changes
 * nothing. Servers started with the same WEBHOOK_SECRETS_KEY go on signing with every secret; a
 * server without it can no longer open them (and would make a new stored key when it starts).
 */
export async function resealWebhookSecrets(db: Kysely<Database>, configuredKey: string): Promise<ResealOutcome> {
  return db.transaction().execute(async (trx) => {
    const storedRow = await trx
      .selectFrom('server_keys')
      .select('key')
      .where('name', '=', KEY_NAME)
      .forUpdate()
      .executeTakeFirst();
    const stored = storedRow ? [Buffer.from(storedRow.key, 'base64')] : [];
    const sealer = new SecretSealer(Buffer.from(configuredKey, 'base64'), stored);
    const endpoints = await trx
      .selectFrom('webhook_endpoints')
      .select(['id', 'secret_sealed', 'previous_secret_sealed'])
      .orderBy('id')
      .forUpdate()
      .execute();
    const outcome: ResealOutcome = {
      endpoints: endpoints.length,
      resealed: 0,
      alreadySealed: 0,
      idempotentReplies: 0,
      storedKeyDeleted: storedRow !== undefined,
    };
    const unopenable: string[] = [];
    for (const endpoint of endpoints) {
      const changes: { secret_sealed?: string; previous_secret_sealed?: string } = {};
      for (const column of ['secret_sealed', 'previous_secret_sealed'] as const) {
        const sealed = endpoint[column];
        if (sealed === null) continue;
        if (sealingKeyIdOf(sealed) === sealer.keyId) {
          outcome.alreadySealed++;
          continue;
        }
        try {
          changes[column] = sealer.seal(sealer.open(sealed));
          outcome.resealed++;
        } catch {
          const which = column === 'secret_sealed' ? 'current' : 'previous';
          unopenable.push(`${endpoint.id} (its ${which} secret, key id ${sealingKeyIdOf(sealed) ?? 'unknown'})`);
        }
      }
      if (Object.keys(changes).length > 0) {
        await trx.updateTable('webhook_endpoints').set(changes).where('id', '=', endpoint.id).execute();
      }
    }
    // The replies that carry a secret (a key's, a host token, a signing secret) are sealed by the
    // same sealer: they move with the secrets, or the stored key's deletion would make them unreadable.
    outcome.idempotentReplies = await resealReplies(trx, (sealed, where) => {
      if (sealingKeyIdOf(sealed) === sealer.keyId) return undefined;
      try {
        return sealer.seal(sealer.open(sealed));
      } catch {
        unopenable.push(`${where} (key id ${sealingKeyIdOf(sealed) ?? 'unknown'})`);
        return undefined;
      }
    });
    if (unopenable.length > 0) {
      // Thrown inside the transaction: it rolls back, the stored key included.
      throw new UnopenableSecretsError(
        `Nothing was changed: ${unopenable.length} secret(s) are sealed with a key that neither WEBHOOK_SECRETS_KEY ` +
          `nor the key kept in the database opens (was WEBHOOK_SECRETS_KEY changed since they were sealed?): ` +
          `${unopenable.slice(0, 5).join(', ')}${unopenable.length > 5 ? ', …' : ''}.`,
      );
    }
    if (storedRow) await trx.deleteFrom('server_keys').where('name', '=', KEY_NAME).execute();
    return outcome;
  });
}
