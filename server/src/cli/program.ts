import { Command, CommanderError } from 'commander';
import { EXIT_FAILURE, EXIT_OK, EXIT_USAGE, type Run } from './context.js';
import { examples } from './help.js';
import { registerKeyCommands } from './keys-program.js';
import { registerOAuthCommands } from './oauth-program.js';
import type { CliIo } from './output.js';
import { registerWorkspaceCommands } from './workspaces-program.js';

/**
 * The command line: commands, options, help and exit codes. What the commands do is in
 * commands.ts, imported only once a command runs.
 */

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
  const run: Run = (work) =>
    async function (this: Command, ...args) {
      const { execute } = await import('./commands.js');
      const json = this.opts<{ json?: boolean }>().json === true;
      state.exitCode = await execute(io, json, (context) => work(context, ...args));
    };

  const program = createProgram(io);
  registerWorkspaceCommands(program, run);
  registerKeyCommands(program, run);
  registerOAuthCommands(program, run);
  return program;
}

function createProgram(io: CliIo): Command {
  return new Command('pollkit')
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
}

/** Commander's own default width (80) unless the stream is a terminal that says otherwise. */
function terminalColumns(stream: NodeJS.WritableStream): number {
  const tty = stream as NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  return (tty.isTTY && tty.columns) || 80;
}
