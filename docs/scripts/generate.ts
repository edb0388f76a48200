/**
 * Writes every generated artifact of the repository (`npx -y pnpm@10 generate`), in one run:
 *
 * - what the contracts generate (contract-artifacts.ts): docs/openapi.json, the
 *   schema-free route table contracts/src/route-table.ts, and the tables inside docs/errors.md and
 *   docs/authentication.md;
 * - the instruction table of docs/branching.md, from the parser's fixtures (branching-table.ts);
 * - the module graph of docs/architecture.md, from the imports under server/src/modules (module-graph.ts);
 * - docs/reference/errors.md, from the contracts' error registry (contracts/src/errors.ts);
 * - docs/reference/configuration.md, from the server's config schema (server/src/config.ts), and the
 *   same table in README.md between its `generated:configuration` markers;
 * - docs/sdk/reference/**, the SDK's public API, by TypeDoc (typedoc-plugin-markdown and
 *   typedoc-vitepress-theme, which also writes the sidebar the site's config reads);
 * - docs/changelog.md, from the pending changesets (.changeset/*.md) and the packages' CHANGELOG.md.
 *
 * With `--check` (`generated:check`, part of `pnpm check`) it writes nothing and fails naming every
 * file that differs from what is committed (stale-files.ts).
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type ErrorCode, errorCodes, type RetryAdvice } from '@pollkit/contracts';
import { Application } from 'typedoc';
import { ConfigSchema } from '../../server/src/config.js';
import { withBranchingTables } from './branching-table.js';
import { contractArtifacts } from './contract-artifacts.js';
import { withModuleGraph } from './module-graph.js';
import { GENERATE_COMMAND, type GeneratedFiles, staleFiles, staleMessage } from './stale-files.js';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
function banner(source: string): string {
  return `<!-- generated from ${source} by docs/scripts/generate.ts: do not edit. \`${GENERATE_COMMAND}\` rewrites it. -->`;
}

/** A table cell: pipes would end the cell, line breaks the row. */
function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n+/g, ' ');
}

// ---------------------------------------------------------------- errors

const retryWords: Record<RetryAdvice, string> = {
  no: 'No',
  backoff: 'Yes, with backoff',
  after_reset: 'After the window resets',
};

function errorsPage(): string {
  const codes = (Object.keys(errorCodes) as ErrorCode[])
    .map((code, index) => ({ code, index, ...errorCodes[code] }))
    .sort((a, b) => a.status - b.status || a.index - b.index);
  const lines = [
    banner('contracts/src/errors.ts'),
    '',
    '# Error codes',
    '',
    'Every error the API answers is `{ "error": { "code", "message", "details"? } }`. This page lists',
    'every `code`: its HTTP status, what it means and what causes it, what to do, and whether sending the',
    'same request again can succeed. [Errors](../errors.md) explains the envelope, `details` and retrying.',
    '',
    '- **No**: the request fails the same way until you change it, its credential or the resource.',
    '- **Yes, with backoff**: the failure is transient; retry with exponential backoff and jitter.',
    '- **After the window resets**: the rate limit is used up; retry once `X-RateLimit-Reset` has passed.',
    '',
    'The registry is exported by `@pollkit/contracts` as `errorCodes` (`status`, `description`, `action`,',
    '`retry`). Each code has its own section below, so a link can point at it: `reference/errors#rate_limited`.',
    '',
    '| Code | Status | Retry |',
    '| --- | --- | --- |',
    ...codes.map(({ code, status, retry }) => `| [\`${code}\`](#${code}) | ${status} | ${retryWords[retry]} |`),
    '',
  ];
  for (const { code, status, description, action, retry } of codes) {
    lines.push(
      `## \`${code}\``,
      '',
      `HTTP ${status}. Retry: ${retryWords[retry].toLowerCase()}.`,
      '',
      description,
      '',
      `**What to do:** ${action}`,
      '',
    );
  }
  return lines.join('\n');
}

// ---------------------------------------------------------------- configuration

interface Setting {
  name: string;
  defaultValue: string;
  values: string;
  description: string;
}

