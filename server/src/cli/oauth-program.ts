import { scopes } from '@pollkit/contracts';
import type { Command } from 'commander';
import type { Run } from './context.js';
import { examples, withJson } from './help.js';

/**
 * The `pollkit oauth …` command group: OAuth 2.0 client credentials for Enterprise workspaces.
 * What the commands do is in oauth-commands.ts, imported only once a command runs.
 */

const load = () => import('./oauth-commands.js');

export function registerOAuthCommands(program: Command, run: Run): void {
  const oauth = program
    .command('oauth')
    .description('OAuth 2.0 client credentials (Enterprise): enable, and manage clients')
    .addHelpText(
      'after',
      examples([
        'pollkit oauth enable ws_01J9Z3…',
        'pollkit oauth clients create --workspace ws_01J9Z3… --name "Reporting" --scopes "polls:read responses:read"',
        'pollkit oauth clients list --workspace ws_01J9Z3…',
        'pollkit oauth clients revoke oac_01J9Z5…',
      ]),
    );

  withJson(
    oauth
      .command('enable')
      .description('enable OAuth client credentials for an Enterprise workspace')
      .argument('<workspaceId>', 'the workspace (ws_…); it must be on the Enterprise plan')
      .addHelpText('after', examples(['pollkit oauth enable ws_01J9Z3…'])),
  ).action(run(async (context, workspaceId: string) => (await load()).enableOAuthCommand(context, workspaceId)));

  const clients = oauth.command('clients').description('create, list and revoke OAuth clients');

  withJson(
    clients
      .command('create')
      .description('create a client; its secret is shown this once and stored only as a hash')
      .requiredOption('--workspace <workspaceId>', 'the workspace the client acts for (ws_…)')
      .requiredOption('--name <name>', 'a label to recognise the client by')
      .requiredOption('--scopes <scopes>', 'the scopes it may request, separated by spaces')
      .addHelpText(
        'after',
        `\nScopes: ${scopes.join(' ')}\n` +
          'With --json the secret is in the `clientSecret` field: keep the output, it is not shown again.\n' +
          examples([
            'pollkit oauth clients create --workspace ws_01J9Z3… --name "Reporting" --scopes "polls:read responses:read"',
          ]),
      ),
  ).action(
    run(async (context, options: { workspace: string; name: string; scopes: string }) =>
      (await load()).createClientCommand(context, options),
    ),
  );

  withJson(
    clients
      .command('list')
      .description('list a workspace’s OAuth clients (never their secrets)')
      .requiredOption('--workspace <workspaceId>', 'the workspace (ws_…)')
      .addHelpText('after', examples(['pollkit oauth clients list --workspace ws_01J9Z3…'])),
  ).action(run(async (context, options: { workspace: string }) => (await load()).listClientsCommand(context, options)));

  withJson(
    clients
      .command('revoke')
      .description('revoke a client: no more tokens, and its tokens stop working')
      .argument('<clientId>', 'the client to revoke (oac_…)')
      .addHelpText(
        'after',
        `\nRevoking a revoked client changes nothing.\n${examples(['pollkit oauth clients revoke oac_01J9Z5…'])}`,
      ),
  ).action(run(async (context, clientId: string) => (await load()).revokeClientCommand(context, clientId)));
}
