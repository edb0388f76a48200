import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import { scopes } from '@pollkit/contracts';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config.js';
import { keyIdOf } from '../../src/core/sealed-secrets.js';
import { acquireDataDirLock, DataDirInUseError, LOCK_FILE_NAME } from '../../src/db/data-dir-lock.js';
import { migrateToLatest, openDatabase } from '../../src/db/database.js';
import { type RunningServer, startServer } from '../../src/server.js';
import { startChild, stop } from '../support/child.js';
import { runCliInProcess } from '../support/cli.js';
import { call } from '../support/http.js';
import { pgliteTemplate } from '../support/pglite-template.js';
import { testDatabase, usingPostgres } from '../support/server.js';
import { type ReceivedDelivery, WebhookReceiver } from '../support/webhook-receiver.js';
import { createEndpoint, waitForDelivery } from '../support/webhooks.js';

/**
 * The admin CLI as an operator runs it: a separate Node process on the same database as the
 * server (an on-disk PGlite DATA_DIR, or PostgreSQL with TEST_DATABASE_URL). A process start costs
 * one to three seconds on a busy machine, so the main flows are spawned and the many help, usage
 * and refusal cases call the same `runCli` in this process. The main flows spawn the bundle that
 * `pnpm pollkit` and `pnpm start` run (server/dist, rebuilt first when its sources changed, as they
 * do): through tsx, every start compiled the CLI or the server from source again, which cost each
 * process one to three seconds more. The help case still spawns the sources through tsx.
 */

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
const secretPattern = /pk_live_[A-Za-z0-9_-]{43}/g;

interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

let scratch: string;
let database: { url: string; drop(): Promise<void> } | undefined;
/** Where the CLI and the server find the database under test. */
let databaseEnv: { DATA_DIR: string } | { DATABASE_URL: string };

/** Settles once the database under test exists with its schema; the first test to use it waits. */
let databaseReady: Promise<void>;

/**
 * Settles once server/dist is built from the current sources: what `pnpm pollkit` and `pnpm start`
 * run first (scripts/ensure-built.mjs). Every spawn of the bundle waits for it.
 */
let builtReady: Promise<void>;

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'pollkit-cli-'));
  if (usingPostgres) {
    database = await testDatabase();
    databaseEnv = { DATABASE_URL: database.url };
  } else {
    databaseEnv = { DATA_DIR: join(scratch, 'data') };
  }
  // Creating an embedded database takes seconds; it runs here while the tests that need no
  // database spawn their processes.
  databaseReady = createSchema();
  databaseReady.catch(() => {});
  // Meanwhile, and once for the file: two builds at once would write server/dist over each other.
  builtReady = new Promise<void>((resolve, reject) => {
    execFile(process.execPath, ['server/scripts/ensure-built.mjs'], { cwd: repoRoot }, (error) =>
      error ? reject(error) : resolve(),
    );
  });
  builtReady.catch(() => {});
});

afterAll(async () => {
  await database?.drop();
  rmSync(scratch, { recursive: true, force: true });
});

/** The CLI from its sources (through tsx), as the help case spawns it. */
const sourceCli = ['--import', 'tsx', '--conditions=@pollkit/source', 'server/src/cli/main.ts'];
/** The bundle `pnpm pollkit` runs, as the main flows spawn it. */
const builtCli = ['server/dist/cli.js'];

