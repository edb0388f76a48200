import { describe, expect, it } from 'vitest';
import { InstructionError, parseInstruction, readInstruction } from '../../src/modules/branching/parser/index.js';
import { checkBranching } from '../../src/modules/polls/branching-rules.js';
import {
  exampleDeck as deck,
  instructionRefusals as refusals,
  instructionExamples as table,
} from '../fixtures/branching/instruction-examples.js';

/**
 * The rule-based instruction parser (modules/branching/parser/), table-driven: each instruction
 * with the conditions it must read, and instructions it must refuse with the words it could not
 * read (fixtures/branching/instruction-examples.ts; docs/branching.md's table comes from
 * fixtures/branching/instruction-table.ts).
 */

describe('the instruction parser reads', () => {
  it.each(table)('%s', (instruction, expected) => {
    const conditions = parseInstruction(instruction, deck);
    expect(conditions).toEqual(expected.map((condition, index) => ({ id: `rule-${index + 1}`, ...condition })));
  });

  it.each(table)('%s: a draft that fits the poll', (instruction) => {
    expect(checkBranching(parseInstruction(instruction, deck), deck)).toEqual([]);
  });

  it('reads at least 40 different instructions', () => {
    expect(new Set(table.map(([instruction]) => instruction)).size).toBeGreaterThanOrEqual(40);
  });
});

describe('the instruction parser refuses', () => {
  it.each(refusals)('%j, quoting what it could not read', (instruction, fragment, expected) => {
    let error: unknown;
    try {
      parseInstruction(instruction, deck);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(InstructionError);
    const refusal = error as InstructionError;
    expect(refusal.fragment).toBe(fragment);
    expect(refusal.expected).toMatch(expected);
    expect(refusal.message).toContain(`"${fragment}"`);
  });
});

describe('typing slips', () => {
  it.each([
    ['If Q2 is belwo 3, skip to Q4', 'belwo', 'below'],
    ['If Q2 is below 3, skpi to Q4', 'skpi', 'skip'],
    ['If they chsoe Sushi on Q1, end the poll', 'chsoe', 'chose'],
  ])('%s is read, and the correction reported', (instruction, from, to) => {
    const reading = readInstruction(instruction, deck);
    expect(reading.conditions.length).toBeGreaterThan(0);
    expect(reading.report.corrected).toEqual([{ from, to }]);
    expect(checkBranching(reading.conditions, deck)).toEqual([]);
  });

  it('a slip that is not one letter of a known word gets the closest reading as a suggestion', () => {
    const suggestion = 'If Q1 is "Pizza", skip to Q3';
    let error: unknown;
    try {
      parseInstruction('If Q1 is "Piza", skip to Q3', deck);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(InstructionError);
    expect((error as InstructionError).suggestion).toBe(suggestion);
    expect((error as InstructionError).message).toContain(`Did you mean "${suggestion}"?`);
    // What it suggests, it reads.
    expect(() => parseInstruction(suggestion, deck)).not.toThrow();
  });

  it('suggests nothing when no small change reads', () => {
    let error: unknown;
    try {
      parseInstruction('If the weather is nice, skip to Q4', deck);
    } catch (caught) {
      error = caught;
    }
    expect((error as InstructionError).suggestion).toBeUndefined();
  });
});
