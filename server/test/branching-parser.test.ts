import type { BranchCondition } from '@pollkit/contracts';
import { describe, expect, it } from 'vitest';
import { checkBranching } from '../src/modules/branching/branching-rules.js';
import { InstructionError, parseInstruction } from '../src/modules/branching/instruction-parser.js';
import { branchingDeck as deck } from './support/branching-deck.js';

/**
 * The rule-based instruction parser (modules/branching/instruction-parser.ts), table-driven: each
 * instruction with the conditions it must read, and instructions it must refuse with the words it
 * could not read. Questions are numbered without the content slides; slides with them.
 */

type Then = { to: string } | 'end';
function rule(slideId: string, operator: BranchCondition['if']['operator'], value: unknown, then: Then) {
  return {
    if: value === undefined ? { slideId, operator } : { slideId, operator, value },
    // biome-ignore lint/suspicious/noThenProperty: `then` is the field name of the rule's action.
    then: then === 'end' ? { action: 'end' } : { action: 'skip_to', slideId: then.to },
  };
}

const table: [string, ReturnType<typeof rule>[]][] = [
  ['If Q2 is below 3, skip to Q4', [rule('mood', 'less_than', 3, { to: 'drinks' })]],
  ['if question 2 is at least 4 then jump to question 6', [rule('mood', 'at_least', 4, { to: 'feedback' })]],
  ['If slide 3 is rated 5, go to slide 7', [rule('mood', 'equals', 5, { to: 'feedback' })]],
  ['If the second question is 1, end the poll', [rule('mood', 'equals', 1, 'end')]],
  ['If Q1 is "Pizza", skip to Q3', [rule('lunch', 'equals', 'pizza', { to: 'capital' })]],
  ['If Q1 is sushi, skip to Q4', [rule('lunch', 'equals', 'sushi', { to: 'drinks' })]],
  ['If they chose "Tacos" on Q1, end the survey', [rule('lunch', 'equals', 'tacos', 'end')]],
  [
    'If they chose any of "Water", "Juice" on Q4, skip to Q6',
    [rule('drinks', 'includes', ['water', 'juice'], { to: 'feedback' })],
  ],
  ['If Q4 is any of "Water" or "Soda", jump to Q7', [rule('drinks', 'includes', ['water', 'soda'], { to: 'ask' })]],
  ['If they did not answer Q2, skip to Q5', [rule('mood', 'not_answered', undefined, { to: 'rank' })]],
  ['If Q6 was skipped, end the poll', [rule('feedback', 'not_answered', undefined, 'end')]],
  ['If Q6 is answered, go to Q7', [rule('feedback', 'answered', undefined, { to: 'ask' })]],
  ['If they answered Q6, go to the last question', [rule('feedback', 'answered', undefined, { to: 'ask' })]],
  ['Skip to Q5 if Q2 is 4 or more', [rule('mood', 'at_least', 4, { to: 'rank' })]],
  ['Jump to slide 8 if Q2 is 2 or less', [rule('mood', 'at_most', 2, { to: 'ask' })]],
  ['End the poll if Q3 is not "Paris"', [rule('capital', 'not_equals', 'paris', 'end')]],
  ['If Q3 is "Lyon", skip Q4', [rule('capital', 'equals', 'lyon', { to: 'rank' })]],
  ['If Q2 > 3, skip to Q6', [rule('mood', 'greater_than', 3, { to: 'feedback' })]],
  ['if Q2 <= 2 then skip to Q5', [rule('mood', 'at_most', 2, { to: 'rank' })]],
  ['When Q2 is above 3, move to Q6', [rule('mood', 'greater_than', 3, { to: 'feedback' })]],
  ['If Q2 is more than 2, continue at Q5', [rule('mood', 'greater_than', 2, { to: 'rank' })]],
  ['If "How do you feel?" is below 2, skip to "Any feedback?"', [rule('mood', 'less_than', 2, { to: 'feedback' })]],
  ['If mood is below 2, skip to feedback', [rule('mood', 'less_than', 2, { to: 'feedback' })]],
  ['If the respondent rated Q2 below 3, skip to Q4', [rule('mood', 'less_than', 3, { to: 'drinks' })]],
  ['If they gave Q2 a 5, jump to Q7', [rule('mood', 'equals', 5, { to: 'ask' })]],
  ['If someone picked "Pizza", skip to Q3', [rule('lunch', 'equals', 'pizza', { to: 'capital' })]],
  ['If they didn\'t choose "Paris" on Q3, end the poll', [rule('capital', 'not_equals', 'paris', 'end')]],
  [
    'If Q2 is below 3, skip to Q4; otherwise if Q2 is 5, skip to Q6',
    [rule('mood', 'less_than', 3, { to: 'drinks' }), rule('mood', 'equals', 5, { to: 'feedback' })],
  ],
  [
    'If Q1 is "Pizza", skip to Q3. Otherwise, skip to Q4.',
    [
      rule('lunch', 'equals', 'pizza', { to: 'capital' }),
      rule('lunch', 'answered', undefined, { to: 'drinks' }),
      rule('lunch', 'not_answered', undefined, { to: 'drinks' }),
    ],
  ],
  [
    'If Q2 is at most 2, end the poll, otherwise jump to Q5',
    [
      rule('mood', 'at_most', 2, 'end'),
      rule('mood', 'answered', undefined, { to: 'rank' }),
      rule('mood', 'not_answered', undefined, { to: 'rank' }),
    ],
  ],
  ['if q2 is under 3 then go straight to q6', [rule('mood', 'less_than', 3, { to: 'feedback' })]],
  ['If question #2 is exactly 3, skip to question 5', [rule('mood', 'equals', 3, { to: 'rank' })]],
  ['If Q2 is not 3, skip to Q5', [rule('mood', 'not_equals', 3, { to: 'rank' })]],
  ['If the third question is "Paris", go to the fifth question', [rule('capital', 'equals', 'paris', { to: 'rank' })]],
  ['If Q2 is three, skip to Q4', [rule('mood', 'equals', 3, { to: 'drinks' })]],
  ['If Q4 is "Water" or "Juice", skip to Q6', [rule('drinks', 'includes', ['water', 'juice'], { to: 'feedback' })]],
  ['If a voter skipped Q1, skip to Q3', [rule('lunch', 'not_answered', undefined, { to: 'capital' })]],
  ['Go to Q6 when Q2 is greater than 4', [rule('mood', 'greater_than', 4, { to: 'feedback' })]],
  [
    'If Q2 is below 3 skip to Q4 and if Q2 is above 4 skip to Q6',
    [rule('mood', 'less_than', 3, { to: 'drinks' }), rule('mood', 'greater_than', 4, { to: 'feedback' })],
  ],
  ['If they voted for "Sushi" on Q1, go to Q4', [rule('lunch', 'equals', 'sushi', { to: 'drinks' })]],
  ['If Q7 is left blank, end the poll', [rule('ask', 'not_answered', undefined, 'end')]],
  ['If Q2 is 5+, skip to Q7', [rule('mood', 'at_least', 5, { to: 'ask' })]],
  ['If the answer to Q1 is "Tacos", end the poll', [rule('lunch', 'equals', 'tacos', 'end')]],
  ['If Q1\'s answer is "Tacos", finish', [rule('lunch', 'equals', 'tacos', 'end')]],
  ['IF Q2 IS BELOW 3, SKIP TO Q4', [rule('mood', 'less_than', 3, { to: 'drinks' })]],
  ['If the last question is answered, end the poll', [rule('ask', 'answered', undefined, 'end')]],
  ['If Q1 is “Sushi”, jump ahead to Q5', [rule('lunch', 'equals', 'sushi', { to: 'rank' })]],
];

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

const refusals: [string, string, RegExp][] = [
  ['', '(the end of the instruction)', /at least one rule/],
  ['Make it nice', 'Make it nice', /a rule starting with "if"/],
  ['If Q9 is below 3, skip to Q4', 'Q9 is below 3, skip to Q4', /it has 7 questions/],
  ['If Q2 is below 3, skip to Q12', 'Q12', /it has 7 questions/],
  ['If Q2 is purple, skip to Q4', 'purple, skip to Q4', /a condition/],
  ['If Q1 is "Burgers", skip to Q3', '"Burgers", skip to Q3', /one of "Pizza", "Sushi", "Tacos"/],
  ['If Q2 is below 3, dance', 'dance', /an action/],
  ['Skip to Q4', '(the end of the instruction)', /"if" and a condition after the action/],
  ['If the weather is nice, skip to Q4', 'the weather is nice, skip to Q4', /a slide, such as Q2/],
  ['If they chose "Pizza",', '(the end of the instruction)', /an action/],
  ['Otherwise skip to Q4', 'skip to Q4', /a rule with a condition before "otherwise"/],
  ['If Q2 is below 3 then skip Q99', 'Q99', /it has 7 questions/],
];

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
