/**
 * contracts/src/route-table.ts, generated from the contract: each operation's method, path,
 * success status, auth kind and format, without its schemas, for clients that cannot afford zod in
 * their bundle (the SDK's `@pollkit/sdk/live`, the audience and presenter pages). `npx -y pnpm@10 generate`
 * writes it; `generated:check` (so CI) fails when it is stale.
 */
import { fileURLToPath } from 'node:url';
import { contract, errorCodes, type RouteHead } from '@pollkit/contracts';

export const ROUTE_TABLE_PATH = fileURLToPath(new URL('../../contracts/src/route-table.ts', import.meta.url));

function headOf(route: RouteHead): RouteHead {
  const { method, path, successStatus, auth, format } = route;
  return format === undefined ? { method, path, successStatus, auth } : { method, path, successStatus, auth, format };
}

export function routeTableSource(): string {
  const lines = [
    '// Generated from `contract` (index.ts) by docs/scripts/route-table.ts: do not edit.',
    '// `npx -y pnpm@10 generate` rewrites it; `pnpm check` fails when it is stale.',
    "import type { ErrorCode } from './errors.js';",
    "import type { RouteHead } from './route.js';",
    '',
    '/** Each operation of `contract` as its HTTP shape alone (see {@link RouteHead}): no zod in it. */',
    'export const routeTable = {',
  ];
  for (const [group, routes] of Object.entries(contract)) {
    lines.push(`  ${group}: {`);
    for (const [name, route] of Object.entries(routes)) {
      const head = Object.entries(headOf(route))
        .map(([key, value]) => `${key}: ${typeof value === 'string' ? `'${value}'` : String(value)}`)
        .join(', ');
      lines.push(`    ${name}: { ${head} },`);
    }
    lines.push('  },');
  }
  lines.push('} as const satisfies Record<string, Record<string, RouteHead>>;', '');
  // The SDK's error classes need each code's status only: the registry's descriptions would reach
  // the audience page's bundle (~3.5 KB gzipped) through `@pollkit/sdk/live`.
  lines.push(
    '/** Each error code of the registry (errors.ts) and its HTTP status, without the descriptions. */',
    'export const errorStatuses = {',
    ...Object.entries(errorCodes).map(([code, info]) => `  ${code}: ${info.status},`),
    '} as const satisfies Record<ErrorCode, number>;',
    '',
  );
  return lines.join('\n');
}
