import { type Plan, plans } from '@pollkit/contracts';
import { type Command, InvalidArgumentError, Option } from 'commander';
import { CREDENTIAL_CACHE_SECONDS, EXIT_USAGE, type Run } from './context.js';
import { examples, withJson } from './help.js';

/** `pollkit workspaces …`. What the commands do is in commands.ts, imported only once a command runs. */
const load = () => import('./commands.js');

export function registerWorkspaceCommands(program: Command, run: Run): void {
  const workspaces = program
    .command('workspaces')
    .description('create, list and change workspaces')
    .addHelpText(
      'after',
      examples([
        'pollkit workspaces create --name "Acme" --plan enterprise --rate-limit 600',
        'pollkit workspaces list',
        'pollkit workspaces update ws_01J9Z3… --plan pro --rate-limit default',
      ]),
    );

  withJson(
    workspaces
      .command('create')
      .description('create a workspace')
      .requiredOption('--name <name>', 'display name')
      .addOption(planOption().makeOptionMandatory())
      .addOption(rateLimitOption({ allowDefault: false }))
      .addHelpText(
        'after',
        examples([
          'pollkit workspaces create --name "Acme" --plan pro',
          'pollkit workspaces create --name "Big Co" --plan enterprise --rate-limit 1200',
        ]),
      ),
  ).action(
    run(async (context, options: { name: string; plan: Plan; rateLimit?: number }) =>
      (await load()).createWorkspaceCommand(context, options),
    ),
  );

  withJson(
    workspaces
      .command('list')
      .description('list every workspace, oldest first')
      .addHelpText('after', examples(['pollkit workspaces list', 'pollkit workspaces list --json'])),
  ).action(run(async (context) => (await load()).listWorkspacesCommand(context)));

  withJson(
    workspaces
      .command('update')
      .description('change a workspace’s name, plan or rate-limit override')
      .argument('<workspaceId>', 'the workspace to change (ws_…)')
      .option('--name <name>', 'new display name')
      .addOption(planOption())
      .addOption(rateLimitOption({ allowDefault: true }))
      .addHelpText(
        'after',
        '\nA rate-limit override is an Enterprise feature; `--rate-limit default` removes it. Moving a\n' +
          'workspace with an override off the Enterprise plan takes `--rate-limit default` as well.\n' +
          `Running servers apply a change within ${CREDENTIAL_CACHE_SECONDS} seconds.\n` +
          examples([
            'pollkit workspaces update ws_01J9Z3… --name "Acme Inc"',
            'pollkit workspaces update ws_01J9Z3… --plan enterprise --rate-limit 600',
            'pollkit workspaces update ws_01J9Z3… --plan pro --rate-limit default',
          ]),
      )
      .hook('preAction', (_program, command) => {
        const options = command.opts();
        if (options.name === undefined && options.plan === undefined && options.rateLimit === undefined) {
          command.error('error: nothing to change: pass --name, --plan or --rate-limit', {
            exitCode: EXIT_USAGE,
            code: 'pollkit.nothingToChange',
          });
        }
      }),
  ).action(
    run(async (context, workspaceId: string, options: { name?: string; plan?: Plan; rateLimit?: number | 'default' }) =>
      (await load()).updateWorkspaceCommand(context, workspaceId, options),
    ),
  );
}

function planOption(): Option {
  return new Option('--plan <plan>', 'the billing plan (free has no API access)').choices(plans);
}

function rateLimitOption({ allowDefault }: { allowDefault: boolean }): Option {
  const flags = allowDefault ? '--rate-limit <n|default>' : '--rate-limit <n>';
  const description = allowDefault
    ? 'requests per minute per credential (Enterprise only), or "default" to remove the override'
    : 'requests per minute per credential (Enterprise only; otherwise the server’s RATE_LIMIT_PER_MINUTE)';
  return new Option(flags, description).argParser((value: string): number | 'default' => {
    if (allowDefault && value === 'default') return 'default';
    if (!/^\d+$/.test(value)) {
      throw new InvalidArgumentError(
        `Expected a whole number of requests per minute${allowDefault ? ', or "default"' : ''}.`,
      );
    }
    return Number(value);
  });
}
