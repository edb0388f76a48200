import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  fencedBlocks,
  printedLine,
  promisedLines,
  type Run,
  runnableBlocks,
  runScript,
  scriptOf,
  which,
} from '../support/doc-walkthrough.js';
import { UNLIMITED_PER_ADDRESS } from '../support/limits.js';
import { oauthClient } from '../support/oauth.js';
import { installPackedSdk, REPO_ROOT } from '../support/packed-sdk.js';
import { onceOnEmbeddedLeg, startTestServer, type TestServer } from '../support/server.js';

/**
 * Every runnable sample of the guides, run as written: a page's ```` ```sh runnable ```` blocks in
 * order as one bash script, each ```` ```ts runnable ```` block as a program of its own against the
 * *packed* SDK (built, packed and `npm install`ed into a scratch project, as the README says to get
 * it). Each page gets a fresh Enterprise workspace and API key on one shared server, as
 * `POLLKIT_BASE_URL` and `POLLKIT_API_KEY`. A sample that stops working fails CI.
 */

const DOCS_DIR = join(REPO_ROOT, 'docs');
const TSX = join(REPO_ROOT, 'node_modules/.bin/tsx');
const TSC = join(REPO_ROOT, 'node_modules/.bin/tsc');
const SCRIPT_TIMEOUT_MS = 90_000;
const PROGRAM_TIMEOUT_MS = 60_000;
const run = promisify(execFile);
const MCP_SDK_VERSION: string = JSON.parse(readFileSync(join(REPO_ROOT, 'server/package.json'), 'utf8')).dependencies[
  '@modelcontextprotocol/sdk'
];

/** Pages whose runnable blocks a test of their own runs, with what they need (a receiver, a deck…). */
const DEDICATED: Record<string, string> = {
  'live-sessions.md': 'server/test/system/docs-live-sessions.test.ts',
  'branching.md': 'server/test/system/docs-branching.test.ts',
  'webhooks.md': 'server/test/system/docs-webhooks.test.ts',
};

/** Generated pages (the API and SDK references, the changelog): never edited by hand, nothing to run. */
const GENERATED = [/^reference\//, /^sdk\/reference\//, /^changelog\.md$/];

/** What a page's samples need besides the server and a key, made for it by the test. */
const PAGE_ENV: Record<string, (t: TestServer) => Promise<Record<string, string>>> = {
  // The OAuth samples: an operator enabled OAuth and created a client with the CLI beforehand.
  'authentication.md': async (t) => {
    const client = await oauthClient(t, 'polls:read polls:write responses:read');
    return { POLLKIT_API_KEY: client.apiKey, CLIENT_ID: client.clientId, CLIENT_SECRET: client.clientSecret };
  },
};

/** Every Markdown page under docs/ (relative paths), but for dependencies and the site's own folder. */
function markdownPages(dir = DOCS_DIR, prefix = ''): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .sort((a, b) => a.name.localeCompare(b.name))
    .flatMap((entry) => {
      if (entry.name === 'node_modules' || entry.name.startsWith('.')) return [];
      const path = `${prefix}${entry.name}`;
      if (entry.isDirectory()) return markdownPages(join(dir, entry.name), `${path}/`);
      return entry.name.endsWith('.md') ? [path] : [];
    });
}

const pages = markdownPages()
  .filter((page) => !GENERATED.some((pattern) => pattern.test(page)))
  .map((page) => {
    const markdown = readFileSync(join(DOCS_DIR, page), 'utf8');
    return { page, markdown, sh: runnableBlocks(markdown, 'sh'), ts: runnableBlocks(markdown, 'ts') };
  });
const withSamples = pages.filter((page) => page.sh.length + page.ts.length > 0);
const samplePages = withSamples.filter((page) => !(page.page in DEDICATED));

let t: TestServer;
let workDir: string;
/** The scratch npm project with the packed SDK installed, where the TypeScript samples run. */
let projectDir: string;

