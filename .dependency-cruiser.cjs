/**
 * The layering of Pollkit, checked by `pnpm layers` (part of `pnpm check`, so CI fails on a breach).
 * docs/architecture.md draws the map; this file is its enforcement. A request travels one way:
 *
 *   http/ (transport) → api/ (pipeline) → modules/ (handlers, services, repositories) → db/
 *
 * with mcp/ (the MCP server: tools made from the contract) between http/, which serves it at /mcp,
 * and the pipeline every tool call runs through; core/ (the domain error, paging) and infra/ (shared state, safe fetch, storage) below the
 * modules, and openapi/ (the document generator) above the transport. Lower layers never import
 * higher ones. Type-only imports count: they couple the files just the same.
 */
const layer = (name) => `^server/src/${name}/`;

/** Each rule: files in `from` may not import files in any of `to`. */
const upward = [
  ['core', ['db', 'infra', 'modules', 'api', 'mcp', 'http', 'cli', 'openapi']],
  ['db', ['infra', 'modules', 'api', 'mcp', 'http', 'cli', 'openapi']],
  ['infra', ['db', 'modules', 'api', 'mcp', 'http', 'cli', 'openapi']],
  ['modules', ['api', 'mcp', 'http', 'cli', 'openapi']],
  ['api', ['mcp', 'http', 'cli', 'openapi']],
  ['cli', ['api', 'mcp', 'http', 'openapi']],
  // The MCP protocol (tools from the contract) under the transport that serves it at /mcp.
  ['mcp', ['http', 'cli', 'openapi']],
  ['http', ['cli', 'openapi']],
];

module.exports = {
  forbidden: [
    {
      name: 'no-cycles',
      severity: 'error',
      comment: 'An import cycle ties files into one unit that cannot be understood or tested alone.',
      from: {},
      to: { circular: true },
    },
    ...upward.map(([from, to]) => ({
      name: `${from}-imports-no-higher-layer`,
      severity: 'error',
      comment: `server/src/${from}/ sits below ${to.join(', ')}: it may not import them.`,
      from: { path: layer(from) },
      to: { path: `^server/src/(${to.join('|')})/` },
    })),
    {
      name: 'modules-use-no-foreign-repository',
      severity: 'error',
      comment:
        "A module's tables are its own: another module uses it through its service or the index.ts it exports " +
        "(a function that takes the caller's transaction keeps taking it there), never through its repository.",
      from: { path: '^server/src/modules/([^/]+)/' },
      to: { path: '^server/src/modules/[^/]+/[^/]+\\.repository\\.ts$', pathNot: '^server/src/modules/$1/' },
    },
    {
      name: 'no-module-cycles',
      severity: 'error',
      comment:
        'Modules depend on each other one way (docs/architecture.md, "Module boundaries"): two modules that ' +
        'import each other, directly or around a ring, are one unit in two folders — even with no file-level cycle.',
      // Folder scope: dependency-cruiser derives the dependencies (and their cycles) between folders.
      scope: 'folder',
      from: { path: '^server/src/modules/[^/]+$' },
      to: { path: '^server/src/modules/[^/]+$', circular: true },
    },
    {
      name: 'below-transport-imports-no-composition-root',
      severity: 'error',
      comment: 'deps.ts, server.ts and main.ts assemble the layers; nothing inside a layer imports them.',
      from: { path: '^server/src/(core|db|infra|modules|api|mcp|http)/' },
      to: { path: '^server/src/(deps|server|main)\\.ts$' },
    },
    {
      name: 'postgres-connections-made-in-one-place',
      severity: 'error',
      comment:
        'Every PostgreSQL pool and client is made by server/src/db/postgres.ts, which handles their error ' +
        'events and bounds their waits: one made anywhere else could kill the process when the database restarts.',
      from: { path: '^server/src/', pathNot: '^server/src/db/postgres\\.ts$' },
      to: { path: 'node_modules/pg/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'redis-connections-made-in-one-place',
      severity: 'error',
      comment:
        'Every Redis connection is made by server/src/infra/redis.ts (RedisConnection), which handles its error ' +
        'events and never lets a request wait on a connection that is down.',
      from: { path: '^server/src/', pathNot: '^server/src/infra/redis\\.ts$' },
      to: { path: 'node_modules/ioredis/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'contracts-import-only-zod',
      severity: 'error',
      comment: 'The contracts are published and read by the server and the SDK alike: zod is their only dependency.',
      from: { path: '^contracts/src/' },
      to: { pathNot: ['^contracts/src/', 'node_modules/.*/?zod/'] },
    },
    {
      name: 'web-pages-use-the-lean-sdk-entry',
      severity: 'error',
      comment:
        'The audience and presenter pages ship to phones: they call the API through `@pollkit/sdk/live` ' +
        '(the schema-free route table), never the main SDK entry, the contract routes or zod, which would add ~100 KB.',
      from: { path: '^web/src/' },
      to: {
        path: ['^sdk/src/index\\.ts$', '^contracts/src/(index|routes/|schemas/)', 'node_modules/.*/?zod/', '^server/'],
      },
    },
    {
      name: 'sdk-imports-no-server-code',
      severity: 'error',
      comment: 'The SDK is published; it may use the contracts, never the server.',
      from: { path: '^sdk/src/' },
      to: { path: '^server/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    // Resolves `./x.js` imports (NodeNext) to `./x.ts`, as the compiler does.
    tsConfig: { fileName: 'tsconfig.layers.json' },
    enhancedResolveOptions: {
      // Workspace packages resolve to their TypeScript sources, as in the typecheck and the tests.
      conditionNames: ['@pollkit/source', 'import', 'require', 'node', 'default'],
      exportsFields: ['exports'],
      mainFields: ['module', 'main', 'types'],
      extensions: ['.ts', '.tsx', '.js', '.json'],
    },
  },
};
