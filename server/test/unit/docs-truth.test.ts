import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * Docs and comments that stay true: the layout of docs/architecture.md names every module and every
 * SDK core file, and a comment that names a file names one that exists in this repository (the
 * design notes a comment leans on live in docs/, never in a file outside the repository).
 */
const root = join(import.meta.dirname, '..', '..', '..');
/** Folders that hold no source: installed packages, builds, caches, what tests and servers write. */
const notSource = new Set(['node_modules', '.git', 'dist', 'cache', 'test-artifacts', 'data', '.turbo']);

/** The repository's files, relative to its root (read from the disk: a unit test starts no `git`). */
function filesUnder(folder: string): string[] {
  return readdirSync(join(root, folder), { withFileTypes: true }).flatMap((entry) => {
    const path = folder === '' ? entry.name : `${folder}/${entry.name}`;
    if (entry.isDirectory()) return notSource.has(entry.name) ? [] : filesUnder(path);
    return entry.isFile() ? [path] : [];
  });
}
const tracked = filesUnder('');

function layoutSection(): string {
  const architecture = readFileSync(join(root, 'docs/architecture.md'), 'utf8');
  const start = architecture.indexOf('\n## Layout\n');
  const end = architecture.indexOf('\n## ', start + 1);
  expect(start, 'docs/architecture.md has a "## Layout" section').toBeGreaterThan(0);
  return architecture.slice(start, end < 0 ? undefined : end);
}

/** Named code blocks of the guides (```js receiver.mjs): files a reader makes, cited by the tests that run them. */
function guideBlockNames(): Set<string> {
  const names = new Set<string>();
  for (const file of tracked.filter((path) => /^docs\/[^/]+\.md$/.test(path))) {
    for (const match of readFileSync(join(root, file), 'utf8').matchAll(/^```\w+ ([\w.-]+)$/gm))
      names.add(match[1] ?? '');
  }
  return names;
}

describe('docs/architecture.md "Layout"', () => {
  it('names every folder under server/src/modules', () => {
    const layout = layoutSection();
    const modules = readdirSync(join(root, 'server/src/modules'), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name);
    expect(modules.length).toBeGreaterThan(10);
    expect(modules.filter((name) => !layout.includes(`modules/${name}/`))).toEqual([]);
  });

  it('names every file under sdk/src/core', () => {
    const layout = layoutSection();
    const sdkPart = layout.slice(layout.indexOf('sdk/src/'));
    const files = readdirSync(join(root, 'sdk/src/core')).filter((name) => name.endsWith('.ts'));
    expect(files.length).toBeGreaterThan(5);
    expect(files.filter((name) => !new RegExp(`\\b${name.replace('.', '\\.')}`).test(sdkPart))).toEqual([]);
  });
});

describe('comments in the code', () => {
  const sources = tracked.filter((path) =>
    /^(contracts|server|sdk|web|examples|docs\/scripts)\/(.*\/)?[^/]+\.(ts|tsx|mjs|cjs)$/.test(path),
  );
  const commentLines = sources.flatMap((file) =>
    readFileSync(join(root, file), 'utf8')
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
    const blockNames = new Set([...guideBlockNames(), 'CHANGELOG.md']);
    const fileReference = /(?<![\w@/.:-])((?:[\w.-]+\/)*[\w-]+(?:\.[\w-]+)*\.(?:ts|tsx|mjs|cjs|md))(?![\w/])/g;
    const missing = commentLines.flatMap(({ where, text }) =>
      [...text.matchAll(fileReference)]
        .map((match) => (match[1] ?? '').replace(/^\.\//, ''))
        .filter((ref) => !blockNames.has(ref) && !tracked.some((path) => path === ref || path.endsWith(`/${ref}`)))
        .map((ref) => `${where}: ${ref}`),
    );
    expect(missing).toEqual([]);
  });

  it('cite no design file outside the repository', () => {
    const outside = commentLines.filter(({ text }) => /\bDESIGN\b|\.\.\/shared\//.test(text)).map(({ where }) => where);
    expect(outside).toEqual([]);
  });
});
