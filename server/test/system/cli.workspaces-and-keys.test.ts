import { scopes } from '@pollkit/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  cli,
  cliInProcess,
  databaseEnv,
  databaseReady,
  json,
  setUpCliFile,
  startServerOnTestDatabase,
  tearDownCliFile,
} from '../support/cli-process.js';
import { usingPostgres } from '../support/server.js';
import { expectOk, expectStatus, testClient } from '../support/test-client.js';

/**
 * The admin CLI managing workspaces and keys, on the database a server uses: workspaces created,
 * updated and listed (the enterprise-only rate-limit override), keys created (the secret shown
 * once, authenticating on a server), listed without secrets, revoked, and scoped keys the server
 * holds to their scopes (support/cli-process.ts says how the CLI is run).
 */

beforeAll(() => setUpCliFile({ database: true, build: true }));
afterAll(tearDownCliFile);

const secretPattern = /pk_live_[A-Za-z0-9_-]{43}/g;

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
      expect((await testClient(`${server.url}/api/v1`).request('GET /polls', { apiKey: secret })).status).toBe(200);
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
      const api = testClient(`${server.url}/api/v1`);
      const rejected = await api.request('GET /polls', { apiKey: secret });
      expectStatus(rejected, 401);
      expect(rejected.body.error.code).toBe('revoked_api_key');
      expect((await api.request('GET /polls', { apiKey: second.secret })).status).toBe(200);
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
      const api = testClient(`${server.url}/api/v1`, { apiKey: rotated.secret });
      expect((await api.request('GET /polls')).status).toBe(200);
      const write = await api.request('POST /polls', { body: { title: 'No' } });
      expectStatus(write, 403);
      expect(write.body.error).toMatchObject({ code: 'insufficient_scope', details: { requiredScope: 'polls:write' } });
      const described = await api.request('GET /workspace');
      expect(expectOk(described).credential.scopes).toEqual(['polls:read', 'responses:read']);
    } finally {
      await server.close();
    }
  });
});
