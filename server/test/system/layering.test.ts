import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * The layering check (`pnpm layers`, in `pnpm check`) on the real tree, and on a small tree that
 * breaks every rule once — so a rule whose pattern matches nothing cannot pass silently.
 */
const root = fileURLToPath(new URL('../../../', import.meta.url));
const depcruise = join(root, 'node_modules/.bin/depcruise');
const config = join(root, '.dependency-cruiser.cjs');
const run = promisify(execFile);

interface Violation {
  rule: { name: string };
  from: string;
  to: string;
}

async function violationsIn(cwd: string): Promise<Violation[]> {
  const { stdout } = await run(
    depcruise,
    ['contracts/src', 'server/src', 'sdk/src', 'web/src', '--config', config, '--output-type', 'json'],
    { cwd, maxBuffer: 64 * 1024 * 1024 },
  ).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? '' }));
  return (JSON.parse(stdout) as { summary: { violations: Violation[] } }).summary.violations;
}

describe('the layering check', () => {
  let fixture: string;

  beforeAll(async () => {
    fixture = await mkdtemp(join(tmpdir(), 'pollkit-layers-'));
    const files: Record<string, string> = {
      'tsconfig.layers.json': JSON.stringify({
        compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', allowJs: true },
        include: ['contracts/src', 'server/src', 'sdk/src', 'web/src'],
      }),
      'contracts/src/index.ts': "import { readFileSync } from 'node:fs';\nexport const x = readFileSync;\n",
      'server/src/core/api-error.ts': 'export class ApiError extends Error {}\n',
      'server/src/http/app.ts':
        "import { ApiError } from '../core/api-error.js';\nexport const app = ApiError;\nexport type App = typeof app;\n",
      'server/src/modules/polls.ts': "import { app } from '../http/app.js';\nexport const polls = app;\n",
      'server/src/db/schema.ts': "import { polls } from '../modules/polls.js';\nexport const schema = polls;\n",
      'server/src/api/pipeline.ts': "import { app } from '../http/app.js';\nexport const pipeline = app;\n",
      'server/src/infra/cache.ts': "import { pipeline } from '../api/pipeline.js';\nexport const cache = pipeline;\n",
      'server/src/deps.ts': 'export const deps = 1;\n',
      'server/src/cli/a.ts': "import { b } from './b.js';\nexport const a = () => b;\n",
      'server/src/cli/b.ts':
        "import { a } from './a.js';\nimport { deps } from '../deps.js';\nexport const b = () => [a, deps];\n",
      'server/src/modules/root.ts': "import { deps } from '../deps.js';\nexport const root = deps;\n",
      'sdk/src/index.ts':
        "import { ApiError } from '../../server/src/core/api-error.js';\nexport const sdk = ApiError;\n",
      // A pool or a Redis connection made outside db/postgres.ts and infra/redis.ts; their types may be used anywhere.
      'node_modules/pg/package.json': '{ "name": "pg", "main": "index.js" }\n',
      'node_modules/pg/index.js': 'module.exports = { Pool: class {} };\n',
      'node_modules/ioredis/package.json': '{ "name": "ioredis", "main": "index.js" }\n',
      'node_modules/ioredis/index.js': 'module.exports = { Redis: class {} };\n',
      'server/src/modules/rogue-pool.ts':
        "import pg from 'pg';\nimport { Redis } from 'ioredis';\nexport const rogue = [new pg.Pool(), new Redis()];\n",
      'server/src/modules/typed.ts':
        "import type { Pool } from 'pg';\nimport type { Redis } from 'ioredis';\nexport type Typed = Pool | Redis;\n",
      'server/src/db/postgres.ts': "import pg from 'pg';\nexport const pool = new pg.Pool();\n",
      // Another module's repository (refused) beside its service (allowed), and a module's own repository.
      'server/src/modules/tallies/tallies.repository.ts': 'export const tallyRows = 1;\n',
      'server/src/modules/tallies/tallies.service.ts':
        "import { tallyRows } from './tallies.repository.js';\nexport const tallies = tallyRows;\n",
      'server/src/modules/reports/reports.service.ts':
        "import { tallies } from '../tallies/tallies.service.js';\n" +
        "import { tallyRows } from '../tallies/tallies.repository.js';\nexport const report = [tallies, tallyRows];\n",
      // Two modules that import each other through different files: no file-level cycle, a module-level one.
      'server/src/modules/decks/deck.ts': "import { rank } from '../ranks/rank.js';\nexport const deck = rank;\n",
      'server/src/modules/decks/slide-count.ts': 'export const slideCount = 3;\n',
      'server/src/modules/ranks/rank.ts': 'export const rank = 1;\n',
      'server/src/modules/ranks/ranking.ts':
        "import { slideCount } from '../decks/slide-count.js';\nexport const ranking = slideCount;\n",
      'server/src/infra/redis.ts': "import { Redis } from 'ioredis';\nexport const redis = new Redis();\n",
      // Each remaining layer importing one above it, and a page importing the SDK's main entry.
      'server/src/core/leak.ts': "import { schema } from '../db/schema.js';\nexport const leak = schema;\n",
      // Type-only: it couples the files just the same.
      'server/src/mcp/tools.ts': "import type { App } from '../http/app.js';\nexport type Tools = App;\n",
      'server/src/openapi/document.ts': 'export const document = 1;\n',
      'server/src/http/docs.ts': "import { document } from '../openapi/document.js';\nexport const docs = document;\n",
      'server/src/cli/run.ts': "import { pipeline } from '../api/pipeline.js';\nexport const run = pipeline;\n",
      'web/src/join.ts': "import { sdk } from '../../sdk/src/index.js';\nexport const join = sdk;\n",
    };
    for (const [path, text] of Object.entries(files)) {
      await mkdir(dirname(join(fixture, path)), { recursive: true });
      await writeFile(join(fixture, path), text);
    }
  });

  afterAll(async () => {
    await rm(fixture, { recursive: true, force: true });
  });

  it('finds no violation in the repository', async () => {
    expect(await violationsIn(root)).toEqual([]);
  });

  it('refuses cycles (of files and of modules), upward imports, foreign repositories, the composition root below it, non-zod contracts, server code in the SDK and connections made outside their factories', async () => {
    const found = (await violationsIn(fixture)).map((v) => `${v.rule.name}: ${v.from} → ${v.to}`).sort();
    expect(found).toEqual(
      expect.arrayContaining([
        'api-imports-no-higher-layer: server/src/api/pipeline.ts → server/src/http/app.ts',
        'core-imports-no-higher-layer: server/src/core/leak.ts → server/src/db/schema.ts',
        'mcp-imports-no-higher-layer: server/src/mcp/tools.ts → server/src/http/app.ts',
        'http-imports-no-higher-layer: server/src/http/docs.ts → server/src/openapi/document.ts',
        'cli-imports-no-higher-layer: server/src/cli/run.ts → server/src/api/pipeline.ts',
        'web-pages-use-the-lean-sdk-entry: web/src/join.ts → sdk/src/index.ts',
        'below-transport-imports-no-composition-root: server/src/modules/root.ts → server/src/deps.ts',
        'contracts-import-only-zod: contracts/src/index.ts → fs',
        'db-imports-no-higher-layer: server/src/db/schema.ts → server/src/modules/polls.ts',
        'infra-imports-no-higher-layer: server/src/infra/cache.ts → server/src/api/pipeline.ts',
        'modules-imports-no-higher-layer: server/src/modules/polls.ts → server/src/http/app.ts',
        'sdk-imports-no-server-code: sdk/src/index.ts → server/src/core/api-error.ts',
        'postgres-connections-made-in-one-place: server/src/modules/rogue-pool.ts → node_modules/pg/index.js',
        'redis-connections-made-in-one-place: server/src/modules/rogue-pool.ts → node_modules/ioredis/index.js',
      ]),
    );
    expect(found.some((line) => line.startsWith('no-cycles: server/src/cli/'))).toBe(true);
    // Module boundaries: the foreign repository only (the service and the own repository pass), and
    // the module-level cycle though no file imports itself back.
    expect(found.filter((line) => line.includes('/tallies/'))).toEqual([
      'modules-use-no-foreign-repository: server/src/modules/reports/reports.service.ts → server/src/modules/tallies/tallies.repository.ts',
    ]);
    expect(found.filter((line) => /\/(decks|ranks)/.test(line))).toEqual([
      'no-module-cycles: server/src/modules/decks → server/src/modules/ranks',
      'no-module-cycles: server/src/modules/ranks → server/src/modules/decks',
    ]);
    // Every rule of the config is broken here, so none can pass by matching nothing.
    const rules = (createRequire(import.meta.url)(config) as { forbidden: { name: string }[] }).forbidden;
    const broken = new Set(found.map((line) => line.slice(0, line.indexOf(':'))));
    expect(rules.map((rule) => rule.name).filter((name) => !broken.has(name))).toEqual([]);
    // Types of either may be used anywhere; the two factories may make them.
    expect(found.filter((line) => /typed\.ts|db\/postgres\.ts|infra\/redis\.ts/.test(line))).toEqual([]);
  });
});
