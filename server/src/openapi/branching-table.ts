/**
 * The tables of docs/branching.md that show the instruction language: every example instruction of
 * the parser's table (modules/branching/instruction-examples.ts) with the conditions the parser reads
 * from it, and every refusal with the message it answers, both produced by running the parser now.
 * `npx -y pnpm@10 generate` (contract-artifacts.ts) rewrites them between their markers; `generated:check` fails
 * when they are stale.
 */
import { fileURLToPath } from 'node:url';
import type { BranchCondition } from '@pollkit/contracts';
import { withGeneratedBlock } from '../core/generated-block.js';
import { exampleDeck, instructionExamples, instructionRefusals } from '../modules/branching/instruction-examples.js';
import { InstructionError, parseInstruction } from '../modules/branching/instruction-parser.js';

export const BRANCHING_DOC_PATH = fileURLToPath(new URL('../../../docs/branching.md', import.meta.url));
const READS_START =
  '<!-- branching-examples:start (generated from modules/branching/instruction-examples.ts by server/src/openapi/branching-table.ts) -->';
const READS_END = '<!-- branching-examples:end -->';
const REFUSALS_START =
  '<!-- branching-refusals:start (generated from modules/branching/instruction-examples.ts by server/src/openapi/branching-table.ts) -->';
const REFUSALS_END = '<!-- branching-refusals:end -->';

function cell(text: string): string {
  return text.replace(/\|/g, '\\|');
}

function describeCondition(condition: BranchCondition): string {
  const { slideId, operator, value } = condition.if;
  const test = value === undefined ? operator : `${operator} ${JSON.stringify(value)}`;
  const then = condition.then.action === 'end' ? 'end' : `skip_to ${condition.then.slideId}`;
  return `\`${slideId} ${test} → ${then}\``;
}

function readsTable(): string {
  const rows = instructionExamples.map(([instruction]) => {
    const conditions = parseInstruction(instruction, exampleDeck);
    return `| ${cell(instruction)} | ${conditions.map(describeCondition).join('<br>')} |`;
  });
  return ['| Instruction | Conditions |', '| --- | --- |', ...rows].join('\n');
}

function refusalsTable(): string {
  const rows = instructionRefusals.map(([instruction]) => {
    let message = '(read)';
    try {
      parseInstruction(instruction, exampleDeck);
    } catch (error) {
      if (error instanceof InstructionError) message = error.message;
    }
    return `| ${instruction === '' ? '(empty)' : cell(instruction)} | ${cell(message)} |`;
  });
  return ['| Instruction | 422 message |', '| --- | --- |', ...rows].join('\n');
}

/** The document with both tables regenerated. */
export function withBranchingTables(document: string): string {
  const reads = withGeneratedBlock(
    document,
    { start: READS_START, end: READS_END, where: 'docs/branching.md' },
    readsTable(),
  );
  return withGeneratedBlock(
    reads,
    { start: REFUSALS_START, end: REFUSALS_END, where: 'docs/branching.md' },
    refusalsTable(),
  );
}
