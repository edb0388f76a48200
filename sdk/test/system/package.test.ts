/**
 * The published packages as a user gets them: build `@pollkit/contracts` and `@pollkit/sdk` with
 * tsup, `pnpm pack` them with scripts/pack-packages.mjs (what `pnpm packages:pack` runs; `pnpm pack`
 * as `changeset publish` does, so `workspace:^` becomes a version range),
 * install the tarballs with npm into a scratch project outside the workspace, and call a real server
 * from plain `node` through both `import` (ESM) and `require` (CommonJS).
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installPackedSdk } from '../../../server/test/support/packed-sdk.js';
import { onceOnEmbeddedLeg, startTestServer, type TestServer } from '../../../server/test/support/server.js';
import { bundledModules, fromZod } from '../support/bundle.js';

const run = promisify(execFile);

// What each scratch program prints as its one JSON line.
interface ScratchReport {
  resolved: string;
  created: { id: string; title: string; status: string };
  fetched: { id: string; title: string; slideIds: string[] };
  missing: { isPollkitError: boolean; status: number; code: string };
  /** The first event of a live session's presenter stream: read through eventsource-parser. */
  streamed: { type: string; status: string };
  /** The same session through `@pollkit/sdk/live`: a presenter's deck and a participant's join. */
  live: {
    resolved: string;
    deck: { title: string; slideIds: string[] };
    joined: { resumed: boolean; name: string; status: string };
    /** Whether its error classes are the main entry's, so `instanceof` holds across the two. */
    sameErrors: boolean;
    /** Whether the live entry exports `verifyWebhook`: it must not, the events' schemas would bring zod. */
    hasVerifyWebhook: boolean;
  };
  /** A delivery signed with `signWebhook`, through `verifyWebhook`; the same body altered is refused. */
  webhook: { type: string; message: string; refused: string };
}

/**
 * Calls shared by the ESM and CJS programs; `createClient`, `PollkitError` and the webhook helpers come
 * from the package.
 */
const scratchBody = `
const client = createClient({ apiKey: process.env.POLLKIT_API_KEY, baseUrl: process.env.POLLKIT_BASE_URL });
const created = await client.polls.create({
  title: 'Packaged ' + process.env.SCRATCH_FORMAT,
  content: { questions: [{ id: 'lunch', kind: 'multiple_choice', text: 'Lunch?', options: [{ id: 'pizza', label: 'Pizza' }, { id: 'sushi', label: 'Sushi' }] }] },
});
const fetched = await client.polls.get({ id: created.id });
let missing;
try {
  await client.polls.get({ id: 'poll_00000000000000000000000000' });
} catch (error) {
  missing = { isPollkitError: error instanceof PollkitError, status: error.status, code: error.code };
}
await client.polls.update({ id: created.id, publish: true });
const session = await client.sessions.create({ pollId: created.id });
const events = client.sessions.events({ id: session.id });
let streamed;
for await (const event of events) {
  streamed = { type: event.type, status: event.data.status };
  break;
}
const baseUrl = process.env.POLLKIT_BASE_URL;
const presenter = live.presenterSession({ baseUrl, sessionId: session.id, hostToken: session.hostToken });
const deck = await presenter.deck();
const me = await live.joinSession({ baseUrl, pin: session.pin, name: 'Packaged' });
const webhookSecret = 'whsec_' + btoa('0123456789abcdef0123456789abcdef');
const signed = await signWebhook({
  secret: webhookSecret,
  payload: {
    id: 'evt_01JF3Z8Q6M4W9Y2K7T5R0B1C3D',
    type: 'webhook.test',
    createdAt: new Date().toISOString(),
    data: { endpointId: 'whk_01JF3Z8Q6M4W9Y2K7T5R0B1C3D', message: 'Packaged ' + process.env.SCRATCH_FORMAT },
  },
});
const verified = await verifyWebhook(signed.body, signed.headers, webhookSecret);
const refused = await verifyWebhook(signed.body.replace('Packaged', 'Altered'), signed.headers, webhookSecret).then(
  () => 'accepted',
  (error) => (error instanceof WebhookVerificationError ? error.reason : String(error)),
);
console.log(JSON.stringify({
  resolved,
  created: { id: created.id, title: created.title, status: created.status },
  fetched: { id: fetched.id, title: fetched.title, slideIds: fetched.content.questions.map((q) => q.id) },
  missing,
  streamed,
  live: {
    resolved: liveResolved,
    deck: { title: deck.title, slideIds: deck.slides.map((slide) => slide.id) },
    joined: { resumed: me.resumed, name: me.participant.name, status: me.state.status },
    sameErrors: live.PollkitError === PollkitError,
    hasVerifyWebhook: 'verifyWebhook' in live,
  },
  webhook: { type: verified.type, message: verified.data.message, refused },
}));
`;

const esmProgram = `import { createClient, PollkitError, signWebhook, verifyWebhook, WebhookVerificationError } from '@pollkit/sdk';
import * as live from '@pollkit/sdk/live';
const resolved = import.meta.resolve('@pollkit/sdk');
const liveResolved = import.meta.resolve('@pollkit/sdk/live');
${scratchBody}`;

