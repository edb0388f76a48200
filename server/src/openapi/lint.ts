/**
 * `npx -y pnpm@10 openapi:lint` (part of `pnpm check`, so CI): Redocly's recommended ruleset
 * (redocly.yaml at the repository's root) over the document as a server serves it — absolute server
 * URLs, servedOpenApiDocument — and over docs/openapi.json, which the docs site renders. Any error
 * fails; warnings are printed.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildOpenApiDocument, servedOpenApiDocument } from './document.js';

const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
/** The document the docs site renders, as `pnpm generate` writes it (docs/scripts/contract-artifacts.ts). */
const OPENAPI_JSON_PATH = join(REPO_ROOT, 'docs/openapi.json');
/** The origin a server started with the README's command names (localhost and example.com draw warnings). */
const EXAMPLE_BASE_URL = 'http://127.0.0.1:3000';

const scratch = await mkdtemp(join(tmpdir(), 'pollkit-openapi-lint-'));
try {
  const served = join(scratch, 'served-openapi.json');
  await writeFile(served, JSON.stringify(servedOpenApiDocument(EXAMPLE_BASE_URL, buildOpenApiDocument()), null, 2));
  const cli = createRequire(import.meta.url).resolve('@redocly/cli/bin/cli.js', { paths: [REPO_ROOT] });
  const code = await new Promise<number>((resolve) => {
    const child = execFile(process.execPath, [cli, 'lint', '--format=summary', served, OPENAPI_JSON_PATH], {
      cwd: REPO_ROOT,
      // Its banners and telemetry are not what CI should print or send.
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
    });
    child.stdout?.pipe(process.stdout);
    child.stderr?.pipe(process.stderr);
    child.on('close', (exitCode) => resolve(exitCode ?? 1));
  });
  process.exitCode = code;
} finally {
  await rm(scratch, { recursive: true, force: true });
}
