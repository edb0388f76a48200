/**
 * The rule-based skip-logic parser (server/src/modules/branching/parser/), in process: the time to
 * read one instruction, p50 / p99 / max over every instruction of the instruction table and the
 * blind development set (server/test/fixtures/branching/), and hostile instructions of 2,000
 * characters (the route's limit). Each round reads every instruction once; rounds are timed with
 * process.cpuUsage (time waiting for a core does not count) and the median round is printed.
 *
 *   npx tsx --conditions=@pollkit/source server/bench/instruction-parser.ts [rounds]
 *
 * With BENCH_PARSER_BEFORE=<path of an earlier instruction-parser.ts> (`git show
 * fd76b8a:server/src/modules/branching/instruction-parser.ts > /tmp/old.ts`), the earlier parser
 * reads the same instructions in alternating rounds, for a before/after.
 */
import type { Slide } from '@pollkit/contracts';
import { readInstruction } from '../src/modules/branching/parser/index.js';
import { blindDecks, blindSet } from '../test/fixtures/branching/blind-score.js';
import { instructionTable, tableDecks } from '../test/fixtures/branching/instruction-table.js';

const rounds = Number(process.argv[2] ?? 7);

const instructions: { text: string; deck: readonly Slide[] }[] = [
  ...instructionTable.map((entry) => ({ text: entry.instruction, deck: tableDecks[entry.deck] })),
  ...blindSet('dev').map((entry) => ({ text: entry.instruction, deck: blindDecks[entry.deck] as Slide[] })),
];
const hostile: { name: string; text: string }[] = [
  { name: '"skip " × 400', text: 'skip '.repeat(400) },
  { name: '"if nps 1 or " × 150', text: `If ${'nps 1 or '.repeat(150)}2 -> why` },
  { name: 'clauses: "Q1 = Free -> end." × 100', text: 'Q1 = Free -> end. '.repeat(100) },
  { name: 'one 2,000-letter word', text: 'x'.repeat(2000) },
  { name: 'emoji × 500', text: '🙌 '.repeat(500) },
];

type Read = (text: string, deck: readonly Slide[]) => unknown;
const current: Read = (text, deck) => readInstruction(text, deck);
const before: Read | undefined = process.env.BENCH_PARSER_BEFORE
  ? await import(process.env.BENCH_PARSER_BEFORE).then(
      (module) => (text: string, deck: readonly Slide[]) => module.parseInstruction(text, deck),
    )
  : undefined;

function attempt(read: Read, text: string, deck: readonly Slide[]): void {
  try {
    read(text, deck);
  } catch {
    // A refusal is an answer too.
  }
}

/** µs of CPU per instruction, one round over all of them; each instruction's own µs in `times`. */
function round(read: Read, times: number[][]): void {
  instructions.forEach(({ text, deck }, index) => {
    const started = process.cpuUsage();
    attempt(read, text, deck);
    const used = process.cpuUsage(started);
    (times[index] as number[]).push(used.user + used.system);
  });
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
}

function summary(times: number[][]): { p50: number; p99: number; max: number } {
  // Each instruction's median over the rounds, then the percentiles across instructions.
  const medians = times
    .map((t) => [...t].sort((a, b) => a - b)[Math.floor(t.length / 2)] as number)
    .sort((a, b) => a - b);
  return { p50: percentile(medians, 50), p99: percentile(medians, 99), max: medians.at(-1) as number };
}

const fmt = (us: number) => (us >= 1000 ? `${(us / 1000).toFixed(2)} ms` : `${us.toFixed(0)} µs`);

for (const read of [current, before].filter(Boolean) as Read[])
  for (const { text, deck } of instructions) attempt(read, text, deck);
const now = instructions.map(() => [] as number[]);
const then = instructions.map(() => [] as number[]);
for (let r = 0; r < rounds; r++) {
  // Alternating, and which goes first alternates too.
  const order = r % 2 === 0 ? [current, before] : [before, current];
  for (const read of order) if (read) round(read, read === current ? now : then);
}

console.log(
  `${instructions.length} instructions (the table and the blind development set), ${rounds} rounds; CPU time per instruction`,
);
const s = summary(now);
console.log(`| parser | p50 | p99 | max |\n| --- | ---: | ---: | ---: |`);
console.log(`| this one | ${fmt(s.p50)} | ${fmt(s.p99)} | ${fmt(s.max)} |`);
if (before) {
  const b = summary(then);
  console.log(`| before (${process.env.BENCH_PARSER_BEFORE}) | ${fmt(b.p50)} | ${fmt(b.p99)} | ${fmt(b.max)} |`);
}
console.log('\nHostile instructions (this parser), median of rounds:');
for (const { name, text } of hostile) {
  const deck = blindDecks.product as Slide[];
  const used: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const started = process.cpuUsage();
    attempt(current, text, deck);
    const cpu = process.cpuUsage(started);
    used.push(cpu.user + cpu.system);
  }
  console.log(
    `- ${name} (${text.length} characters): ${fmt([...used].sort((a, b) => a - b)[Math.floor(rounds / 2)] as number)}`,
  );
}
