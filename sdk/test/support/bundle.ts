import { build } from 'esbuild';

/**
 * The modules that put code in a minified esbuild browser bundle of `contents` (an ES module
 * resolved from `dir`), as paths relative to `dir`. Modules a bundler reads and then tree-shakes
 * away entirely are not among them.
 */
export async function bundledModules(contents: string, dir: string, conditions: string[] = []): Promise<string[]> {
  const result = await build({
    stdin: { contents, resolveDir: dir, loader: 'ts' },
    absWorkingDir: dir,
    bundle: true,
    platform: 'browser',
    format: 'esm',
    minify: true,
    write: false,
    metafile: true,
    logLevel: 'silent',
    conditions,
  });
  const [output] = Object.values(result.metafile.outputs);
  return Object.entries(output?.inputs ?? {})
    .filter(([, input]) => input.bytesInOutput > 0)
    .map(([path]) => path);
}

/** A module of zod, wherever the package manager put it. */
export const fromZod = (path: string): boolean => /(^|\/)zod\//.test(path);
