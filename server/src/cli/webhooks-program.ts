import type { Command } from 'commander';
import type { Run } from './context.js';
import { examples, withJson } from './help.js';

/**
 * The `pollkit webhooks …` command group: what the operator does about webhooks outside the API.
 * What the commands do is in webhooks-commands.ts, imported only once a command runs.
 */

const load = () => import('./webhooks-commands.js');

export function registerWebhookCommands(program: Command, run: Run): void {
  const webhooks = program
    .command('webhooks')
    .description('webhook signing secrets at rest')
    .addHelpText('after', examples(['pollkit webhooks reseal-secrets']));

  withJson(
    webhooks
      .command('reseal-secrets')
      .description(
        're-seal every webhook signing secret under WEBHOOK_SECRETS_KEY and delete the key kept in the database',
      )
      .addHelpText(
        'after',
        '\nWithout WEBHOOK_SECRETS_KEY the server seals signing secrets with a key it keeps in the database,\n' +
          'beside them. Set WEBHOOK_SECRETS_KEY (openssl rand -base64 32) on every server and restart them,\n' +
          'then run this once with the same value: every secret, current and previous, is sealed again under\n' +
          'it and the stored key is deleted, in one transaction. Endpoints keep their secrets; deliveries go on.\n' +
          'Running it again changes nothing.\n' +
          examples(['pollkit webhooks reseal-secrets', 'pollkit webhooks reseal-secrets --json']),
      ),
  ).action(run(async (context) => (await load()).resealSecretsCommand(context)));
}
