import type { BranchCondition, Slide } from '@pollkit/contracts';

/**
 * Skip logic as people write it: instructions phrased the way survey tools' help pages and their
 * users put rules (logic jumps, "skip to", "go to section based on answer", "if respondent selects"),
 * each with what a careful human reads from it against one of four realistic decks, or the words a
 * refusal must quote. Unlike the parser's own examples (instruction-examples.ts), this table was not
 * written in the phrasing the parser reads; server/test/branching-table.test.ts and
 * server/scripts/parser-score.ts measure how much of it the parser reads (scoreTable() in
 * instruction-table-score.ts).
 *
 * Before the parser's change (commit 0732e73, the parser as last changed in cddc792): read 89 of 196
 * (readings 55/144, refusals 34/52); counted as first committed, when a refusal passed if its quoted
 * clause merely contained the words, 99 of 196 (refusals 44/52). After it: 196 of 196. Both printed by
 * `npx tsx --conditions=@pollkit/source server/scripts/parser-score.ts` (`--failures` lists what fails).
 *
 * How the readings count: "question N" / "QN" counts the slides that ask something (content slides
 * are not questions), "slide N" and "page N" every slide; in the onboarding deck, a Google-Forms-style form,
 * "section N" is slide N. "Otherwise <action>" is everything the earlier rules of that slide did not
 * catch: the contract writes it as `answered` and `not_answered` rules to the same place. `includes`
 * of one option and `equals` that option are the same condition (the test compares them as such).
 */

export type DeckName = 'event' | 'product' | 'quiz' | 'onboarding';

/** A rule as the contract writes it, without its id. */
export type TableRule = Omit<BranchCondition, 'id'>;

export interface Refusal {
  /** The user's words that cannot be read: the parser's `InstructionError.fragment` must start with them. */
  quote: string;
  /** Why the conditions format cannot say it. */
  why: string;
}

export interface TableEntry {
  deck: DeckName;
  instruction: string;
  expect: TableRule[] | { refuse: Refusal };
}

/** An event feedback survey: a welcome and a thank-you content slide around seven questions. */
const event: Slide[] = [
  { id: 'welcome', kind: 'content', text: 'Welcome to the Summit 2026 feedback survey' },
  {
    id: 'attend',
    kind: 'multiple_choice',
    text: 'Which city did you attend?',
    type: 'single',
    options: [
      { id: 'ny', label: 'New York' },
      { id: 'sf', label: 'San Francisco' },
      { id: 'ldn', label: 'London' },
      { id: 'online', label: 'Online only' },
    ],
  },
  {
    id: 'overall',
    kind: 'scale',
    text: 'How satisfied were you with the event overall?',
    min: 1,
    max: 5,
    minLabel: 'Very dissatisfied',
    maxLabel: 'Very satisfied',
    statements: [],
  },
  {
    id: 'sessions',
    kind: 'multiple_choice',
    text: 'Which sessions did you attend?',
    type: 'multiple',
    options: [
      { id: 'keynote', label: 'Opening keynote' },
      { id: 'ws', label: 'Hands-on workshops' },
      { id: 'panel', label: 'Panel discussion' },
      { id: 'net', label: 'Networking evening' },
    ],
  },
  {
    id: 'aspects',
    kind: 'scale',
    text: 'Rate each part of the event',
    min: 1,
    max: 5,
    statements: [
      { id: 'venue', text: 'Venue' },
      { id: 'catering', text: 'Catering' },
      { id: 'speakers', text: 'Speakers' },
    ],
  },
  { id: 'improve', kind: 'open_ended', text: 'What should we improve next year?', maxLength: 1000, render: 'list' },
  {
    id: 'return',
    kind: 'multiple_choice',
    text: 'Will you attend next year?',
    type: 'single',
    options: [
      { id: 'yes', label: 'Yes' },
      { id: 'no', label: 'No' },
      { id: 'unsure', label: 'Not sure' },
    ],
  },
  { id: 'asks', kind: 'qa', text: 'Questions for the organisers', moderated: true, allowUpvotes: true },
  { id: 'bye', kind: 'content', text: 'Thank you!' },
];

/** A product survey: NPS first, a thank-you content slide last. */
const product: Slide[] = [
  {
    id: 'nps',
    kind: 'scale',
    text: 'How likely are you to recommend Acme to a friend or colleague?',
    min: 0,
    max: 10,
    minLabel: 'Not at all likely',
    maxLabel: 'Extremely likely',
    statements: [],
  },
  {
    id: 'plan',
    kind: 'multiple_choice',
    text: 'Which plan are you on?',
    type: 'single',
    options: [
      { id: 'free', label: 'Free' },
      { id: 'pro', label: 'Pro' },
      { id: 'team', label: 'Team' },
      { id: 'ent', label: 'Enterprise' },
    ],
  },
  {
    id: 'features',
    kind: 'multiple_choice',
    text: 'Which features do you use?',
    type: 'multiple',
    options: [
      { id: 'dash', label: 'Dashboards' },
      { id: 'alerts', label: 'Email alerts' },
      { id: 'digest', label: 'Email digest' },
      { id: 'api', label: 'Public API' },
      { id: 'export', label: 'CSV export' },
    ],
  },
  {
    id: 'priorities',
    kind: 'ranking',
    text: 'Rank what we should build next',
    options: [
      { id: 'mobile', label: 'Mobile app' },
      { id: 'sso', label: 'Single sign-on' },
      { id: 'dark', label: 'Dark mode' },
    ],
  },
  {
    id: 'support',
    kind: 'multiple_choice',
    text: 'How satisfied are you with our support?',
    type: 'single',
    options: [
      { id: 'vsat', label: 'Very satisfied' },
      { id: 'sat', label: 'Satisfied' },
      { id: 'dissat', label: 'Dissatisfied' },
      { id: 'vdis', label: 'Very dissatisfied' },
    ],
  },
  { id: 'why', kind: 'open_ended', text: 'What is the main reason for your score?', maxLength: 500, render: 'list' },
  { id: 'thanks', kind: 'content', text: 'Thanks for your feedback' },
];

