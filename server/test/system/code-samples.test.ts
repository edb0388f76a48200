import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from '../../src/openapi/document.js';

/**
 * Every operation's `x-codeSamples` (server/src/openapi/code-samples.ts): the SDK call first, then
 * curl; and every TypeScript sample compiles, each as a module of its own, against the SDK's source
 * types (`@pollkit/sdk` mapped to sdk/src), in strict mode. No server: the document is built in process.
 */

type Sample = { lang: string; label: string; source: string };
type Operation = { operationId: string; 'x-codeSamples'?: Sample[] };

const document = buildOpenApiDocument() as unknown as { paths: Record<string, Record<string, Operation>> };
const METHODS = ['get', 'post', 'put', 'patch', 'delete'];
const operations = Object.values(document.paths).flatMap((item) =>
  METHODS.flatMap((method) => (item[method] ? [item[method]] : [])),
);
/** Every contract operation: all but the routes declared beside their Fastify routes in http/. */
const contractOperations = operations.filter(
  (operation) => !['openapiDocument', 'oauthToken', 'mediaFile'].includes(operation.operationId),
);

const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
let scratch: string;

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'pollkit-code-samples-'));
  // ES modules, as a user's project that awaits at the top level is.
  await writeFile(join(scratch, 'package.json'), '{ "type": "module" }\n');
});

afterAll(async () => {
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

describe('x-codeSamples', () => {
  it('are on every contract operation: the Pollkit SDK call first, then curl', () => {
    expect(contractOperations.length).toBeGreaterThan(40);
    for (const operation of contractOperations) {
      const samples = operation['x-codeSamples'] ?? [];
      expect(
        samples.map(({ lang, label }) => `${lang}/${label}`),
        operation.operationId,
      ).toEqual(['TypeScript/Pollkit SDK', 'Shell/curl']);
      expect(samples[1]?.source, operation.operationId).toMatch(/^curl (-N )?-X [A-Z]+ "\$POLLKIT_BASE_URL\/api\/v1\//);
    }
  });

  it('compile against the SDK, every TypeScript sample a module of its own', async () => {
    const files: string[] = [];
    for (const operation of contractOperations) {
      const sample = operation['x-codeSamples']?.[0];
      if (!sample) continue;
      const file = join(scratch, `${operation.operationId}.ts`);
      await writeFile(file, `${sample.source}\nexport {};\n`);
      files.push(file);
    }
    const program = ts.createProgram(files, {
      strict: true,
      noEmit: true,
      skipLibCheck: true,
      target: ts.ScriptTarget.ES2022,
      lib: ['lib.es2023.d.ts'],
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      customConditions: ['@pollkit/source'],
      // The samples live outside the repository: the SDK is its source, as a user gets its types.
      baseUrl: REPO_ROOT,
      paths: { '@pollkit/sdk': ['sdk/src/index.ts'] },
      types: ['node'],
      typeRoots: [join(REPO_ROOT, 'node_modules/@types')],
      allowImportingTsExtensions: true,
    });
    const errors = ts.getPreEmitDiagnostics(program).map((diagnostic) => {
      const where = diagnostic.file
        ? `${diagnostic.file.fileName}:${diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start ?? 0).line + 1}`
        : '';
      return `${where} ${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`;
    });
    expect(errors).toEqual([]);
  }, 120_000);
});
