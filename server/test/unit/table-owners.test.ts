import { readdirSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/schema.js';
import { TABLE_OWNERS } from '../../src/db/table-owners.js';

/**
 * Every table has one owner (server/src/db/table-owners.ts): only files under its module's folder
 * query it. This reads every file of server/src for the tables it names — in Kysely's builder calls
 * and in raw `sql` text — and fails on a file that names a table of another module. `pnpm tables`
 * runs it, and `pnpm check` runs that. dependency-cruiser (`pnpm layers`) keeps modules out of each
 * other's repository files; this keeps them out of each other's tables, whatever file the query is in.
 */

type Table = keyof Database;

const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const SRC = join(REPO_ROOT, 'server/src');
/** The schema's history: each migration creates and changes tables of any module, by nature. */
const MIGRATIONS = 'server/src/db/migrations/';

/**
 * Where a file names another module's table on purpose, with why: file (from the repository root)
 * → table → reason. An entry no longer needed fails the test, so the list only shrinks.
 */
const EXEMPT: Record<string, Partial<Record<Table, string>>> = {
  // The answer batch is ONE prepared statement by design (atomic, one round trip, a fixed text planned
  // once per connection: see the comment above `insertAnswerBatch`). Split, it would lose what it is for.
  'server/src/modules/answers/answer-batch.repository.ts': {
    polls:
      'its first step locks the answered polls FOR SHARE: what makes a reset, an erasure or a deck ' +
      'change (which hold the poll FOR UPDATE) wait for a batch in flight, and the batch see their result',
    webhook_endpoints:
      'its last step writes the outbox rows of the answers it inserted, per subscribed endpoint of the ' +
      "poll's workspace, so an answer and its event commit together (modules/webhooks names the rows " +
      'with `eventBatchId` and fans them out: outbox.repository.ts `fanOutEventBatches`)',
    webhook_event_batches: 'as webhook_endpoints: the outbox rows the batch writes',
  },
};

/**
 * Builder calls whose first argument names a table: queries, joins, and `with`, whose name would
 * shadow a table of that name; `sql.table(…)` in raw text.
 */
const TABLE_CALLS = new Set([
  'selectFrom',
  'insertInto',
  'replaceInto',
  'updateTable',
  'deleteFrom',
  'mergeInto',
  'with',
  'withRecursive',
  'innerJoin',
  'leftJoin',
  'rightJoin',
  'fullJoin',
  'crossJoin',
  'innerJoinLateral',
  'leftJoinLateral',
  'crossJoinLateral',
  'using',
  'table',
]);

/**
 * Raw SQL (the text of `sql` templates and of `sql.raw('…')`): the word after which a table is
 * named (`from answers`, `join polls p`, `insert into …`, `update …`, `delete from …`,
 * `merge into …`, `delete … using …`), quoted or not. `-- comments` are left out.
 */
const RAW_TABLE_REFERENCE = /\b(?:from|join|into|update|using)\s+"?([a-z_][a-z0-9_]*)"?/g;

interface Touch {
  /** From the repository root. */
  file: string;
  line: number;
  table: Table;
  /** How the file names it: `selectFrom('answers')`, `sql: from answers`. */
  how: string;
}

interface Scan {
  touches: Touch[];
  /** Table arguments the type checker cannot narrow to names: each could be any table. */
  unresolved: string[];
}

function isTable(name: string): name is Table {
  return Object.hasOwn(TABLE_OWNERS, name);
}

/** `answers as a` → `answers`. */
function tableOf(reference: string): string {
  return reference.trim().split(/\s+/)[0] ?? '';
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

function scanSources(): Scan {
  const files = sourceFiles(SRC);
  const config = ts.getParsedCommandLineOfConfigFile(
    join(REPO_ROOT, 'server/tsconfig.json'),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
        throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
      },
    },
  );
  if (!config) throw new Error('server/tsconfig.json does not parse');
  const program = ts.createProgram(files, config.options);
  const checker = program.getTypeChecker();
  const scan: Scan = { touches: [], unresolved: [] };

  for (const path of files) {
    const file = relative(REPO_ROOT, path).split(sep).join('/');
    if (file.startsWith(MIGRATIONS)) continue;
    const source = program.getSourceFile(path);
    if (!source) throw new Error(`${file} is not in the program`);
    const lineOf = (node: ts.Node) => source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;

    /** The table names an argument can hold: a literal, an array of them, or a union type of them. */
    const namesOf = (argument: ts.Expression): string[] | undefined => {
      if (ts.isStringLiteralLike(argument)) return [argument.text];
      if (ts.isArrayLiteralExpression(argument)) return argument.elements.flatMap((e) => namesOf(e) ?? []);
      const type = checker.getTypeAtLocation(argument);
      const members = type.isUnion() ? type.types : [type];
      if (members.every((member) => member.isStringLiteral())) {
        return members.map((member) => (member as ts.StringLiteralType).value);
      }
      // A builder (a subquery, a callback) names no table itself; a plain string could name any.
      return members.some((member) => member.flags & ts.TypeFlags.String) ? undefined : [];
    };

    const readRawSql = (node: ts.Node, text: string) => {
      const withoutComments = text.replace(/--[^\n]*/g, '').toLowerCase();
      for (const match of withoutComments.matchAll(RAW_TABLE_REFERENCE)) {
        const name = match[1] ?? '';
        if (isTable(name)) {
          scan.touches.push({ file, line: lineOf(node), table: name, how: `sql: ${match[0].replace(/\s+/g, ' ')}` });
        }
      }
    };

    const visit = (node: ts.Node): void => {
      if (
        ts.isCallExpression(node) &&
        ts.isPropertyAccessExpression(node.expression) &&
        TABLE_CALLS.has(node.expression.name.text) &&
        node.arguments[0]
      ) {
        const call = node.expression.name.text;
        const argument = node.arguments[0];
        const names = namesOf(argument);
        if (names === undefined) {
          scan.unresolved.push(`${file}:${lineOf(node)} ${call}(${argument.getText(source)})`);
        } else {
          for (const name of names.map(tableOf)) {
            if (isTable(name)) scan.touches.push({ file, line: lineOf(node), table: name, how: `${call}('${name}')` });
          }
        }
      }
      if (ts.isTaggedTemplateExpression(node) && node.tag.getText(source) === 'sql') {
        const template = node.template;
        // The literal parts, each interpolation a placeholder no table name matches.
        readRawSql(
          node,
          ts.isNoSubstitutionTemplateLiteral(template)
            ? template.text
            : [template.head.text, ...template.templateSpans.map((span) => ` $ ${span.literal.text}`)].join(''),
        );
      }
      if (
        ts.isCallExpression(node) &&
        node.expression.getText(source) === 'sql.raw' &&
        node.arguments[0] &&
        ts.isStringLiteralLike(node.arguments[0])
      ) {
        readRawSql(node, node.arguments[0].text);
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return scan;
}

/** The module a file belongs to: its folder under server/src/modules, if it is in one. */
function moduleOf(file: string): string | undefined {
  return /^server\/src\/modules\/([^/]+)\//.exec(file)?.[1];
}

function violationMessage(touch: Touch): string {
  const owner = TABLE_OWNERS[touch.table];
  const place = moduleOf(touch.file);
  return [
    `${touch.file}:${touch.line} ${touch.how}: \`${touch.table}\` is the ${owner} module's table`,
    `(server/src/db/table-owners.ts)${place ? `, not the ${place} module's` : ''}.`,
    `Call the ${owner} service instead (what server/src/modules/${owner}/ exports to other modules),`,
    `adding the query to the ${owner} repository and a function for it to the service if none fits;`,
    'a function that runs in the caller’s transaction takes its `Db` as the first argument. If the',
    `${owner} module depends on this one, deps.ts hands the function in (as \`answeredPolls\` is).`,
  ].join(' ');
}

let scan: Scan;

describe('table ownership', () => {
  // Parsing and binding every file of server/src (and the types they use) takes seconds: once.
  beforeAll(() => {
    scan = scanSources();
  });

  it('names a module folder for every owner', () => {
    const modules = new Set(
      readdirSync(join(SRC, 'modules'), { withFileTypes: true })
        .filter((entry) => entry.isDirectory())
        .map((entry) => entry.name),
    );
    expect(Object.values(TABLE_OWNERS).filter((owner) => !modules.has(owner))).toEqual([]);
  });

  it('sees the tables a file names however it names them', () => {
    const seen = (file: string, table: Table, how: RegExp) =>
      scan.touches.some((t) => t.file === `server/src/modules/${file}` && t.table === table && how.test(t.how));
    // A literal, and one with an alias in a join.
    expect(seen('answers/answer-removal.repository.ts', 'answers', /^selectFrom/)).toBe(true);
    expect(seen('answers/respondent-answers.repository.ts', 'answers', /^innerJoin/)).toBe(true);
    // A union-typed variable, in a loop over a constant array and in `sql.table(…)`.
    expect(seen('answers/answers.repository.ts', 'word_counts', /^deleteFrom/)).toBe(true);
    expect(seen('answers/answer-removal.repository.ts', 'session_text_counts', /^table/)).toBe(true);
    // Raw text, and a table named in an interpolation (`${sql.table(…)}` above) rather than in it.
    expect(seen('answers/answer-batch.repository.ts', 'session_word_counts', /^sql: into/)).toBe(true);
    expect(seen('webhooks/delivery.repository.ts', 'webhook_endpoints', /^sql: join/)).toBe(true);
  });

  it('can tell which table every builder call names', () => {
    expect(scan.unresolved, 'type these as a union of table names').toEqual([]);
  });

  it('leaves each table to its owner', () => {
    const violations = scan.touches.filter(
      (touch) => moduleOf(touch.file) !== TABLE_OWNERS[touch.table] && !EXEMPT[touch.file]?.[touch.table],
    );
    expect(violations.map(violationMessage), 'a module queries a table it does not own').toEqual([]);
  });

  it('exempts only what still needs it', () => {
    const needed = new Set(scan.touches.map((touch) => `${touch.file} ${touch.table}`));
    const stale = Object.entries(EXEMPT).flatMap(([file, tables]) =>
      Object.keys(tables)
        .filter((table) => !needed.has(`${file} ${table}`))
        .map((table) => `${file} ${table}`),
    );
    expect(stale, 'remove these exemptions').toEqual([]);
  });
});