// Once per CI run, on the embedded leg (support/server.ts, onceOnEmbeddedLeg).
describe.skipIf(onceOnEmbeddedLeg)('server/test/system/docs-samples', () => {
  beforeAll(async () => {
    for (const tool of ['bash', 'curl', 'jq', 'npm']) {
      if (!(await which(tool))) throw new Error(`the docs' samples need \`${tool}\` on the PATH`);
    }
    // Per-address limits would count every test file's requests from 127.0.0.1 when Redis is shared.
    t = await startTestServer(UNLIMITED_PER_ADDRESS);
    workDir = await mkdtemp(join(tmpdir(), 'pollkit-docs-samples-'));
    projectDir = join(workDir, 'project');
    if (samplePages.some((page) => page.ts.length > 0)) {
      // docs/mcp.md's sample uses the official MCP client, at the version the server is built on.
      await installPackedSdk(projectDir, join(workDir, 'tarballs'), { '@modelcontextprotocol/sdk': MCP_SDK_VERSION });
    }
    // Packing the SDK (a build) and installing it ran past 240 s on the busy 2-core machine.
  }, 900_000);

  afterAll(async () => {
    await t?.close();
    if (workDir) await rm(workDir, { recursive: true, force: true });
  });

  describe('the runnable samples of docs/', () => {
    it('are run by exactly one test per page: a dedicated one, or this one', () => {
      expect(samplePages.map((page) => page.page)).toContain('getting-started.md');
      for (const page of withSamples) {
        const runners = [page.page in DEDICATED, samplePages.includes(page)].filter(Boolean);
        expect(runners, page.page).toHaveLength(1);
      }
      for (const [page, test] of Object.entries(DEDICATED)) {
        // The dedicated test exists, reads this page, and the page still has the blocks it runs.
        expect(existsSync(join(REPO_ROOT, test)), test).toBe(true);
        expect(readFileSync(join(REPO_ROOT, test), 'utf8'), test).toContain(`docs/${page}`);
        expect(withSamples.map((entry) => entry.page)).toContain(page);
      }
    });

    it('are all sh or ts: no other language has a runner', () => {
      const others = pages.flatMap(({ page, markdown }) =>
        fencedBlocks(markdown)
          .filter((block) => block.info.includes('runnable') && !['sh', 'ts'].includes(block.info[0] ?? ''))
          .map((block) => `${page}:${block.line} (${block.info.join(' ')})`),
      );
      expect(others).toEqual([]);
    });

    it('type-check against the packed SDK', async () => {
      const programs = samplePages.flatMap(({ page, ts }) => ts.map((block) => ({ page, block })));
      if (programs.length === 0) return;
      const checkDir = join(projectDir, 'typecheck');
      await mkdir(checkDir, { recursive: true });
      const files: string[] = [];
      for (const { page, block } of programs) {
        const file = `${page.replace(/[/.]/g, '-')}-${block.line}.ts`;
        // Each block is a module of its own, so two samples may declare the same names.
        await writeFile(join(checkDir, file), `${block.code}\nexport {};\n`);
        files.push(join(checkDir, file));
      }
      const options = ['--noEmit', '--strict', '--skipLibCheck', '--target', 'es2022'];
      const module = ['--module', 'nodenext', '--moduleResolution', 'nodenext'];
      const types = ['--types', 'node', '--typeRoots', join(REPO_ROOT, 'node_modules/@types')];
      const checked = await run(TSC, [...options, ...module, ...types, ...files], { cwd: projectDir }).then(
        () => '',
        (error: { stdout?: string }) => error.stdout ?? String(error),
      );
      expect(checked).toBe('');
    });
  });

  describe.each(samplePages.map((entry) => [`docs/${entry.page}`, entry] as const))('%s', (_name, { page, sh, ts }) => {
    let env: Record<string, string>;

    beforeAll(async () => {
      const { apiKey } = await t.workspace('enterprise');
      env = { POLLKIT_BASE_URL: t.url, POLLKIT_API_KEY: apiKey, ...(await PAGE_ENV[page]?.(t)) };
    });

    // Only the kinds of samples the page has: no skipped placeholders for the others.
    if (sh.length > 0) {
      it(
        'runs its sh samples in order, printing what the page says they print',
        async () => {
          const pageDir = await mkdtemp(join(workDir, 'sh-'));
          const scriptPath = join(pageDir, 'samples.sh');
          await writeFile(scriptPath, scriptOf(sh, `docs/${page}`));
          const result: Run = await runScript(scriptPath, pageDir, env, SCRIPT_TIMEOUT_MS);
          const failure = `exit ${result.code} (${result.signal ?? 'no signal'})\n--- stdout\n${result.stdout}\n--- stderr\n${result.stderr}`;
          expect(result.code, failure).toBe(0);
          for (const promised of sh.flatMap((block) => promisedLines(block.code, '#'))) {
            expect(printedLine(result.stdout, promised), `${promised}\n--- stdout\n${result.stdout}`).toBe(true);
          }
        },
        SCRIPT_TIMEOUT_MS + 10_000,
      );
    }

    if (ts.length > 0) {
      it.each(ts)(
        'runs its ts sample at line $line against the packed SDK',
        async (block) => {
          const file = join(projectDir, `${page.replace(/[/.]/g, '-')}-${block.line}.ts`);
          await writeFile(file, block.code);
          const result = await run(TSX, [file], {
            cwd: projectDir,
            env: { PATH: process.env.PATH, ...env },
            timeout: PROGRAM_TIMEOUT_MS,
          }).then(
            ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
            (error: { code?: number; stdout?: string; stderr?: string }) => ({
              code: error.code ?? 1,
              stdout: error.stdout ?? '',
              stderr: error.stderr ?? String(error),
            }),
          );
          expect(result.code, `--- stdout\n${result.stdout}\n--- stderr\n${result.stderr}`).toBe(0);
          for (const promised of promisedLines(block.code, '//')) {
            expect(printedLine(result.stdout, promised), `${promised}\n--- stdout\n${result.stdout}`).toBe(true);
          }
        },
        PROGRAM_TIMEOUT_MS + 10_000,
      );
    }
  });
});
