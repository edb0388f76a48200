import { Writable } from 'node:stream';
import { runCli } from '../../src/cli/program.js';

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs the admin CLI in this process (the same `runCli` its entry point calls) and captures what it
 * prints: much faster than a child process, which each test file still uses where the process
 * boundary matters.
 */
export async function runCliInProcess(args: string[], env: Record<string, string | undefined>): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const sink = (append: (text: string) => void) =>
    new Writable({
      write(chunk, _encoding, done) {
        append(String(chunk));
        done();
      },
    });
  const code = await runCli(args, {
    env,
    stdout: sink((text) => {
      stdout += text;
    }),
    stderr: sink((text) => {
      stderr += text;
    }),
  });
  return { code, stdout, stderr };
}
