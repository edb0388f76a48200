import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keyIdOf } from '../../src/core/sealed-secrets.js';
import { openDatabase } from '../../src/db/database.js';
import { startChild, stop } from '../support/child.js';
import {
  builtReady,
  cliInProcess,
  databaseEnv,
  databaseReady,
  scratch,
  setUpCliFile,
  tearDownCliFile,
} from '../support/cli-process.js';
import { expectOk, expectStatus, testClient } from '../support/test-client.js';
import { type ReceivedDelivery, WebhookReceiver } from '../support/webhook-receiver.js';
import { createEndpoint, waitForDelivery } from '../support/webhooks.js';

/**
 * The admin CLI and the webhook signing secrets (WEBHOOK_SECRETS_KEY): the built server warns while
 * the key kept in the database is in use; `webhooks reseal-secrets` moves every secret to the
 * configured key, deliveries staying verifiable (support/cli-process.ts says how the CLI is run).
 */

beforeAll(() => setUpCliFile({ database: true, build: true }));
afterAll(tearDownCliFile);

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
    const queued = await testClient(api).request('POST /webhooks/{id}/test', { params: { id: endpointId }, apiKey });
    expectStatus(queued, 202);
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
        const rotated = await testClient(running.api).request('POST /webhooks/{id}/rotate-secret', {
          params: { id: endpointId },
          apiKey,
          headers: { 'idempotency-key': 'rotate-once' },
        });
        expectStatus(rotated, 200);
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
        const replayed = await testClient(running.api).request('POST /webhooks/{id}/rotate-secret', {
          params: { id: endpointId },
          apiKey,
          headers: { 'idempotency-key': 'rotate-once' },
        });
        expect([replayed.status, replayed.headers.get('idempotent-replayed'), expectOk(replayed).secret]).toEqual([
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
