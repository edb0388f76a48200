import type { BranchCondition, Slide } from '@pollkit/contracts';
import { describe, expect, it } from 'vitest';
import { InstructionError, parseInstruction } from '../../src/modules/branching/parser/index.js';
import { checkBranching } from '../../src/modules/polls/branching-rules.js';
import { instructionTable as table, tableDecks } from '../fixtures/branching/instruction-table.js';
import { scoreEntry, scoreTable } from '../fixtures/branching/instruction-table-score.js';

/**
 * The instruction table as people write skip logic (fixtures/branching/instruction-table.ts), scored
 * against the rule-based parser by scoreTable() (fixtures/branching/instruction-table-score.ts): the
 * table itself (its size, that it covers every slide kind and every operator, that each reading fits
 * its deck), then every entry read as the table says, or refused quoting the words it names first.
 */
const STRICT = true;

const OPERATORS: BranchCondition['if']['operator'][] = [
  'equals',
  'not_equals',
  'includes',
  'greater_than',
  'less_than',
  'at_least',
  'at_most',
  'answered',
  'not_answered',
];

/** A slide's kind, told apart where the kind alone does not say how it is answered. */
function variant(slide: Slide): string {
  if (slide.kind === 'multiple_choice') return `multiple_choice ${slide.type}`;
  if (slide.kind === 'scale') return slide.statements.length > 0 ? 'scale with statements' : 'scale';
  return slide.kind;
}

const readings = table.flatMap((entry) => ('refuse' in entry.expect ? [] : [{ ...entry, rules: entry.expect }]));
const refusals = table.filter((entry) => 'refuse' in entry.expect);

describe('the instruction table', () => {
  it('has at least 150 different entries, 25 of them refusals', () => {
    expect(new Set(table.map((entry) => `${entry.deck}: ${entry.instruction.toLowerCase()}`)).size).toBe(table.length);
    expect(table.length).toBeGreaterThanOrEqual(150);
    expect(refusals.length).toBeGreaterThanOrEqual(25);
  });

  it('uses every deck, and the decks have every slide kind', () => {
    expect(new Set(table.map((entry) => entry.deck))).toEqual(new Set(Object.keys(tableDecks)));
    const kinds = new Set(Object.values(tableDecks).flatMap((deck) => deck.map(variant)));
    expect([...kinds].sort()).toEqual(
      [
        'content',
        'multiple_choice multiple',
        'multiple_choice single',
        'open_ended',
        'qa',
        'quiz',
        'ranking',
        'scale',
        'scale with statements',
      ].sort(),
    );
  });

  it('reads a rule on every kind of answerable slide, and jumps to a content slide', () => {
    const tested = new Set<string>();
    const targets = new Set<string>();
    for (const { deck, rules } of readings) {
      for (const rule of rules) {
        const slides = tableDecks[deck];
        const source = slides.find((slide) => slide.id === rule.if.slideId) as Slide;
        tested.add(variant(source));
        if (rule.then.action === 'skip_to') {
          const target = rule.then.slideId;
          targets.add(variant(slides.find((slide) => slide.id === target) as Slide));
        }
      }
    }
    const answerable = new Set(Object.values(tableDecks).flatMap((deck) => deck.map(variant)));
    answerable.delete('content');
    expect(tested).toEqual(answerable);
    expect(targets.has('content')).toBe(true);
  });

  it('uses every operator', () => {
    const used = new Set(readings.flatMap(({ rules }) => rules.map((rule) => rule.if.operator)));
    expect([...used].sort()).toEqual([...OPERATORS].sort());
  });

  it('expects readings that fit their decks, and refusals that quote the instruction', () => {
    for (const { deck, instruction, rules } of readings) {
      const conditions = rules.map((rule, index) => ({ id: `rule-${index + 1}`, ...rule }));
      expect(checkBranching(conditions, tableDecks[deck]), instruction).toEqual([]);
    }
    for (const { instruction, expect: expected } of refusals) {
      if (!('refuse' in expected)) continue;
      expect(instruction.toLowerCase(), instruction).toContain(expected.refuse.quote.toLowerCase());
    }
  });

  it('is scored: the parser reads some of it', () => {
    const score = scoreTable();
    expect(score.total).toBe(table.length);
    expect(score.readings.total + score.refusals.total).toBe(table.length);
    expect(score.passed).toBe(score.readings.passed + score.refusals.passed);
    console.info(
      `instruction table: read ${score.passed} of ${score.total} (readings ${score.readings.passed}/${score.readings.total}, refusals ${score.refusals.passed}/${score.refusals.total})`,
    );
  });
});

describe('the parser reads the instruction table', () => {
  it.skipIf(!STRICT).each(table.map((entry) => [`[${entry.deck}] ${entry.instruction}`, entry] as const))(
    '%s',
    (_name, entry) => {
      const result = scoreEntry(entry);
      expect(result.problem, result.answer).toBeUndefined();
      expect(result.passed).toBe(true);
    },
  );

  it('reads all of it', () => {
    const score = scoreTable();
    expect(score.passed).toBe(score.total);
  });
});

describe('a refusal of the table', () => {
  const refusals = table.filter((entry) => 'refuse' in entry.expect);
  it.each(refusals.map((entry) => [entry.instruction, entry] as const))(
    '%s: quotes the user’s words',
    (_name, entry) => {
      let error: unknown;
      try {
        parseInstruction(entry.instruction, tableDecks[entry.deck]);
      } catch (caught) {
        error = caught;
      }
      expect(error).toBeInstanceOf(InstructionError);
      const refusal = error as InstructionError;
      // The message quotes the words, as the user wrote them (the fragment is a slice of the instruction).
      expect(refusal.message).toContain(`"${refusal.fragment}"`);
      expect(entry.instruction).toContain(refusal.fragment.replace(/…$/, ''));
    },
  );
});
