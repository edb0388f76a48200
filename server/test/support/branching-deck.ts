import type { Slide } from '@pollkit/contracts';

/** A deck for the branching tests: a content slide first and last, and every answerable kind between. */
export const branchingDeck: Slide[] = [
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
