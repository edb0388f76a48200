/**
 * How well the rule-based parser reads skip logic, on one of its sets:
 *
 *   npx -y pnpm@10 parser:score --set table|dev|holdout-1 … holdout-5 [--failures]
 *
 * - `table`: the instruction table (server/test/fixtures/branching/instruction-table.ts), as phrased
 *   by survey tools' help pages: "read N of M (readings a/b, refusals c/d)".
 * - `dev`, `holdout`: the blind sets (server/test/fixtures/branching/blind/), written by people who
 *   had not seen the parser: how many of the instructions that skip logic can say were understood,
 *   misread or refused, and how many of those it cannot say were refused for the writer's reason.
 *   The holdout is scored, never tuned on.
 *
 * With `--failures`, each entry that failed, what the parser answered and what was meant.
 */
import { type BlindSetName, blindSet, scoreBlindSet } from '../test/fixtures/branching/blind-score.js';
import { scoreTable } from '../test/fixtures/branching/instruction-table-score.js';

const args = process.argv.slice(2);
const set = args[args.indexOf('--set') + 1] ?? 'table';
const failures = args.includes('--failures');
const percent = (part: number, whole: number) => `${((100 * part) / Math.max(whole, 1)).toFixed(1)} %`;

if (set === 'table') {
  const score = scoreTable();
  console.log(
    `read ${score.passed} of ${score.total} (readings ${score.readings.passed}/${score.readings.total}, refusals ${score.refusals.passed}/${score.refusals.total})`,
  );
  if (failures) {
    for (const result of score.results) {
      if (result.passed) continue;
      console.log(`\n[${result.entry.deck}] ${result.entry.instruction}`);
      console.log(`  parser: ${result.answer}`);
      console.log(`  wrong:  ${result.problem}`);
    }
  }
} else if (set === 'dev' || set.startsWith('holdout-')) {
  const { expressible: e, impossible: i, results } = scoreBlindSet(blindSet(set as BlindSetName));
  console.log(`${set}: ${results.length} instructions`);
  console.log(
    `  expressible ${e.total}: understood ${e.understood} (${percent(e.understood, e.total)}), misread ${e.misread}, refused ${e.refused}`,
  );
  console.log(
    `  impossible ${i.total}: refused for the real reason ${i.right} (${percent(i.right, i.total)}), for another ${i.wrong}, drafted ${i.misread}`,
  );
  if (failures) {
    for (const { entry, verdict, answer } of results) {
      if (verdict === 'understood' || verdict === 'refused_right') continue;
      const meant =
        'rules' in entry.expect
          ? entry.expect.rules
              .map(
                (rule) =>
                  `${rule.slide} ${rule.op}${rule.value === undefined ? '' : ` ${JSON.stringify(rule.value)}`} → ${rule.to}`,
              )
              .join('; ')
          : `refuse (${entry.expect.refuse})`;
      console.log(`\n${entry.id} [${entry.deck}] ${verdict}: ${entry.instruction}`);
      console.log(`  meant:  ${meant}`);
      console.log(`  parser: ${answer}`);
    }
  }
} else {
  console.error(`--set takes table, dev or holdout-1 … holdout-5 (got '${set}')`);
  process.exit(2);
}
