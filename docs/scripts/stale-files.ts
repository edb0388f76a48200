/**
 * The comparison behind `generated:check` (`npx -y pnpm@10 generate --check`): which committed files
 * differ from what `npx -y pnpm@10 generate` makes, each named with why, and the one message that says so.
 * Pure, so a unit test can call it on files held in memory (server/test/unit/generated-files.test.ts).
 */

/** What fixes every stale file. */
export const GENERATE_COMMAND = 'npx -y pnpm@10 generate';

export interface GeneratedFiles {
  /** Every generated file, by its path from the repository's root, with its content. */
  files: ReadonlyMap<string, string>;
  /** Folders wholly generated: a file committed there that is no longer generated is stale too. */
  folders: readonly string[];
}

/**
 * Each stale file, by its path from the repository's root: one whose committed content differs,
 * one that is missing, and one left in a generated folder that nothing generates any more.
 * `committed` holds what the repository has at every generated path and in every generated folder.
 */
export function staleFiles(generated: GeneratedFiles, committed: ReadonlyMap<string, string>): string[] {
  const stale: string[] = [];
  for (const [path, content] of generated.files) {
    const current = committed.get(path);
    if (current === undefined) stale.push(`${path} (missing)`);
    else if (current !== content) stale.push(path);
  }
  for (const path of committed.keys()) {
    const inFolder = generated.folders.some((folder) => path.startsWith(`${folder}/`));
    if (inFolder && !generated.files.has(path)) stale.push(`${path} (no longer generated)`);
  }
  return stale;
}

/** The message `generated:check` fails with: every stale file, then the command that rewrites them. */
export function staleMessage(stale: readonly string[]): string {
  return [
    `${stale.length} generated ${stale.length === 1 ? 'file is' : 'files are'} stale:`,
    ...stale.map((path) => `  ${path}`),
    `Run \`${GENERATE_COMMAND}\` and commit the result.`,
  ].join('\n');
}
