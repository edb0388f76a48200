import type { contract } from '@pollkit/contracts';
import type { GroupHandlers } from '../handler.js';
import * as service from './polls.service.js';

/**
 * The `polls` group's operations but skip logic's (branching/branching.handlers.ts) and deck files'
 * (decks/decks.handlers.ts): modules/index.ts joins them.
 */
export const pollsHandlers: Omit<
  GroupHandlers<typeof contract.polls>,
  'branch' | 'nextSlide' | 'import' | 'exportDeck'
> = {
  list: ({ ctx, input }) => service.listPolls(ctx.deps, ctx.credential.workspaceId, input),
  create: ({ ctx, input }) => service.createPoll(ctx.deps, ctx.credential.workspaceId, input),
  get: ({ ctx, input }) => service.readPoll(ctx.deps, ctx.credential.workspaceId, input.id),
  update: ({ ctx, input }) => service.updatePoll(ctx.deps, ctx.credential.workspaceId, input),
  delete: ({ ctx, input }) => service.deletePoll(ctx.deps, ctx.credential.workspaceId, input.id),
  duplicate: ({ ctx, input }) => service.duplicatePoll(ctx.deps, ctx.credential.workspaceId, input),
};