/** Runs `pollkit <args>` in its own process with only the environment given here. */
async function cli(args: string[], env: Record<string, string> = databaseEnv, entry = builtCli): Promise<CliResult> {
  if (entry === builtCli) await builtReady;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...entry, ...args], {
      cwd: repoRoot,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? scratch, TMPDIR: tmpdir(), ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

function json(result: CliResult) {
  expect(result, result.stderr).toMatchObject({ code: 0 });
  return JSON.parse(result.stdout);
}

async function createSchema(): Promise<void> {
  if ('DATA_DIR' in databaseEnv) {
    // A copy of the migrated database the in-memory test servers start from (support/pglite-template.ts),
    // laid where openDatabase keeps an embedded one: initdb and every migration on disk took ~12 s
    // of this file (a first start that creates one is entry-point.test.ts's). Were it laid anywhere
    // else, the migration below would make the schema as before.
    const dataDir = join(databaseEnv.DATA_DIR, 'pglite');
    mkdirSync(dataDir, { recursive: true });
    const pglite = new PGlite(dataDir, { loadDataDir: await pgliteTemplate() });
    await pglite.waitReady;
    await pglite.close();
  }
  const handle = await openDatabase({
    databaseUrl: 'DATABASE_URL' in databaseEnv ? databaseEnv.DATABASE_URL : undefined,
    dataDir: 'DATA_DIR' in databaseEnv ? databaseEnv.DATA_DIR : scratch,
  });
  try {
    await migrateToLatest(handle.db);
  } finally {
    await handle.close();
  }
}

function startServerOnTestDatabase(): Promise<RunningServer> {
  return startServer(
    parseConfig({
      ...databaseEnv,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'silent',
      BOOTSTRAP: 'false',
      REDIS_URL: process.env.TEST_REDIS_URL,
      // With Redis every test server on 127.0.0.1 shares one count of failed authentications
      // (support/server.ts): the 401s this file expects must not turn into 429s for others'.
      AUTH_FAILURES_PER_IP_PER_MINUTE: '1000000',
    }),
  );
}

/**
 * The same entry as main.ts (which only adds `process.exitCode =`), in this process. The spawned
 * cases check that exit codes and output reach the shell the same way.
 */
function cliInProcess(
  args: string[],
  env: Record<string, string> = { DATA_DIR: join(scratch, 'never-created') },
): Promise<CliResult> {
  return runCliInProcess(args, env);
}

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

describe('pollkit CLI: workspaces and keys', () => {
  let pro: { id: string };
  let enterprise: { id: string };

  // Every step is a process start (a second or two on a busy machine), hence the generous timeouts.
  it('creates, updates and lists workspaces, enforcing the enterprise-only rate-limit override', async () => {
    await databaseReady;
    pro = json(await cli(['workspaces', 'create', '--name', 'Acme', '--plan', 'pro', '--json']));
    expect(pro).toMatchObject({
      id: expect.stringMatching(/^ws_/),
      name: 'Acme',
      plan: 'pro',
      rateLimitPerMinute: null,
    });

    const created = await cli([
      'workspaces',
      'create',
      '--name',
      'Big Co',
      '--plan',
      'enterprise',
      '--rate-limit',
      '600',
    ]);
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout).toMatch(
      /^Created workspace ws_\w+: "Big Co", enterprise plan, a rate limit of 600 requests per minute\./,
    );
    enterprise = { id: /Created workspace (ws_\w+)/.exec(created.stdout)?.[1] ?? '' };

    // Refusals run in this process (the same runCli as main.ts) to spare three process starts.
    const refused = await cliInProcess(['workspaces', 'update', pro.id, '--rate-limit', '500'], databaseEnv);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(
      `error: Rate-limit overrides are an Enterprise feature, and workspace ${pro.id} is on the pro plan\n`,
    );

    const downgrade = await cliInProcess(
      ['workspaces', 'update', enterprise.id, '--plan', 'pro', '--json'],
      databaseEnv,
    );
    expect(downgrade.code).toBe(1);
    expect(JSON.parse(downgrade.stderr)).toEqual({
      error: { code: 'validation_failed', message: expect.stringContaining('drop the override in the same update') },
    });

    const missing = await cliInProcess(
      ['workspaces', 'update', 'ws_01AAAAAAAAAAAAAAAAAAAAAAAA', '--name', 'Nobody'],
      databaseEnv,
    );
    expect(missing).toMatchObject({
      code: 1,
      stdout: '',
      stderr: 'error: Workspace ws_01AAAAAAAAAAAAAAAAAAAAAAAA not found\n',
    });

    const renamed = json(
      await cli([
        'workspaces',
        'update',
        pro.id,
        '--name',
        'Acme Inc',
        '--plan',
        'enterprise',
        '--rate-limit',
        '900',
        '--json',
      ]),
    );
    expect(renamed).toMatchObject({ id: pro.id, name: 'Acme Inc', plan: 'enterprise', rateLimitPerMinute: 900 });

    const listed = json(await cli(['workspaces', 'list', '--json']));
    expect(listed).toEqual([
      { ...pro, name: 'Acme Inc', plan: 'enterprise', rateLimitPerMinute: 900 },
      { id: enterprise.id, name: 'Big Co', plan: 'enterprise', rateLimitPerMinute: 600, createdAt: expect.any(String) },
    ]);
  });

  it('creates a key whose secret (shown once) authenticates on a server; list never shows it; revoke answers 401', async () => {
    const created = await cli(['keys', 'create', '--workspace', pro.id, '--name', 'CI']);
    expect(created.code, created.stderr).toBe(0);
    const [secret, ...others] = created.stdout.match(secretPattern) ?? [];
    expect(secret).toBeDefined();
    expect(others).toEqual([]);
    expect(created.stdout).toContain('This secret is shown once');
    const keyId = /Created API key (key_\w+)/.exec(created.stdout)?.[1] ?? '';

    const second = json(await cli(['keys', 'create', '--workspace', pro.id, '--json']));
    expect(second).toMatchObject({
      workspaceId: pro.id,
      name: 'CLI key',
      status: 'active',
      secret: expect.stringMatching(secretPattern),
    });
    expect(second.prefix).toBe(second.secret.slice(0, second.prefix.length));

    let server = await startServerOnTestDatabase();
    try {
      expect((await call('GET', `${server.url}/api/v1/polls`, { apiKey: secret })).status).toBe(200);
      if (!usingPostgres) {
        // The server holds the embedded database: a second process must not open it.
        const blocked = await cli(['keys', 'revoke', keyId]);
        expect(blocked.code).toBe(1);
        expect(blocked.stderr).toContain(
          `The embedded database at ${(databaseEnv as { DATA_DIR: string }).DATA_DIR} is in use by process ${process.pid} (is the server running?). Stop it first, or use DATABASE_URL=postgres://… to share a database.`,
        );
      }
    } finally {
      await server.close();
    }

    // Closing the server released the lock, so the CLI can open the database now.
    const revoked = await cli(['keys', 'revoke', keyId]);
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(revoked.stdout).toContain(`Revoked API key ${keyId}`);
    expect(revoked.stdout).toContain('up to 5 more seconds');

    // A fresh server has no cached credential, so it shows what a running one shows 5 s later.
    server = await startServerOnTestDatabase();
    try {
      const rejected = await call('GET', `${server.url}/api/v1/polls`, { apiKey: secret });
      expect(rejected.status).toBe(401);
      expect(rejected.body.error.code).toBe('revoked_api_key');
      expect((await call('GET', `${server.url}/api/v1/polls`, { apiKey: second.secret })).status).toBe(200);
    } finally {
      await server.close();
    }

    const again = json(await cliInProcess(['keys', 'revoke', keyId, '--json'], databaseEnv));
    expect(again).toMatchObject({ id: keyId, status: 'revoked', alreadyRevoked: true, revokedAt: expect.any(String) });

    const listed = await cli(['keys', 'list', '--workspace', pro.id]);
    expect(listed.code, listed.stderr).toBe(0);
    const rows = listed.stdout.trimEnd().split('\n');
    expect(rows[0]).toMatch(/^ID\s+NAME\s+PREFIX\s+CREATED\s+STATUS\s+SCOPES$/);
    expect(rows.slice(1)).toEqual([
      expect.stringMatching(new RegExp(`^${keyId}\\s+CI\\s+${secret?.slice(0, 14)}…\\s+\\S+ \\S+Z\\s+revoked\\s+all$`)),
      expect.stringMatching(
        new RegExp(`^${second.id}\\s+CLI key\\s+${second.prefix}…\\s+\\S+ \\S+Z\\s+active\\s+all$`),
      ),
    ]);
    // Neither secret, nor any part of it past the prefix the listing is for.
    expect(listed.stdout.match(secretPattern)).toBeNull();
    expect(listed.stdout).not.toContain(second.secret.slice(14, 24));
    expect(listed.stdout).not.toContain(secret?.slice(14, 24));

    // The JSON listing (in this process): the same objects, and no secret field.
    const listedJson = await cliInProcess(['keys', 'list', '--workspace', pro.id, '--json'], databaseEnv);
    expect(listedJson.code, listedJson.stderr).toBe(0);
    expect(JSON.parse(listedJson.stdout)).toEqual([
      { ...again, alreadyRevoked: undefined, credentialCacheSeconds: undefined },
      { ...second, secret: undefined },
    ]);
  });
});

