import { contract } from '@pollkit/contracts';
import { defineHandlers } from '../handler.js';
import * as service from './questions.service.js';

export const questionsHandlers = defineHandlers(contract.questions, {
  list: ({ ctx, input }) => service.listQuestions(ctx.deps, ctx.credential.workspaceId, input),
  moderate: ({ ctx, input }) => service.moderateQuestion(ctx.deps, ctx.credential.workspaceId, input),
  upvote: ({ ctx, input }) => service.upvoteQuestion(ctx.deps, ctx.credential.workspaceId, input),
});
