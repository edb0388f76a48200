import { defineRoute } from '../route.js';
import { AnswerReceipt, CastVoteInput, ListAnswersInput, VoteList } from '../schemas/answers.js';
import { AnswerDeleted, DeleteVoteInput } from '../schemas/respondents.js';
import { answerErrors } from './answer-errors.js';

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

export const deleteVote = defineRoute({
  method: 'DELETE',
  path: '/polls/{id}/votes/{voteId}',
  tags: ['votes'],
  summary: 'Delete a vote',
  description:
    "Removes one vote and takes it out of the poll's results (and its session's) exactly, in one transaction. " +
    'The voter may then vote on that slide again. An unknown vote, or one of another poll, answers 404.',
  auth: 'workspace',
  scope: 'responses:write',
  successStatus: 200,
  input: DeleteVoteInput,
  output: AnswerDeleted,
  errors: ['not_found', 'validation_failed'],
});
