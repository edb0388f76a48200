/**
 * The table of error codes in docs/errors.md, generated from the registry (contracts/src/errors.ts):
 * `npx -y pnpm@10 generate` (contract-artifacts.ts) rewrites it between its markers, `generated:check` (part
 * of `pnpm check`) and server/test/api/errors.test.ts fail when the committed table is stale. A code added
 * to the registry is in the document the moment it exists, with the words the OpenAPI document uses.
 */
import { fileURLToPath } from 'node:url';
import { type ErrorCode, errorCodes } from '@pollkit/contracts';
import { withGeneratedBlock } from './generated-block.js';

export const ERRORS_DOC_PATH = fileURLToPath(new URL('../errors.md', import.meta.url));
const ERROR_TABLE_START =
  '<!-- error-table:start (generated from contracts/src/errors.ts by docs/scripts/error-table.ts) -->';
const ERROR_TABLE_END = '<!-- error-table:end -->';

/** One row per code, by status, in the registry's order within a status. */
export function errorTableMarkdown(): string {
  const codes = (Object.keys(errorCodes) as ErrorCode[])
    .map((code, index) => ({ code, index, ...errorCodes[code] }))
    .sort((a, b) => a.status - b.status || a.index - b.index);
  return [
    '| Status | Code | When |',
    '| --- | --- | --- |',
    ...codes.map(({ status, code, description }) => `| ${status} | \`${code}\` | ${description} |`),
  ].join('\n');
}

/** The document with its table block replaced by the generated one. */
export function withErrorTable(document: string): string {
  const markers = { start: ERROR_TABLE_START, end: ERROR_TABLE_END, where: 'docs/errors.md' };
  return withGeneratedBlock(document, markers, errorTableMarkdown());
}
