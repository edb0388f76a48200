import { defineRoute } from '../route.js';
import {
  ListQuestionsInput,
  ModerateQuestionInput,
  Question,
  QuestionList,
  UpvoteQuestionInput,
} from '../schemas/answers.js';

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
