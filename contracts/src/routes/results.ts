import { z } from 'zod';
import { defineRoute } from '../route.js';
import { GetPollInput } from '../schemas/polls.js';
import { PollResults, ResultsFileFormat, resultsFiles } from '../schemas/results.js';

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
  summary: 'Export results as CSV or XLSX',
  description:
    'UTF-8, RFC 4180 CSV with the columns `Slide, Question, Type, Answer / Label, Count / Value`, downloaded as ' +
    '`poll-<id>-results.csv`; with `format=xlsx`, a workbook (`poll-<id>-results.xlsx`) with a summary sheet and ' +
    'one sheet per slide. Pro and Enterprise plans.',
  auth: 'workspace',
  scope: 'export:read',
  plan: 'pro',
  successStatus: 200,
  format: 'file',
  files: resultsFiles,
  input: GetPollInput.extend({ format: ResultsFileFormat }).meta({ id: 'ExportResultsInput' }),
  output: z.string().describe('The CSV document, or the XLSX workbook.'),
  errors: ['not_found', 'validation_failed'],
});