const quizDefaults = { timeLimitSec: 30, points: 1000, speedBonus: false } as const;

/** A classroom quiz on capitals: an intro and a closing content slide. */
const quiz: Slide[] = [
  { id: 'intro', kind: 'content', text: 'Geography quiz: capital cities' },
  {
    id: 'qfr',
    kind: 'quiz',
    text: 'What is the capital of France?',
    options: [
      { id: 'paris', label: 'Paris' },
      { id: 'lyon', label: 'Lyon' },
      { id: 'marseille', label: 'Marseille' },
    ],
    correctOptionIds: ['paris'],
    ...quizDefaults,
  },
  {
    id: 'qau',
    kind: 'quiz',
    text: 'What is the capital of Australia?',
    options: [
      { id: 'syd', label: 'Sydney' },
      { id: 'cbr', label: 'Canberra' },
      { id: 'mel', label: 'Melbourne' },
    ],
    correctOptionIds: ['cbr'],
    ...quizDefaults,
  },
  {
    id: 'confidence',
    kind: 'scale',
    text: 'How confident do you feel about capitals?',
    min: 1,
    max: 10,
    statements: [],
  },
  {
    id: 'qus',
    kind: 'quiz',
    text: 'Which city is the capital of the United States?',
    options: [
      { id: 'nyc', label: 'New York City' },
      { id: 'dc', label: 'Washington, D.C.' },
      { id: 'la', label: 'Los Angeles' },
    ],
    correctOptionIds: ['dc'],
    ...quizDefaults,
  },
  { id: 'explain', kind: 'open_ended', text: 'How did you remember the answers?', maxLength: 500, render: 'cloud' },
  { id: 'done', kind: 'content', text: 'Quiz complete' },
];

/** An HR onboarding form in the Google Forms manner: each slide is a section ("section 4" is slide 4). */
const onboarding: Slide[] = [
  {
    id: 'dept',
    kind: 'multiple_choice',
    text: 'Which team are you joining?',
    type: 'single',
    options: [
      { id: 'eng', label: 'Engineering' },
      { id: 'sales', label: 'Sales' },
      { id: 'ops', label: 'People & Operations' },
      { id: 'other', label: 'Other' },
    ],
  },
  {
    id: 'laptop',
    kind: 'multiple_choice',
    text: 'Do you need a laptop?',
    type: 'single',
    options: [
      { id: 'mac', label: 'Yes, a Mac' },
      { id: 'win', label: 'Yes, a Windows PC' },
      { id: 'own', label: "No, I'll use my own" },
    ],
  },
  {
    id: 'extras',
    kind: 'multiple_choice',
    text: 'Which extras do you need?',
    type: 'multiple',
    options: [
      { id: 'monitor', label: 'External monitor' },
      { id: 'headset', label: 'Headset' },
      { id: 'desk', label: 'Standing desk' },
      { id: 'none', label: 'None of these' },
    ],
  },
  { id: 'week', kind: 'content', text: 'Your first week' },
  {
    id: 'buddy',
    kind: 'multiple_choice',
    text: 'Would you like an onboarding buddy?',
    type: 'single',
    options: [
      { id: 'yes', label: 'Yes please' },
      { id: 'no', label: 'No thanks' },
    ],
  },
  {
    id: 'comfort',
    kind: 'scale',
    text: 'How comfortable are you with our tools so far?',
    min: 1,
    max: 5,
    statements: [],
  },
  {
    id: 'dietary',
    kind: 'open_ended',
    text: 'Any dietary requirements for the welcome lunch?',
    maxLength: 300,
    render: 'list',
  },
  { id: 'hrq', kind: 'qa', text: 'Questions for HR', moderated: false, allowUpvotes: false },
  { id: 'done', kind: 'content', text: "You're all set" },
];

export const tableDecks: Record<DeckName, Slide[]> = { event, product, quiz, onboarding };

const END = '@end';
type Operator = BranchCondition['if']['operator'];

/** A rule: `to` a slide id, or END. */
function r(slideId: string, operator: Operator, value: string | number | string[] | undefined, to: string): TableRule {
  return {
    if: value === undefined ? { slideId, operator } : { slideId, operator, value },
    // biome-ignore lint/suspicious/noThenProperty: `then` is the field name of the rule's action.
    then: to === END ? { action: 'end' } : { action: 'skip_to', slideId: to },
  };
}

/** "Otherwise …" after rules on `slideId`: every answer left, and no answer, go `to`. */
function otherwise(slideId: string, to: string): TableRule[] {
  return [r(slideId, 'answered', undefined, to), r(slideId, 'not_answered', undefined, to)];
}

function refuse(quote: string, why: string): { refuse: Refusal } {
  return { refuse: { quote, why } };
}

const E = 'event';
const P = 'product';
const Q = 'quiz';
const H = 'onboarding';

