import { contract } from '@pollkit/contracts';
import type { GroupHandlers } from '../handler.js';
import { defineHandlers } from '../handler.js';
import * as service from './questions.service.js';

export const questionsHandlers = defineHandlers(contract.questions, {
  list: ({ ctx, input }) => service.listQuestions(ctx.deps, ctx.credential.workspaceId, input),
  moderate: ({ ctx, input }) => service.moderateQuestion(ctx.deps, ctx.credential.workspaceId, input),
  upvote: ({ ctx, input }) => service.upvoteQuestion(ctx.deps, ctx.credential.workspaceId, input),
});

/**
 * The operation of the `responses` group that moderation serves (modules/index.ts joins it with
 * answers.handlers.ts): it reads and writes the answers' statuses as Q&A moderation does.
 */
export const responseModerationHandlers: Pick<GroupHandlers<typeof contract.responses>, 'moderate'> = {
  moderate: ({ ctx, input }) => service.moderateResponse(ctx.deps, ctx.credential.workspaceId, input),
};
