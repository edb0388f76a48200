import type { BranchCondition } from '@pollkit/contracts';
import { describe, expect, it } from 'vitest';
import { checkBranching } from '../../src/modules/polls/branching-rules.js';
import { branchingDeck as deck } from '../support/decks.js';

/** checkBranching (modules/polls/branching-rules.ts): skip logic that does not fit its poll. */

function rule(
  id: string,
  slideId: string,
  operator: BranchCondition['if']['operator'],
  value: unknown,
  to: string | 'end',
): BranchCondition {
  return {
    id,
    if: (value === undefined ? { slideId, operator } : { slideId, operator, value }) as BranchCondition['if'],
    // biome-ignore lint/suspicious/noThenProperty: `then` is the field name of the rule's action.
    then: to === 'end' ? { action: 'end' } : { action: 'skip_to', slideId: to },
  };
}

const cases: [string, BranchCondition[], { path: (string | number)[]; message: RegExp }[]][] = [
  [
    'a slide that does not exist',
    [rule('r1', 'nope', 'answered', undefined, 'end')],
    [{ path: ['conditions', 0, 'if', 'slideId'], message: /No slide 'nope'/ }],
  ],
  [
    'a target that does not exist',
    [rule('r1', 'mood', 'answered', undefined, 'nope')],
    [{ path: ['conditions', 0, 'then', 'slideId'], message: /No slide 'nope'/ }],
  ],
  [
    'a jump backwards',
    [rule('r1', 'drinks', 'answered', undefined, 'lunch')],
    [
      {
        path: ['conditions', 0, 'then', 'slideId'],
        message: /forward only: 'lunch' \(slide 2\) is not after 'drinks' \(slide 5\)/,
      },
    ],
  ],
  [
    'a jump to the same slide',
    [rule('r1', 'mood', 'answered', undefined, 'mood')],
    [{ path: ['conditions', 0, 'then', 'slideId'], message: /forward only/ }],
  ],
  [
    'a rule on a content slide',
    [rule('r1', 'intro', 'answered', undefined, 'end')],
    [{ path: ['conditions', 0, 'if', 'slideId'], message: /content slide/ }],
  ],
  [
    'a comparison on a multiple-choice slide',
    [rule('r1', 'lunch', 'less_than', 3, 'end')],
    [
      {
        path: ['conditions', 0, 'if', 'operator'],
        message: /`less_than` does not fit slide 'lunch' \(multiple-choice\): use one of `equals`/,
      },
    ],
  ],
  [
    'an option the slide does not have',
    [rule('r1', 'lunch', 'equals', 'burgers', 'end')],
    [{ path: ['conditions', 0, 'if', 'value'], message: /no option 'burgers' \(it has pizza, sushi, tacos\)/ }],
  ],
  [
    'a rating outside the scale',
    [rule('r1', 'mood', 'equals', 9, 'end')],
    [{ path: ['conditions', 0, 'if', 'value'], message: /rated from 1 to 5: 9 is outside it/ }],
  ],
  [
    'an empty `includes`',
    [rule('r1', 'drinks', 'includes', [], 'end')],
    [{ path: ['conditions', 0, 'if', 'value'], message: /non-empty list/ }],
  ],
  [
    'a value on `answered`',
    [rule('r1', 'feedback', 'answered', 'x', 'end')],
    [{ path: ['conditions', 0, 'if', 'value'], message: /takes no `value`/ }],
  ],
  [
    'a text comparison on an open question',
    [rule('r1', 'feedback', 'equals', 'yes', 'end')],
    [{ path: ['conditions', 0, 'if', 'operator'], message: /does not fit slide 'feedback'/ }],
  ],
  [
    'a rule caught in full by an earlier one',
    [rule('r1', 'mood', 'less_than', 3, 'drinks'), rule('r2', 'mood', 'less_than', 2, 'feedback')],
    [{ path: ['conditions', 1], message: /'r2' can never apply: every answer it matches is caught first by 'r1'/ }],
  ],
  [
    'the same condition twice with different actions',
    [rule('r1', 'lunch', 'equals', 'pizza', 'capital'), rule('r2', 'lunch', 'equals', 'pizza', 'drinks')],
    [{ path: ['conditions', 1], message: /'r2' can never apply: every answer it matches is caught first by 'r1'/ }],
  ],
  [
    'a condition no answer meets',
    [rule('r1', 'mood', 'less_than', 1, 'end')],
    [{ path: ['conditions', 0], message: /no answer to slide 'mood' matches it/ }],
  ],
  [
    'a rule on a slide every respondent jumps past',
    [
      rule('r1', 'lunch', 'answered', undefined, 'capital'),
      rule('r2', 'lunch', 'not_answered', undefined, 'capital'),
      rule('r3', 'mood', 'less_than', 3, 'end'),
    ],
    [{ path: ['conditions', 2], message: /'r3' can never apply: no respondent reaches slide 'mood' \(slide 3\)/ }],
  ],
];

describe('checkBranching refuses', () => {
  it.each(cases)('%s', (_name, conditions, expected) => {
    const problems = checkBranching(conditions, deck);
    expect(problems).toHaveLength(expected.length);
    expected.forEach((want, index) => {
      expect(problems[index]?.path).toEqual(want.path);
      expect(problems[index]?.message).toMatch(want.message);
    });
  });
});

describe('checkBranching accepts', () => {
  it('rules that overlap in order ("otherwise if"), multiple-answer sets and rankings', () => {
    const conditions = [
      rule('r1', 'mood', 'less_than', 3, 'drinks'),
      rule('r2', 'mood', 'less_than', 4, 'feedback'),
      rule('r3', 'drinks', 'includes', ['water', 'juice'], 'feedback'),
      rule('r4', 'drinks', 'equals', 'soda', 'ask'),
      rule('r5', 'rank', 'equals', 'a', 'end'),
      rule('r6', 'rank', 'not_answered', undefined, 'ask'),
    ];
    expect(checkBranching(conditions, deck)).toEqual([]);
  });

  it('a slide reached only through a jump', () => {
    const conditions = [
      rule('r1', 'lunch', 'equals', 'pizza', 'drinks'),
      rule('r2', 'lunch', 'not_equals', 'pizza', 'drinks'),
      rule('r3', 'lunch', 'not_answered', undefined, 'drinks'),
      rule('r4', 'drinks', 'answered', undefined, 'end'),
    ];
    expect(checkBranching(conditions, deck)).toEqual([]);
  });
});
