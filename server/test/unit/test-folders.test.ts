import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The unit and api projects share their worker's modules between files (vitest.config.ts,
 * SHARED_MODULES): a module one file mocks would be the mock in every file after it on that worker.
 * So a file that mocks a module belongs in a `system` folder, which keeps each file apart; and no
 * helper in a `support/` folder mocks one either, since shared files import them.
 */
const root = join(import.meta.dirname, '..', '..', '..');
const SHARED_FOLDERS = ['server/test/unit', 'server/test/api', 'sdk/test/api', 'web/test'];
const SUPPORT_FOLDERS = ['server/test/support', 'sdk/test/support', 'web/test/support'];
const MOCKS_A_MODULE = /\bvi\s*\.\s*(?:mock|doMock|unmock|doUnmock|resetModules)\s*\(/;

const mocksAModule = (file: string): boolean => MOCKS_A_MODULE.test(readFileSync(join(root, file), 'utf8'));

function filesUnder(folder: string, suffix: string): string[] {
  return readdirSync(join(root, folder), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith(suffix))
    .map((entry) => relative(root, join(entry.parentPath, entry.name)));
}

describe('test files whose modules are shared', () => {
  const files = SHARED_FOLDERS.flatMap((folder) => filesUnder(folder, '.test.ts'));
  const helpers = SUPPORT_FOLDERS.flatMap((folder) => filesUnder(folder, '.ts'));

  it('are found in every shared folder', () => {
    for (const folder of SHARED_FOLDERS)
      expect(
        files.some((file) => file.startsWith(`${folder}/`)),
        folder,
      ).toBe(true);
  });

  it('mock no module: a file that must, moves to a system folder', () => {
    const mocking = files.filter(mocksAModule);
    expect(mocking).toEqual([]);
  });

  it('import no helper that mocks a module', () => {
    expect(helpers.length).toBeGreaterThan(20);
    const mocking = helpers.filter(mocksAModule);
    expect(mocking).toEqual([]);
  });
});
