import { type ChildProcess, spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { signWebhook } from '@pollkit/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, SERVER_DIR } from '../support/child.js';
import { sampleContent } from '../support/decks.js';
import { fencedBlocks, type Run, runScript, scriptOf, shBlocks, which } from '../support/doc-walkthrough.js';
import { onceOnEmbeddedLeg, startTestServer, type TestServer } from '../support/server.js';
import { expectStatus, testClient } from '../support/test-client.js';

/**
 * docs/webhooks.md, run as written: its ```sh runnable walkthrough against a real server, with its plain-Node
 * receiver (the ```js receiver.mjs block) started by the walkthrough itself; then its SDK receiver
 * (the ```ts receiver-sdk.ts block) run as a program of its own, receiving real deliveries and
 * refusing a forged one. Both receivers are the guide's code, extracted from the Markdown.
 */

const DOC_PATH = resolve(fileURLToPath(import.meta.url), '../../../../docs/webhooks.md');
const TSX = resolve(SERVER_DIR, '../node_modules/.bin/tsx');
const SCRIPT_TIMEOUT_MS = 60_000;

/** The code of the fenced block whose info string is `<language> <name>`. */
function namedBlock(markdown: string, language: string, name: string): string {
  const block = fencedBlocks(markdown).find((b) => b.info[0] === language && b.info[1] === name);
  if (!block) throw new Error(`docs/webhooks.md has no \`\`\`${language} ${name} block`);
  return `${block.code}\n`;
}

let t: TestServer;
const api = testClient(() => t.api);
let doc: string;
/** Under server/, so that the SDK receiver resolves `@pollkit/sdk` as the workspace's package. */
let workDir: string;
let run: Run;

// Once per CI run, on the embedded leg (support/server.ts, onceOnEmbeddedLeg).
describe.skipIf(onceOnEmbeddedLeg)('server/test/system/docs-webhooks', () => {
  beforeAll(async () => {
    for (const tool of ['bash', 'curl', 'jq']) {
      if (!(await which(tool))) throw new Error(`docs/webhooks.md's samples need \`${tool}\` on the PATH`);
    }
    doc = await readFile(DOC_PATH, 'utf8');
    t = await startTestServer({
      WEBHOOK_ALLOW_HTTP: 'true',
      WEBHOOK_ALLOW_LOOPBACK: 'true',
      WEBHOOK_POLL_INTERVAL_MS: '50',
    });
    await mkdir(join(SERVER_DIR, 'test-artifacts'), { recursive: true });
    workDir = await mkdtemp(join(SERVER_DIR, 'test-artifacts', 'docs-webhooks-'));
    await writeFile(join(workDir, 'receiver.mjs'), namedBlock(doc, 'js', 'receiver.mjs'));
    await writeFile(join(workDir, 'receiver-sdk.ts'), namedBlock(doc, 'ts', 'receiver-sdk.ts'));
    const { apiKey } = await t.workspace('pro');
    const port = await freePort();
    const scriptPath = join(workDir, 'walkthrough.sh');
    await writeFile(scriptPath, scriptOf(shBlocks(doc), 'docs/webhooks.md'));
    run = await runScript(
      scriptPath,
      workDir,
      {
        POLLKIT_BASE_URL: t.url,
        POLLKIT_API_KEY: apiKey,
        PORT: String(port),
        RECEIVER_URL: `http://127.0.0.1:${port}/pollkit`,
      },
      SCRIPT_TIMEOUT_MS,
    );
  }, SCRIPT_TIMEOUT_MS + 60_000);

  afterAll(async () => {
    await t?.close();
    if (workDir) await rm(workDir, { recursive: true, force: true });
  });

  describe('docs/webhooks.md', () => {
    it('runs its walkthrough from start to end, its own receiver verifying the deliveries', () => {
      const failure = `exit ${run.code} (${run.signal ?? 'no signal'})\n--- stdout\n${run.stdout}\n--- stderr\n${run.stderr}`;
      expect(run.code, failure).toBe(0);
      // receiver.log, printed by the walkthrough: the plain-Node receiver verified the test event.
      expect(run.stdout).toMatch(/^receiver ready$/m);
      expect(run.stdout).toMatch(/^webhook\.test evt_[0-9A-HJKMNP-TV-Z]{26}$/m);
    });

    it('prints what the guide says it prints', () => {
      const promised = [...doc.matchAll(/^# (\{.*\}|[a-z]+)$/gm)].map((match) => match[1] as string);
      expect(promised.length).toBeGreaterThanOrEqual(5);
      const printed = run.stdout.split('\n');
      for (const line of promised) expect(printed).toContain(line);
    });

    it('has an SDK receiver that takes real deliveries and refuses forged ones', async () => {
      const { apiKey } = await t.workspace('pro');
      const port = await freePort();
      const url = `http://127.0.0.1:${port}/pollkit`;
      const created = await api.request('POST /webhooks', {
        apiKey,
        body: { url, events: ['vote.created', 'poll.published'] },
      });
      expectStatus(created, 201);
      const receiver = startReceiver(workDir, { POLLKIT_WEBHOOK_SECRET: created.body.secret, PORT: String(port) });
      try {
        await receiver.waitFor(/^receiver ready$/m);
        const poll = await api.request('POST /polls', { apiKey, body: { title: 'Lunch', content: sampleContent() } });
        expectStatus(poll, 201);
        await api.request('PATCH /polls/{id}', { params: { id: poll.body.id }, apiKey, body: { publish: true } });
        const vote = await api.request('POST /polls/{id}/votes', {
          params: { id: poll.body.id },
          apiKey,
          body: { voterId: 'ada', slideId: 'lunch', optionIds: ['sushi'] },
        });
        expectStatus(vote, 201);
        await receiver.waitFor(/^published "Lunch"$/m);
        await receiver.waitFor(/^vote ada: sushi$/m);

        // Signed with another secret, or tampered with after signing: 400 with the reason, nothing printed.
        const payload = {
          id: 'evt_01JF3Z8Q6M4W9Y2K7T5R0B1C3D',
          type: 'poll.deleted',
          createdAt: new Date().toISOString(),
          data: { id: poll.body.id, deleted: true },
        };
        const forged = await signWebhook({ secret: `whsec_${Buffer.alloc(32, 7).toString('base64')}`, payload });
        const refused = await fetch(url, { method: 'POST', headers: forged.headers, body: forged.body });
        expect(refused.status).toBe(400);
        expect(await refused.text()).toBe('no_matching_signature');
        const genuine = await signWebhook({ secret: created.body.secret, payload });
        const tampered = await fetch(url, {
          method: 'POST',
          headers: genuine.headers,
          body: genuine.body.replace('poll.deleted', 'poll.closed'),
        });
        expect(tampered.status).toBe(400);
        const accepted = await fetch(url, { method: 'POST', headers: genuine.headers, body: genuine.body });
        expect(accepted.status).toBe(204);
        await receiver.waitFor(/^poll\.deleted evt_01JF3Z8Q6M4W9Y2K7T5R0B1C3D$/m);
        expect(receiver.output()).not.toMatch(/poll\.closed/);
      } finally {
        receiver.stop();
      }
    });
  });

  /** receiver-sdk.ts as its own program (tsx, resolving the SDK from the workspace's source). */
  function startReceiver(cwd: string, env: Record<string, string>) {
    const child: ChildProcess = spawn(TSX, ['--conditions=@pollkit/source', 'receiver-sdk.ts'], {
      cwd,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
      // A process group of its own: tsx runs the program in a child node process, which a kill of
      // tsx alone would leave running after the test (it did, one per run).
      detached: true,
    });
    let output = '';
    const listeners = new Set<() => void>();
    const onData = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      for (const listener of listeners) listener();
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    return {
      output: () => output,
      stop: () => {
        try {
          if (child.pid) process.kill(-child.pid, 'SIGKILL');
        } catch {
          // already gone
        }
      },
      waitFor(pattern: RegExp, timeoutMs = 30_000): Promise<void> {
        return new Promise((resolveWait, reject) => {
          const timer = setTimeout(() => {
            listeners.delete(check);
            reject(new Error(`the SDK receiver did not print ${pattern} within ${timeoutMs} ms:\n${output}`));
          }, timeoutMs);
          const check = () => {
            if (!pattern.test(output)) return;
            clearTimeout(timer);
            listeners.delete(check);
            resolveWait();
          };
          listeners.add(check);
          check();
        });
      },
    };
  }
});
