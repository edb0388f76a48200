import { z } from 'zod';
import { defineRoute } from '../route.js';
import {
  AnswerReceipt,
  CastVoteInput,
  CreateResponseInput,
  ListAnswersInput,
  ListQuestionsInput,
  ModerateQuestionInput,
  Question,
  QuestionList,
  ResponseList,
  UpvoteQuestionInput,
  VoteList,
} from '../schemas/answers.js';
import { GetPollInput } from '../schemas/polls.js';
import { PollResults } from '../schemas/results.js';

const answerErrors = [
  'not_found',
  'validation_failed',
  'already_responded',
  'poll_not_published',
  'poll_closed',
  'service_unavailable',
] as const;

export const castVote = defineRoute({
  method: 'POST',
  path: '/polls/{id}/votes',
  tags: ['votes'],
  summary: 'Vote on a multiple-choice slide',
  description:
    'One vote per voter per slide: a second vote answers 409 `already_responded`. Other slide kinds take ' +
    '`POST /polls/{id}/responses`.',
  auth: 'workspace',
  scope: 'responses:write',
  successStatus: 201,
  input: CastVoteInput,
  output: AnswerReceipt,
  errors: answerErrors,
});

export const listVotes = defineRoute({
  method: 'GET',
  path: '/polls/{id}/votes',
  tags: ['votes'],
  summary: 'List votes',
  description: 'Newest first, cursor-paginated; filter by `slideId` and `voterId`.',
  auth: 'workspace',
  scope: 'responses:read',
  successStatus: 200,
  input: ListAnswersInput,
  output: VoteList,
  errors: ['not_found', 'validation_failed'],
});

export const createResponse = defineRoute({
  method: 'POST',
  path: '/polls/{id}/responses',
  tags: ['responses'],
  summary: 'Answer a slide',
  description:
    'Send the one field that matches the slide: `optionIds` (quiz), `scaleValue` or `scaleValues` (scale), ' +
    '`rankingOrder` (ranking), `text` (open_ended, and qa questions). One answer per voter per slide, except ' +
    'Q&A, where a voter may ask several questions.',
  auth: 'workspace',
  scope: 'responses:write',
  successStatus: 201,
  input: CreateResponseInput,
  output: AnswerReceipt,
  errors: answerErrors,
});

export const listResponses = defineRoute({
  method: 'GET',
  path: '/polls/{id}/responses',
  tags: ['responses'],
  summary: 'List responses',
  description: 'Newest first, cursor-paginated; filter by `slideId` and `voterId`. Votes are listed separately.',
  auth: 'workspace',
  scope: 'responses:read',
  successStatus: 200,
  input: ListAnswersInput,
  output: ResponseList,
  errors: ['not_found', 'validation_failed'],
});

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

export const listQuestions = defineRoute({
  method: 'GET',
  path: '/polls/{id}/questions',
  tags: ['questions'],
  summary: 'List Q&A questions',
  description: 'Newest first, cursor-paginated; filter by `slideId` and `status` (for a moderation queue: `pending`).',
  auth: 'workspace',
  scope: 'responses:read',
  successStatus: 200,
  input: ListQuestionsInput,
  output: QuestionList,
  errors: ['not_found', 'validation_failed'],
});

export const moderateQuestion = defineRoute({
  method: 'PATCH',
  path: '/polls/{id}/questions/{questionId}',
  tags: ['questions'],
  summary: 'Approve or dismiss a question',
  auth: 'workspace',
  scope: 'responses:write',
  successStatus: 200,
  input: ModerateQuestionInput,
  output: Question,
  errors: ['not_found', 'validation_failed'],
});

export const upvoteQuestion = defineRoute({
  method: 'POST',
  path: '/polls/{id}/questions/{questionId}/upvotes',
  tags: ['questions'],
  summary: 'Upvote a question',
  description: 'Once per voter per question, on slides with `allowUpvotes`; only approved questions take upvotes.',
  auth: 'workspace',
  scope: 'responses:write',
  successStatus: 201,
  input: UpvoteQuestionInput,
  output: Question,
  errors: [
    'not_found',
    'validation_failed',
    'already_upvoted',
    'upvotes_disabled',
    'poll_not_published',
    'poll_closed',
  ],
});
