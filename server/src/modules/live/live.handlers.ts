import { contract } from '@pollkit/contracts';
import { defineHandlers } from '../handler.js';
import * as service from './live.service.js';

export const liveHandlers = defineHandlers(contract.live, {
  join: ({ ctx, input }) => service.joinSession(ctx.deps, ctx.live, input),
  challenge: ({ ctx }) => service.issueJoinChallenge(ctx.deps, ctx.live),
  events: async ({ ctx }) => service.liveEvents(ctx.deps, ctx.live, ctx.lastEventId),
  answer: ({ ctx, input }) => service.answerLive(ctx.deps, ctx.live, input),
  advance: ({ ctx, input }) => service.advanceLive(ctx.deps, ctx.live, input),
  upvote: ({ ctx, input }) => service.upvoteLive(ctx.deps, ctx.live, input),
});