describe('pollkit CLI: webhook signing secrets (WEBHOOK_SECRETS_KEY)', () => {
  const key = randomKey();
  const warning = /"level":40,[^\n]*WEBHOOK_SECRETS_KEY/g;

  function randomKey(): string {
    return Buffer.from(Array.from({ length: 32 }, () => Math.floor(Math.random() * 256))).toString('base64');
  }

  /**
   * The real server (src/main.ts, as bundled in server/dist: what `pnpm start` runs) on this file's
   * database, delivering webhooks to loopback at once.
   */
  async function server(env: Record<string, string> = {}) {
    await builtReady;
    const child = startChild(
      {
        ...databaseEnv,
        PORT: '0',
        BOOTSTRAP: 'false',
        LOG_LEVEL: 'warn',
        LOG_FORMAT: 'json',
        WEBHOOK_ALLOW_HTTP: 'true',
        WEBHOOK_ALLOW_LOOPBACK: 'true',
        WEBHOOK_POLL_INTERVAL_MS: '50',
        ...env,
      },
      { built: true },
    );
    const [, url] = await child.waitFor(/Pollkit listening on (http:\/\/\S+)/);
    return { api: `${url}/api/v1`, child };
  }

  /** A test event through `api`, delivered and answered: the request the receiver got. */
  async function delivered(receiver: WebhookReceiver, api: string, apiKey: string, endpointId: string) {
    const queued = await call('POST', `${api}/webhooks/${endpointId}/test`, { apiKey });
    expect(queued.status, queued.text).toBe(202);
    await waitForDelivery({ api }, apiKey, endpointId, queued.body.id, 'succeeded');
    const request = receiver.received.find((delivery) => delivery.id === queued.body.eventId);
    expect(request).toBeDefined();
    return request as ReceivedDelivery;
  }

  /** Whether the request carries a valid signature made with `secret` (standardwebhooks, not our code). */
  function signedWith(request: ReceivedDelivery, secret: string): boolean {
    try {
      new Webhook(secret).verify(request.body, {
        'webhook-id': request.id,
        'webhook-timestamp': request.timestamp,
        'webhook-signature': request.signature,
      });
      return true;
    } catch {
      return false;
    }
  }

  async function sealedState() {
    const handle = await openDatabase({
      databaseUrl: 'DATABASE_URL' in databaseEnv ? databaseEnv.DATABASE_URL : undefined,
      dataDir: 'DATA_DIR' in databaseEnv ? databaseEnv.DATA_DIR : scratch,
    });
    try {
      const stored = await handle.db.selectFrom('server_keys').select('name').execute();
      const endpoints = await handle.db
        .selectFrom('webhook_endpoints')
        .select(['id', 'secret_sealed', 'previous_secret_sealed'])
        .execute();
      const keyIds = endpoints.flatMap((row) =>
        [row.secret_sealed, row.previous_secret_sealed].flatMap((sealed) => (sealed ? [sealed.split('.')[1]] : [])),
      );
      return { storedKeys: stored.length, keyIds, endpoints };
    } finally {
      await handle.close();
    }
  }

  it('warns while the stored key is in use; reseal-secrets moves every secret to the configured key, and deliveries stay verifiable', {
    timeout: 180_000,
  }, async () => {
    await databaseReady;
    const receiver = await WebhookReceiver.start();
    try {
      const workspace = JSON.parse(
        (await cliInProcess(['workspaces', 'create', '--name', 'Hooks', '--plan', 'pro', '--json'], databaseEnv))
          .stdout,
      );
      const apiKey = JSON.parse(
        (await cliInProcess(['keys', 'create', '--workspace', workspace.id, '--json'], databaseEnv)).stdout,
      ).secret as string;

      // 1. No WEBHOOK_SECRETS_KEY: one warning at start-up. An endpoint, and a rotation, so that it
      // has a current and a previous secret, both sealed with the key kept in the database.
      let running = await server();
      let endpointId: string;
      let first: string;
      let second: string;
      try {
        expect(running.child.output().match(warning)?.length, running.child.output()).toBe(1);
        expect(running.child.output()).toContain('WEBHOOK_SECRETS_KEY is not set');
        const endpoint = await createEndpoint(running, apiKey, { url: receiver.urlFor('reseal') });
        endpointId = endpoint.id;
        first = endpoint.secret;
        // With an Idempotency-Key: its reply, which carries the secret, is stored sealed with the same key.
        const rotated = await call('POST', `${running.api}/webhooks/${endpointId}/rotate-secret`, {
          apiKey,
          headers: { 'idempotency-key': 'rotate-once' },
        });
        expect(rotated.status, rotated.text).toBe(200);
        second = rotated.body.secret;
        const before = await delivered(receiver, running.api, apiKey, endpointId);
        expect([signedWith(before, first), signedWith(before, second)]).toEqual([true, true]);
      } finally {
        await stop(running.child);
      }
      const storedKeyIds = (await sealedState()).keyIds;
      expect(storedKeyIds).toHaveLength(2);
      expect(new Set(storedKeyIds).size).toBe(1);
      expect(storedKeyIds[0]).not.toBe(keyIdOf(Buffer.from(key, 'base64')));

      // 2. WEBHOOK_SECRETS_KEY set later: the stored key still opens the secrets, and the warning says
      // how many it still seals.
      running = await server({ WEBHOOK_SECRETS_KEY: key });
      try {
        expect(running.child.output().match(warning)?.length, running.child.output()).toBe(1);
        expect(running.child.output()).toContain(
          '2 webhook signing secret(s) are still sealed with the key kept in the database',
        );
        const meanwhile = await delivered(receiver, running.api, apiKey, endpointId);
        expect([signedWith(meanwhile, first), signedWith(meanwhile, second)]).toEqual([true, true]);
      } finally {
        await stop(running.child);
      }

      // 3. The command refuses without the variable, changing nothing; with it, it moves both secrets
      // and deletes the stored key; with a key that opens nothing, it refuses and changes nothing.
      const unset = await cliInProcess(['webhooks', 'reseal-secrets'], databaseEnv);
      expect(unset.code).toBe(1);
      expect(unset.stderr).toMatch(/^error: WEBHOOK_SECRETS_KEY is not set: .*Nothing was changed\.\n$/);
      expect(await sealedState()).toMatchObject({ storedKeys: 1, keyIds: storedKeyIds });

      const resealed = await cliInProcess(['webhooks', 'reseal-secrets', '--json'], {
        ...databaseEnv,
        WEBHOOK_SECRETS_KEY: key,
      });
      expect(resealed.code, resealed.stderr).toBe(0);
      expect(JSON.parse(resealed.stdout)).toEqual({
        endpoints: 1,
        resealed: 2,
        alreadySealed: 0,
        idempotentReplies: 1,
        storedKeyDeleted: true,
      });
      const configuredKeyId = keyIdOf(Buffer.from(key, 'base64'));
      expect(await sealedState()).toMatchObject({ storedKeys: 0, keyIds: [configuredKeyId, configuredKeyId] });

      const refused = await cliInProcess(['webhooks', 'reseal-secrets', '--json'], {
        ...databaseEnv,
        WEBHOOK_SECRETS_KEY: randomKey(),
      });
      expect(refused.code).toBe(1);
      expect(JSON.parse(refused.stderr)).toEqual({
        error: {
          code: 'secrets_not_openable',
          message: expect.stringContaining(`Nothing was changed: 3 secret(s) are sealed with a key that neither`),
        },
      });
      expect(JSON.parse(refused.stderr).error.message).toContain(`${endpointId} (its current secret`);
      // The rotation's sealed reply is one of them: it moves with the secrets, or nothing moves.
      expect(JSON.parse(refused.stderr).error.message).toContain('an idempotent reply of ws_');
      expect(await sealedState()).toMatchObject({ storedKeys: 0, keyIds: [configuredKeyId, configuredKeyId] });

      // 4. Run again with the right key: nothing left to do.
      const again = await cliInProcess(['webhooks', 'reseal-secrets', '--json'], {
        ...databaseEnv,
        WEBHOOK_SECRETS_KEY: key,
      });
      expect(again.code, again.stderr).toBe(0);
      expect(JSON.parse(again.stdout)).toEqual({
        endpoints: 1,
        resealed: 0,
        alreadySealed: 2,
        idempotentReplies: 0,
        storedKeyDeleted: false,
      });

      // 5. A server with the key: no warning, and its deliveries carry both secrets' signatures.
      running = await server({ WEBHOOK_SECRETS_KEY: key });
      try {
        expect(running.child.output()).not.toMatch(warning);
        const after = await delivered(receiver, running.api, apiKey, endpointId);
        expect([signedWith(after, first), signedWith(after, second)]).toEqual([true, true]);
        expect(signedWith(after, `whsec_${Buffer.alloc(32, 7).toString('base64')}`)).toBe(false);
        // The rotation's stored reply moved with the secrets: a retry still replays it, secret included.
        const replayed = await call('POST', `${running.api}/webhooks/${endpointId}/rotate-secret`, {
          apiKey,
          headers: { 'idempotency-key': 'rotate-once' },
        });
        expect([replayed.status, replayed.headers.get('idempotent-replayed'), replayed.body.secret]).toEqual([
          200,
          'true',
          second,
        ]);
      } finally {
        await stop(running.child);
      }
      expect((await sealedState()).storedKeys).toBe(0);
    } finally {
      await receiver.close();
    }
  });

  it('re-seals in one step and says what it did', async () => {
    await databaseReady;
    // The first test left every secret under `key`: a fresh key kept in the database, as a server
    // without WEBHOOK_SECRETS_KEY would make, and an endpoint sealed with it, make work to do.
    const handle = await openDatabase({
      databaseUrl: 'DATABASE_URL' in databaseEnv ? databaseEnv.DATABASE_URL : undefined,
      dataDir: 'DATA_DIR' in databaseEnv ? databaseEnv.DATA_DIR : scratch,
    });
    const stored = Buffer.alloc(32, 9);
    try {
      const { SecretSealer } = await import('../../src/core/sealed-secrets.js');
      await handle.db
        .insertInto('server_keys')
        .values({ name: 'webhook_secrets', key: stored.toString('base64') })
        .execute();
      const endpoint = await handle.db.selectFrom('webhook_endpoints').select('id').executeTakeFirstOrThrow();
      await handle.db
        .updateTable('webhook_endpoints')
        .set({ previous_secret_sealed: new SecretSealer(stored).seal('whsec_previous') })
        .where('id', '=', endpoint.id)
        .execute();
    } finally {
      await handle.close();
    }
    const done = await cliInProcess(['webhooks', 'reseal-secrets'], { ...databaseEnv, WEBHOOK_SECRETS_KEY: key });
    expect(done.code, done.stderr).toBe(0);
    expect(done.stdout).toBe(
      'Re-sealed 1 signing secret(s) under WEBHOOK_SECRETS_KEY (1 endpoint(s); 1 already were).\n' +
        'Deleted the sealing key that was kept in the database.\n' +
        'Every server must run with this WEBHOOK_SECRETS_KEY from now on: one without it cannot open the secrets.\n',
    );
    const state = await sealedState();
    expect(state.storedKeys).toBe(0);
    expect(new Set(state.keyIds)).toEqual(new Set([keyIdOf(Buffer.from(key, 'base64'))]));
  });
});

