import { Command, CommanderError } from 'commander';
import packageJson from '../../package.json' with { type: 'json' };
import { EXIT_FAILURE, EXIT_OK, EXIT_USAGE, type Run } from './context.js';
import { examples } from './help.js';
import { registerKeyCommands } from './keys-program.js';
import { registerOAuthCommands } from './oauth-program.js';
import type { CliIo } from './output.js';
import { registerWebhookCommands } from './webhooks-program.js';
import { registerWorkspaceCommands } from './workspaces-program.js';

/**
 * The command line: commands, options, help and exit codes. What the commands do is in
 * commands.ts, imported only once a command runs.
 */

/** Runs one command line (the arguments after `main.ts`) and returns the process exit code. */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const state = { exitCode: EXIT_OK };
  // A script that asked for JSON gets its usage errors as JSON too, whichever command it misspelt.
  const json = argv.slice(0, argv.includes('--') ? argv.indexOf('--') : undefined).includes('--json');
  try {
    await buildProgram(io, state, json).parseAsync([...argv], { from: 'user' });
    return state.exitCode;
  } catch (error) {
    if (!(error instanceof CommanderError)) throw error;
    // Commander has printed its message (or the help) by the time it throws, unless in JSON mode.
    const exitCode = exitCodeOf(error);
    if (json && exitCode !== EXIT_OK) io.stderr.write(`${JSON.stringify({ error: usageError(error, exitCode) })}\n`);
    return exitCode;
  }
}

/**
 * Commander's error as the CLI's JSON error: `validation_failed` for a value the rules refuse
 * (exit 1, as when the database refuses one), `usage_error` for a wrong command line (exit 2).
 */
function usageError(error: CommanderError, exitCode: number): { code: string; message: string } {
  const message =
    error.code === 'commander.help'
      ? 'a command is missing (add --help for usage)'
      : error.message
          .replace(/^error: /, '')
          .trim()
          .replace(/\s*\n\s*/g, ' ');
  return { code: exitCode === EXIT_FAILURE ? 'validation_failed' : 'usage_error', message };
}

function exitCodeOf(error: CommanderError): number {
  if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version') return EXIT_OK;
  // A value that is well formed on the command line but not allowed (`--plan gold`,
  // `--rate-limit lots`) fails like a value the database refuses.
  if (error.code === 'commander.invalidArgument') return EXIT_FAILURE;
  return EXIT_USAGE;
}

function buildProgram(io: CliIo, state: { exitCode: number }, json: boolean): Command {
  /** Wraps a command's work: open the database, run, close, record the exit code. */
  const run: Run = (work) =>
    async function (this: Command, ...args) {
      const { execute } = await import('./commands.js');
      const json = this.opts<{ json?: boolean }>().json === true;
      state.exitCode = await execute(io, json, (context) => work(context, ...args));
    };

  const program = createProgram(io, json);
  registerWorkspaceCommands(program, run);
  registerKeyCommands(program, run);
  registerOAuthCommands(program, run);
  registerWebhookCommands(program, run);
  return program;
}

function createProgram(io: CliIo, json: boolean): Command {
  return new Command('pollkit')
    .description(
      'Pollkit admin CLI: workspaces, API keys, OAuth clients and webhook secrets, in the database the server uses.',
    )
    .version(packageJson.version, '-V, --version', 'print the version of Pollkit and exit')
    .configureOutput({
      writeOut: (text) => io.stdout.write(text),
      // In JSON mode runCli writes the error itself, as one JSON document.
      writeErr: (text) => {
        if (!json) io.stderr.write(text);
      },
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
        '  WEBHOOK_SECRETS_KEY  the servers’ key for webhook signing secrets (webhooks reseal-secrets)\n' +
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
}

/** Commander's own default width (80) unless the stream is a terminal that says otherwise. */
function terminalColumns(stream: NodeJS.WritableStream): number {
  const tty = stream as NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  return (tty.isTTY && tty.columns) || 80;
}