interface ZodLike {
  description?: string;
  _zod: { def: Record<string, any> };
  minValue?: number | null;
  maxValue?: number | null;
  isInt?: boolean;
  options?: readonly string[];
}

/** What the innermost schema of a variable accepts, in words. */
function allowedValues(schema: ZodLike): string {
  const def = schema._zod.def;
  if (def.type === 'enum') {
    const options = Object.values(def.entries as Record<string, string>);
    return options.map((option) => `\`${option}\``).join(', ');
  }
  if (def.type === 'number') {
    const min = schema.minValue;
    const max = schema.maxValue;
    const whole = schema.isInt ? 'whole number' : 'number';
    const finite = (value: number | null | undefined): value is number =>
      typeof value === 'number' && Number.isFinite(value) && Math.abs(value) < Number.MAX_SAFE_INTEGER;
    if (finite(min) && finite(max)) return `${whole}, ${String(min)} to ${String(max)}`;
    if (finite(min)) return `${whole}, at least ${String(min)}`;
    if (finite(max)) return `${whole}, at most ${String(max)}`;
    return whole;
  }
  if (def.type === 'string') {
    if (def.format === 'url') return 'a URL';
    // A check's own message says what it wants ("must be redis://… or rediss://…").
    for (const check of (def.checks ?? []) as ZodLike[]) {
      const checkDef = check._zod.def;
      const message = typeof checkDef.error === 'function' ? checkDef.error() : undefined;
      if (typeof message === 'string') return message.replace(/^must be /, '');
    }
    return 'text';
  }
  return 'text';
}

/** Walks a variable's schema (default, optional, transform, refinements) down to what it parses. */
function describeSetting(name: string, schema: ZodLike): Setting {
  const description = schema.description;
  if (!description) throw new Error(`server/src/config.ts: ${name} has no .describe()`);
  let current = schema;
  let defaultValue: unknown;
  for (;;) {
    const def = current._zod.def;
    if (def.type === 'default') {
      defaultValue = def.defaultValue;
      current = def.innerType;
    } else if (def.type === 'optional') {
      current = def.innerType;
    } else if (def.type === 'pipe') {
      current = def.in;
    } else {
      break;
    }
  }
  // A refinement with its own message (LIVE_JOIN_URL, WEBHOOK_SECRETS_KEY) says best what it takes.
  const refinement = ((current._zod.def.checks ?? []) as ZodLike[])
    .map((check) => check._zod.def)
    .find((checkDef) => checkDef.check === 'custom' && typeof checkDef.error === 'function');
  const refined = refinement?.error?.();
  const values = typeof refined === 'string' ? refined.replace(/^must be /, '') : allowedValues(current);
  return {
    name,
    defaultValue: defaultValue === undefined ? 'unset' : `\`${String(defaultValue)}\``,
    values: values === 'true, false' ? '`true`, `false`' : values,
    description,
  };
}

function configurationTable(): string {
  const settings = Object.entries(ConfigSchema.shape).map(([name, schema]) =>
    describeSetting(name, schema as unknown as ZodLike),
  );
  return [
    '| Variable | Default | Allowed values | Meaning |',
    '| --- | --- | --- | --- |',
    ...settings.map(
      (setting) =>
        `| \`${setting.name}\` | ${cell(setting.defaultValue)} | ${cell(setting.values)} | ${cell(setting.description)} |`,
    ),
  ].join('\n');
}

function configurationPage(): string {
  return [
    banner('server/src/config.ts'),
    '',
    '# Configuration',
    '',
    'The server reads these environment variables at start-up and validates them; a bad value prints',
    'which variable is wrong and exits with code 1. An empty value counts as unset.',
    '',
    // A guide can include the table alone: <!--@include: ./reference/configuration.md#table-->
    '<!-- #region table -->',
    configurationTable(),
    '<!-- #endregion table -->',
    '',
  ].join('\n');
}

const README_START = '<!-- generated:configuration (from server/src/config.ts by docs/scripts/generate.ts) -->';
const README_END = '<!-- /generated:configuration -->';

