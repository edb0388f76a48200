import { defineRoute } from '../route.js';
import { AnswersReset, ResetAnswersInput } from '../schemas/answers.js';

export const resetAnswers = defineRoute({
  method: 'DELETE',
  path: '/polls/{id}/answers',
  tags: ['answers'],
  summary: "Delete a poll's answers",
  description:
    'Deletes every vote, response and Q&A question of the poll (with their upvotes) and resets its results ' +
    'to zero, in one transaction: for a poll tried out before going live. The poll keeps its status; once it ' +
    'has no answers its slides can be edited again (`PATCH /polls/{id}` with `content`) and every voter can ' +
    'answer again. Answers arriving while the reset runs are either deleted with the rest or recorded after ' +
    'it, never half of each. Cannot be undone.',
  auth: 'workspace',
  scope: 'responses:write',
  successStatus: 200,
  input: ResetAnswersInput,
  output: AnswersReset,
  errors: ['not_found', 'validation_failed'],
});
