import { z } from 'zod';
import { defineRoute } from '../route.js';
import { GetPollInput } from '../schemas/polls.js';
import { PollResults } from '../schemas/results.js';

export const getResults = defineRoute({
  method: 'GET',
  path: '/polls/{id}/results',
  tags: ['results'],
  summary: 'Aggregated results',
  description: 'Per-slide aggregates, maintained as answers arrive: reading them never scans the answers.',
  auth: 'workspace',
  scope: 'responses:read',
  successStatus: 200,
  input: GetPollInput,
  output: PollResults,
  errors: ['not_found', 'validation_failed'],
});

export const exportResults = defineRoute({
  method: 'GET',
  path: '/polls/{id}/export',
  tags: ['results'],
  summary: 'Export results as CSV',
  description:
    'UTF-8, RFC 4180 CSV with the columns `Slide, Question, Type, Answer / Label, Count / Value`, downloaded as ' +
    '`poll-<id>-results.csv`. Pro and Enterprise plans.',
  auth: 'workspace',
  scope: 'export:read',
  plan: 'pro',
  successStatus: 200,
  format: 'csv',
  input: GetPollInput,
  output: z.string().describe('The CSV document.'),
  errors: ['not_found', 'validation_failed'],
});
