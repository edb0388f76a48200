import { contract } from '@pollkit/contracts';
import { defineHandlers } from '../handler.js';
import * as service from './respondents.service.js';

export const respondentsHandlers = defineHandlers(contract.respondents, {
  get: ({ ctx, input }) => service.getRespondent(ctx.deps, ctx.credential.workspaceId, input),
  erase: ({ ctx, input }) => service.eraseRespondent(ctx.deps, ctx.credential.workspaceId, input.id),
});
