import { createRequire } from 'node:module';
import type { FastifyServerOptions } from 'fastify';

type CompilersFactory = Required<
  NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>
>;

/**
 * Fastify's default schema compilers (ajv and fast-json-stringify), loaded the first time a route
 * declares a Fastify schema instead of when the app is made. No route here declares one: requests
 * are checked by the pipeline against the contracts' zod schemas (api/pipeline.ts). Loading them
 * eagerly was about a tenth of every start (server/bench/RESULTS.md, "Issue 25: start-up").
 */
export function lazySchemaCompilers(): CompilersFactory {
  return {
    buildValidator: onFirstCall<CompilersFactory['buildValidator']>('@fastify/ajv-compiler'),
    buildSerializer: onFirstCall<CompilersFactory['buildSerializer']>('@fastify/fast-json-stringify-compiler'),
  };
}

/** A factory that loads the package (whose default export makes the real factory) when first called. */
function onFirstCall<Factory>(name: string): Factory {
  let factory: ((...args: unknown[]) => unknown) | undefined;
  return ((...args: unknown[]) => {
    factory ??= (fromFastify(name) as () => (...args: unknown[]) => unknown)();
    return factory(...args);
  }) as Factory;
}

/** Fastify's own dependencies are resolved from where Fastify is installed (not ours to import). */
function fromFastify(name: string): unknown {
  const require = createRequire(import.meta.url);
  return createRequire(require.resolve('fastify'))(name);
}
