import type { contract } from '@pollkit/contracts';
import type { GroupHandlers } from '../handler.js';
import { draftBranching, nextSlide } from './branching.service.js';

/**
 * The operations of the `polls` group that branching serves (modules/index.ts joins them with
 * polls.handlers.ts): branching reads polls, so polls may not reach up to it for these.
 */
export const branchingHandlers: Pick<GroupHandlers<typeof contract.polls>, 'branch' | 'nextSlide'> = {
  branch: ({ ctx, input }) => draftBranching(ctx.deps, ctx.credential.workspaceId, input, ctx.log),
  nextSlide: ({ ctx, input }) => nextSlide(ctx.deps, ctx.credential.workspaceId, input),
};
