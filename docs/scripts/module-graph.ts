/**
 * The module graph of docs/architecture.md ("Module boundaries"): which folder of server/src/modules
 * imports which other, read from the imports themselves, so the doc cannot drift from the code.
 * Every import counts (type-only, re-exports and dynamic `import()` included), as in the layering
 * check (.dependency-cruiser.cjs, `no-module-cycles`). `npx -y pnpm@10 generate` (docs/scripts/generate.ts)
 * rewrites the table between its markers; `generated:check` and server/test/unit/docs-truth.test.ts
 * fail when it is stale.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { withGeneratedBlock } from './generated-block.js';

const MODULES_DIR = fileURLToPath(new URL('../../server/src/modules/', import.meta.url));

const GRAPH_START =
  '<!-- module-graph:start (generated from the imports under server/src/modules by docs/scripts/module-graph.ts) -->';
const GRAPH_END = '<!-- module-graph:end -->';

/** Each module (a folder of server/src/modules) with the other modules its files import. */
function moduleImports(modulesDir: string = MODULES_DIR): Map<string, Set<string>> {
  const modules = readdirSync(modulesDir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
  const graph = new Map(modules.map((name) => [name, new Set<string>()]));
  for (const name of modules) {
    const files = readdirSync(join(modulesDir, name), { recursive: true, encoding: 'utf8' }).filter((file) =>
      /\.(ts|tsx|mts|cts)$/.test(file),
    );
    for (const file of files) {
      const path = join(modulesDir, name, file);
      // The compiler's own scanner: imports in comments and strings are not imports.
      const { importedFiles } = ts.preProcessFile(readFileSync(path, 'utf8'), true, true);
      for (const { fileName } of importedFiles) {
        if (!fileName.startsWith('.')) continue;
        const [first, ...rest] = relative(modulesDir, resolve(dirname(path), fileName)).split(sep);
        if (first && first !== '..' && first !== name && rest.length > 0 && graph.has(first)) {
          graph.get(name)?.add(first);
        }
      }
    }
  }
  return graph;
}

/**
 * How far each module stands above the modules that import no other: 0 for those, else one more
 * than the highest module it imports. A cycle has no order; the layering check refuses it too.
 */
function levels(graph: ReadonlyMap<string, ReadonlySet<string>>): Map<string, number> {
  const level = new Map<string, number>();
  const visiting: string[] = [];
  const visit = (name: string): number => {
    const known = level.get(name);
    if (known !== undefined) return known;
    if (visiting.includes(name)) {
      const cycle = [...visiting.slice(visiting.indexOf(name)), name].join(' → ');
      throw new Error(`server/src/modules has an import cycle between modules: ${cycle} (see no-module-cycles)`);
    }
    visiting.push(name);
    const below = [...(graph.get(name) ?? [])].map(visit);
    visiting.pop();
    const own = below.length === 0 ? 0 : Math.max(...below) + 1;
    level.set(name, own);
    return own;
  };
  for (const name of graph.keys()) visit(name);
  return level;
}

/** The table: one row per module, lowest first, with the modules it imports. */
function moduleGraphTable(graph: ReadonlyMap<string, ReadonlySet<string>>): string {
  const level = levels(graph);
  const rows = [...graph.keys()].sort((a, b) => (level.get(a) ?? 0) - (level.get(b) ?? 0) || a.localeCompare(b));
  return [
    '| Module | Imports from |',
    '| --- | --- |',
    ...rows.map((name) => {
      const imports = [...(graph.get(name) ?? [])].sort().map((other) => `\`${other}\``);
      return `| \`${name}\` | ${imports.length === 0 ? '(no other module)' : imports.join(', ')} |`;
    }),
  ].join('\n');
}

/** The document with the module graph regenerated from the imports under server/src/modules. */
export function withModuleGraph(document: string, modulesDir: string = MODULES_DIR): string {
  return withGeneratedBlock(
    document,
    { start: GRAPH_START, end: GRAPH_END, where: 'docs/architecture.md' },
    moduleGraphTable(moduleImports(modulesDir)),
  );
}