describe('pollkit CLI: key scopes', () => {
  it('creates a key with --scopes that the server holds to them; list shows them, rotate keeps them', async () => {
    await databaseReady;
    const run = (args: string[]) => cliInProcess(args, databaseEnv);
    const workspace = json(await run(['workspaces', 'create', '--name', 'Scoped', '--plan', 'pro', '--json']));
    const created = json(
      await run([
        'keys',
        'create',
        '--workspace',
        workspace.id,
        '--name',
        'Reader',
        '--scopes',
        'responses:read polls:read',
        '--json',
      ]),
    );
    // In the contract's order, whatever the order asked.
    expect(created.scopes).toEqual(['polls:read', 'responses:read']);
    const everything = json(await run(['keys', 'create', '--workspace', workspace.id, '--json']));
    expect(everything.scopes).toEqual([...scopes]);

    for (const bad of ['polls:admin', '  ']) {
      const refused = await run(['keys', 'create', '--workspace', workspace.id, '--scopes', bad]);
      expect(refused.code, bad).toBe(1);
      expect(refused.stderr).toMatch(bad.trim() ? /Unknown scope polls:admin/ : /at least one scope/);
    }

    const listed = await run(['keys', 'list', '--workspace', workspace.id]);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toMatch(new RegExp(`^${created.id}\\s.*\\sactive\\s+polls:read responses:read$`, 'm'));
    expect(listed.stdout).toMatch(new RegExp(`^${everything.id}\\s.*\\sactive\\s+all$`, 'm'));

    const rotated = json(await run(['keys', 'rotate', created.id, '--grace', '0', '--json']));
    expect(rotated.scopes).toEqual(['polls:read', 'responses:read']);

    const server = await startServerOnTestDatabase();
    try {
      const api = `${server.url}/api/v1`;
      expect((await call('GET', `${api}/polls`, { apiKey: rotated.secret })).status).toBe(200);
      const write = await call('POST', `${api}/polls`, { apiKey: rotated.secret, body: { title: 'No' } });
      expect(write.status, write.text).toBe(403);
      expect(write.body.error).toMatchObject({ code: 'insufficient_scope', details: { requiredScope: 'polls:write' } });
      const described = await call('GET', `${api}/workspace`, { apiKey: rotated.secret });
      expect(described.body.credential.scopes).toEqual(['polls:read', 'responses:read']);
    } finally {
      await server.close();
    }
  });
});

