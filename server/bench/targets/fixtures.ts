import type { PollContent } from '@pollkit/contracts';

/** A realistic deck for benchmarks: a few slides of different kinds, a few options each. */
export const benchPollContent: PollContent = {
  questions: [
    {
      id: 'lunch',
      kind: 'multiple_choice',
      text: 'Where shall we eat on Friday?',
      type: 'single',
      options: ['Pizza', 'Sushi', 'Tacos', 'Salad'].map((label, i) => ({ id: `o${i}`, label })),
    },
    {
      id: 'capital',
      kind: 'quiz',
      text: 'What is the capital of France?',
      options: ['Paris', 'Lyon', 'Marseille'].map((label, i) => ({ id: `c${i}`, label })),
      correctOptionIds: ['c0'],
      timeLimitSec: 20,
      points: 1000,
      speedBonus: true,
    },
    {
      id: 'mood',
      kind: 'scale',
      text: 'How was the week?',
      min: 1,
      max: 5,
      minLabel: 'Rough',
      maxLabel: 'Great',
      statements: [],
    },
    { id: 'words', kind: 'open_ended', text: 'One word for the team?', maxLength: 40, render: 'cloud' },
  ],
};