// CommonJS has no top-level await: the shared body runs inside an async function.
const cjsProgram = `const { createClient, PollkitError, signWebhook, verifyWebhook, WebhookVerificationError } = require('@pollkit/sdk');
const live = require('@pollkit/sdk/live');
const resolved = require.resolve('@pollkit/sdk');
const liveResolved = require.resolve('@pollkit/sdk/live');
(async () => {
${scratchBody}
})().catch((error) => { console.error(error); process.exit(1); });`;

let server: TestServer;
let apiKey: string;
let scratchDir: string;

beforeAll(async () => {
  if (onceOnEmbeddedLeg) return;
  // The scripts join a session from 127.0.0.1; with a shared Redis (TEST_REDIS_URL) that address's
  // counters also hold every other test file's requests, the PIN-miss tests' unknown PINs among them.
  server = await startTestServer({
    LIVE_RATE_LIMIT_PER_IP_PER_MINUTE: '1000000',
    LIVE_PIN_MISSES_PER_IP_PER_MINUTE: '1000000',
    LIVE_JOINS_PER_IP_PER_MINUTE: '1000000',
  });
  ({ apiKey } = await server.workspace('pro'));

  const workDir = await mkdtemp(join(tmpdir(), 'pollkit-package-'));
  scratchDir = join(workDir, 'scratch');
  // What `pnpm packages:pack` runs (the README's way to get the SDK), then `npm install` of both tarballs.
  await installPackedSdk(scratchDir, join(workDir, 'tarballs'));
  await writeFile(join(scratchDir, 'esm.mjs'), esmProgram);
  await writeFile(join(scratchDir, 'cjs.cjs'), cjsProgram);
  return async () => {
    await rm(workDir, { recursive: true, force: true });
  };
  // Packing the SDK (a build) and installing it ran past 240 s on the busy 2-core machine.
}, 900_000);
afterAll(() => server?.close());

async function runScratch(file: string, format: string): Promise<ScratchReport> {
  const { stdout } = await run(process.execPath, [file], {
    cwd: scratchDir,
    env: { PATH: process.env.PATH, POLLKIT_BASE_URL: server.url, POLLKIT_API_KEY: apiKey, SCRATCH_FORMAT: format },
  });
  return JSON.parse(stdout.trim()) as ScratchReport;
}

// The same bytes on both legs: packed and checked once per CI run, on the embedded leg (support/server.ts).
describe.skipIf(onceOnEmbeddedLeg)('the packed @pollkit/sdk in a scratch npm project', () => {
  it.each([
    { format: 'ESM', file: 'esm.mjs', entry: /\/node_modules\/@pollkit\/sdk\/dist\/index\.js$/, extension: 'js' },
    { format: 'CJS', file: 'cjs.cjs', entry: /\/node_modules\/@pollkit\/sdk\/dist\/index\.cjs$/, extension: 'cjs' },
  ])(
    '$format: loads the built entries under plain node and calls the server',
    async ({ format, file, entry, extension }) => {
      const report = await runScratch(file, format);
      expect(report.resolved).toMatch(entry);
      expect(report.created).toEqual({
        id: expect.stringMatching(/^poll_/),
        title: `Packaged ${format}`,
        status: 'draft',
      });
      expect(report.fetched).toEqual({ id: report.created.id, title: `Packaged ${format}`, slideIds: ['lunch'] });
      expect(report.missing).toEqual({ isPollkitError: true, status: 404, code: 'not_found' });
      expect(report.streamed).toEqual({ type: 'session', status: 'pending' });
      expect(report.live).toEqual({
        resolved: expect.stringMatching(new RegExp(`/node_modules/@pollkit/sdk/dist/live-entry\\.${extension}$`)),
        deck: { title: `Packaged ${format}`, slideIds: ['lunch'] },
        joined: { resumed: false, name: 'Packaged', status: 'pending' },
        sameErrors: true,
        hasVerifyWebhook: false,
      });
      expect(report.webhook).toEqual({
        type: 'webhook.test',
        message: `Packaged ${format}`,
        refused: 'no_matching_signature',
      });
    },
  );

  it('bundles @pollkit/sdk/live for a browser without zod or the contract’s schemas', async () => {
    const live = await bundledModules("export { joinSession, presenterSession } from '@pollkit/sdk/live';", scratchDir);
    expect(live).toContain('node_modules/@pollkit/sdk/dist/live-entry.js');
    expect(live).toContain('node_modules/@pollkit/contracts/dist/route-table.js');
    expect(live.filter(fromZod)).toEqual([]);
    expect(live.filter((path) => /@pollkit\/contracts\/dist\/(schemas|routes)\//.test(path))).toEqual([]);
    // The same helpers from the main entry carry zod: what the live entry spares a page.
    const main = await bundledModules("export { joinSession, presenterSession } from '@pollkit/sdk';", scratchDir);
    expect(main.filter(fromZod).length).toBeGreaterThan(0);
  });
});
