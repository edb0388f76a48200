/**
 * The table of docs/branching.md that shows the instruction language: every instruction of the
 * parser's table (server/test/fixtures/branching/instruction-table.ts, skip logic as people write it), deck by
 * deck, with the conditions the parser reads from it or the message it refuses it with, both
 * produced by running the parser now. `npx -y pnpm@10 generate` (docs/scripts/generate.ts) rewrites it
 * between its markers; `generated:check` fails when it is stale.
 */
import { fileURLToPath } from 'node:url';
import type { BranchCondition, Slide } from '@pollkit/contracts';
import { InstructionError, parseInstruction } from '../../server/src/modules/branching/parser/index.js';
import { type DeckName, instructionTable, tableDecks } from '../../server/test/fixtures/branching/instruction-table.js';
import { withGeneratedBlock } from './generated-block.js';

export const BRANCHING_DOC_PATH = fileURLToPath(new URL('../branching.md', import.meta.url));
const TABLE_START =
  '<!-- branching-table:start (generated from server/test/fixtures/branching/instruction-table.ts by docs/scripts/branching-table.ts) -->';
const TABLE_END = '<!-- branching-table:end -->';

/** What each deck of the table is, as the docs introduce it. */
const DECK_TITLES: Record<DeckName, string> = {
  event: 'An event feedback survey',
  product: 'A product survey (NPS)',
  quiz: 'A classroom quiz',
  onboarding: 'An onboarding form (each slide a "section")',
};

function cell(text: string): string {
  return text.replace(/\|/g, '\\|');
}

function describeCondition(condition: BranchCondition): string {
  const { slideId, operator, value } = condition.if;
  const test = value === undefined ? operator : `${operator} ${JSON.stringify(value)}`;
  const then = condition.then.action === 'end' ? 'end' : `skip_to ${condition.then.slideId}`;
  return `\`${slideId} ${test} → ${then}\``;
}

/** A deck's slides as one line each: id, number, kind, and what it can be answered with. */
function deckLines(slides: readonly Slide[]): string[] {
  let question = 0;
  return slides.map((slide, index) => {
    const number = slide.kind === 'content' ? `slide ${index + 1}` : `Q${++question}, slide ${index + 1}`;
    let answers = '';
    if ('options' in slide) answers = `: ${slide.options.map((option) => `${option.id} "${option.label}"`).join(', ')}`;
    if (slide.kind === 'scale') {
      answers =
        slide.statements.length > 0 ? `: ${slide.statements.length} statements` : `: ${slide.min} to ${slide.max}`;
    }
    const kind = slide.kind === 'multiple_choice' ? `${slide.type} choice` : slide.kind.replace('_', '-');
    return `- \`${slide.id}\` (${number}), ${kind}, "${cell(slide.text)}"${cell(answers)}`;
  });
}

/** Each deck, then its instructions with what the parser reads from them or answers. */
function instructionTableDoc(): string {
  const sections: string[] = [];
  for (const [deck, slides] of Object.entries(tableDecks) as [DeckName, Slide[]][]) {
    const rows = instructionTable
      .filter((entry) => entry.deck === deck)
      .map((entry) => {
        let read: string;
        try {
          read = parseInstruction(entry.instruction, slides).map(describeCondition).join('<br>');
        } catch (error) {
          if (!(error instanceof InstructionError)) throw error;
          read = `refused (422): ${error.message}`;
        }
        return `| ${cell(entry.instruction)} | ${cell(read)} |`;
      });
    sections.push(
      `#### ${DECK_TITLES[deck]}`,
      '',
      ...deckLines(slides),
      '',
      '| Instruction | What the parser reads |',
      '| --- | --- |',
      ...rows,
      '',
    );
  }
  return sections.join('\n').trimEnd();
}

/** The document with the table regenerated. */
export function withBranchingTables(document: string): string {
  return withGeneratedBlock(
    document,
    { start: TABLE_START, end: TABLE_END, where: 'docs/branching.md' },
    instructionTableDoc(),
  );
}
