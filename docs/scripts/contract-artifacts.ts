/**
 * What is generated from the contracts and the server's own tables (its OpenAPI document,
 * server/src/openapi/document.ts; its scopes' descriptions, server/src/modules/oauth/scope-descriptions.ts):
 * docs/openapi.json, the error table in docs/errors.md, the scope table in docs/authentication.md, the
 * deck file's JSON Schema (docs/deck.schema.json) and the schema-free route table
 * contracts/src/route-table.ts. docs/scripts/generate.ts (`npx -y pnpm@10 generate`) writes them with the
 * docs' generated pages; `generated:check` (part of `pnpm check`) names each one that is stale. None of
 * it runs in the server: these generators live here, outside server/src.
 */
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openApiJson } from '../../server/src/openapi/document.js';
import { DECK_SCHEMA_PATH, deckSchemaJson } from './deck-schema.js';
import { ERRORS_DOC_PATH, withErrorTable } from './error-table.js';
import { ROUTE_TABLE_PATH, routeTableSource } from './route-table.js';
import { AUTHENTICATION_DOC_PATH, withScopeTable } from './scope-table.js';

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const OPENAPI_JSON_PATH = fileURLToPath(new URL('../openapi.json', import.meta.url));
export const STALE_MESSAGE = 'docs/openapi.json is stale: run `npx -y pnpm@10 generate` and commit the result.';

/** Each file: where it is, and its content made from what is committed there now (a block inside a page). */
const generators: { path: string; generate: (committed: string) => string }[] = [
  { path: OPENAPI_JSON_PATH, generate: () => openApiJson() },
  { path: ERRORS_DOC_PATH, generate: withErrorTable },
  { path: AUTHENTICATION_DOC_PATH, generate: withScopeTable },
  { path: ROUTE_TABLE_PATH, generate: routeTableSource },
  { path: DECK_SCHEMA_PATH, generate: deckSchemaJson },
];

/**
 * Every file generated from the contracts, by its path from the repository's root, with its
 * content; `committed` reads what the repository holds at such a path now.
 */
export async function contractArtifacts(
  committed: (path: string) => Promise<string | undefined>,
): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  for (const { path, generate } of generators) {
    const name = relative(REPO_ROOT, path).split('\\').join('/');
    files.set(name, generate((await committed(name)) ?? ''));
  }
  return files;
}
