/**
 * Writes docs/openapi.json from the contracts (`pnpm openapi:generate`), or with `--check` fails
 * when the committed file differs from what the contracts generate (CI runs this).
 */
import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { buildOpenApiDocument } from './document.js';

const target = fileURLToPath(new URL('../../../docs/openapi.json', import.meta.url));
const generated = `${JSON.stringify(buildOpenApiDocument(), null, 2)}\n`;

if (process.argv.includes('--check')) {
  const committed = await readFile(target, 'utf8').catch(() => '');
  if (committed !== generated) {
    console.error('docs/openapi.json is stale: run `npx pnpm@10 openapi:generate` and commit the result.');
    process.exit(1);
  }
  console.log('docs/openapi.json is up to date.');
} else {
  await writeFile(target, generated);
  console.log(`wrote ${target}`);
}
