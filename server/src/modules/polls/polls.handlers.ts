import { contract } from '@pollkit/contracts';
import { draftBranching, nextSlide } from '../branching/branching.service.js';
import { defineHandlers } from '../handler.js';
import * as service from './polls.service.js';

export const pollsHandlers = defineHandlers(contract.polls, {
  list: ({ ctx, input }) => service.listPolls(ctx.deps, ctx.credential.workspaceId, input),
  create: ({ ctx, input }) => service.createPoll(ctx.deps, ctx.credential.workspaceId, input),
  get: ({ ctx, input }) => service.readPoll(ctx.deps, ctx.credential.workspaceId, input.id),
  update: ({ ctx, input }) => service.updatePoll(ctx.deps, ctx.credential.workspaceId, input),
  delete: ({ ctx, input }) => service.deletePoll(ctx.deps, ctx.credential.workspaceId, input.id),
  branch: ({ ctx, input }) => draftBranching(ctx.deps, ctx.credential.workspaceId, input, ctx.log),
  nextSlide: ({ ctx, input }) => nextSlide(ctx.deps, ctx.credential.workspaceId, input),
});
