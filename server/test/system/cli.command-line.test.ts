import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  builtCli,
  builtReady,
  cli,
  cliInProcess,
  repoRoot,
  scratch,
  setUpCliFile,
  sourceCli,
  tearDownCliFile,
} from '../support/cli-process.js';

/**
 * The admin CLI's command line: help with examples for every command, exit code 1 for bad values and
 * 2 for bad usage (before a database is opened), its version, usage errors as JSON with --json, and
 * the same from the built CLI that `pnpm pollkit` runs. Most cases run `runCli` in this process;
 * a few spawn the CLI to check what reaches the shell (support/cli-process.ts).
 */

beforeAll(() => setUpCliFile({ build: true }));
afterAll(tearDownCliFile);

describe('pollkit CLI: command line', () => {
  it('prints help with examples for the program and every command', async () => {
    const commands = [
      [],
      ['workspaces'],
      ['workspaces', 'create'],
      ['workspaces', 'list'],
      ['workspaces', 'update'],
      ['keys'],
      ['keys', 'create'],
      ['keys', 'list'],
      ['keys', 'revoke'],
      ['webhooks'],
      ['webhooks', 'reseal-secrets'],
    ];
    const results = await Promise.all(commands.map((command) => cliInProcess([...command, '--help'])));
    results.forEach((result, index) => {
      const command = (commands[index] ?? []).join(' ');
      expect(result.code, `${command} --help: ${result.stderr}`).toBe(0);
      expect(result.stdout).toContain(`Usage: pollkit${command ? ` ${command}` : ''}`);
      expect(result.stdout).toContain('Examples:\n  $ pollkit ');
      if (command.includes(' ')) expect(result.stdout).toContain('--json');
    });
    const [program, , , , update, , , , revoke] = results;
    expect(program?.stdout).toContain('npx -y pnpm@10 pollkit');
    expect(program?.stdout).toContain('DATA_DIR');
    expect(update?.stdout).toContain('--rate-limit <n|default>');
    expect(revoke?.stdout).toContain('5 more seconds');
    expect(results[10]?.stdout).toContain('WEBHOOK_SECRETS_KEY');
    expect(existsSync(join(scratch, 'never-created'))).toBe(false);

    // And as a process: the exit code and the text reach the shell.
    const spawned = await cli(['keys', 'create', '--help'], { DATA_DIR: join(scratch, 'never-created') }, sourceCli);
    expect(spawned).toEqual(results[6]);
  });

  it('refuses bad values with exit code 1 and bad usage with exit code 2, before opening a database', async () => {
    const cases: Array<[string[], number, RegExp]> = [
      [['workspaces', 'create', '--name', 'X', '--plan', 'gold'], 1, /Allowed choices are free, pro, enterprise/],
      [['workspaces', 'create', '--name', 'X', '--plan', 'enterprise', '--rate-limit', '1e3'], 1, /whole number/],
      [['workspaces', 'update', 'ws_x', '--rate-limit', 'unlimited'], 1, /whole number .*or "default"/],
      [['workspaces', 'create', '--plan', 'pro'], 2, /required option '--name <name>' not specified/],
      [['workspaces', 'update', 'ws_x'], 2, /nothing to change: pass --name, --plan or --rate-limit/],
      [['keys', 'revoke'], 2, /missing required argument 'keyId'/],
      [['keys', 'list', '--workspace', 'ws_x', '--verbose'], 2, /unknown option '--verbose'/],
      [['workspace', 'list'], 2, /unknown command 'workspace'/],
      [[], 2, /Usage: pollkit/],
    ];
    const results = await Promise.all(cases.map(([args]) => cliInProcess(args)));
    results.forEach((result, index) => {
      const [args, code, message] = cases[index] as [string[], number, RegExp];
      expect({ args, code: result.code }).toEqual({ args, code });
      expect(result.stderr).toMatch(message);
      expect(result.stdout).toBe('');
    });
    expect(existsSync(join(scratch, 'never-created'))).toBe(false);

    const spawned = await Promise.all([cases[0], cases[7]].map((c) => cli(c?.[0] ?? [], { DATA_DIR: scratch })));
    expect(spawned).toEqual([results[0], results[7]]);
  });

  it('prints its version, and with --json prints usage errors as a JSON error with the same exit codes', async () => {
    const version = JSON.parse(readFileSync(join(repoRoot, 'server/package.json'), 'utf8')).version;
    for (const flag of ['--version', '-V']) {
      expect(await cliInProcess([flag])).toEqual({ code: 0, stdout: `${version}\n`, stderr: '' });
    }

    const cases: Array<[string[], number, string, RegExp]> = [
      [
        ['keys', 'list', '--workspace', 'ws_x', '--verbose', '--json'],
        2,
        'usage_error',
        /^unknown option '--verbose'$/,
      ],
      [
        ['workspace', 'list', '--json'],
        2,
        'usage_error',
        /^unknown command 'workspace' \(Did you mean workspaces\?\)$/,
      ],
      [['keys', 'revoke', '--json'], 2, 'usage_error', /^missing required argument 'keyId'$/],
      [['workspaces', 'create', '--plan', 'pro', '--json'], 2, 'usage_error', /required option '--name <name>'/],
      [['workspaces', 'update', 'ws_x', '--json'], 2, 'usage_error', /^nothing to change/],
      [['workspaces', 'create', '--name', 'X', '--plan', 'gold', '--json'], 1, 'validation_failed', /Allowed choices/],
    ];
    const results = await Promise.all(cases.map(([args]) => cliInProcess(args)));
    results.forEach((result, index) => {
      const [args, code, errorCode, message] = cases[index] as [string[], number, string, RegExp];
      expect({ args, code: result.code, stdout: result.stdout }).toEqual({ args, code, stdout: '' });
      // One JSON document on stderr, nothing else (no help text, no "(add --help for usage)").
      const body = JSON.parse(result.stderr);
      expect(body).toEqual({ error: { code: errorCode, message: expect.stringMatching(message) } });
      expect(result.stderr).toBe(`${JSON.stringify(body)}\n`);
    });
    // Without --json the same mistake stays a line for people.
    expect((await cliInProcess(['keys', 'revoke'])).stderr).toMatch(/^error: missing required argument 'keyId'\n/);
  });

  it('runs as the built CLI that `pnpm pollkit` runs: --version, and a --json usage error', async () => {
    // What `pnpm pollkit` runs first: builds server/dist only if the sources changed since the last build
    // (started with the file, see beforeAll; it must succeed).
    await builtReady;
    const built = (args: string[]) => cli(args, { DATA_DIR: join(scratch, 'never-created') }, builtCli);
    const version = JSON.parse(readFileSync(join(repoRoot, 'server/package.json'), 'utf8')).version;
    expect(await built(['--version'])).toEqual({ code: 0, stdout: `${version}\n`, stderr: '' });
    const refused = await built(['keys', 'list', '--workspace', 'ws_x', '--verbose', '--json']);
    expect(refused).toEqual({
      code: 2,
      stdout: '',
      stderr: `${JSON.stringify({ error: { code: 'usage_error', message: "unknown option '--verbose'" } })}\n`,
    });
    expect(existsSync(join(scratch, 'never-created'))).toBe(false);
  });
});
