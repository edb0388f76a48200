import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BRANCHING_DOC_PATH, withBranchingTables } from '../../../docs/scripts/branching-table.js';
import { type Run, runScript, scriptOf, shBlocks, which } from '../support/doc-walkthrough.js';
import { onceOnEmbeddedLeg, startTestServer, type TestServer } from '../support/server.js';

/**
 * docs/branching.md: its ```sh runnable blocks run in order, as written, against a real server (no provider
 * configured, so the rules draft), and its generated tables match what the parser reads now.
 */

const DOC_PATH = resolve(fileURLToPath(import.meta.url), '../../../../docs/branching.md');
const SCRIPT_TIMEOUT_MS = 60_000;

let t: TestServer;
let workDir: string;
let run: Run;

// Once per CI run, on the embedded leg (support/server.ts, onceOnEmbeddedLeg).
describe.skipIf(onceOnEmbeddedLeg)('server/test/system/docs-branching', () => {
  beforeAll(async () => {
    for (const tool of ['bash', 'curl', 'jq']) {
      if (!(await which(tool))) throw new Error(`docs/branching.md's samples need \`${tool}\` on the PATH`);
    }
    t = await startTestServer();
    const { apiKey } = await t.workspace('pro');
    workDir = await mkdtemp(join(tmpdir(), 'pollkit-docs-branching-'));
    const scriptPath = join(workDir, 'walkthrough.sh');
    await writeFile(scriptPath, scriptOf(shBlocks(await readFile(DOC_PATH, 'utf8')), 'docs/branching.md'));
    run = await runScript(scriptPath, workDir, { POLLKIT_BASE_URL: t.url, POLLKIT_API_KEY: apiKey }, SCRIPT_TIMEOUT_MS);
  }, SCRIPT_TIMEOUT_MS + 60_000);

  afterAll(async () => {
    await t?.close();
    if (workDir) await rm(workDir, { recursive: true, force: true });
  });

  describe('docs/branching.md', () => {
    it('runs from start to end', () => {
      const failure = `exit ${run.code} (${run.signal ?? 'no signal'})\n--- stdout\n${run.stdout}\n--- stderr\n${run.stderr}`;
      expect(run.code, failure).toBe(0);
    });

    it('prints what the guide says it prints', async () => {
      const doc = await readFile(DOC_PATH, 'utf8');
      // Every `# …` line under a sample that is a whole output line (not the elided message) appears as printed.
      const promised = [...doc.matchAll(/^# (\{.*\}|".*")$/gm)].map((match) => match[1] as string);
      expect(promised.length).toBeGreaterThan(6);
      const printed = run.stdout.split('\n');
      for (const line of promised) expect(printed).toContain(line);
      expect(run.stdout).toContain('Could not understand "purple, skip to Q4": expected a condition');
    });

    it('shows the instruction tables the parser reads today', async () => {
      const doc = await readFile(BRANCHING_DOC_PATH, 'utf8');
      expect(withBranchingTables(doc)).toBe(doc);
    });
  });
});