function readmeWithConfiguration(readme: string): string {
  const start = readme.indexOf(README_START);
  const end = readme.indexOf(README_END);
  if (start < 0 || end < start) throw new Error(`README.md lacks the ${README_START} … ${README_END} markers`);
  return `${readme.slice(0, start + README_START.length)}\n${configurationTable()}\n${readme.slice(end)}`;
}

// ---------------------------------------------------------------- changelog

interface Changeset {
  file: string;
  bumps: Record<string, string>;
  summary: string;
}

function parseChangeset(file: string, text: string): Changeset {
  const match = /^---\n([\s\S]*?)\n?---\n([\s\S]*)$/.exec(text.replace(/\r\n/g, '\n'));
  if (!match) throw new Error(`.changeset/${file} has no front matter`);
  const bumps: Record<string, string> = {};
  for (const line of (match[1] ?? '').split('\n')) {
    const entry = /^\s*["']?([^"':]+)["']?\s*:\s*(major|minor|patch)\s*$/.exec(line);
    if (entry?.[1] && entry[2]) bumps[entry[1]] = entry[2];
  }
  return { file, bumps, summary: (match[2] ?? '').trim() };
}

const bumpTitles: [string, string][] = [
  ['major', 'Major changes'],
  ['minor', 'Minor changes'],
  ['patch', 'Patch changes'],
];

/** A changeset's summary as one list item: its later lines indented under the bullet. */
function listItem(summary: string): string {
  return `- ${summary
    .split('\n')
    .map((line, index) => (index === 0 || line === '' ? line : `  ${line}`))
    .join('\n')}`;
}

async function changelogPage(): Promise<string> {
  const dir = join(repoRoot, '.changeset');
  const files = (await readdir(dir)).filter((file) => file.endsWith('.md') && file !== 'README.md').sort();
  const changesets = await Promise.all(
    files.map(async (file) => parseChangeset(file, await readFile(join(dir, file), 'utf8'))),
  );
  const packages = [...new Set(changesets.flatMap((changeset) => Object.keys(changeset.bumps)))].sort();
  const lines = [
    banner('.changeset/*.md and the packages’ CHANGELOG.md'),
    '',
    '# Changelog',
    '',
    'Changes to the published packages, `@pollkit/contracts` and `@pollkit/sdk`. The server follows the',
    'same contracts: a change to the API is listed under `@pollkit/contracts`.',
    '',
    '## Unreleased',
    '',
    'Changes merged but not released yet, by package and by kind of version bump.',
    '',
  ];
  for (const name of packages) {
    lines.push(`### ${name}`, '');
    for (const [bump, title] of bumpTitles) {
      const entries = changesets.filter((changeset) => changeset.bumps[name] === bump);
      if (entries.length === 0) continue;
      lines.push(`#### ${title}`, '');
      for (const entry of entries) lines.push(listItem(entry.summary), '');
    }
  }
  for (const pkg of ['contracts', 'sdk']) {
    const path = join(repoRoot, pkg, 'CHANGELOG.md');
    if (!existsSync(path)) continue;
    // A released version's entries, under the package's name; its own title is ours already.
    const released = (await readFile(path, 'utf8')).replace(/^# .*\n/, '').replace(/^(#+) /gm, '#$1 ');
    lines.push(`## Released: @pollkit/${pkg}`, '', released.trim(), '');
  }
  if (packages.length === 0) lines.push('Nothing yet.', '');
  return lines.join('\n');
}

// ---------------------------------------------------------------- SDK reference

/** The SDK's reference as TypeDoc writes it into `root/sdk/reference`, with its sidebar. */
async function writeSdkReference(root: string): Promise<void> {
  const out = join(root, 'sdk', 'reference');
  const app = await Application.bootstrapWithPlugins({
    entryPoints: [
      join(repoRoot, 'sdk/src/index.ts'),
      join(repoRoot, 'sdk/src/live-entry.ts'),
      join(repoRoot, 'sdk/src/embed.ts'),
    ],
    tsconfig: join(repoRoot, 'sdk/tsconfig.json'),
    plugin: ['typedoc-plugin-markdown', 'typedoc-vitepress-theme'],
    out,
    // The sidebar's links are relative to the site's root: this folder stands in for docs/.
    docsRoot: root,
    readme: 'none',
    // No links to source lines: no public repository to point at, and they would churn on every edit.
    disableSources: true,
    excludePrivate: true,
    excludeInternal: true,
    hideGenerator: true,
    // `@pollkit/sdk` as a folder name would put an `@` into every page's URL.
    excludeScopesInPaths: true,
    hidePageHeader: true,
    hideBreadcrumbs: true,
    entryFileName: 'index.md',
    // Classes, interfaces and functions get a page each; the 200-odd type aliases of the contract's
    // schemas stay on their module's page rather than in as many pages.
    membersWithOwnFile: ['Class', 'Interface', 'Function'],
    sidebar: { pretty: true },
    logLevel: 'Warn',
  } as Parameters<typeof Application.bootstrapWithPlugins>[0]);
  const project = await app.convert();
  if (!project || app.logger.hasErrors()) throw new Error('TypeDoc failed on the SDK (see above)');
  await app.generateOutputs(project);
  // Each page says where it comes from, like every generated page of the site.
  for (const file of await listFiles(out)) {
    if (!file.endsWith('.md')) continue;
    const path = join(out, file);
    await writeFile(path, `${banner('sdk/src (TypeDoc)')}\n\n${await readFile(path, 'utf8')}`);
  }
}

async function listFiles(dir: string): Promise<string[]> {
  if (!existsSync(dir)) return [];
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)))
    .sort();
}

