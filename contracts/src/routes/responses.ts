import { defineRoute } from '../route.js';
import {
  AnswerReceipt,
  CreateResponseInput,
  ListResponsesInput,
  ModerateResponseInput,
  PollResponse,
  ResponseList,
} from '../schemas/answers.js';
import { AnswerDeleted, DeleteResponseInput } from '../schemas/respondents.js';
import { answerErrors } from './answer-errors.js';

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
  description:
    'Newest first, cursor-paginated; filter by `slideId`, `voterId`, `sessionId` and `status` (`pending`: what the ' +
    'text filter holds for review). Texts as written, with `flagged`. Votes are listed separately.',
  auth: 'workspace',
  scope: 'responses:read',
  successStatus: 200,
  input: ListResponsesInput,
  output: ResponseList,
  errors: ['not_found', 'validation_failed'],
});

export const moderateResponse = defineRoute({
  method: 'PATCH',
  path: '/polls/{id}/responses/{responseId}',
  tags: ['responses'],
  summary: 'Approve or dismiss a held answer',
  description:
    'The text filter’s review queue (`textFilter: review`, docs/moderation.md): an open-ended answer held ' +
    '`pending` is counted in the results once `approved`, never if `dismissed`; dismissing an approved one takes ' +
    'it out again. A Q&A question id works here as on `PATCH /polls/{id}/questions/{questionId}`.',
  auth: 'workspace',
  scope: 'responses:write',
  successStatus: 200,
  input: ModerateResponseInput,
  output: PollResponse,
  errors: ['not_found', 'validation_failed'],
});

export const deleteResponse = defineRoute({
  method: 'DELETE',
  path: '/polls/{id}/responses/{responseId}',
  tags: ['responses'],
  summary: 'Delete a response',
  description:
    "Removes one response (a Q&A question with its upvotes) and takes it out of the poll's results (and its " +
    "session's) exactly, in one transaction. The voter may then answer that slide again. An unknown response, " +
    'or one of another poll, answers 404.',
  auth: 'workspace',
  scope: 'responses:write',
  successStatus: 200,
  input: DeleteResponseInput,
  output: AnswerDeleted,
  errors: ['not_found', 'validation_failed'],
});
