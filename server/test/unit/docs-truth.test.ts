import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, normalize } from 'node:path';
import { describe, expect, it } from 'vitest';
import { withModuleGraph } from '../../../docs/scripts/module-graph.js';

/**
 * Docs and comments that stay true. docs/architecture.md: its module graph is the one the imports
 * make, its rule table is `.dependency-cruiser.cjs`'s, it names every folder it maps and only files
 * that exist; so does README.md. docs/decisions: every record has its shape, the index lists each
 * with its title and status. Links into the map and the decisions resolve, anchors included. And a
 * comment that names a file names one that exists in this repository (the design notes a comment
 * leans on live in docs/, never in a file outside the repository).
 */
const root = join(import.meta.dirname, '..', '..', '..');
/** Folders that hold no source: installed packages, builds, caches, what tests and servers write. */
const notSource = new Set(['node_modules', '.git', 'dist', 'cache', 'test-artifacts', 'data', '.turbo', '.tmp']);

/** The repository's files, relative to its root (read from the disk: a unit test starts no `git`). */
function filesUnder(folder: string): string[] {
  return readdirSync(join(root, folder), { withFileTypes: true }).flatMap((entry) => {
    const path = folder === '' ? entry.name : `${folder}/${entry.name}`;
    if (entry.isDirectory()) return notSource.has(entry.name) ? [] : filesUnder(path);
    return entry.isFile() ? [path] : [];
  });
}
const tracked = filesUnder('');
const read = (path: string) => readFileSync(join(root, path), 'utf8');
const foldersOf = (path: string) =>
  readdirSync(join(root, path), { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && !notSource.has(entry.name))
    .map((entry) => entry.name);

const ARCHITECTURE = 'docs/architecture.md';
const DECISIONS = 'docs/decisions';
const decisionFiles = tracked
  .filter((path) => new RegExp(`^${DECISIONS}/\\d{4}-[a-z0-9-]+\\.md$`).test(path))
  .filter((path) => !path.endsWith('/0000-template.md'))
  .sort();

/** A file name or path with one of the source or doc extensions, as comments and docs write them. */
const fileReference = /(?<![\w@/.:-])((?:[\w.-]+\/)*[\w-]+(?:\.[\w-]+)*\.(?:ts|tsx|mjs|cjs|md))(?![\w/])/g;

/** Named code blocks of the guides (```js receiver.mjs): files a reader makes, cited by the tests that run them. */
function guideBlockNames(): Set<string> {
  const names = new Set<string>();
  for (const file of tracked.filter((path) => /^docs\/[^/]+\.md$/.test(path))) {
    for (const match of read(file).matchAll(/^```\w+ ([\w.-]+)$/gm)) names.add(match[1] ?? '');
  }
  return names;
}

/** Each file reference in `text` that names no file of the repository. */
function missingFiles(text: string, allowed: ReadonlySet<string>): string[] {
  return [...text.matchAll(fileReference)]
    .map((match) => (match[1] ?? '').replace(/^(\.\.?\/)+/, ''))
    .filter((ref) => !allowed.has(ref) && !tracked.some((path) => path === ref || path.endsWith(`/${ref}`)));
}

/** A heading's anchor as the docs site makes it (docs/.vitepress/config.mts, `githubSlug`). */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}
function anchorsOf(path: string): Set<string> {
  const text = read(path).replace(/^```[\s\S]*?^```/gm, '');
  return new Set([...text.matchAll(/^#{1,6} (.+)$/gm)].map((match) => slug(match[1] ?? '')));
}

describe('docs/architecture.md', () => {
  const doc = read(ARCHITECTURE);

  it('has the module graph the imports under server/src/modules make (npx -y pnpm@10 generate rewrites it)', () => {
    expect(doc).toBe(withModuleGraph(doc));
  });

  it('lists in its rule table exactly the rules of .dependency-cruiser.cjs', () => {
    const config = createRequire(import.meta.url)(join(root, '.dependency-cruiser.cjs')) as {
      forbidden: { name: string }[];
    };
    const layers = doc.slice(doc.indexOf('\n## Layers\n'), doc.indexOf('\n## ', doc.indexOf('\n## Layers\n') + 1));
    const tabled = [...layers.matchAll(/^\| `([a-z0-9-]+)` \|/gm)].map((match) => match[1]);
    expect(tabled.length).toBeGreaterThan(10);
    expect([...tabled].sort()).toEqual(config.forbidden.map((rule) => rule.name).sort());
    // A rule cited anywhere in the map is one of them (rule names are backticked kebab-case, 3+ words).
    const cited = new Set([...doc.matchAll(/`([a-z0-9]+(?:-[a-z0-9]+){2,})`/g)].map((match) => match[1]));
    expect([...cited].filter((name) => !tabled.includes(name))).toEqual([]);
  });

  it('names every folder of server/src, of server/test and every workspace package', () => {
    const folders = [
      ...foldersOf('server/src').map((name) => `${name}/`),
      ...foldersOf('server/test').map((name) => `server/test/${name}/`),
      ...['contracts/', 'sdk/', 'web/', 'examples/', 'docs/', 'docs/scripts/', '.ci/', 'server/bench/', 'sdk/test/'],
      ...['web/test/', 'server/scripts/'],
    ];
    expect(folders.filter((folder) => !doc.includes(`\`${folder}\``))).toEqual([]);
  });

  it('names only files that exist', () => {
    expect(missingFiles(doc, new Set())).toEqual([]);
  });
});

describe('README.md', () => {
  // Its commands name test files to copy (`pnpm test <file>`): one that is gone fails the command.
  it('names only files that exist', () => {
    expect(missingFiles(read('README.md'), new Set())).toEqual([]);
  });
});

