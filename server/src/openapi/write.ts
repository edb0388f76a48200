/**
 * Writes what is generated from the contracts (`pnpm openapi:generate`): docs/openapi.json, the
 * error table in docs/errors.md, the scope table in docs/authentication.md and the schema-free route
 * table contracts/src/route-table.ts. With `--check` it
 * fails when a committed file differs from what the contracts generate (`pnpm check`, so CI).
 */
import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { AUTHENTICATION_DOC_PATH, withScopeTable } from '../modules/oauth/scope-table.js';
import { BRANCHING_DOC_PATH, withBranchingTables } from './branching-table.js';
import { openApiJson } from './document.js';
import { ERRORS_DOC_PATH, withErrorTable } from './error-table.js';
import { ROUTE_TABLE_PATH, routeTableSource } from './route-table.js';

export const OPENAPI_JSON_PATH = fileURLToPath(new URL('../../../docs/openapi.json', import.meta.url));
export const STALE_MESSAGE = 'docs/openapi.json is stale: run `npx -y pnpm@10 openapi:generate` and commit the result.';

/** Each generated file: where it is, and its content made from what is committed there now. */
const generatedFiles: { path: string; name: string; generate: (committed: string) => string }[] = [
  { path: OPENAPI_JSON_PATH, name: 'docs/openapi.json', generate: () => openApiJson() },
  { path: ERRORS_DOC_PATH, name: 'the error table in docs/errors.md', generate: withErrorTable },
  { path: AUTHENTICATION_DOC_PATH, name: 'the scope table in docs/authentication.md', generate: withScopeTable },
  { path: ROUTE_TABLE_PATH, name: 'contracts/src/route-table.ts', generate: routeTableSource },
  { path: BRANCHING_DOC_PATH, name: 'the instruction tables in docs/branching.md', generate: withBranchingTables },
];

async function main(): Promise<void> {
  const check = process.argv.includes('--check');
  let stale = false;
  for (const file of generatedFiles) {
    const committed = await readFile(file.path, 'utf8').catch(() => '');
    const generated = file.generate(committed);
    if (!check) {
      await writeFile(file.path, generated);
      console.log(`wrote ${file.name}`);
    } else if (committed !== generated) {
      console.error(`${file.name} is stale: run \`npx -y pnpm@10 openapi:generate\` and commit the result.`);
      stale = true;
    } else {
      console.log(`${file.name} is up to date.`);
    }
  }
  if (stale) process.exit(1);
}

// Run only as the script, so the test can import the path and message without writing anything.
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main();
