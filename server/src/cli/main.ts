import { EXIT_FAILURE } from './context.js';
import { runCli } from './program.js';

/**
 * `pollkit` admin CLI entry point (`npx -y pnpm@10 pollkit <command>` from the repository root).
 * The exit code is set rather than forced with process.exit, so output drains and the database,
 * already closed by the command, is never cut off mid-write.
 */
try {
  process.exitCode = await runCli(process.argv.slice(2), {
    env: process.env,
    stdout: process.stdout,
    stderr: process.stderr,
  });
} catch (error) {
  console.error('pollkit: unexpected failure:', error);
  process.exitCode = EXIT_FAILURE;
}
