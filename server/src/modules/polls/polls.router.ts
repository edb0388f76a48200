import { contract } from '@pollkit/contracts';
import { implementGroup } from '../../trpc/implement.js';
import * as polls from './polls.service.js';

export const pollsRouter = implementGroup('polls', contract.polls, {
  list: ({ ctx, input }) => polls.listPolls(ctx.deps.db, ctx.credential.workspaceId, input),
  create: ({ ctx, input }) => polls.createPoll(ctx.deps.db, ctx.credential.workspaceId, input),
  get: ({ ctx, input }) => polls.getPoll(ctx.deps.db, ctx.credential.workspaceId, input.id),
  update: ({ ctx, input }) => polls.updatePoll(ctx.deps.db, ctx.credential.workspaceId, input),
  delete: ({ ctx, input }) => polls.deletePoll(ctx.deps.db, ctx.credential.workspaceId, input.id),
});
