/**
 * How much of the instruction table (server/src/modules/branching/instruction-table.ts) the
 * rule-based parser reads today:
 *
 *   npx tsx --conditions=@pollkit/source server/scripts/parser-score.ts [--failures]
 *
 * prints "read N of M (readings a/b, refusals c/d)"; with `--failures`, each failing entry, what the
 * parser answered and what was wrong.
 */
import { scoreTable } from '../src/modules/branching/instruction-table-score.js';

const score = scoreTable();
console.log(
  `read ${score.passed} of ${score.total} (readings ${score.readings.passed}/${score.readings.total}, refusals ${score.refusals.passed}/${score.refusals.total})`,
);
if (process.argv.includes('--failures')) {
  for (const result of score.results) {
    if (result.passed) continue;
    console.log(`\n[${result.entry.deck}] ${result.entry.instruction}`);
    console.log(`  parser: ${result.answer}`);
    console.log(`  wrong:  ${result.problem}`);
  }
}