const WHY = {
  range: 'a rule compares a rating with one number; a range needs two rules',
  and: 'a rule tests one slide, when the respondent leaves it: two conditions cannot both be required',
  orSlides: 'a rule tests one slide: an "or" across two slides needs a rule on each',
  text: 'conditions test whether an open answer was given, not what it says',
  backwards: 'jumps go forward only',
  noSlide: 'the deck has no such slide',
  noOption: 'the slide has no such option',
  content: 'a content slide takes no answers, so no rule can test it',
  statement: 'a scale with statements can only be tested for being answered, not per statement',
  outOfRange: 'the rating is outside the slide’s scale',
  ambiguous: 'the words match more than one option',
  nonsense: 'no condition or action in it',
  allOf: '`includes` means any of the options; "all of them" cannot be said',
  twoTargets: 'a rule has one action',
  notAnswer: 'a condition tests an answer to a slide, not facts about the respondent',
} as const;

export const instructionTable: TableEntry[] = [
  // --- event feedback survey: Q1 attend, Q2 overall (1–5), Q3 sessions (several), Q4 aspects (statements),
  //     Q5 improve (open), Q6 return, Q7 asks (Q&A); slide 1 welcome, slide 9 bye.
  { deck: E, instruction: 'If Q1 is "Online only", skip to Q3', expect: [r('attend', 'equals', 'online', 'sessions')] },
  { deck: E, instruction: 'If Q1 = London then jump to Q4', expect: [r('attend', 'equals', 'ldn', 'aspects')] },
  { deck: E, instruction: 'if q1 is new york, go to question 5', expect: [r('attend', 'equals', 'ny', 'improve')] },
  {
    deck: E,
    instruction: 'If respondent selects New York then jump to "What should we improve next year?"',
    expect: [r('attend', 'equals', 'ny', 'improve')],
  },
  {
    deck: E,
    instruction: 'If they picked "San Francisco" in Q1, skip to Q6',
    expect: [r('attend', 'equals', 'sf', 'return')],
  },
  { deck: E, instruction: 'If Q1 is option sf, go to Q3', expect: [r('attend', 'equals', 'sf', 'sessions')] },
  {
    deck: E,
    instruction: 'Skip logic: if Q1 = "Online only", skip to Q5',
    expect: [r('attend', 'equals', 'online', 'improve')],
  },
  {
    deck: E,
    instruction: 'If the answer to the first question is not London, skip to Q6',
    expect: [r('attend', 'not_equals', 'ldn', 'return')],
  },
  {
    deck: E,
    instruction: 'If Q1 isn\'t "New York", jump to Q3',
    expect: [r('attend', 'not_equals', 'ny', 'sessions')],
  },
  {
    deck: E,
    instruction: 'Skip to Q6 if Q1 is London or San Francisco',
    expect: [r('attend', 'includes', ['ldn', 'sf'], 'return')],
  },
  {
    deck: E,
    instruction: 'If they chose either New York or London on question 1, go to Q4',
    expect: [r('attend', 'includes', ['ny', 'ldn'], 'aspects')],
  },
  {
    deck: E,
    instruction: 'IF Q1 IS "SAN FRANCISCO" THEN SKIP TO Q4',
    expect: [r('attend', 'equals', 'sf', 'aspects')],
  },
  { deck: E, instruction: 'If Q1 is NY, skip to Q3', expect: [r('attend', 'equals', 'ny', 'sessions')] },
  { deck: E, instruction: 'If they chose ldn on Q1, go to Q5', expect: [r('attend', 'equals', 'ldn', 'improve')] },
  {
    deck: E,
    instruction: 'If slide 2 is "Online only", skip to slide 4',
    expect: [r('attend', 'equals', 'online', 'sessions')],
  },
  {
    deck: E,
    instruction: 'When the city attended is London, jump to the fourth question',
    expect: [r('attend', 'equals', 'ldn', 'aspects')],
  },
  { deck: E, instruction: 'If Q2 is rated 1 or 2, skip to Q5', expect: [r('overall', 'at_most', 2, 'improve')] },
  {
    deck: E,
    instruction: 'If the overall rating is below 3, go to "What should we improve next year?"',
    expect: [r('overall', 'less_than', 3, 'improve')],
  },
  {
    deck: E,
    instruction: 'If they rated the event overall 5, skip to Q6',
    expect: [r('overall', 'equals', 5, 'return')],
  },
  { deck: E, instruction: 'If Q2 scored at least 4, jump to Q6', expect: [r('overall', 'at_least', 4, 'return')] },
  { deck: E, instruction: 'If Q2 is no more than 2, go to Q5', expect: [r('overall', 'at_most', 2, 'improve')] },
  {
    deck: E,
    instruction: 'If Q2 is more than 3 skip to question 6',
    expect: [r('overall', 'greater_than', 3, 'return')],
  },
  {
    deck: E,
    instruction: 'If satisfaction (Q2) is above 4, skip to Q6',
    expect: [r('overall', 'greater_than', 4, 'return')],
  },
  {
    deck: E,
    instruction: 'If they gave the overall question a 1, end the survey',
    expect: [r('overall', 'equals', 1, END)],
  },
  { deck: E, instruction: 'If Q2 < 3, jump to Q5', expect: [r('overall', 'less_than', 3, 'improve')] },
  { deck: E, instruction: 'if Q2 >= 4 go to q6', expect: [r('overall', 'at_least', 4, 'return')] },
  { deck: E, instruction: 'If Q2 equals 5, go to Q6', expect: [r('overall', 'equals', 5, 'return')] },
  {
    deck: E,
    instruction: 'If Q2 got fewer than 3 stars, skip to Q5',
    expect: [r('overall', 'less_than', 3, 'improve')],
  },
  { deck: E, instruction: 'Jump to Q5 when Q2 is under 3', expect: [r('overall', 'less_than', 3, 'improve')] },
  {
    deck: E,
    instruction: 'If Q2 is 4 or higher, skip to Q6; otherwise go to Q5',
    expect: [r('overall', 'at_least', 4, 'return'), ...otherwise('overall', 'improve')],
  },
  {
    deck: E,
    instruction: 'If Q2 is 3, skip to Q5. Else skip to Q6.',
    expect: [r('overall', 'equals', 3, 'improve'), ...otherwise('overall', 'return')],
  },
  {
    deck: E,
    instruction: 'If they ticked "Hands-on workshops" on Q3, skip to Q5',
    expect: [r('sessions', 'equals', 'ws', 'improve')],
  },
  {
    deck: E,
    instruction: 'If Q3 includes Panel discussion, go to Q5',
    expect: [r('sessions', 'includes', ['panel'], 'improve')],
  },
  {
    deck: E,
    instruction: 'If the respondent checked Networking evening in question 3, jump to Q6',
    expect: [r('sessions', 'equals', 'net', 'return')],
  },
  {
    deck: E,
    instruction: 'If "Opening keynote" is selected in Q3, skip to Q5',
    expect: [r('sessions', 'equals', 'keynote', 'improve')],
  },
  {
    deck: E,
    instruction: 'If Q3 contains "Opening keynote" or "Panel discussion", go to Q6',
    expect: [r('sessions', 'includes', ['keynote', 'panel'], 'return')],
  },
  {
    deck: E,
    instruction: 'If they did not pick the networking evening on Q3, skip to Q5',
    expect: [r('sessions', 'not_equals', 'net', 'improve')],
  },
  {
    deck: E,
    instruction: 'If Q3 was skipped, go to Q5',
    expect: [r('sessions', 'not_answered', undefined, 'improve')],
  },
  {
    deck: E,
    instruction: 'If Q4 is left blank, skip to Q6',
    expect: [r('aspects', 'not_answered', undefined, 'return')],
  },
  {
    deck: E,
    instruction: 'If someone responded to Q4, skip to Q6',
    expect: [r('aspects', 'answered', undefined, 'return')],
  },
  { deck: E, instruction: 'If Q5 is empty, jump to Q7', expect: [r('improve', 'not_answered', undefined, 'asks')] },
  {
    deck: E,
    instruction: 'If they wrote something in Q5, skip to the last question',
    expect: [r('improve', 'answered', undefined, 'asks')],
  },
  {
    deck: E,
    instruction: 'If they left "What should we improve next year?" blank, end the survey',
    expect: [r('improve', 'not_answered', undefined, END)],
  },
  { deck: E, instruction: 'If Q6 is "No", end the survey', expect: [r('return', 'equals', 'no', END)] },
  {
    deck: E,
    instruction: 'If the answer to "Will you attend next year?" is yes, skip to the thank-you slide',
    expect: [r('return', 'equals', 'yes', 'bye')],
  },
  { deck: E, instruction: 'If Q6 is not sure, go to slide 8', expect: [r('return', 'equals', 'unsure', 'asks')] },
  {
    deck: E,
    instruction: 'Based on the answer to Q6: Yes → Q7, No → end of survey',
    expect: [r('return', 'equals', 'yes', 'asks'), r('return', 'equals', 'no', END)],
  },
  { deck: E, instruction: 'End the survey if Q6 = No', expect: [r('return', 'equals', 'no', END)] },
  {
    deck: E,
    instruction: 'If Q7 is not answered, end the survey',
    expect: [r('asks', 'not_answered', undefined, END)],
  },
  {
    deck: E,
    instruction: "If they didn't ask anything on Q7, submit",
    expect: [r('asks', 'not_answered', undefined, END)],
  },
  {
    deck: E,
    instruction: 'If Q1 is Online only, skip to Q3, and if Q2 is below 3, skip to Q5',
    expect: [r('attend', 'equals', 'online', 'sessions'), r('overall', 'less_than', 3, 'improve')],
  },
  {
    deck: E,
    instruction: 'If the city is New York go to Q3. If it is London go to Q4.',
    expect: [r('attend', 'equals', 'ny', 'sessions'), r('attend', 'equals', 'ldn', 'aspects')],
  },

  { deck: E, instruction: 'If Q2 is between 2 and 4, skip to Q5', expect: refuse('between 2 and 4', WHY.range) },
  {
    deck: E,
    instruction: 'If Q1 is London and Q2 is below 3, skip to Q5',
    expect: refuse('and Q2 is below 3', WHY.and),
  },
  { deck: E, instruction: 'If Q1 is New York or Q2 is 1, end the survey', expect: refuse('or Q2 is 1', WHY.orSlides) },
  {
    deck: E,
    instruction: 'If the improvement feedback mentions price, go to Q7',
    expect: refuse('mentions price', WHY.text),
  },
  { deck: E, instruction: 'If Q6 is No, go back to Q2', expect: refuse('back to Q2', WHY.backwards) },
  { deck: E, instruction: 'If Q9 is yes, end the survey', expect: refuse('Q9', WHY.noSlide) },
  { deck: E, instruction: 'If Q1 is Paris, skip to Q3', expect: refuse('Paris', WHY.noOption) },
  {
    deck: E,
    instruction: 'If Q4 venue is rated below 3, skip to Q6',
    expect: refuse('venue is rated below 3', WHY.statement),
  },
  { deck: E, instruction: 'If Q2 is 7, skip to Q5', expect: refuse('7', WHY.outOfRange) },
  { deck: E, instruction: 'Banana phone', expect: refuse('Banana phone', WHY.nonsense) },
  { deck: E, instruction: 'If Q5 is "too long", skip to Q7', expect: refuse('too long', WHY.text) },
  { deck: E, instruction: 'If Q2 is below 3, skip to Q1', expect: refuse('Q1', WHY.backwards) },
  { deck: E, instruction: 'If slide 1 is answered, go to Q4', expect: refuse('slide 1', WHY.content) },
  {
    deck: E,
    instruction: 'If Q1 is New York, skip to Q3 unless they are a speaker',
    expect: refuse('unless they are a speaker', WHY.notAnswer),
  },

  // --- product survey: Q1 nps (0–10), Q2 plan, Q3 features (several), Q4 priorities (ranking),
  //     Q5 support, Q6 why (open); slide 7 thanks. Slide N is QN.
  { deck: P, instruction: 'If NPS is 9 or 10, skip to Q4', expect: [r('nps', 'at_least', 9, 'priorities')] },
  { deck: P, instruction: 'If Q1 is 6 or below, go to Q6', expect: [r('nps', 'at_most', 6, 'why')] },
  {
    deck: P,
    instruction: 'If they scored us 0-6, jump to the reason question',
    expect: [r('nps', 'at_most', 6, 'why')],
  },
  {
    deck: P,
    instruction: 'If the likelihood to recommend is less than 7, go to Q6',
    expect: [r('nps', 'less_than', 7, 'why')],
  },
  { deck: P, instruction: 'If Q1 is greater than 8, skip to Q4', expect: [r('nps', 'greater_than', 8, 'priorities')] },
  {
    deck: P,
    instruction:
      'If "How likely are you to recommend Acme to a friend or colleague?" is at most 6, go to "What is the main reason for your score?"',
    expect: [r('nps', 'at_most', 6, 'why')],
  },
  { deck: P, instruction: 'If Q1 is exactly 10, end the survey', expect: [r('nps', 'equals', 10, END)] },
  { deck: P, instruction: "If Q1 isn't 10, go to Q6", expect: [r('nps', 'not_equals', 10, 'why')] },
  { deck: P, instruction: 'If Q1 score < 7 then go to Q6', expect: [r('nps', 'less_than', 7, 'why')] },
  {
    deck: P,
    instruction: 'Jump to Q6 if Q1 was answered with 6 or less',
    expect: [r('nps', 'at_most', 6, 'why')],
  },
  {
    deck: P,
    instruction: 'If Q1 is below 7 skip to Q6, else if Q1 is 9 or more skip to Q4',
    expect: [r('nps', 'less_than', 7, 'why'), r('nps', 'at_least', 9, 'priorities')],
  },
  { deck: P, instruction: 'If Q2 is Free, skip to Q4', expect: [r('plan', 'equals', 'free', 'priorities')] },
  { deck: P, instruction: 'If plan is Enterprise, go to Q5', expect: [r('plan', 'equals', 'ent', 'support')] },
  {
    deck: P,
    instruction: 'If respondent selects "Team" then jump to Q5',
    expect: [r('plan', 'equals', 'team', 'support')],
  },
  { deck: P, instruction: 'If they are on the Free plan, end the survey', expect: [r('plan', 'equals', 'free', END)] },
  { deck: P, instruction: 'If Q2 is not Free, skip to Q4', expect: [r('plan', 'not_equals', 'free', 'priorities')] },
  {
    deck: P,
    instruction: 'If Q2 is Pro or Team, go to question 4',
    expect: [r('plan', 'includes', ['pro', 'team'], 'priorities')],
  },
  { deck: P, instruction: 'If Q2 is option ent, skip to Q5', expect: [r('plan', 'equals', 'ent', 'support')] },
  { deck: P, instruction: 'Skip Q3 if Q2 is Free', expect: [r('plan', 'equals', 'free', 'priorities')] },
  {
    deck: P,
    instruction: 'Based on the answer to Q2: Free → Q4, Enterprise → Q5',
    expect: [r('plan', 'equals', 'free', 'priorities'), r('plan', 'equals', 'ent', 'support')],
  },
  { deck: P, instruction: 'If Q2 is FREE, GO TO Q4', expect: [r('plan', 'equals', 'free', 'priorities')] },
  {
    deck: P,
    instruction: 'If Q3 includes "Public API", skip to Q5',
    expect: [r('features', 'includes', ['api'], 'support')],
  },
  {
    deck: P,
    instruction: 'If "CSV export" is checked on Q3, go to Q5',
    expect: [r('features', 'equals', 'export', 'support')],
  },
  {
    deck: P,
    instruction: 'If Q3 contains dashboards, skip to Q5',
    expect: [r('features', 'includes', ['dash'], 'support')],
  },
  {
    deck: P,
    instruction: 'If they selected any of Dashboards, Email alerts or CSV export on Q3, go to Q5',
    expect: [r('features', 'includes', ['dash', 'alerts', 'export'], 'support')],
  },
  {
    deck: P,
    instruction: 'If they did not tick Public API in Q3, skip to Q5',
    expect: [r('features', 'not_equals', 'api', 'support')],
  },
  {
    deck: P,
    instruction: 'If nothing is ticked on Q3, go to Q5',
    expect: [r('features', 'not_answered', undefined, 'support')],
  },
  {
    deck: P,
    instruction: 'If Q4 has "Mobile app" ranked first, skip to Q6',
    expect: [r('priorities', 'equals', 'mobile', 'why')],
  },
  {
    deck: P,
    instruction: 'If Single sign-on is ranked first in Q4, end the survey',
    expect: [r('priorities', 'equals', 'sso', END)],
  },
  {
    deck: P,
    instruction: 'If the top choice on Q4 is dark mode, go to Q6',
    expect: [r('priorities', 'equals', 'dark', 'why')],
  },
  {
    deck: P,
    instruction: 'If Q4 is not answered, skip to Q6',
    expect: [r('priorities', 'not_answered', undefined, 'why')],
  },
  {
    deck: P,
    instruction: 'If Q4 is anything but "Mobile app", go to Q6',
    expect: [r('priorities', 'not_equals', 'mobile', 'why')],
  },
  { deck: P, instruction: 'If Q5 is Very satisfied, end the survey', expect: [r('support', 'equals', 'vsat', END)] },
  {
    deck: P,
    instruction: 'If Q5 is Satisfied or Very satisfied, end the survey; otherwise go to Q6',
    expect: [r('support', 'includes', ['sat', 'vsat'], END), ...otherwise('support', 'why')],
  },
  {
    deck: P,
    instruction: 'If the support question is "very satisfied", submit the survey',
    expect: [r('support', 'equals', 'vsat', END)],
  },
  { deck: P, instruction: 'If Q6 was answered, end the survey', expect: [r('why', 'answered', undefined, END)] },
  {
    deck: P,
    instruction: 'Q2: if respondent chooses Enterprise, skip to page 5',
    expect: [r('plan', 'equals', 'ent', 'support')],
  },

  { deck: P, instruction: 'If Q1 is between 7 and 8, skip to Q6', expect: refuse('between 7 and 8', WHY.range) },
  {
    deck: P,
    instruction: 'If Q2 is Free and Q1 is below 7, end the survey',
    expect: refuse('and Q1 is below 7', WHY.and),
  },
  {
    deck: P,
    instruction: 'If they chose both Dashboards and Public API on Q3, skip to Q5',
    expect: refuse('both Dashboards and Public API', WHY.allOf),
  },
  { deck: P, instruction: 'If they chose email on Q3, skip to Q5', expect: refuse('email', WHY.ambiguous) },
  { deck: P, instruction: 'If Q6 mentions price, end the survey', expect: refuse('mentions price', WHY.text) },
  {
    deck: P,
    instruction: 'If Mobile app is ranked last on Q4, go to Q6',
    expect: refuse('ranked last', 'a ranking condition tests which option came first'),
  },
  { deck: P, instruction: 'If Q1 is 11, skip to Q4', expect: refuse('11', WHY.outOfRange) },
  { deck: P, instruction: 'If Q2 is Premium, skip to Q4', expect: refuse('Premium', WHY.noOption) },
  { deck: P, instruction: 'If Q5 is Very satisfied, go back to Q1', expect: refuse('back to Q1', WHY.backwards) },
  { deck: P, instruction: 'If Q3 is Public API, skip to Q2', expect: refuse('Q2', WHY.backwards) },
  { deck: P, instruction: 'If Q1 is below 7, skip to Q8', expect: refuse('Q8', WHY.noSlide) },
  {
    deck: P,
    instruction: 'If the respondent is on mobile, skip to Q4',
    expect: refuse('is on mobile', WHY.notAnswer),
  },
  { deck: P, instruction: 'If Q2 is Pro, skip to Q4 or Q5', expect: refuse('or Q5', WHY.twoTargets) },

  // --- classroom quiz: Q1 qfr, Q2 qau, Q3 confidence (1–10), Q4 qus, Q5 explain (open);
  //     slide 1 intro, slide 7 done.
  {
    deck: Q,
    instruction: 'If they answer Paris on Q1, skip to Q3',
    expect: [r('qfr', 'equals', 'paris', 'confidence')],
  },
  { deck: Q, instruction: 'If Q1 is Lyon, end the quiz', expect: [r('qfr', 'equals', 'lyon', END)] },
  {
    deck: Q,
    instruction: 'If the student chooses Marseille for question 1, skip to question 3',
    expect: [r('qfr', 'equals', 'marseille', 'confidence')],
  },
  {
    deck: Q,
    instruction: 'If question 2 is "Canberra", jump to question 4',
    expect: [r('qau', 'equals', 'cbr', 'qus')],
  },
  {
    deck: Q,
    instruction: 'If the answer to "What is the capital of Australia?" is Sydney or Melbourne, go to Q5',
    expect: [r('qau', 'includes', ['syd', 'mel'], 'explain')],
  },
  {
    deck: Q,
    instruction: 'If they picked sydney on the second question, skip to Q4',
    expect: [r('qau', 'equals', 'syd', 'qus')],
  },
  {
    deck: Q,
    instruction: 'If Q2 is not Canberra, go to the last question',
    expect: [r('qau', 'not_equals', 'cbr', 'explain')],
  },
  {
    deck: Q,
    instruction: 'If confidence is 8 or above, skip to Q5',
    expect: [r('confidence', 'at_least', 8, 'explain')],
  },
  {
    deck: Q,
    instruction: 'If the third question is rated lower than 4, end the quiz',
    expect: [r('confidence', 'less_than', 4, END)],
  },
  { deck: Q, instruction: 'If Q3 is at most 3, jump to slide 6', expect: [r('confidence', 'at_most', 3, 'explain')] },
  { deck: Q, instruction: 'If Q4 is "Washington, D.C.", end the quiz', expect: [r('qus', 'equals', 'dc', END)] },
  { deck: Q, instruction: 'If Q4 is Washington, go to Q5', expect: [r('qus', 'equals', 'dc', 'explain')] },
  {
    deck: Q,
    instruction: 'If they chose New York City on Q4, go to Q5',
    expect: [r('qus', 'equals', 'nyc', 'explain')],
  },
  { deck: Q, instruction: 'If Q4 is option la, end the quiz', expect: [r('qus', 'equals', 'la', END)] },
  {
    deck: Q,
    instruction: 'If question four is skipped, end the quiz',
    expect: [r('qus', 'not_answered', undefined, END)],
  },
  { deck: Q, instruction: 'If Q5 is blank, submit', expect: [r('explain', 'not_answered', undefined, END)] },
  { deck: Q, instruction: 'If Q5 has an answer, go to the end', expect: [r('explain', 'answered', undefined, END)] },
  {
    deck: Q,
    instruction: 'Skip to the fourth question if the first question is Paris',
    expect: [r('qfr', 'equals', 'paris', 'qus')],
  },
  {
    deck: Q,
    instruction: 'If Q1 is Paris, skip to Q2; if Q1 is Lyon, skip to Q3; otherwise end the quiz',
    expect: [r('qfr', 'equals', 'paris', 'qau'), r('qfr', 'equals', 'lyon', 'confidence'), ...otherwise('qfr', END)],
  },
  { deck: Q, instruction: 'Jump to Q4 if Q2 is Canberra', expect: [r('qau', 'equals', 'cbr', 'qus')] },
  { deck: Q, instruction: 'If Q1 = Paris → Q3', expect: [r('qfr', 'equals', 'paris', 'confidence')] },
  {
    deck: Q,
    instruction: 'If "Paris" is selected for Q1, continue to Q2, else end the quiz',
    expect: [r('qfr', 'equals', 'paris', 'qau'), ...otherwise('qfr', END)],
  },
  { deck: Q, instruction: 'If Q3 > 7, skip to question 5', expect: [r('confidence', 'greater_than', 7, 'explain')] },
  {
    deck: Q,
    instruction: 'If the confidence rating is 5, go to Q5',
    expect: [r('confidence', 'equals', 5, 'explain')],
  },
  {
    deck: Q,
    instruction: 'If Q3 does not equal 10, skip to Q5',
    expect: [r('confidence', 'not_equals', 10, 'explain')],
  },
  {
    deck: Q,
    instruction: 'If a student selected Lyon or Marseille on Q1, jump to the end of the quiz',
    expect: [r('qfr', 'includes', ['lyon', 'marseille'], END)],
  },

  {
    deck: Q,
    instruction: 'If they got Q1 right, skip to Q3',
    expect: refuse('right', 'conditions test the options chosen, not whether the answer was correct'),
  },
  {
    deck: Q,
    instruction: 'If the student scored more than 2 points on the quiz, end the quiz',
    expect: refuse('points', 'a quiz score is not something a rule can test'),
  },
  {
    deck: Q,
    instruction: 'If Q1 is Paris and Q2 is Canberra, skip to Q4',
    expect: refuse('and Q2 is Canberra', WHY.and),
  },
  { deck: Q, instruction: 'If Q2 is Canberra, go back to Q1', expect: refuse('back to Q1', WHY.backwards) },
  { deck: Q, instruction: 'If Q1 is Berlin, skip to Q3', expect: refuse('Berlin', WHY.noOption) },
  { deck: Q, instruction: 'If Q3 is between 4 and 7, skip to Q5', expect: refuse('between 4 and 7', WHY.range) },
  { deck: Q, instruction: 'If Q3 is 0, skip to Q5', expect: refuse('0', WHY.outOfRange) },
  {
    deck: Q,
    instruction: 'If the explanation is longer than 50 words, end the quiz',
    expect: refuse('longer than 50 words', WHY.text),
  },
  { deck: Q, instruction: 'If slide 1 is skipped, go to Q2', expect: refuse('slide 1', WHY.content) },
  { deck: Q, instruction: 'If Q6 is Paris, end the quiz', expect: refuse('Q6', WHY.noSlide) },
  {
    deck: Q,
    instruction: 'If Q1 is Paris in under 10 seconds, skip to Q3',
    expect: refuse('in under 10 seconds', 'answer times are not something a rule can test'),
  },

  // --- onboarding form (sections): section 1 dept, 2 laptop, 3 extras (several), 4 week (content),
  //     5 buddy, 6 comfort (1–5), 7 dietary (open), 8 hrq (Q&A), 9 done (content).
  {
    deck: H,
    instruction: 'If Engineering, go to section 2; otherwise go to section 3',
    expect: [r('dept', 'equals', 'eng', 'laptop'), ...otherwise('dept', 'extras')],
  },
  {
    deck: H,
    instruction: 'Based on the answer to Q1: Engineering → section 2, Sales → section 3, Other → submit form',
    expect: [
      r('dept', 'equals', 'eng', 'laptop'),
      r('dept', 'equals', 'sales', 'extras'),
      r('dept', 'equals', 'other', END),
    ],
  },
  {
    deck: H,
    instruction: 'Go to section based on answer: Sales → section 5',
    expect: [r('dept', 'equals', 'sales', 'buddy')],
  },
  { deck: H, instruction: 'If team is Sales, jump to section 5', expect: [r('dept', 'equals', 'sales', 'buddy')] },
  {
    deck: H,
    instruction: 'If they are joining People & Operations, skip to section 5',
    expect: [r('dept', 'equals', 'ops', 'buddy')],
  },
  { deck: H, instruction: 'If Q1 is "Other", submit the form', expect: [r('dept', 'equals', 'other', END)] },
  {
    deck: H,
    instruction: 'If Q2 is "No, I\'ll use my own", jump to section 4',
    expect: [r('laptop', 'equals', 'own', 'week')],
  },
  {
    deck: H,
    instruction: "If they don't need a laptop, skip to section 5",
    expect: [r('laptop', 'equals', 'own', 'buddy')],
  },
  {
    deck: H,
    instruction: 'If Q2 is "Yes, a Mac" or "Yes, a Windows PC", go to section 3',
    expect: [r('laptop', 'includes', ['mac', 'win'], 'extras')],
  },
  { deck: H, instruction: 'If laptop is mac, skip to section 4', expect: [r('laptop', 'equals', 'mac', 'week')] },
  {
    deck: H,
    instruction: 'If Q3 includes "Standing desk", go to section 5',
    expect: [r('extras', 'includes', ['desk'], 'buddy')],
  },
  {
    deck: H,
    instruction: 'If "None of these" is checked in section 3, jump to section 5',
    expect: [r('extras', 'equals', 'none', 'buddy')],
  },
  {
    deck: H,
    instruction: 'If they ticked External monitor or Headset on Q3, go to section 4',
    expect: [r('extras', 'includes', ['monitor', 'headset'], 'week')],
  },
  {
    deck: H,
    instruction: 'If Q3 is left unanswered, skip to section 5',
    expect: [r('extras', 'not_answered', undefined, 'buddy')],
  },
  { deck: H, instruction: 'If Q4 is "No thanks", skip to Q6', expect: [r('buddy', 'equals', 'no', 'dietary')] },
  {
    deck: H,
    instruction: 'If the buddy question is "Yes please", go to section 7',
    expect: [r('buddy', 'equals', 'yes', 'dietary')],
  },
  { deck: H, instruction: 'If Q5 is 2 or less, go to section 8', expect: [r('comfort', 'at_most', 2, 'hrq')] },
  { deck: H, instruction: 'If comfort is at least 4, skip to Q7', expect: [r('comfort', 'at_least', 4, 'hrq')] },
  {
    deck: H,
    instruction: 'If they rated their comfort with our tools above 3, submit the form',
    expect: [r('comfort', 'greater_than', 3, END)],
  },
  {
    deck: H,
    instruction: 'If Q6 was left blank, skip to section 8',
    expect: [r('dietary', 'not_answered', undefined, 'hrq')],
  },
  {
    deck: H,
    instruction: 'If someone filled in the dietary requirements, end the form',
    expect: [r('dietary', 'answered', undefined, END)],
  },
  { deck: H, instruction: 'If Q7 is skipped, submit', expect: [r('hrq', 'not_answered', undefined, END)] },
  {
    deck: H,
    instruction: 'If they posted in "Questions for HR", end the form',
    expect: [r('hrq', 'answered', undefined, END)],
  },
  {
    deck: H,
    instruction: 'If Q1 = eng, go to section 2. Else if Q1 = sales, go to section 5. Else submit the form.',
    expect: [r('dept', 'equals', 'eng', 'laptop'), r('dept', 'equals', 'sales', 'buddy'), ...otherwise('dept', END)],
  },
  { deck: H, instruction: 'Skip to section 6 if Q4 is No thanks', expect: [r('buddy', 'equals', 'no', 'comfort')] },
  { deck: H, instruction: 'if Q1 is ENGINEERING go to Section 3', expect: [r('dept', 'equals', 'eng', 'extras')] },
  {
    deck: H,
    instruction: 'If Q1 is not Engineering, jump to section 5',
    expect: [r('dept', 'not_equals', 'eng', 'buddy')],
  },
  {
    deck: H,
    instruction: 'If the answer to Which team are you joining? is Sales, go to section 5',
    expect: [r('dept', 'equals', 'sales', 'buddy')],
  },
  {
    deck: H,
    instruction: 'If comfort is rated 5, go to the end of the form',
    expect: [r('comfort', 'equals', 5, END)],
  },

  { deck: H, instruction: 'If Q2 is yes, go to section 3', expect: refuse('yes', WHY.ambiguous) },
  {
    deck: H,
    instruction: 'If they chose Yes on the laptop question, skip to section 4',
    expect: refuse('Yes', WHY.ambiguous),
  },
  { deck: H, instruction: 'If Q1 is Engineering, go to section 1', expect: refuse('section 1', WHY.backwards) },
  { deck: H, instruction: 'If Q1 is Marketing, go to section 5', expect: refuse('Marketing', WHY.noOption) },
  { deck: H, instruction: 'If section 4 is answered, go to section 5', expect: refuse('section 4', WHY.content) },
  { deck: H, instruction: 'If Q5 is between 2 and 3, go to section 8', expect: refuse('between 2 and 3', WHY.range) },
  { deck: H, instruction: 'If Q6 says vegetarian, skip to section 8', expect: refuse('says vegetarian', WHY.text) },
  {
    deck: H,
    instruction: 'If Q1 is Sales and Q4 is No thanks, submit the form',
    expect: refuse('and Q4 is No thanks', WHY.and),
  },
  {
    deck: H,
    instruction: 'If Q1 is Sales or Q2 is "Yes, a Mac", go to section 3',
    expect: refuse('or Q2 is', WHY.orSlides),
  },
  { deck: H, instruction: 'If Q3 is monitor, go to section 12', expect: refuse('section 12', WHY.noSlide) },
  {
    deck: H,
    instruction: 'Please make the form shorter',
    expect: refuse('Please make the form shorter', WHY.nonsense),
  },
  {
    deck: H,
    instruction: 'If they start after Monday, skip to section 5',
    expect: refuse('start after Monday', WHY.notAnswer),
  },
  {
    deck: H,
    instruction: 'If Q2 is mac, go to section 3 and section 5',
    expect: refuse('and section 5', WHY.twoTargets),
  },
  { deck: H, instruction: 'If Q5 is 9, go to section 8', expect: refuse('9', WHY.outOfRange) },
];
