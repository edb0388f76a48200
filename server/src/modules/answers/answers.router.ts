import { contract } from '@pollkit/contracts';
import { implementGroup } from '../../trpc/implement.js';
import * as service from './answers.service.js';

export const votes = implementGroup('votes', contract.votes, {
  cast: ({ ctx, input }) => service.castVote(ctx.deps, ctx.credential.workspaceId, input),
  list: ({ ctx, input }) => service.listVotes(ctx.deps, ctx.credential.workspaceId, input),
});

export const responses = implementGroup('responses', contract.responses, {
  create: ({ ctx, input }) => service.createResponse(ctx.deps, ctx.credential.workspaceId, input),
  list: ({ ctx, input }) => service.listResponses(ctx.deps, ctx.credential.workspaceId, input),
});
