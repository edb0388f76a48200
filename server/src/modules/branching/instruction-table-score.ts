import type { BranchCondition } from '@pollkit/contracts';
import { checkBranching } from '../polls/branching-rules.js';
import { InstructionError, parseInstruction } from './instruction-parser.js';
import { instructionTable, type TableEntry, type TableRule, tableDecks } from './instruction-table.js';

/**
 * How much of instruction-table.ts the parser (instruction-parser.ts) reads: each reading must come
 * out as exactly its conditions (ids aside; `includes` of one option counts as `equals` it) and
 * fit its deck (`checkBranching` finds no problem); each refusal must be an `InstructionError`
 * whose `fragment` starts with the quoted words (case and an opening quotation mark aside): a
 * refusal that stopped earlier, for another reason, quotes more than the words at fault and fails. server/test/branching-table.test.ts and
 * server/scripts/parser-score.ts use it.
 */

export interface EntryResult {
  entry: TableEntry;
  passed: boolean;
  /** What the parser answered: its conditions, or its refusal. */
  answer: string;
  /** Why the entry failed, when it did. */
  problem?: string;
}

export interface TableScore {
  passed: number;
  total: number;
  readings: { passed: number; total: number };
  refusals: { passed: number; total: number };
  results: EntryResult[];
}

/** A rule as compared: without its id, one-option `includes` as `equals`. */
function canonical(rule: TableRule): TableRule {
  const { slideId, operator, value } = rule.if;
  const single = operator === 'includes' && Array.isArray(value) && value.length === 1;
  return {
    if: single ? { slideId, operator: 'equals', value: value[0] as string } : { ...rule.if },
    // biome-ignore lint/suspicious/noThenProperty: `then` is the field name of the rule's action.
    then: rule.then,
  };
}

export function describeRules(rules: readonly TableRule[]): string {
  return rules
    .map(({ if: { slideId, operator, value }, then }) => {
      const test = value === undefined ? operator : `${operator} ${JSON.stringify(value)}`;
      return `${slideId} ${test} → ${then.action === 'end' ? 'end' : `skip_to ${then.slideId}`}`;
    })
    .join('; ');
}

/** Whether the refusal's quoted words start with `quote` (case and opening quotation marks aside). */
function quotesFirst(fragment: string, quote: string): boolean {
  const plain = (text: string) => text.toLowerCase().replace(/^["“'‘]+/, '');
  return plain(fragment).startsWith(plain(quote));
}

/** Scores one entry against the parser as it is. */
export function scoreEntry(entry: TableEntry): EntryResult {
  const deck = tableDecks[entry.deck];
  let conditions: BranchCondition[] | undefined;
  let refusal: InstructionError | undefined;
  try {
    conditions = parseInstruction(entry.instruction, deck);
  } catch (error) {
    if (!(error instanceof InstructionError)) {
      return { entry, passed: false, answer: `threw ${String(error)}`, problem: 'not an InstructionError' };
    }
    refusal = error;
  }
  const answer = conditions
    ? `read: ${describeRules(conditions)}`
    : `refused: "${refusal?.fragment}" (expected ${refusal?.expected})`;
  if ('refuse' in entry.expect) {
    if (!refusal) return { entry, passed: false, answer, problem: 'read it instead of refusing' };
    const passed = quotesFirst(refusal.fragment, entry.expect.refuse.quote);
    return passed
      ? { entry, passed, answer }
      : { entry, passed, answer, problem: `the refusal does not quote "${entry.expect.refuse.quote}"` };
  }
  if (!conditions) return { entry, passed: false, answer, problem: 'refused it' };
  const got = conditions.map(({ id: _id, ...rule }) => canonical(rule));
  const wanted = entry.expect.map(canonical);
  if (JSON.stringify(got) !== JSON.stringify(wanted)) {
    return { entry, passed: false, answer, problem: `wrong reading: expected ${describeRules(entry.expect)}` };
  }
  const problems = checkBranching(conditions, deck);
  if (problems.length > 0) {
    return { entry, passed: false, answer, problem: `does not fit the deck: ${problems[0]?.message}` };
  }
  return { entry, passed: true, answer };
}

export function scoreTable(table: readonly TableEntry[] = instructionTable): TableScore {
  const results = table.map(scoreEntry);
  const count = (refusals: boolean) => {
    const of = results.filter((result) => 'refuse' in result.entry.expect === refusals);
    return { passed: of.filter((result) => result.passed).length, total: of.length };
  };
  return {
    passed: results.filter((result) => result.passed).length,
    total: results.length,
    readings: count(false),
    refusals: count(true),
    results,
  };
}
