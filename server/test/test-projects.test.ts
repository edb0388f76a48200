import { readdir, stat } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { TEST_FOLDERS, TEST_PROJECTS } from '../../vitest.projects.js';
import { SLOW_FILES } from '../../vitest.sequencer.js';

/**
 * Every test file runs in exactly one vitest project (vitest.projects.ts): a file in no list would
 * never run, a file in two would run twice. Reads the folders only; starts nothing.
 */

const ROOT = resolve(fileURLToPath(import.meta.url), '../../..');

async function testFilesUnder(folder: string): Promise<string[]> {
  const entries = await readdir(join(ROOT, folder), { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile() && entry.name.endsWith('.test.ts'))
    .map((entry) => relative(ROOT, join(entry.parentPath, entry.name)).split('\\').join('/'));
}

describe('test projects', () => {
  it('hold every test file exactly once, and no file that does not exist', async () => {
    const onDisk = (await Promise.all(TEST_FOLDERS.map(testFilesUnder))).flat().sort();
    const projectsOf = new Map<string, string[]>();
    for (const [project, files] of Object.entries(TEST_PROJECTS)) {
      for (const file of files) projectsOf.set(file, [...(projectsOf.get(file) ?? []), project]);
    }
    const inNoProject = onDisk.filter((file) => !projectsOf.has(file));
    const inSeveral = [...projectsOf].filter(([, projects]) => projects.length > 1).map(([file]) => file);
    const missing = [...projectsOf.keys()].filter((file) => !onDisk.includes(file));
    expect({ inNoProject, inSeveral, missing }).toEqual({ inNoProject: [], inSeveral: [], missing: [] });
    expect(onDisk.length).toBeGreaterThan(0);
  });

  it('put first only files that exist (vitest.sequencer.ts)', async () => {
    const onDisk = (await Promise.all(TEST_FOLDERS.map(testFilesUnder))).flat();
    expect(SLOW_FILES.filter((file) => !onDisk.includes(file))).toEqual([]);
  });

  it('search only folders that exist', async () => {
    for (const folder of TEST_FOLDERS) expect((await stat(join(ROOT, folder))).isDirectory(), folder).toBe(true);
  });
});
