/**
 * Writes docs/openapi.json from the contracts (`pnpm openapi:generate`), or with `--check` fails
 * when the committed file differs from what the contracts generate (CI runs this).
 */
import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { openApiJson } from './document.js';

export const OPENAPI_JSON_PATH = fileURLToPath(new URL('../../../docs/openapi.json', import.meta.url));
export const STALE_MESSAGE = 'docs/openapi.json is stale: run `npx -y pnpm@10 openapi:generate` and commit the result.';

async function main(): Promise<void> {
  const generated = openApiJson();
  if (process.argv.includes('--check')) {
    const committed = await readFile(OPENAPI_JSON_PATH, 'utf8').catch(() => '');
    if (committed !== generated) {
      console.error(STALE_MESSAGE);
      process.exit(1);
    }
    console.log('docs/openapi.json is up to date.');
  } else {
    await writeFile(OPENAPI_JSON_PATH, generated);
    console.log(`wrote ${OPENAPI_JSON_PATH}`);
  }
}

// Run only as the script, so the test can import the path and message without writing anything.
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main();
