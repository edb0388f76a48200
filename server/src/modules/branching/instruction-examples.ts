import type { BranchCondition, Slide } from '@pollkit/contracts';

/**
 * The instruction language by example: the parser's table test (server/test/branching-parser.test.ts)
 * checks every row, and docs/branching.md's table of accepted instructions is generated from it
 * (`npx -y pnpm@10 generate`), so the documentation cannot promise a phrase the parser does not read.
 * Questions are numbered without the content slides ("Q2" is `mood`); slides with them ("slide 3").
 */
export const exampleDeck: Slide[] = [
  { id: 'intro', kind: 'content', text: 'Welcome' },
  {
    id: 'lunch',
    kind: 'multiple_choice',
    text: 'Where shall we eat?',
    type: 'single',
    options: [
      { id: 'pizza', label: 'Pizza' },
      { id: 'sushi', label: 'Sushi' },
      { id: 'tacos', label: 'Tacos' },
    ],
  },
  { id: 'mood', kind: 'scale', text: 'How do you feel?', min: 1, max: 5, statements: [] },
  {
    id: 'capital',
    kind: 'quiz',
    text: 'Capital of France?',
    options: [
      { id: 'paris', label: 'Paris' },
      { id: 'lyon', label: 'Lyon' },
    ],
    correctOptionIds: ['paris'],
    timeLimitSec: 30,
    points: 1000,
    speedBonus: false,
  },
  {
    id: 'drinks',
    kind: 'multiple_choice',
    text: 'Drinks?',
    type: 'multiple',
    options: [
      { id: 'water', label: 'Water' },
      { id: 'juice', label: 'Juice' },
      { id: 'soda', label: 'Soda' },
    ],
  },
  {
    id: 'rank',
    kind: 'ranking',
    text: 'Rank these',
    options: [
      { id: 'a', label: 'Alpha' },
      { id: 'b', label: 'Beta' },
    ],
  },
  { id: 'feedback', kind: 'open_ended', text: 'Any feedback?', maxLength: 500, render: 'list' },
  { id: 'ask', kind: 'qa', text: 'Questions?', moderated: false, allowUpvotes: true },
  { id: 'thanks', kind: 'content', text: 'Thanks' },
];

type Then = { to: string } | 'end';
function rule(slideId: string, operator: BranchCondition['if']['operator'], value: unknown, then: Then) {
  return {
    if: value === undefined ? { slideId, operator } : { slideId, operator, value },
    // biome-ignore lint/suspicious/noThenProperty: `then` is the field name of the rule's action.
    then: then === 'end' ? { action: 'end' } : { action: 'skip_to', slideId: then.to },
  };
}

/** Instructions the parser reads, each with the conditions it must read from it (ids aside). */
export const instructionExamples: [string, ReturnType<typeof rule>[]][] = [
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

/** Instructions it must refuse: the instruction, the words it quotes, what it says it expected. */
export const instructionRefusals: [string, string, RegExp][] = [
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
