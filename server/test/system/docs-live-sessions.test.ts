import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Run, runScript, scriptOf, shBlocks, which } from '../support/doc-walkthrough.js';
import { UNLIMITED_PER_ADDRESS } from '../support/limits.js';
import { onceOnEmbeddedLeg, startTestServer, type TestServer } from '../support/server.js';

/**
 * docs/live-sessions.md is a walkthrough whose ```sh runnable blocks run in order in one shell. This test runs
 * them, as written, against a real server: a sample that stops working fails CI.
 */

const DOC_PATH = resolve(fileURLToPath(import.meta.url), '../../../../docs/live-sessions.md');
/**
 * Generous: the walkthrough takes about ten seconds on a quiet machine, several times that on a busy
 * one. Its background streams give up after 120 s (`--max-time`) if they never close.
 */
const SCRIPT_TIMEOUT_MS = 150_000;

let t: TestServer;
let workDir: string;
let run: Run;

// Once per CI run, on the embedded leg (support/server.ts, onceOnEmbeddedLeg).
describe.skipIf(onceOnEmbeddedLeg)('server/test/system/docs-live-sessions', () => {
  beforeAll(async () => {
    for (const tool of ['bash', 'curl', 'jq']) {
      if (!(await which(tool))) throw new Error(`docs/live-sessions.md's samples need \`${tool}\` on the PATH`);
    }
    // Per-address limits count every test file's requests from 127.0.0.1 when Redis is shared:
    // they are tested on their own addresses in server/test/api/live-sessions.participants.test.ts.
    t = await startTestServer(UNLIMITED_PER_ADDRESS);
    const { apiKey } = await t.workspace('pro');
    workDir = await mkdtemp(join(tmpdir(), 'pollkit-docs-live-'));
    const blocks = shBlocks(await readFile(DOC_PATH, 'utf8'));
    const scriptPath = join(workDir, 'walkthrough.sh');
    await writeFile(scriptPath, scriptOf(blocks, 'docs/live-sessions.md'));
    run = await runScript(scriptPath, workDir, { POLLKIT_BASE_URL: t.url, POLLKIT_API_KEY: apiKey }, SCRIPT_TIMEOUT_MS);
  }, SCRIPT_TIMEOUT_MS + 60_000);

  afterAll(async () => {
    await t?.close();
    if (workDir) await rm(workDir, { recursive: true, force: true });
  });

  describe('docs/live-sessions.md', () => {
    it('has a walkthrough of ```sh runnable blocks that reach the server only through $BASE', async () => {
      const blocks = shBlocks(await readFile(DOC_PATH, 'utf8'));
      expect(blocks.length).toBeGreaterThan(10);
      const code = blocks.map((block) => block.code).join('\n');
      // Every sample goes through $BASE: none names a host of its own.
      expect(code).not.toMatch(/curl[^\n]*https?:\/\//);
      expect(code).not.toContain('localhost');
    });

    it('runs from start to end', () => {
      const failure = `exit ${run.code} (${run.signal ?? 'no signal'})\n--- stdout\n${run.stdout}\n--- stderr\n${run.stderr}`;
      expect(run.code, failure).toBe(0);
    });

    it('prints what the guide says it prints', () => {
      const out = run.stdout;
      expect(out).toContain('published');
      expect(out).toMatch(/"hostToken": "pht_/);
      expect(out).toMatch(/"participantToken": "ptk_/);
      expect(out).toContain('<svg');
      // The deck, quiz answer included, read with the host token alone.
      expect(out).toContain('{"title":"All hands","slides":["lunch","capital","ask"],"answer":["canberra"]}');
      expect(out).toContain('{"resumed":true,"name":"Ada"}');
      expect(out).toContain('{"status":"active","currentSlideIndex":0}');
      // The reconnect with Last-Event-ID: 2 replays event 3 (the unlock).
      expect(out).toMatch(/event:unlocked\nid:3\n/);
      expect(out).toMatch(/"id":"vote_[0-9A-Z]{26}"/);
      for (const code of ['invalid_session_state', 'already_responded', 'slide_locked', 'not_found']) {
        expect(out).toContain(code);
      }
      expect(out).toContain('{"currentSlideId":"lunch"}');
      expect(out).toMatch(/HTTP\/1\.1 201 Created\r?\nHTTP\/1\.1 201 Created\r?\nidempotent-replayed: true/i);
      // The moderation queue and the approval, with the host token alone.
      expect(out).toContain('[{"text":"Will there be cake?","status":"pending"}]');
      expect(out).toContain('{"text":"Will there be cake?","upvotes":1}');
      expect(out).toContain('{"status":"ended"}');
      expect(out).toContain('{"rank":1,"name":"Ada"}');
      expect(out).toContain('{"status":"ended","participantCount":2}');
      // The outcome, after the end, with the API key.
      expect(out).toContain('{"participantCount":2,"leaderboard":[{"rank":1,"name":"Ada"},{"rank":2,"name":"Grace"}]}');
      expect(out).toContain('{"rank":1,"name":"Ada","answerCount":3,"removedAt":null}');
      expect(out).toContain('{"rank":2,"name":"Grace","answerCount":2,"removedAt":null}');
    });

    it('prints what its self-paced section says it prints', () => {
      const out = run.stdout;
      expect(out).toContain('{"status":"published","rules":["tea-skips-beans"]}');
      // No PIN: the link id in the join URL is the only way in.
      expect(out).toMatch(/"pin": null,\n\s*"joinUrl": "http:\/\/[^"]+\/join\/lnk_[A-Za-z0-9_-]{43}"/);
      expect(out).toContain('{"closesAt":null}');
      expect(out).toContain('{"status":"active","pace":"audience"}');
      expect(out).toContain('{"code":"invalid_session_state","pace":"audience"}');
      expect(out).toContain('{"pace":"audience","slide":"welcome","progress":{"step":1,"of":5},"completed":false}');
      expect(out).toContain('{"slide":"drink","progress":{"step":2,"of":5}}');
      // Tea skips the beans question: the walk is a slide shorter.
      expect(out).toMatch(/\{"id":"vote_[0-9A-Z]{26}","next":"capital","progress":\{"step":3,"of":4\}\}/);
      expect(out).toContain('{"currentSlideId":"welcome"}');
      expect(out).toContain('{"next":"beans","progress":{"step":3,"of":5}}');
      expect(out).toContain('{"next":"capital","progress":{"step":4,"of":5}}');
      expect(out).toContain('{"step":4,"of":4}');
      expect(out).toContain(
        '{"completed":true,"completion":{"answerCount":2,"skippedCount":1,"score":null,"rank":null,"quiz":null}}',
      );
      expect(out).toContain('{"participantCount":2,"completedCount":1}');
      expect(out).toContain('{"resumed":true,"slide":"capital","progress":{"step":4,"of":5}}');
      expect(out).toMatch(/^event:completed$/m);
      expect(out).toContain('{"status":"ended","participantCount":2,"completedCount":1}');
      expect(out).toContain('event:slide event:completed event:ended');
      expect(out).toContain('{"rank":1,"name":"Tess","score":1000}');
      expect(out).toContain('event:ended event:progress event:session');
      expect(out).toContain(
        '[{"slideId":"drink","totalAnswers":2},{"slideId":"beans","totalAnswers":0},{"slideId":"capital","totalAnswers":1},{"slideId":"ideas","totalAnswers":0}]',
      );
    });

    it("leaves the participant's and the presenter's streams as the guide describes them", async () => {
      const ada = await readFile(join(workDir, 'ada.sse'), 'utf8');
      const types = [...ada.matchAll(/^event:(\w+)$/gm)].map((match) => match[1]);
      for (const type of ['slide', 'locked', 'unlocked', 'results', 'questions', 'ended'])
        expect(types).toContain(type);
      // The stream closed after `ended`: nothing follows it.
      expect(types.at(-1)).toBe('ended');
      expect(ada).toMatch(/^retry:2000$/m);
      expect(ada).toContain('"Will there be cake?"');
      // Participants never see a quiz's answer before the results.
      const slides = [...ada.matchAll(/^event:slide\nid:\d+\ndata:(.*)$/gm)].map((match) => JSON.parse(match[1] ?? ''));
      const quiz = slides.find((state) => state.slide?.kind === 'quiz');
      expect(quiz?.slide).toBeDefined();
      expect(quiz.slide).not.toHaveProperty('correctOptionIds');

      const presenter = await readFile(join(workDir, 'presenter.sse'), 'utf8');
      const presenterTypes = [...presenter.matchAll(/^event:(\w+)$/gm)].map((match) => match[1]);
      for (const type of ['session', 'counts', 'results', 'ended']) expect(presenterTypes).toContain(type);
      expect(presenterTypes.at(-1)).toBe('ended');
    });

    it("leaves the self-paced streams as the guide describes them: the participant's own walk, the presenter's progress", async () => {
      const tess = await readFile(join(workDir, 'tess.sse'), 'utf8');
      const types = [...tess.matchAll(/^event:(\w+)$/gm)].map((match) => match[1]);
      expect(types).not.toContain('results');
      expect(types.at(-1)).toBe('ended');
      const slides = [...tess.matchAll(/^event:slide\nid:\d+\ndata:(.*)$/gm)].map((match) =>
        JSON.parse(match[1] ?? ''),
      );
      // Her own path: the rule took her past the beans question.
      const path = slides.map((state) => state.slide?.id).filter((id, index, ids) => id !== ids[index - 1]);
      expect(path).toEqual(['welcome', 'drink', 'capital', 'ideas']);
      const quiz = slides.find((state) => state.slide?.kind === 'quiz');
      expect(quiz.slide).not.toHaveProperty('correctOptionIds');

      const presenter = await readFile(join(workDir, 'self-presenter.sse'), 'utf8');
      const presenterTypes = [...presenter.matchAll(/^event:(\w+)$/gm)].map((match) => match[1]);
      expect(presenterTypes).toContain('progress');
      expect(presenterTypes).not.toContain('counts');
      expect(presenterTypes.at(-1)).toBe('ended');
    });
  });

  describe('the TypeScript walkthrough of docs/live-sessions.md', () => {
    it('is examples/live-session/index.ts, word for word (CI runs the example)', async () => {
      const doc = await readFile(DOC_PATH, 'utf8');
      const example = await readFile(new URL('../../../examples/live-session/index.ts', import.meta.url), 'utf8');
      const section = doc.slice(doc.indexOf('## From TypeScript'));
      const block = /```ts\n([\s\S]*?)```/.exec(section)?.[1];
      expect(block).toBe(example);
    });

    it('of self-paced sessions is examples/self-paced/index.ts, word for word (CI runs the example)', async () => {
      const doc = await readFile(DOC_PATH, 'utf8');
      const example = await readFile(new URL('../../../examples/self-paced/index.ts', import.meta.url), 'utf8');
      const section = doc.slice(doc.indexOf('### From TypeScript, self-paced'));
      const block = /```ts\n([\s\S]*?)```/.exec(section)?.[1];
      expect(block).toBe(example);
    });
  });
});