describe('docs/decisions', () => {
  const index = read(`${DECISIONS}/README.md`);

  it('are numbered from 0001 without gaps', () => {
    expect(decisionFiles.length).toBeGreaterThan(50);
    expect(decisionFiles.map((path) => path.slice(DECISIONS.length + 1, DECISIONS.length + 5))).toEqual(
      decisionFiles.map((_, i) => String(i + 1).padStart(4, '0')),
    );
  });

  it.each(decisionFiles)('%s: title, Status, Date, then Context, Decision and Consequences', (path) => {
    const text = read(path);
    const number = path.slice(DECISIONS.length + 1, DECISIONS.length + 5);
    expect(text).toMatch(new RegExp(`^# ${number}\\. \\S.*\\n\\n- Status: (Accepted|Superseded by )`));
    expect(text).toMatch(/^- Date: \d{4}-\d{2}-\d{2}$/m);
    const sections = [...text.matchAll(/^## (.+)$/gm)].map((match) => match[1]);
    expect(sections).toEqual(['Context', 'Decision', 'Consequences']);
  });

  it('are each listed in README.md with their title and status', () => {
    const rows = new Map(
      [...index.matchAll(/^\| \[(\d{4})\]\(([^)]+)\) \| (.+) \| (Accepted|Superseded by \d{4}) \|$/gm)].map((m) => [
        `${DECISIONS}/${m[2]}`,
        { title: m[3], status: m[4] },
      ]),
    );
    const expected = new Map(
      decisionFiles.map((path) => {
        const text = read(path);
        const title = (/^# \d{4}\. (.+)$/m.exec(text)?.[1] ?? '').replace(/\|/g, '\\|');
        const superseded = /^- Status: Superseded by \[(\d{4})\]/m.exec(text)?.[1];
        return [path, { title, status: superseded ? `Superseded by ${superseded}` : 'Accepted' }];
      }),
    );
    expect(rows).toEqual(expected);
  });

  it('name a superseding decision that says it supersedes them', () => {
    for (const path of decisionFiles) {
      const by = /^- Status: Superseded by \[(\d{4})\]/m.exec(read(path))?.[1];
      if (!by) continue;
      const successor = decisionFiles.find((file) => file.startsWith(`${DECISIONS}/${by}-`));
      expect(successor, `${path} is superseded by ${by}`).toBeDefined();
      const number = path.slice(DECISIONS.length + 1, DECISIONS.length + 5);
      expect(read(successor ?? '')).toMatch(new RegExp(`supersedes \\[${number}\\]`));
    }
  });

  it('name only files that exist, or that they say are gone', () => {
    // Files the decisions' contexts describe as replaced: the record keeps their names.
    const gone = new Set(['trpc/router.ts', 'http/idempotency.ts', 'vitest.projects.ts']);
    const missing = decisionFiles.flatMap((path) => missingFiles(read(path), gone).map((ref) => `${path}: ${ref}`));
    expect(missing).toEqual([]);
  });
});

describe('links into the map and the decisions', () => {
  const sources = [
    'README.md',
    ...tracked.filter((path) => /^docs\/[^/]+\.md$/.test(path)),
    ...tracked.filter((path) => path.startsWith(`${DECISIONS}/`) && path.endsWith('.md')),
    'server/bench/RESULTS.md',
  ];

  it('resolve to a file, and an #anchor to a heading of it', () => {
    const broken = sources.flatMap((source) =>
      [...read(source).matchAll(/\]\(([^)\s]+?\.md)(#[^)\s]+)?\)/g)]
        .filter((match) => !/^[a-z]+:/.test(match[1] ?? ''))
        .map((match) => ({ target: normalize(join(dirname(source), match[1] ?? '')), anchor: match[2]?.slice(1) }))
        .filter(({ target }) => target === ARCHITECTURE || target.startsWith(`${DECISIONS}/`))
        .filter(({ target, anchor }) => !tracked.includes(target) || (anchor && !anchorsOf(target).has(anchor)))
        .map(({ target, anchor }) => `${source} → ${target}${anchor ? `#${anchor}` : ''}`),
    );
    expect(broken).toEqual([]);
  });
});

describe('comments in the code', () => {
  const sources = tracked.filter((path) =>
    /^(contracts|server|sdk|web|examples|docs\/scripts)\/(.*\/)?[^/]+\.(ts|tsx|mjs|cjs)$/.test(path),
  );
  const commentLines = sources.flatMap((file) =>
    read(file)
      .split('\n')
      .map((text, index) => ({ where: `${file}:${index + 1}`, text: text.trim() }))
      .filter(({ text }) => text.startsWith('//') || text.startsWith('*') || text.startsWith('/*')),
  );

  it('are read from the sources (the check sees the code)', () => {
    expect(sources.length).toBeGreaterThan(200);
    expect(commentLines.length).toBeGreaterThan(2000);
  });

  it('name only files that exist in the repository', () => {
    // A package's CHANGELOG.md is written by `changeset version` at the first release.
    const allowed = new Set([...guideBlockNames(), 'CHANGELOG.md']);
    const missing = commentLines.flatMap(({ where, text }) =>
      missingFiles(text, allowed).map((ref) => `${where}: ${ref}`),
    );
    expect(missing).toEqual([]);
  });

  it('cite no design file outside the repository', () => {
    const outside = commentLines.filter(({ text }) => /\bDESIGN\b|\.\.\/shared\//.test(text)).map(({ where }) => where);
    expect(outside).toEqual([]);
  });
});
