import { contract } from '@pollkit/contracts';
import { defineHandlers, type GroupHandlers } from '../handler.js';
import * as service from './answers.service.js';

export const votesHandlers = defineHandlers(contract.votes, {
  cast: ({ ctx, input }) => service.castVote(ctx.deps, ctx.credential.workspaceId, input),
  list: ({ ctx, input }) => service.listVotes(ctx.deps, ctx.credential.workspaceId, input),
  delete: ({ ctx, input }) =>
    service.deleteAnswer(ctx.deps, ctx.credential.workspaceId, input.id, input.voteId, 'vote'),
});

export const answersHandlers = defineHandlers(contract.answers, {
  reset: ({ ctx, input }) => service.resetAnswers(ctx.deps, ctx.credential.workspaceId, input.id),
});

/** `moderate` is served by modules/questions (responseModerationHandlers). */
export const responsesHandlers: Omit<GroupHandlers<typeof contract.responses>, 'moderate'> = {
  create: ({ ctx, input }) => service.createResponse(ctx.deps, ctx.credential.workspaceId, input),
  list: ({ ctx, input }) => service.listResponses(ctx.deps, ctx.credential.workspaceId, input),
  delete: ({ ctx, input }) =>
    service.deleteAnswer(ctx.deps, ctx.credential.workspaceId, input.id, input.responseId, 'response'),
};
