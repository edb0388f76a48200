import { describe, expect, it } from 'vitest';
import { GENERATE_COMMAND, staleFiles, staleMessage } from '../../../docs/scripts/stale-files.js';

/**
 * What `generated:check` (docs/scripts/generate.ts --check, part of `pnpm check`) reports, on files
 * held in memory: each stale file by name, and the one command that rewrites them all.
 */

const generated = {
  files: new Map([
    ['docs/openapi.json', '{ "openapi": "3.1.0" }\n'],
    ['contracts/src/route-table.ts', 'export const routeTable = {};\n'],
    ['docs/sdk/reference/index.md', '# SDK\n'],
  ]),
  folders: ['docs/sdk/reference'],
};

describe('the check of generated files', () => {
  it('finds nothing stale when every committed file is what the generator makes', () => {
    expect(staleFiles(generated, new Map(generated.files))).toEqual([]);
  });

  it('names each file that differs, is missing, or is left in a generated folder', () => {
    const committed = new Map(generated.files);
    committed.set('docs/openapi.json', '{ "openapi": "3.1.0", "paths": {} }\n');
    committed.delete('contracts/src/route-table.ts');
    committed.set('docs/sdk/reference/functions/gone.md', '# gone\n');
    // A hand-written file outside the generated folders is none of the check's business.
    committed.set('docs/guide.md', '# Guide\n');
    expect(staleFiles(generated, committed)).toEqual([
      'docs/openapi.json',
      'contracts/src/route-table.ts (missing)',
      'docs/sdk/reference/functions/gone.md (no longer generated)',
    ]);
  });

  it('fails with a message naming every stale file and the command that fixes them', () => {
    const message = staleMessage(['docs/openapi.json', 'contracts/src/route-table.ts (missing)']);
    expect(message).toBe(
      [
        '2 generated files are stale:',
        '  docs/openapi.json',
        '  contracts/src/route-table.ts (missing)',
        'Run `npx -y pnpm@10 generate` and commit the result.',
      ].join('\n'),
    );
    expect(GENERATE_COMMAND).toBe('npx -y pnpm@10 generate');
  });
});