describe('embedded database lock', () => {
  it('refuses a second opener while the lock is held, and is released on release', () => {
    const dataDir = join(scratch, 'locked');
    const lock = acquireDataDirLock(dataDir);
    expect(readFileSync(join(dataDir, LOCK_FILE_NAME), 'utf8').split('\n')[0]).toBe(String(process.pid));
    expect(() => acquireDataDirLock(dataDir)).toThrow(DataDirInUseError);
    expect(() => acquireDataDirLock(dataDir)).toThrow(
      `The embedded database at ${dataDir} is in use by process ${process.pid} (is the server running?). Stop it first, or use DATABASE_URL=postgres://… to share a database.`,
    );
    lock.release();
    expect(existsSync(join(dataDir, LOCK_FILE_NAME))).toBe(false);
    const again = acquireDataDirLock(dataDir);
    again.release();
  });

  it('takes over a lock left by a process that is gone, and honours one whose process is alive', async () => {
    const dataDir = join(scratch, 'stale');
    const lockPath = join(dataDir, LOCK_FILE_NAME);
    const gone = spawn(process.execPath, ['-e', '']);
    const gonePid = gone.pid ?? 0;
    await new Promise((resolve) => gone.on('close', resolve));
    acquireDataDirLock(dataDir).release();

    writeFileSync(lockPath, `${gonePid}\n`);
    const lock = acquireDataDirLock(dataDir);
    expect(readFileSync(lockPath, 'utf8').split('\n')[0]).toBe(String(process.pid));
    lock.release();

    // The parent of this test process is certainly running.
    writeFileSync(lockPath, `${process.ppid}\n`);
    expect(() => acquireDataDirLock(dataDir)).toThrow(`in use by process ${process.ppid}`);
    expect(readFileSync(lockPath, 'utf8')).toBe(`${process.ppid}\n`);
  });
});
