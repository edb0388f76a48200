import { ConfigError } from '../config.js';
import { RESEAL_COMMAND, resealWebhookSecrets } from '../modules/webhooks/secrets-key.js';
import type { CommandContext } from './context.js';

/** What the `pollkit webhooks …` commands do (webhooks-program.ts declares their command lines). */

export async function resealSecretsCommand({ db, config, out }: CommandContext): Promise<void> {
  const key = config.WEBHOOK_SECRETS_KEY;
  if (key === undefined) {
    throw new ConfigError(
      `WEBHOOK_SECRETS_KEY is not set: \`${RESEAL_COMMAND}\` seals the secrets under it. Set it to the value ` +
        'your servers run with (openssl rand -base64 32 makes one; the same in every process) and run it again. ' +
        'Nothing was changed.',
    );
  }
  const outcome = await resealWebhookSecrets(db, key);
  out.result(outcome);
  if (outcome.resealed === 0 && !outcome.storedKeyDeleted) {
    out.line(
      `Nothing to do: the ${outcome.alreadySealed} signing secret(s) of ${outcome.endpoints} endpoint(s) are ` +
        'sealed under WEBHOOK_SECRETS_KEY, and no key is kept in the database.',
    );
    return;
  }
  out.line(
    `Re-sealed ${outcome.resealed} signing secret(s) under WEBHOOK_SECRETS_KEY ` +
      `(${outcome.endpoints} endpoint(s); ${outcome.alreadySealed} already were).`,
  );
  if (outcome.storedKeyDeleted) out.line('Deleted the sealing key that was kept in the database.');
  out.line('Every server must run with this WEBHOOK_SECRETS_KEY from now on: one without it cannot open the secrets.');
}
