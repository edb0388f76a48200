import { keyLimits, type Plan, plans } from '@pollkit/contracts';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import type * as Commands from './commands.js';
import { addOAuthCommands } from './oauth-program.js';
import type { CliIo } from './output.js';

/**
 * The command line: commands, options, help and exit codes. What the commands do is in
 * commands.ts, imported only once a command runs.
 */

/**
 * How long a running server may keep accepting a revoked key, or apply an old plan or rate limit:
 * its credential cache lifetime (CACHE_TTL_MS in modules/auth/auth.service.ts).
 */
export const CREDENTIAL_CACHE_SECONDS = 5;

export const EXIT_OK = 0;
/** The command ran and failed: unknown id, a value the rules refuse, the database unavailable. */
export const EXIT_FAILURE = 1;
/** The command line itself is wrong: unknown command or option, a missing argument. */
export const EXIT_USAGE = 2;

/** Runs one command line (the arguments after `main.ts`) and returns the process exit code. */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const state = { exitCode: EXIT_OK };
  try {
    await buildProgram(io, state).parseAsync([...argv], { from: 'user' });
    return state.exitCode;
  } catch (error) {
    // Commander has printed its message (or the help) by the time it throws.
    if (error instanceof CommanderError) return exitCodeOf(error);
    throw error;
  }
}

function exitCodeOf(error: CommanderError): number {
  if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version') return EXIT_OK;
  // A value that is well formed on the command line but not allowed (`--plan gold`,
  // `--rate-limit lots`) fails like a value the database refuses.
  if (error.code === 'commander.invalidArgument') return EXIT_FAILURE;
  return EXIT_USAGE;
}

function buildProgram(io: CliIo, state: { exitCode: number }): Command {
  /** Wraps a command's work: open the database, run, close, record the exit code. */
  const run = <A extends unknown[]>(
    work: (commands: typeof Commands, context: Commands.CommandContext, ...args: A) => Promise<void>,
  ) =>
    async function (this: Command, ...args: A): Promise<void> {
      const commands = await import('./commands.js');
      const json = this.opts<{ json?: boolean }>().json === true;
      state.exitCode = await commands.execute(io, json, (context) => work(commands, context, ...args));
    };

  const program = new Command('pollkit')
    .description('Pollkit admin CLI: workspaces and API keys, in the database the server uses.')
    .configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(text),
      // Commander sizes help to process.stdout; the streams given may be others.
      getOutHelpWidth: () => terminalColumns(io.stdout),
      getErrHelpWidth: () => terminalColumns(io.stderr),
      getOutHasColors: () => false,
      getErrHasColors: () => false,
    })
    .exitOverride()
    .showHelpAfterError('(add --help for usage)')
    .addHelpText(
      'after',
      '\nRun it from the repository root as `npx -y pnpm@10 pollkit <command>`. It reads the\n' +
        "server's environment:\n" +
        '  DATABASE_URL  postgres://… for PostgreSQL; unset for the embedded database (PGlite)\n' +
        '  DATA_DIR      where the embedded database lives (default ./data)\n' +
        '  REDIS_URL     the servers’ Redis, to tell them at once of a revoked or rotated key\n' +
        'The embedded database admits one process at a time: stop the server first, or use\n' +
        'PostgreSQL. Every command takes --json for machine-readable output. Exit codes: 0 done,\n' +
        '1 failed (unknown id, refused value, database unavailable), 2 usage error.\n' +
        examples([
          'pollkit workspaces create --name "Acme" --plan pro',
          'pollkit keys create --workspace ws_01J9Z3…',
          'pollkit workspaces list --json',
          'pollkit keys --help',
        ]),
    );

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
    run((commands, context, options: { name: string; plan: Plan; rateLimit?: number }) =>
      commands.createWorkspaceCommand(context, options),
    ),
  );

  withJson(
    workspaces
      .command('list')
      .description('list every workspace, oldest first')
      .addHelpText('after', examples(['pollkit workspaces list', 'pollkit workspaces list --json'])),
  ).action(run((commands, context) => commands.listWorkspacesCommand(context)));

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
    run(
      (
        commands,
        context,
        workspaceId: string,
        options: { name?: string; plan?: Plan; rateLimit?: number | 'default' },
      ) => commands.updateWorkspaceCommand(context, workspaceId, options),
    ),
  );

  const keys = program
    .command('keys')
    .description('create, list, revoke and rotate API keys')
    .addHelpText(
      'after',
      examples([
        'pollkit keys create --workspace ws_01J9Z3… --name "CI"',
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
      .addHelpText(
        'after',
        '\nWith --json the secret is in the `secret` field: keep the output, it is not shown again.\n' +
          examples([
            'pollkit keys create --workspace ws_01J9Z3… --name "Production backend"',
            'pollkit keys create --workspace ws_01J9Z3… --json | jq -r .secret',
          ]),
      ),
  ).action(
    run((commands, context, options: { workspace: string; name: string }) =>
      commands.createKeyCommand(context, options),
    ),
  );

  withJson(
    keys
      .command('list')
      .description('list a workspace’s API keys (never their secrets)')
      .requiredOption('--workspace <workspaceId>', 'the workspace (ws_…)')
      .addHelpText('after', examples(['pollkit keys list --workspace ws_01J9Z3…'])),
  ).action(run((commands, context, options: { workspace: string }) => commands.listKeysCommand(context, options)));

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
  ).action(run((commands, context, keyId: string) => commands.revokeKeyCommand(context, keyId)));

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
        '\nThe new key has the old one’s name and workspace; its secret is shown this once (the `secret`\n' +
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
    run((commands, context, keyId: string, options: { grace: number }) =>
      commands.rotateKeyCommand(context, keyId, options),
    ),
  );

  addOAuthCommands(program, run);

  return program;
}

function withJson(command: Command): Command {
  return command.option('--json', 'print the result as JSON (and errors as JSON on stderr)');
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

function parseGraceSeconds(value: string): number {
  const seconds = /^\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!(seconds <= keyLimits.maxGracePeriodSeconds)) {
    throw new InvalidArgumentError(
      `Expected a whole number of seconds from 0 to ${keyLimits.maxGracePeriodSeconds} (7 days).`,
    );
  }
  return seconds;
}

/** Commander's own default width (80) unless the stream is a terminal that says otherwise. */
function terminalColumns(stream: NodeJS.WritableStream): number {
  const tty = stream as NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  return (tty.isTTY && tty.columns) || 80;
}

function examples(lines: readonly string[]): string {
  return `\nExamples:\n${lines.map((line) => `  $ ${line}`).join('\n')}\n`;
}
