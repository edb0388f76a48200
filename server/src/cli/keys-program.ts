import { keyLimits, scopes } from '@pollkit/contracts';
import { type Command, InvalidArgumentError, Option } from 'commander';
import { CREDENTIAL_CACHE_SECONDS, type Run } from './context.js';
import { examples, withJson } from './help.js';

/** `pollkit keys …`. What the commands do is in commands.ts, imported only once a command runs. */
const load = () => import('./commands.js');

export function registerKeyCommands(program: Command, run: Run): void {
  const keys = program
    .command('keys')
    .description('create, list, revoke and rotate API keys')
    .addHelpText(
      'after',
      examples([
        'pollkit keys create --workspace ws_01J9Z3… --name "CI"',
        'pollkit keys create --workspace ws_01J9Z3… --name "Reporting" --scopes "polls:read responses:read"',
        'pollkit keys list --workspace ws_01J9Z3…',
        'pollkit keys revoke key_01J9Z4…',
        'pollkit keys rotate key_01J9Z4… --grace 3600',
      ]),
    );

  withJson(
    keys
      .command('create')
      .description('create an API key; its secret is shown this once and stored only as a hash')
      .requiredOption('--workspace <workspaceId>', 'the workspace the key acts for (ws_…)')
      .option('--name <name>', 'a label to recognise the key by', 'CLI key')
      .option('--scopes <scopes>', 'the scopes the key holds, separated by spaces (default: every scope)')
      .addHelpText(
        'after',
        '\nWith --json the secret is in the `secret` field: keep the output, it is not shown again.\n' +
          `Scopes: ${scopes.join(' ')}\n` +
          examples([
            'pollkit keys create --workspace ws_01J9Z3… --name "Production backend"',
            'pollkit keys create --workspace ws_01J9Z3… --name "Reporting" --scopes "polls:read responses:read"',
            'pollkit keys create --workspace ws_01J9Z3… --json | jq -r .secret',
          ]),
      ),
  ).action(
    run(async (context, options: { workspace: string; name: string; scopes?: string }) =>
      (await load()).createKeyCommand(context, options),
    ),
  );

  withJson(
    keys
      .command('list')
      .description('list a workspace’s API keys (never their secrets)')
      .requiredOption('--workspace <workspaceId>', 'the workspace (ws_…)')
      .addHelpText('after', examples(['pollkit keys list --workspace ws_01J9Z3…'])),
  ).action(run(async (context, options: { workspace: string }) => (await load()).listKeysCommand(context, options)));

  withJson(
    keys
      .command('revoke')
      .description('revoke an API key: it then answers 401 revoked_api_key')
      .argument('<keyId>', 'the key to revoke (key_…)')
      .addHelpText(
        'after',
        `\nA running server may accept the key for up to ${CREDENTIAL_CACHE_SECONDS} more seconds (it caches credentials),\n` +
          'unless REDIS_URL names the servers’ Redis: then they are told at once.\n' +
          'Revoking a revoked key changes nothing.\n' +
          examples(['pollkit keys revoke key_01J9Z4…']),
      ),
  ).action(run(async (context, keyId: string) => (await load()).revokeKeyCommand(context, keyId)));

  withJson(
    keys
      .command('rotate')
      .description('replace an API key: a new key now, the old one expires after a grace period')
      .argument('<keyId>', 'the key to rotate (key_…); it must be active')
      .addOption(
        new Option('--grace <seconds>', 'how long the old key keeps working (0: stop it now; at most 7 days)')
          .default(keyLimits.defaultGracePeriodSeconds, `${keyLimits.defaultGracePeriodSeconds}, one day`)
          .argParser(parseGraceSeconds),
      )
      .addHelpText(
        'after',
        '\nThe new key has the old one’s name, workspace and scopes; its secret is shown this once (the `secret`\n' +
          'field with --json). After the grace period the old key answers 401 expired_api_key. A revoked or\n' +
          'already rotated key cannot be rotated (key_not_active). With REDIS_URL set to the servers’ Redis,\n' +
          'running servers hear of the change at once; otherwise within ' +
          `${CREDENTIAL_CACHE_SECONDS} seconds (they cache credentials).\n` +
          examples([
            'pollkit keys rotate key_01J9Z4…',
            'pollkit keys rotate key_01J9Z4… --grace 0',
            'pollkit keys rotate key_01J9Z4… --grace 3600 --json | jq -r .secret',
          ]),
      ),
  ).action(
    run(async (context, keyId: string, options: { grace: number }) =>
      (await load()).rotateKeyCommand(context, keyId, options),
    ),
  );
}

function parseGraceSeconds(value: string): number {
  const seconds = /^\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!(seconds <= keyLimits.maxGracePeriodSeconds)) {
    throw new InvalidArgumentError(
      `Expected a whole number of seconds from 0 to ${keyLimits.maxGracePeriodSeconds} (7 days).`,
    );
  }
  return seconds;
}
