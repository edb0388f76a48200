import { z } from 'zod';
import { PollId } from './polls.js';
import { untrustedText } from './text.js';

const base = { slideId: z.string(), text: z.string() };
const Percentage = z.number().min(0).max(100).describe('Share of the slide’s answers, 0–100, two decimals.');

const OptionResult = z.object({ id: z.string(), label: z.string(), count: z.number().int(), percentage: Percentage });

const Distribution = z
  .array(z.object({ value: z.number().int(), count: z.number().int() }))
  .describe('Every rating from min to max with its count.');

export const MultipleChoiceResult = z
  .object({
    ...base,
    kind: z.literal('multiple_choice'),
    totalAnswers: z.number().int(),
    options: z.array(OptionResult),
  })
  .meta({ id: 'MultipleChoiceResult' });

/** Absent where the reader may not learn the quiz's answer key (a presenter stream without `polls:read`). */
const ANSWER_KEY_NOTE =
  'Absent from a presenter stream (`GET /sessions/{id}/events`) whose credential lacks `polls:read`: it is the ' +
  'answer key.';

export const QuizResult = z
  .object({
    ...base,
    kind: z.literal('quiz'),
    totalAnswers: z.number().int(),
    correctAnswers: z
      .number()
      .int()
      .optional()
      .describe(`Answers that chose exactly the correct options. ${ANSWER_KEY_NOTE}`),
    correctRate: Percentage.optional().describe(`correctAnswers / totalAnswers × 100. ${ANSWER_KEY_NOTE}`),
    options: z.array(
      OptionResult.extend({
        correct: z.boolean().optional().describe(`Whether the option is a correct one. ${ANSWER_KEY_NOTE}`),
      }),
    ),
  })
  .meta({ id: 'QuizResult' });

export const ScaleResult = z
  .object({
    ...base,
    kind: z.literal('scale'),
    totalAnswers: z.number().int(),
    average: z.number().nullable().describe('Null until someone answers.'),
    distribution: Distribution,
    statements: z.array(
      z.object({
        id: z.string(),
        text: z.string(),
        totalAnswers: z.number().int(),
        average: z.number().nullable(),
        distribution: Distribution,
      }),
    ),
  })
  .meta({ id: 'ScaleResult' });

export const RankingResult = z
  .object({
    ...base,
    kind: z.literal('ranking'),
    totalAnswers: z.number().int(),
    options: z.array(
      z.object({
        id: z.string(),
        label: z.string(),
        averageRank: z.number().nullable().describe('1 = first place; null until someone answers.'),
        score: z.number().int().describe('Borda count: n − position summed over answers (n = number of options).'),
      }),
    ),
  })
  .meta({ id: 'RankingResult' });

export const OpenEndedResult = z
  .object({
    ...base,
    kind: z.literal('open_ended'),
    totalAnswers: z.number().int(),
    recent: z
      .array(z.object({ text: untrustedText(z.string()), createdAt: z.string() }))
      .describe('The 20 newest answers.'),
    words: z
      .array(z.object({ word: untrustedText(z.string()), count: z.number().int() }))
      .describe('The 50 most frequent words, for a word cloud.'),
  })
  .meta({ id: 'OpenEndedResult' });

export const QaResult = z
  .object({
    ...base,
    kind: z.literal('qa'),
    totalQuestions: z.number().int().describe('Every question asked, pending and dismissed included.'),
    questions: z
      .array(
        z.object({ id: z.string(), text: untrustedText(z.string()), upvotes: z.number().int(), createdAt: z.string() }),
      )
      .describe('The 50 most upvoted approved questions.'),
  })
  .meta({ id: 'QaResult' });

export const ContentResult = z.object({ ...base, kind: z.literal('content') }).meta({ id: 'ContentResult' });

export const SlideResult = z
  .discriminatedUnion('kind', [
    MultipleChoiceResult,
    QuizResult,
    ScaleResult,
    RankingResult,
    OpenEndedResult,
    QaResult,
    ContentResult,
  ])
  .meta({ id: 'SlideResult' });

export const PollResults = z
  .object({
    pollId: PollId,
    totalVoters: z.number().int().describe('Distinct voters who answered at least one slide.'),
    slides: z.array(SlideResult).describe('One entry per slide, in deck order.'),
  })
  .meta({ id: 'PollResults' });

export type PollResults = z.infer<typeof PollResults>;
export type SlideResult = z.infer<typeof SlideResult>;

// Types of the same names: a request body or query as a client writes it (`z.input`: defaulted
// fields optional) for `*Input` schemas, the value as the API answers it (`z.output`) for the rest.
export type ContentResult = z.output<typeof ContentResult>;
export type MultipleChoiceResult = z.output<typeof MultipleChoiceResult>;
export type OpenEndedResult = z.output<typeof OpenEndedResult>;
export type QaResult = z.output<typeof QaResult>;
export type QuizResult = z.output<typeof QuizResult>;
export type RankingResult = z.output<typeof RankingResult>;
export type ScaleResult = z.output<typeof ScaleResult>;

/** The file a results export downloads: CSV (the default, as the specification fixes) or an XLSX workbook. */
export const ResultsFileFormat = z
  .enum(['csv', 'xlsx'])
  .default('csv')
  .describe(
    '`csv`: the columns `Slide, Question, Type, Answer / Label, Count / Value`; `xlsx`: a workbook with a summary ' +
      'sheet and one sheet per slide (docs/results-and-export.md).',
  );

/** The two results downloads' file types, keyed by `format`. */
export const resultsFiles = {
  csv: { contentType: 'text/csv; charset=utf-8' },
  xlsx: { contentType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', binary: true },
} as const;