// ---------------------------------------------------------------- main

const SDK_REFERENCE_DIR = 'docs/sdk/reference';

async function committedFile(path: string): Promise<string | undefined> {
  return readFile(join(repoRoot, path), 'utf8').catch(() => undefined);
}

/** Every generated file, by its path from the repository's root, with its content. */
async function generateAll(): Promise<GeneratedFiles> {
  const files = new Map(await contractArtifacts(committedFile));
  files.set('docs/reference/errors.md', errorsPage());
  files.set('docs/reference/configuration.md', configurationPage());
  files.set('docs/changelog.md', await changelogPage());
  files.set('docs/branching.md', withBranchingTables((await committedFile('docs/branching.md')) ?? ''));
  files.set('docs/architecture.md', withModuleGraph((await committedFile('docs/architecture.md')) ?? ''));
  files.set('README.md', readmeWithConfiguration((await committedFile('README.md')) ?? ''));
  const scratch = await mkdtemp(join(tmpdir(), 'pollkit-docs-'));
  try {
    await writeSdkReference(scratch);
    const sdkDir = join(scratch, 'sdk', 'reference');
    for (const file of await listFiles(sdkDir)) {
      files.set(`${SDK_REFERENCE_DIR}/${file}`, await readFile(join(sdkDir, file), 'utf8'));
    }
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
  return { files, folders: [SDK_REFERENCE_DIR] };
}

async function main(): Promise<void> {
  const check = process.argv.includes('--check');
  const generated = await generateAll();
  if (check) {
    const paths = new Set(generated.files.keys());
    for (const folder of generated.folders) {
      for (const file of await listFiles(join(repoRoot, folder))) paths.add(`${folder}/${file}`);
    }
    const committed = new Map<string, string>();
    for (const path of paths) {
      const content = await committedFile(path);
      if (content !== undefined) committed.set(path, content);
    }
    const stale = staleFiles(generated, committed);
    if (stale.length > 0) {
      console.error(staleMessage(stale));
      process.exit(1);
    }
    console.log(`The ${generated.files.size} generated files are up to date.`);
    return;
  }
  // A generated folder is the generator's alone: a page for a symbol that is gone goes too.
  for (const folder of generated.folders) await rm(join(repoRoot, folder), { recursive: true, force: true });
  for (const [path, content] of generated.files) {
    await mkdir(dirname(join(repoRoot, path)), { recursive: true });
    await writeFile(join(repoRoot, path), content);
  }
  console.log(
    `wrote ${generated.files.size} generated files (docs/openapi.json, contracts/src/route-table.ts, the tables in docs/*.md, docs/reference, docs/sdk/reference, docs/changelog.md, README.md)`,
  );
}

await main();
