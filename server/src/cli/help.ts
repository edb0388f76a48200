import type { Command } from 'commander';

/** Help-text pieces every command group uses. */

export function withJson(command: Command): Command {
  return command.option('--json', 'print the result as JSON (and errors as JSON on stderr)');
}

export function examples(lines: readonly string[]): string {
  return `\nExamples:\n${lines.map((line) => `  $ ${line}`).join('\n')}\n`;
}
